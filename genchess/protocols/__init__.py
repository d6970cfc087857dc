"""The text protocols a GUI speaks to GenChess: UCI (`uci`) and xboard / CECP (`xboard`).

Beside the two protocol loops sit what only they use: `channel` (the text line to
the GUI: lenient reading, flushed writing, the log), `options` (the settings both
protocols and the command line share, checked once whichever door they come
through) and `wdl` (the win/draw/loss model behind `UCI_ShowWDL`). They parse text
and drive the engine facade (genchess.engine); none holds chess logic. This
`__init__` imports nothing, so `genchess uci` loads only the protocol it speaks.
"""
