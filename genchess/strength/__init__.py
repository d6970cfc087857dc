"""Measuring strength: the one place GenChess computes an Elo, an interval or an SPRT.

`tally` (the one accumulator: PGN results in; W-D-L, game pairs, Elo and the
SPRT's verdict out), `stats` (scores, Elo, LOS and the pentanomial interval),
`sprt` (the sequential test that decides between two Elo hypotheses), `ratings`
(a rating fitted against anchored opponents), the match and gauntlet runners that
`genchess match` and `genchess gauntlet` use, `tournament_managers` (cutechess-cli
and fastchess for tests and scripts), and `games`, the trainers' matches on their executor (game
pairs into a Tally for the champion, validation and the Kendall-Whitwell study; a
round robin's games). Games run through genchess.parallel; nothing here imports
genchess.train. The openings the matches start from are genchess.game.openings
(the set maker reads them too, and stands below measuring).
"""
