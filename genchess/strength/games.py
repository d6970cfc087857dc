"""A trainer's matches played through its executor: game pairs into a Tally, or a set of games.

The trainers measure genomes against each other in-process, on the executor their
evolution runs on (local processes or a cluster), not through `genchess match`,
whose games are between engine processes. Two shapes cover them:

    play_pairs   one genome against another in game pairs (each opening twice,
                 colours reversed, the first genome White first), counted by a
                 Tally; with an SPRT in the Tally it stops once the test decides.
                 The champion's SPRT, evolve's validation games and the
                 Kendall-Whitwell study's reference match.
    play_all     a list of games, every one played, the results in the list's
                 order: a round robin (multi-niche crowding's, the study's).

Trade-off: play_pairs keeps no more games in flight than there are workers (at
least a pair), so an SPRT that has decided wastes little; play_all sends every
game at once, since all of them are wanted. A Ctrl-C held for a safe point
(executors.ctrl_c_at_safe_points) is acted on between games in both.
"""

from __future__ import annotations

from typing import Callable

from genchess.parallel import executors
from genchess.parallel.worker import GameJob, GameResult, play_job
from genchess.strength.sprt import CONTINUE
from genchess.strength.tally import Tally

# (white genome, black genome, start FEN or None) -> the game as the caller plays it
JobMaker = Callable[[object, object, "str | None"], GameJob]
# (game number, its result) -> None: e.g. write its PGN
OnGame = Callable[[int, GameResult], None]


def play_pairs(executor, workers: int, player, opponent, openings: list[str | None],
               make_job: JobMaker, games: int, tally: Tally | None = None,
               on_game: OnGame | None = None) -> Tally:
    """Up to `games` games of `player` against `opponent`: game n starts from
    openings[(n // 2) % len(openings)] (none given: the standard position) with
    `player` White when n is even, and games 2k and 2k+1 are pair k. Counted from
    `player`'s side in `tally` (a fresh one by default), which is returned; stops
    early when the tally's SPRT decides (the games still running then finish and
    are not counted)."""
    tally = Tally() if tally is None else tally
    running: dict = {}                      # future -> game number
    number = 0
    while True:
        while number < games and len(running) < max(workers, 2) and tally.verdict == CONTINUE:
            opening = openings[(number // 2) % len(openings)] if openings else None
            white, black = (player, opponent) if number % 2 == 0 else (opponent, player)
            running[executor.submit(play_job, make_job(white, black, opening))] = number
            number += 1
        if not running:
            break
        done, _ = executors.wait_first(running)
        for future in done:
            n = running.pop(future)
            result = future.result()
            if on_game is not None:
                on_game(n, result)
            tally.add(result.record.result, white=n % 2 == 0, pair=n // 2)
        if tally.verdict != CONTINUE:
            # Games already running finish in their workers; their results are not needed.
            for future in running:
                future.cancel()
            for _ in executors.as_completed([f for f in running if not f.cancelled()]):
                pass
            break
    return tally


def play_all(executor, jobs: list[GameJob], on_game: OnGame | None = None) -> list[GameResult]:
    """Every job played; the results in the jobs' order (`on_game` sees each as it
    finishes, numbered by its place in `jobs`)."""
    results: list = [None] * len(jobs)
    futures = {executor.submit(play_job, job): n for n, job in enumerate(jobs)}
    for future in executors.as_completed(futures):
        n = futures[future]
        results[n] = future.result()
        if on_game is not None:
            on_game(n, results[n])
    return results
