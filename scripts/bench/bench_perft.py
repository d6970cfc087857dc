"""Perft speed of GenChess against python-chess and Stockfish, in one run.

All three count the leaf moves of the last ply in bulk (the move list's length),
as Stockfish's `go perft` does; GenChess is also timed making and unmaking every
leaf move, the figure that matters for search. Stockfish (Debian's `stockfish`
package) is driven over UCI and timed from `go perft` to its `Nodes searched`
line, so its start-up is not counted. Usage:

    python scripts/bench/bench_perft.py [--quick]
"""

import argparse
import shutil
import subprocess
import time

from genchess_core import Board

POSITIONS = [
    # name, FEN, depth for GenChess and Stockfish, depth for python-chess
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 3),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7, 5),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5, 3),
]


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def python_chess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


class Stockfish:
    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send("uci")
        self.name = self.wait_for("id name")[len("id name"):].strip()   # the ratio says against which
        self.wait_for("uciok")
        self.send("setoption name Threads value 1")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix):
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line
        raise RuntimeError("stockfish exited")

    def perft(self, fen, depth):
        self.send(f"position fen {fen}")
        self.send("isready")
        self.wait_for("readyok")
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        line = self.wait_for("Nodes searched")
        return int(line.split(":")[1]), time.perf_counter() - start

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one ply less everywhere")
    args = parser.parse_args()
    less = 1 if args.quick else 0

    try:
        import chess
    except ImportError:
        chess = None
        print("python-chess not installed (pip install chess): its column is skipped")
    sf_path = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
    stockfish = Stockfish(sf_path) if sf_path else None
    if not stockfish:
        print("Stockfish not found (apt-get install stockfish): its column is skipped")

    totals = {"bulk": [0, 0.0], "full": [0, 0.0], "python-chess": [0, 0.0], "stockfish": [0, 0.0]}
    header = f"{'position':<11} {'depth':>5} {'nodes':>11} {'GenChess':>10} {'make-all':>10} " \
             f"{'py-chess':>10} {'Stockfish':>10}   (million nodes per second)"
    print(header)
    for name, fen, depth, pc_depth in POSITIONS:
        depth -= less
        board = Board(fen)
        nodes, t_bulk = timed(lambda: board.perft(depth))
        full_nodes, t_full = timed(lambda: board.perft(depth - 1, bulk=False))
        row = {"bulk": (nodes, t_bulk), "full": (full_nodes, t_full)}
        if chess:
            pc_board = chess.Board(fen)
            pc_nodes, t_pc = timed(lambda: python_chess_perft(pc_board, pc_depth - less))
            assert pc_nodes == Board(fen).perft(pc_depth - less), "python-chess disagrees"
            row["python-chess"] = (pc_nodes, t_pc)
        if stockfish:
            sf_nodes, t_sf = stockfish.perft(fen, depth)
            assert sf_nodes == nodes, f"Stockfish counts {sf_nodes}, GenChess {nodes}"
            row["stockfish"] = (sf_nodes, t_sf)
        for key, (n, t) in row.items():
            totals[key][0] += n
            totals[key][1] += t
        cells = [f"{row[k][0] / row[k][1] / 1e6:10.2f}" if k in row else f"{'-':>10}"
                 for k in ("bulk", "full", "python-chess", "stockfish")]
        print(f"{name:<11} {depth:>5} {nodes:>11} " + " ".join(cells))
    if stockfish:
        stockfish.close()

    nps = {k: n / t for k, (n, t) in totals.items() if t > 0}
    print()
    print(f"GenChess perft, bulk leaf counting: {nps['bulk'] / 1e6:8.2f} M nodes/s")
    print(f"GenChess perft, make/unmake every leaf: {nps['full'] / 1e6:4.2f} M nodes/s")
    if "python-chess" in nps:
        print(f"python-chess perft:                 {nps['python-chess'] / 1e6:8.3f} M nodes/s")
        print(f"ratio GenChess / python-chess:      {nps['bulk'] / nps['python-chess']:8.1f}x (target >= 100x)")
    if "stockfish" in nps:
        print(f"{stockfish.name} go perft (1 thread): {nps['stockfish'] / 1e6:8.2f} M nodes/s")
        print(f"ratio GenChess / Stockfish:         {nps['bulk'] / nps['stockfish']:8.2f}x (target >= 0.5x)")


if __name__ == "__main__":
    main()
