"""Clock stress: does GenChess ever lose on time, play an illegal move or crash?

    python scripts/dev/stress_tc.py                              # 1000 self-play games at 1+0.01, 200 at 10+0.1 vs Stockfish
    python scripts/dev/stress_tc.py --selfplay 40 --stockfish 4  # a quick look
    python scripts/dev/stress_tc.py --threads 2 --manager fastchess --pgn-dir games/
    python scripts/dev/stress_tc.py --threads 2 --protocol xboard --stockfish 0
    python scripts/dev/stress_tc.py --search budget --player turing
    python scripts/dev/stress_tc.py --threads 2 --option "Time Scaling=true"  # a trial turned on
    python scripts/dev/stress_tc.py --variant chess960 --selfplay 0 --stockfish 200 --elo 2000

cutechess-cli (or fastchess, --manager) is the referee, with no grace on the clock
(timemargin=0) and the machine's two cores in use: two games at a time on one thread
each, one at a time on two (--threads 2, GenChess's `Threads` option, or xboard's
`cores` with --protocol xboard; --concurrency overrides), as in a tournament on a
two-core machine. Self-play games run at a very short control (1+0.01), where any
latency outside the search shows at once; the games against Stockfish
(`UCI_LimitStrength`, a few `UCI_Elo` levels, one thread) run at 10+0.1, the control the
loss on time was seen at. The output is a count per engine of each fault the manager
reports (time loss, illegal move, crash or disconnect, stalled connection), read from
its `Finished game` lines (fastchess writes them in cutechess-cli's words with `-output
format=cutechess`); the exit status is 1 if GenChess had any. Each match's games go to
--pgn-dir, one PGN per match named by the opponent, the manager and the threads.

With --variant chess960 every game starts from one of the 960 start positions (both
managers' `-variant fischerandom`, the positions drawn from all 960 unless --openings
names a file), each played with both colours.

The managers are found as the tests find them (genchess.strength.tournament_managers):
PATH, then $GENCHESS_TOURNAMENT_BIN. fastchess
speaks UCI only.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
OPENINGS = REPO_ROOT / "genchess" / "data" / "openings.epd"

try:
    import genchess.strength  # noqa: F401  (an installed GenChess)
except ImportError:
    sys.path.insert(0, str(REPO_ROOT))          # a checkout without an install
from genchess.strength import tournament_managers as tournament  # noqa: E402


def genchess_argv(args, name: str) -> list[str]:
    """The GenChess engine called `name` as the manager's -engine words (cutechess-cli's
    arg= words, fastchess's one args= word)."""
    command = shutil.which("genchess") or str(Path(sys.executable).parent / "genchess")
    if not Path(command).exists():
        command, extra = sys.executable, ["-m", "genchess"]
    else:
        extra = []
    extra += [args.protocol, "--search", args.search]
    if args.player:
        extra += ["--player", args.player]
    if args.log_dir:
        extra += ["--log", str(Path(args.log_dir).resolve() / f"{name}.log")]
    # The threads the way a tournament sets them: the protocol's option, not --threads.
    threads = f"option.cores={args.threads}" if args.protocol == "xboard" else f"option.Threads={args.threads}"
    words = [f"name={name}", f"cmd={command}", f"dir={REPO_ROOT}", f"proto={args.protocol}", threads,
             *(f"option.{option}" for option in args.option)]
    if args.manager == "fastchess":
        return words + ["args=" + " ".join(extra)]       # one word; no argument has a space
    return words + [f"arg={a}" for a in extra]


def write_chess960_openings(folder: str) -> Path:
    """All 960 Chess960 start positions, one X-FEN a line, as an EPD file in `folder`
    (fastchess takes Chess960 positions from its openings only)."""
    from genchess.game.openings import CHESS960_POSITIONS, chess960_fen
    path = Path(folder) / "chess960.epd"
    path.write_text("".join(" ".join(chess960_fen(n).split()[:4]) + "\n" for n in range(CHESS960_POSITIONS)))
    return path


