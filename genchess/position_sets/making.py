"""Positions from games: the unit of work of `genchess positions`.

One job is one game: given (a PGN game) or to be played (GenChess or Stockfish
self-play at a fixed node count from a varied opening). A worker plays it if
needed, samples a few positions spread over it, resolves each to the quiet
position at the end of GenChess's own quiescence search, and scores them with
the mentor if asked. Everything random in a job comes from one generator keyed
by (seed, game number), and both engines are deterministic at a node count
from a cleared state, so a game gives the same positions on any worker, in any
order, however often the run is interrupted: that is what lets an interrupted run resume exactly.

Each worker keeps its engines between jobs (a GenChess resolver per genome, one
Stockfish process for self-play and the mentor), like the trainers' game worker.
"""

from __future__ import annotations

import atexit
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.util import Finalize

from genchess.parallel.plain import plain_type
from genchess.position_sets.epd import GAME_LABEL, MENTOR_CLAMP_CP, position_key
from genchess_core import Board

RESOLVER_HASH_MB = 1        # quiescence uses no hash table
STOCKFISH_HASH_MB = 16
MENTOR_HASH_MB = 4          # GenChess's own search scoring positions: cleared before each
MAX_PLIES = 600             # a self-play game this long is stopped and called a draw

_local = threading.local()


@dataclass
class PositionsJob:
    number: int                 # the game's number in the run: keys its randomness
    source: str                 # "file.pgn game 3", "genchess", "stockfish" (for messages)
    engine: str | None          # None: the game is given; "genchess" or "stockfish": play it
    start_fen: str
    moves: tuple[str, ...]      # the given game's moves, or the opening's moves to play first
    result: str | None = None   # the given game's result
    nodes: int = 0              # per move, self-play
    depth: int = 0              # per move, self-play, instead of nodes
    random_plies: int = 0       # random legal plies after the opening, self-play
    genome: str = ""            # genome file text: GenChess plays with it and resolves every position
    stockfish: str = "stockfish"
    seed: int = 0
    skip_plies: int = 8
    per_game: int = 8
    mentor: tuple[str, str, int] | None = None   # ("stockfish" or "genchess", "depth" or "nodes", N)
    chess960: bool = False      # played (or given) by Chess960's rules: castling king-takes-rook


@plain_type
@dataclass
class PositionsResult:
    number: int
    engine: str | None
    result: str
    plies: int
    positions: list[tuple[str, int | None]]     # (4 FEN fields, ce: side to move's view or None)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def game_rng(seed: int, number: int) -> random.Random:
    return random.Random(f"genchess-positions:{seed}:{number}")


def run_job(job: PositionsJob) -> PositionsResult:
    """Play (if needed), sample, resolve and label one game's positions."""
    t0 = time.perf_counter()
    rng = game_rng(job.seed, job.number)
    counts: Counter = Counter()
    if job.engine is None:
        start, moves, result = job.start_fen, list(job.moves), job.result
    else:
        start = opening_position(job.start_fen, job.moves, job.random_plies, rng, job.chess960)
        if start is None:
            counts["openings_ended"] += 1
            return PositionsResult(job.number, job.engine, "*", 0, [], dict(counts),
                                   time.perf_counter() - t0)
        if job.mentor and tuple(job.mentor) == GAME_LABEL and job.engine == "genchess":
            moves, result, scores = play_genchess(job, start, scored=True)
            positions = scored_positions(start, moves, scores, job, rng, counts)
            return PositionsResult(job.number, job.engine, result, len(moves), positions, dict(counts),
                                   time.perf_counter() - t0)
        if job.engine == "genchess":
            moves, result, _ = play_genchess(job, start)
        else:
            moves, result = play_stockfish(job, start)
    samples = sample_positions(start, moves, job.skip_plies, job.per_game, rng, counts)
    positions = []
    resolver = resolver_for(job.genome)
    from genchess_core.quiet_resolution import resolve_quiet
    for fen in samples:
        resolution = resolve_quiet(resolver, Board(fen))
        counts[f"resolved_{resolution.status}"] += 1
        if resolution.fen is not None:
            kept = packable_castling(resolution.fen)
            if kept != resolution.fen:
                counts["castling_dropped"] += 1
            positions.append((position_key(kept), None))
    if job.mentor and positions:
        fens = [fen for fen, _ in positions]
        if job.mentor[0] == "genchess":
            scores = genchess_scores(job.genome, fens, job.mentor[1:], job.chess960)
        else:
            scores = mentor_scores(job.stockfish, fens, job.mentor[1:], job.chess960)
        positions = [(fen, ce) for (fen, _), ce in zip(positions, scores)]
        counts["mentor_clamped"] += sum(abs(ce) >= MENTOR_CLAMP_CP for ce in scores)
    return PositionsResult(job.number, job.engine, result, len(moves), positions, dict(counts),
                           time.perf_counter() - t0)


