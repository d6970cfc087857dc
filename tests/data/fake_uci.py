"""A misbehaving UCI engine for the match runner's tests.

    fake_uci.py slow      thinks far longer than any clock allows
    fake_uci.py illegal   answers every go with an illegal move
    fake_uci.py crash     dies when asked to move
    fake_uci.py random    plays a random legal move at once (needs python-chess)
"""
import random
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "random"
board = None
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print(f"id name Fake {mode}\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        import chess
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
        if "moves" in words:
            for move in words[words.index("moves") + 1:]:
                board.push_uci(move)
    elif words[0] == "go":
        if mode == "slow":
            time.sleep(30)
        if mode == "crash":
            sys.exit(3)
        if mode == "illegal":
            print("bestmove a1a8" if board.piece_at(0) is None else "bestmove e2e5", flush=True)
            continue
        print(f"bestmove {random.choice(list(board.legal_moves)).uci()}", flush=True)
    elif words[0] == "quit":
        break
