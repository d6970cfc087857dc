"""Measuring strength: the one place GenChess computes an Elo, an interval or an SPRT.

`stats` (W/D/L and game pairs to score, Elo, LOS, pentanomial interval), `sprt`
(the sequential test that decides between two Elo hypotheses), `ratings` (a
rating fitted against anchored opponents), and the match and gauntlet runners
that `genchess match`, `genchess gauntlet` and the trainers' champion use.
"""