def packable_castling(fen: str) -> str:
    """`fen` with only the castling rights a packed position set keeps: it stores four
    bits and reads them as X-FEN's K and Q (the outermost rook on that side), so a
    right X-FEN names by its rook's file (a Chess960 rook with another rook of its
    side further out) would come back as the wrong rook's; it is dropped instead.
    Standard chess never writes one."""
    fields = fen.split(" ")
    kept = "".join(right for right in fields[2] if right in "KQkq") or "-"
    return fen if kept == fields[2] else " ".join(fields[:2] + [kept] + fields[3:])


def opening_position(fen: str, moves, random_plies: int, rng: random.Random,
                     chess960: bool = False) -> str | None:
    """The FEN after the opening's moves and `random_plies` random legal ones (None
    if the game ends on the way)."""
    board = Board(fen, chess960=chess960)
    for move in moves:
        board.push_uci(move)
    for _ in range(random_plies):
        legal = sorted(board.legal_moves())
        if not legal:
            return None
        board.push_uci(rng.choice(legal))
    if board.outcome(claim_draw=True).termination is not None:
        return None
    return board.fen()


def spread_sample(candidates: list, k: int, rng: random.Random) -> list:
    """`k` of `candidates` (all of them if fewer), one from each of k equal stretches."""
    k = min(k, len(candidates))
    return [rng.choice(candidates[i * len(candidates) // k:(i + 1) * len(candidates) // k])
            for i in range(k)]


def scored_positions(start: str, moves: list[str], scores: list[int | None], job: PositionsJob,
                     rng: random.Random, counts: Counter) -> list[tuple[str, int]]:
    """The positions of a GenChess game labelled by its own search (--mentor
    genchess:game): those after `skip_plies` where the side to move is not in check
    and the move its search chose is quiet (no capture, no promotion), so that the
    search's score is a quiet position's, with no quiescence to resolve; `per_game`
    of them spread over the game, each with the score of the search that chose its
    move (side to move's view, mates clamped as a mentor's are)."""
    board = Board(start, chess960=job.chess960)
    candidates = []
    for ply, (move, cp) in enumerate(zip(moves, scores)):
        if ply >= job.skip_plies:
            if board.is_check():
                counts["in_check"] += 1
            elif board.is_capture(move) or len(move) == 5:
                counts["loud_move"] += 1
            elif cp is not None:
                candidates.append((packable_castling(board.fen()), max(-MENTOR_CLAMP_CP, min(MENTOR_CLAMP_CP, cp))))
        board.push_uci(move)
    chosen = spread_sample(candidates, job.per_game, rng)
    counts["sampled"] += len(chosen)
    return [(position_key(fen), cp) for fen, cp in chosen]


def sample_positions(start: str, moves: list[str], skip_plies: int, per_game: int,
                     rng: random.Random, counts: Counter) -> list[str]:
    """Up to `per_game` positions of the game, one from each of as many equal
    stretches of it: never among the first `skip_plies` plies after `start`,
    never in check, never the final position (the game is over there)."""
    board = Board(start)
    candidates = []
    for ply, move in enumerate(moves):
        if ply >= skip_plies:
            if board.is_check():
                counts["in_check"] += 1
            else:
                candidates.append(board.fen())
        board.push_uci(move)
    chosen = spread_sample(candidates, per_game, rng)
    counts["sampled"] += len(chosen)
    return chosen


# ------------------------------------------------------------------ engines kept per worker

def resolver_for(genome_text: str):
    """A Searcher holding `genome_text`'s genome, kept for the next job."""
    return searcher_for(genome_text, "resolvers", RESOLVER_HASH_MB)


def searcher_for(genome_text: str, role: str, hash_mb: int):
    """This worker's Searcher for `role` holding `genome_text`'s genome (the default
    genome when empty), made once and kept for the next job."""
    searchers = _local.__dict__.setdefault(role, {})
    if genome_text not in searchers:
        from genchess.genome import default_genome, parse_genome_text
        from genchess_core.searcher import Searcher
        genome = parse_genome_text(genome_text).genomes[0] if genome_text else default_genome()
        searcher = Searcher(hash_mb)
        searcher.set_genome(genome.pack())
        searchers.clear()                       # one genome per run: keep no stale ones
        searchers[genome_text] = searcher
    return searchers[genome_text]


def play_genchess(job: PositionsJob, start: str, scored: bool = False):
    """(moves, result, scores): GenChess against itself at `job.nodes` (or `job.depth`) a move; with
    `scored`, each move's search score in centipawns from the mover's side (None for
    none), else scores is None."""
    from genchess.parallel.worker import GameJob, play_job
    game = GameJob(white_id=job.number, black_id=job.number, white_genome=job.genome,
                   black_genome=job.genome, start_fen=start, nodes=job.nodes or None,
                   depth=job.depth or None, chess960=job.chess960)
    scores: list[int | None] | None = [] if scored else None
    record = play_job(game, on_score=scores.append if scored else None).record
    return list(record.moves), record.result, scores


def stockfish_for(path: str):
    """This worker's Stockfish (one thread, a small hash), started once."""
    engines = _local.__dict__.setdefault("stockfish", {})
    if path not in engines:
        import chess.engine

        from genchess.game.external import quit_engine
        engine = chess.engine.SimpleEngine.popen_uci(path)
        engine.configure({"Threads": 1, "Hash": STOCKFISH_HASH_MB})
        # A worker process joins its threads before it exits, and python-chess's
        # engine thread lives until quit(): multiprocessing's finalizers run before
        # that join (a local pool), atexit where there is no such join (dask, threads).
        Finalize(None, quit_engine, args=(engine,), exitpriority=10)
        atexit.register(quit_engine, engine)
        engines[path] = engine
    return engines[path]


def play_stockfish(job: PositionsJob, start: str) -> tuple[list[str], str]:
    """Stockfish against itself at `job.nodes` (or `job.depth`) per move. A new game object per game
    makes python-chess send ucinewgame, which clears Stockfish's hash and
    histories: the game depends on its start alone."""
    import chess
    import chess.engine
    engine = stockfish_for(job.stockfish)
    board = chess.Board(start, chess960=job.chess960)
    game = object()
    moves: list[str] = []
    limit = chess.engine.Limit(depth=job.depth) if job.depth else chess.engine.Limit(nodes=job.nodes)
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return moves, outcome.result()
        if len(moves) >= MAX_PLIES:
            return moves, "1/2-1/2"
        move = engine.play(board, limit, game=game).move
        board.push(move)
        moves.append(move.uci())


def genchess_scores(genome_text: str, fens: list[str], limit: tuple[str, int],
                    chess960: bool = False) -> list[int]:
    """GenChess's own search score of each position in centipawns, side to move's
    view, at a fixed depth or node count on one thread, mates clamped to
    +-MENTOR_CLAMP_CP as Stockfish's are. The hash is cleared before each position,
    so a score depends on the position and the genome alone: any worker gives it."""
    searcher = searcher_for(genome_text, "mentors", MENTOR_HASH_MB)
    return [fresh_search(searcher, fen, limit, chess960)[0] for fen in fens]


def fresh_search(searcher, fen: str, limit: tuple[str, int], chess960: bool = False) -> tuple[int, int]:
    """(score in centipawns from the side to move's view, nodes searched) of `fen` at
    ("depth" or "nodes", N), the hash cleared first; mates and larger scores clamped to
    +-MENTOR_CLAMP_CP."""
    from genchess_core.searcher import MATE_THRESHOLD
    searcher.clear()
    searcher.clear_stop()
    key, value = limit
    found = searcher.search(Board(fen, chess960=chess960),
                            **({"max_depth": value} if key == "depth" else {"node_limit": value}))
    score = found["lines"][0][0]
    if abs(score) > MATE_THRESHOLD:
        return (MENTOR_CLAMP_CP if score > 0 else -MENTOR_CLAMP_CP), found["nodes"]
    return max(-MENTOR_CLAMP_CP, min(MENTOR_CLAMP_CP, round(score * 100 / searcher.pawn_unit))), found["nodes"]


def mentor_scores(path: str, fens: list[str], mentor: tuple[str, int],
                  chess960: bool = False) -> list[int]:
    """Stockfish's score of each position in centipawns, side to move's view,
    mates and larger scores clamped to +-MENTOR_CLAMP_CP (Chess960 positions told
    as such, so their castling rights count). The hash is cleared before each
    position, so a score does not depend on the ones before it."""
    import chess
    import chess.engine
    engine = stockfish_for(path)
    limit = chess.engine.Limit(**{mentor[0]: mentor[1]})
    scores = []
    for fen in fens:
        info = engine.analyse(chess.Board(fen, chess960=chess960), limit, game=object())
        cp = info["score"].relative.score(mate_score=10 * MENTOR_CLAMP_CP)
        scores.append(max(-MENTOR_CLAMP_CP, min(MENTOR_CLAMP_CP, cp)))
    return scores