def level_shares(games: int, levels: int) -> list[int]:
    """Games at each Stockfish level: whole game pairs adding up to `games` (the first
    levels take the odd pairs; at least one pair each), so 200 over three levels is
    68, 66, 66, not 3 x 66."""
    pairs = max(games // 2, levels)
    return [2 * (pairs // levels + (i < pairs % levels)) for i in range(levels)]


def run_match(manager: str, engines: list[list[str]], tc: str, games: int, args,
              label: str) -> Counter:
    """Play `games` games between two engine specs; print and return the faults per engine."""
    label = f"{label}{'-960' if args.variant == 'chess960' else ''}-{args.manager}{'-xboard' if args.protocol == 'xboard' else ''}-threads{args.threads}"
    pgn = Path(args.pgn_dir).resolve() / f"{label}.pgn"
    command = [manager]
    for spec in engines:
        command += ["-engine", *spec]
    command += ["-each", f"tc={tc}", "timemargin=0",
                "-openings", f"file={Path(args.openings).resolve()}", "format=epd", "order=random",
                *(["-variant", "fischerandom"] if args.variant == "chess960" else []),
                "-repeat", "-games", "2", "-rounds", str(max(games // 2, 1)),
                "-concurrency", str(args.concurrency), "-recover"]
    if args.manager == "fastchess":
        command += ["-pgnout", f"file={pgn}", "-output", "format=cutechess"]
    else:
        command += ["-pgnout", str(pgn)]
    print(f"== {label}: {max(games // 2, 1) * 2} games at {tc}", flush=True)
    # In the PGN's folder: fastchess leaves its tournament state (config.json) where it runs.
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=args.pgn_dir)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        game = next(iter(tournament.parse_games(line)), None)
        if (line.startswith("Warning") and "GenChess" in line) or (game and (args.verbose or game.fault)):
            print("   " + line.rstrip(), flush=True)
    proc.wait()
    output = "".join(lines)
    games_played = tournament.parse_games(output)
    names = [next(w.split("=", 1)[1] for w in spec if w.startswith("name=")) for spec in engines]
    counts = tournament.fault_counts(games_played, names)
    results = Counter(g.result for g in games_played)
    print(f"   {len(games_played)} games finished ({dict(results)}); PGN: {pgn}")
    # GenChess's warnings one by one; the opponent's by kind (fastchess warns at every
    # move of a Stockfish whose UCI_LimitStrength plays off its PV).
    theirs = Counter()
    for problem in tournament.warnings(output):
        if "GenChess" in problem:
            print(f"   {args.manager}: " + problem)
        else:
            theirs[re.sub(r"\bmove \S+ ", "move ... ", problem)] += 1
    for problem, count in theirs.items():
        print(f"   {args.manager}: {count} x {problem}")
    for name in names:
        c = counts[name]
        print(f"   {name:<16} time losses {c['time loss']:>3}  illegal moves {c['illegal move']:>3}  "
              f"crashes {c['crash']:>3}  stalls {c['stall']:>3}  bad claims {c['bad claim']:>3}")
    genchess = Counter()
    for name in names:
        if name.startswith("GenChess"):
            genchess += counts[name]
    expected = max(games // 2, 1) * 2
    if len(games_played) < expected:
        # A manager that stopped early (an engine it could not start, a bad option) is
        # no clean run: the games it never played may be the ones that would have failed.
        print(f"   {expected - len(games_played)} of {expected} games did not finish")
        genchess["unfinished"] += expected - len(games_played)
    return genchess


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Count GenChess's time losses, illegal moves and "
                                            "crashes under a tournament manager with strict clocks.")
    p.add_argument("--selfplay", type=int, default=1000, metavar="N", help="self-play games (default 1000)")
    p.add_argument("--selfplay-tc", default="1+0.01", help="their time control (default 1+0.01)")
    p.add_argument("--stockfish", type=int, default=200, metavar="M",
                   help="games against Stockfish, shared among the Elo levels (default 200)")
    p.add_argument("--stockfish-tc", default="10+0.1", help="their time control (default 10+0.1)")
    p.add_argument("--elo", default="1350,1800,2300",
                   help="Stockfish UCI_Elo levels, comma-separated (default 1350,1800,2300)")
    p.add_argument("--search", choices=("iterative", "budget"), default="iterative")
    p.add_argument("--player", help="a genchess --player (random, turing, montecarlo, genetic[:FILE[:ID]])")
    p.add_argument("--threads", type=int, default=1,
                   help="GenChess's search threads, set by the protocol's option (default 1)")
    p.add_argument("--manager", choices=("cutechess-cli", "fastchess"), default="cutechess-cli",
                   help="the tournament manager that referees (default cutechess-cli)")
    p.add_argument("--protocol", choices=("uci", "xboard"), default="uci",
                   help="how GenChess is spoken to (xboard: cutechess-cli only; default uci)")
    p.add_argument("--concurrency", type=int,
                   help="games at a time (default: two cores' worth, 2 // threads, at least 1)")
    p.add_argument("--variant", choices=("standard", "chess960"), default="standard",
                   help="chess960: every game from a Chess960 start position (default standard)")
    p.add_argument("--openings", help="EPD openings (default: the shipped set; in chess960 all 960 "
                                      "start positions)")
    p.add_argument("--pgn-dir", help="where the PGN files go (default: a new temporary directory)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an engine option of GenChess in every game, e.g. 'Time Scaling=true' (a trial); repeatable")
    p.add_argument("--log-dir", help="give each GenChess a --log file here (timestamps of every line)")
    p.add_argument("--verbose", action="store_true", help="print every finished game")
    args = p.parse_args(argv)
    if args.threads < 1:
        p.error("--threads must be at least 1")
    if args.manager == "fastchess" and args.protocol == "xboard":
        p.error("fastchess speaks UCI only: --protocol xboard needs --manager cutechess-cli")
    if args.concurrency is None:
        args.concurrency = max(1, 2 // args.threads)

    manager, why = tournament.find_manager(args.manager)
    if manager is None:
        print(f"stress_tc: {why}", file=sys.stderr)
        return 2
    args.pgn_dir = args.pgn_dir or tempfile.mkdtemp(prefix="stress_tc-")
    for folder in (args.pgn_dir, args.log_dir):
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
    if args.openings is None:
        args.openings = OPENINGS if args.variant == "standard" else write_chess960_openings(args.pgn_dir)
    if not Path(args.openings).exists():
        print(f"stress_tc: no openings file {args.openings}", file=sys.stderr)
        return 2
    total = Counter()
    if args.selfplay > 0:
        total += run_match(manager, [genchess_argv(args, "GenChess-A"), genchess_argv(args, "GenChess-B")],
                           args.selfplay_tc, args.selfplay, args, "selfplay")
    if args.stockfish > 0:
        stockfish = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
        if stockfish is None:
            print("stress_tc: stockfish is not installed (apt-get install stockfish)", file=sys.stderr)
            return 2
        try:
            levels = [int(e) for e in args.elo.split(",")]
        except ValueError:
            print(f"stress_tc: --elo wants whole numbers, not {args.elo!r}", file=sys.stderr)
            return 2
        for elo, per_level in zip(levels, level_shares(args.stockfish, len(levels))):
            # Stockfish with its own margin: at none it was seen to lose on time itself on
            # a loaded machine, and its faults are not what this counts.
            theirs = [f"name=Stockfish-{elo}", f"cmd={stockfish}", "proto=uci", "option.UCI_LimitStrength=true",
                      f"option.UCI_Elo={elo}", "option.Threads=1", "option.Move Overhead=100"]
            total += run_match(manager, [genchess_argv(args, "GenChess"), theirs], args.stockfish_tc,
                               per_level, args, f"stockfish-{elo}")
    print(f"GenChess in all: time losses {total['time loss']}, illegal moves {total['illegal move']}, "
          f"crashes {total['crash']}, stalls {total['stall']}, bad claims {total['bad claim']}, "
          f"unfinished games {total['unfinished']}")
    return 1 if sum(total.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
