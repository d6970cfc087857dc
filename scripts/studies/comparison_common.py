"""What the search-comparison scripts share: positions, engines, matches, tables, plots.

The comparisons (scripts/studies/search_effort.py, ga_matches.py, ga_blunders.py) reproduce
tables of Kendall and Whitwell (2001) and Dehghani and Babamir (2017) on our
engine. Middle-game positions are derived, not shipped: the first openings of
genchess/data/openings.epd, each played on for a few half-moves by the full search
at depth 3 (deterministic), so every run sees the same positions. Games go through
genchess.game.play_game and are counted by the measuring package's Tally;
the tables print W/D/L and percentages, as the papers do.
"""

from __future__ import annotations

import sys
from pathlib import Path

from genchess.engine import Engine
from genchess.game import EnginePlayer, play_game
from genchess.game.pgn import pgn_text
from genchess.genome import Genome, GenomeError, load_genome
from genchess.strength.stats import MatchStats
from genchess.strength.tally import Tally
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.gasearch import DEFAULT_POOL_NODES

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "genchess" / "data"
DOCS = REPO / "docs" / "studies"   # the comparisons' plots sit beside their page


def epd_positions(path: Path) -> list[tuple[str, dict[str, str]]]:
    """(FEN with counters, operations) of each EPD line; comments and blanks skipped."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(maxsplit=4)
        if len(fields) < 4:
            sys.exit(f"{path}:{number}: not an EPD line")
        ops = {}
        for op in (fields[4] if len(fields) > 4 else "").split(";"):
            key, _, value = op.strip().partition(" ")
            if key:
                ops[key] = value.strip().strip('"')
        out.append((" ".join(fields[:4]) + " 0 1", ops))
    return out


def opening_fens(count: int) -> list[str]:
    fens = [fen for fen, _ in epd_positions(DATA / "openings.epd")]
    if count > len(fens):
        sys.exit(f"only {len(fens)} openings in {DATA / 'openings.epd'}, not {count}")
    return fens[:count]


def middle_game_fens(count: int = 20, plies: int = 6) -> list[str]:
    """The first `count` openings played on `plies` half-moves by the full search at depth 3."""
    engine = Engine(hash_mb=8)
    out = []
    for fen in opening_fens(count):
        board = Board(fen)
        for _ in range(plies):
            if board.is_game_over(claim_draw=True):
                break
            engine.new_game()
            engine.board = board.copy()
            board.push_uci(engine.search(Limits(depth=3)).bestmove)
        out.append(board.fen())
    return out


def make_engine(mode: str = "iterative", ga_level: int = 1, hash_mb: int = 16,
                genome: Genome | None = None, ga_nodes: int = DEFAULT_POOL_NODES) -> Engine:
    """An engine in search `mode` with `genome` (None: the hand-set genome, as the
    comparisons on docs/studies/search-comparisons.md were made)."""
    engine = Engine(genome, hash_mb=hash_mb, search_mode=mode)
    engine.ga_init_level = ga_level
    engine.ga_nodes = ga_nodes
    return engine


def add_engine_arguments(parser) -> None:
    """--genome and --ga-nodes: what the GA scripts let a run change about both sides."""
    parser.add_argument("--genome", help="genome file both sides play (default: the hand-set genome)")
    parser.add_argument("--ga-nodes", type=int, default=DEFAULT_POOL_NODES,
                        help=f"the GA's node pool (default {DEFAULT_POOL_NODES:,}); a full pool stops it")


def engine_from_arguments(args, mode: str, ga_level: int = 1) -> Engine:
    """make_engine with the --genome and --ga-nodes of add_engine_arguments; a bad
    genome file ends the script with the loader's one-line message."""
    genome = None
    if args.genome:
        try:
            genome = load_genome(args.genome)
        except GenomeError as e:
            sys.exit(f"{Path(sys.argv[0]).name}: {e}")
    if args.ga_nodes < 2:
        sys.exit(f"{Path(sys.argv[0]).name}: --ga-nodes must be at least 2, not {args.ga_nodes}")
    return make_engine(mode, ga_level, genome=genome, ga_nodes=args.ga_nodes)


def average_move_seconds(engine: Engine, fens: list[str], depth: int) -> float:
    """Mean wall time of a fixed-depth search over `fens` (the GA's budget at that depth)."""
    total = 0.0
    for fen in fens:
        engine.new_game()
        engine.board = Board(fen)
        total += engine.search(Limits(depth=depth)).time_ms / 1000
    return total / len(fens)


def wdl(stats: MatchStats) -> str:
    return f"{stats.wins}/{stats.draws}/{stats.losses}"


def describe(player: EnginePlayer) -> str:
    """A player with its limit, for a PGN's Event tag (fixed-time games have no
    TimeControl of their own)."""
    if player.movetime_ms:
        return f"{player.name} at {player.movetime_ms} ms a move"
    return f"{player.name} at depth {player.depth}" if player.depth else player.name


def match(player: EnginePlayer, opponent: EnginePlayer, starts: list[str], max_plies: int,
          progress=None, pgn: Path | None = None) -> MatchStats:
    """Each start twice, colours swapped (a game pair); the score is `player`'s. With
    `pgn`, every game is appended to that file as it ends."""
    tally = Tally()
    for n, fen in enumerate(starts):
        for player_white in (True, False):
            white, black = (player, opponent) if player_white else (opponent, player)
            record = play_game(white, black, start_fen=fen, max_plies=max_plies)
            tally.add(record.result, white=player_white, pair=n)
            if pgn is not None:
                with open(pgn, "a", encoding="utf-8") as out:
                    out.write(pgn_text(record, event=f"{describe(player)} v {describe(opponent)}",
                                       tags={"Round": str(2 * n + (0 if player_white else 1) + 1)})
                              + "\n")
            if progress:
                progress(f"  {record.white} v {record.black}: {record.result} ({record.termination}, "
                         f"{len(record.moves)} plies)")
    return tally.stats


def markdown_table(headers: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def save_plot(fig, name: str) -> Path:
    DOCS.mkdir(exist_ok=True)
    path = DOCS / name
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
