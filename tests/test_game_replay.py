"""Every game a worker sends back is replayed before it is recorded (parallel/replay.py),
and GameExecutor plays a refused one again instead of passing it on.

The records checked here are real: games played by play_game (GenChess engines at a
fixed depth, random movers that reach every drawn ending, a player whose flag falls),
then tampered with as a broken or hostile worker might. The executor tests wrap a
fake inner executor that hands out a tampered result first and the true one after.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import threading
from collections import Counter
from random import Random

import chess
import pytest

from genchess.game.adjudication import Adjudication
from genchess.genome import Genome
from genchess.game import GameRecord, TimeExpired, play_game, TimeControl
from genchess.parallel import executors
from genchess.parallel.replay import record_problem, result_problem
from genchess.parallel.worker import GameJob, GameResult, play_job
from genchess.players.random_player import RandomPlayer
from genchess.train.gene_pool import GenePoolTrainer
from genchess.train.registry import parse_config
from train_helpers import game_key, read_pgn_games, write_config


def fixed_depth_job(depth: int = 1, start_fen: str | None = None) -> GameJob:
    white, black = Genome.random(Random(1), 1), Genome.random(Random(2), 2)
    return GameJob.between(white, black, start_fen=start_fen, round=1, seconds=1.0, depth=depth)


@pytest.fixture(scope="module")
def played():
    job = fixed_depth_job()
    return job, play_job(job)


def tampered(game: GameResult, **changes) -> GameResult:
    return dataclasses.replace(game, record=dataclasses.replace(game.record, **changes))


class Flagger(RandomPlayer):
    """Moves at random, and lets its flag fall on its `at`-th move."""

    def __init__(self, seed: int, at: int):
        super().__init__(seed)
        self.at, self.moves = at, 0

    def choose_move(self, board, clock):
        self.moves += 1
        if self.moves == self.at:
            raise TimeExpired
        return super().choose_move(board, clock)


# ------------------------------------------------------------------ records that pass

def test_real_games_pass(played):
    job, result = played
    assert result_problem(result, job) is None
    opening = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"   # an en passant square
    job = fixed_depth_job(start_fen=opening)
    assert result_problem(play_job(job), job) is None


def test_random_games_reach_every_drawn_end_and_pass():
    """Random movers end games by every rule the board has; python-chess and the
    core must agree on each, or the trainer would refuse honest games."""
    starts = [None, "8/8/8/3k4/8/8/8/3KB3 w - - 95 80", "8/8/4k3/8/8/3K4/8/7Q w - - 0 1",
              "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"]
    ends = Counter()
    for n in range(80):
        record = play_game(RandomPlayer(2 * n), RandomPlayer(2 * n + 1), starts[n % len(starts)],
                           max_plies=400)
        assert record_problem(record, timed=False, max_plies=400) is None, record
        ends[record.termination] += 1
    assert {"checkmate", "insufficient material", "fifty moves", "threefold repetition"} <= set(ends)


def test_a_flag_fall_passes_with_a_clock_only_and_with_the_result_the_rule_gives():
    record = play_game(RandomPlayer(1), Flagger(2, at=5), control=TimeControl(60))
    assert record.termination == "time forfeit" and record.result == "1-0"
    assert record_problem(record, timed=True) is None
    assert "without a clock" in record_problem(record, timed=False)
    assert "gives 1-0" in record_problem(dataclasses.replace(record, result="1/2-1/2"), timed=True)
    assert "clock" in record_problem(dataclasses.replace(record, clock=[60.0, 12.0]), timed=True)
    # Losing on time to a rook wins for the rook; to a bare king it is a draw.
    record = play_game(RandomPlayer(3), Flagger(4, at=1), "4k3/8/8/8/8/8/8/4K2R b - - 0 1",
                       control=TimeControl(60))
    assert (record.result, record.termination) == ("1-0", "time forfeit")
    assert record_problem(record, timed=True) is None
    record = play_game(Flagger(5, at=1), RandomPlayer(6), "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
                       control=TimeControl(60))
    assert (record.result, record.termination) == ("1/2-1/2", "time forfeit")
    assert record_problem(record, timed=True) is None
    assert "gives 1/2-1/2" in record_problem(dataclasses.replace(record, result="0-1"), timed=True)


def test_ends_that_players_adjudicators_and_limits_make():
    start = chess.STARTING_FEN
    moves = ["e2e4", "e7e5"]
    base = GameRecord(start, moves, "0-1", "resignation", "White resigns", "w", "b")
    assert record_problem(base, timed=False) is None
    assert "gives 0-1" in record_problem(dataclasses.replace(base, result="1-0"), timed=False)
    illegal = dataclasses.replace(base, termination="illegal move",
                                  reason="White loses: illegal move 'e1e3' in ...")
    assert record_problem(illegal, timed=False) is None
    legal = dataclasses.replace(illegal, reason="White loses: illegal move 'g1f3' in ...")
    assert "g1f3 is called illegal but is legal" in record_problem(legal, timed=False)
    # Adjudication: only under rules that have it; a loss is the side's that just moved.
    judged = dataclasses.replace(base, result="1-0", termination="adjudication",
                                 reason="Black loses by adjudication")
    assert "without adjudication rules" in record_problem(judged, timed=False)
    rules = Adjudication(resign_moves=3)
    assert record_problem(judged, timed=False, adjudication=rules) is None
    assert "gives 1-0" in record_problem(dataclasses.replace(judged, result="0-1"), timed=False,
                                         adjudication=rules)
    assert "no draws" in record_problem(dataclasses.replace(judged, result="1/2-1/2"), timed=False,
                                        adjudication=rules)
    limit = dataclasses.replace(base, result="1/2-1/2", termination="move limit")
    assert record_problem(limit, timed=False, max_plies=2) is None
    assert "limit is 3" in record_problem(limit, timed=False, max_plies=3)
    assert "went on past the move limit" in record_problem(limit, timed=False, max_plies=1)
    assert "cannot end it" in record_problem(dataclasses.replace(base, termination="crash"), timed=False)


# ------------------------------------------------------------------ tampered records

@pytest.mark.parametrize("change, problem", [
    (lambda r: {"moves": ["e2e5"] + r.moves[1:]}, "ply 1 (e2e5) is illegal in"),
    (lambda r: {"moves": r.moves[:-1] + ["zz"]}, "is not a move"),
    (lambda r: {"result": "1-0" if r.result != "1-0" else "0-1"}, "checkmate gives"),
    (lambda r: {"result": "1/2-1/2"}, "checkmate gives"),
    (lambda r: {"result": "2-0"}, "none of 1-0"),
    (lambda r: {"termination": "stalemate"}, "ends the game by checkmate, not by 'stalemate'"),
    (lambda r: {"moves": r.moves[:-1]}, "still going"),
    (lambda r: {"opening_plies": 4}, "marked as an opening"),
    (lambda r: {"start_fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1"}, "not from the job's position"),
    (lambda r: {"moves": None}, "cannot be read"),
])
def test_a_tampered_record_is_refused_naming_the_problem(played, change, problem):
    job, result = played
    assert result.record.termination == "checkmate"         # (what the changes assume)
    assert problem in result_problem(tampered(result, **change(result.record)), job)


def test_a_game_played_on_past_its_end_is_refused():
    # Knights out and back twice: the start position stands for the third time after
    # ply 8, and a worker that claims the game went on to a win lies.
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    record = GameRecord(chess.STARTING_FEN, shuffle, "1/2-1/2", "threefold repetition", "", "w", "b")
    assert record_problem(record, timed=False) is None
    longer = dataclasses.replace(record, moves=shuffle + ["e2e4", "e7e5"], result="1-0",
                                 termination="resignation")
    assert "over (threefold repetition) before ply 9" in record_problem(longer, timed=False)


def test_a_result_of_another_job_or_no_game_at_all_is_refused(played):
    job, result = played
    assert "another game" in result_problem(result, dataclasses.replace(job, white_id=7))
    assert "a str came back instead of a game" in result_problem("1-0", job)


# ------------------------------------------------------------------ the executor plays it again

class TamperingExecutor(cf.Executor):
    """Plays every job for real, in threads. The first result of each of the first
    len(changes) jobs comes back changed by the next of `changes` (a function of
    the true result); with `always`, every result does."""

    def __init__(self, changes=(), always=None):
        self.pool = cf.ThreadPoolExecutor(2)
        self.changes, self.always = list(changes), always
        self.handed: dict = {}          # job key -> the results handed out, in order
        self.lock = threading.Lock()

    @staticmethod
    def key(job):
        return str(job.round), str(job.pool), str(job.white_id), str(job.black_id)

    def submit(self, fn, /, *args, **kwargs):
        key = self.key(args[0])
        with self.lock:
            change = self.always
            if key not in self.handed:
                self.handed[key] = []
                if self.changes:
                    change = self.changes.pop(0)

        def run():
            result = fn(*args, **kwargs)
            if change is not None:
                result = change(result)
            with self.lock:
                self.handed[key].append(result)
            return result

        return self.pool.submit(run)

    def shutdown(self, wait=True, *, cancel_futures=False):
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def illegal_first_move(result):
    return tampered(result, moves=["e2e5"] + result.record.moves[1:])


def wrong_winner(result):
    flipped = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[result.record.result]
    return tampered(result, result=flipped)


def test_a_refused_result_is_played_again_and_the_true_one_returned():
    job = fixed_depth_job()
    lines = []
    inner = TamperingExecutor([illegal_first_move])
    executor = executors.GameExecutor(inner, "lost", out=lines.append)
    try:
        result = executor.submit(play_job, job).result(60)
    finally:
        executor.shutdown()
    (bad, good), = inner.handed.values()
    assert result is good and result_problem(result, job) is None
    assert bad.record.moves[0] == "e2e5"
    assert lines == [f"Refused game 1-2 of round 1 from a worker: ply 1 (e2e5) is illegal in "
                     f"{chess.STARTING_FEN}; playing it again"]


def test_a_game_refused_again_and_again_stops_the_run():
    lines = []
    executor = executors.GameExecutor(TamperingExecutor(always=wrong_winner), "lost", out=lines.append)
    try:
        with pytest.raises(executors.ExecutorLost, match=f"{executors.MAX_REFUSALS} results of game "
                                                         f"1-2 of round 1 were refused"):
            executor.submit(play_job, fixed_depth_job()).result(60)
    finally:
        executor.shutdown()
    assert len(lines) == executors.MAX_REFUSALS - 1
    assert all("checkmate gives" in line for line in lines)


def test_a_gene_pool_run_records_the_true_games_not_the_tampered_ones(tmp_path, monkeypatch):
    """The run's first two games come back tampered (an illegal move, a wrong winner):
    its files hold the games played again, and the console says why."""
    monkeypatch.chdir(tmp_path)
    config = parse_config(write_config(tmp_path / "run.cfg", time_limit="3 seconds", seed=23))
    lines: list[str] = []
    inner = TamperingExecutor([illegal_first_move, wrong_winner])
    trainer = GenePoolTrainer(config, out=lines.append, executor_factory=lambda workers: (
        contextlib.nullcontext(executors.GameExecutor(inner, "lost", out=lines.append))))
    assert trainer.run() == 0, "\n".join(lines[-20:])
    refused = [line for line in lines if line.startswith("Refused game")]
    assert len(refused) == 2, lines                 # (in the order the games finished)
    assert sorted("is illegal in" in line for line in refused) == [False, True]
    assert sorted("but the record says" in line for line in refused) == [False, True]
    replayed = {key: results for key, results in inner.handed.items() if len(results) == 2}
    assert len(replayed) == 2
    games = {game_key(g)[:4]: g for g in read_pgn_games(tmp_path / "pool.txt_games.txt")}
    for key, (bad, good) in replayed.items():
        game = games[key]
        assert [m.uci() for m in game.mainline_moves()] == good.record.moves
        assert game.headers["Result"] == good.record.result
        assert bad.record != good.record
