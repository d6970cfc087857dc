"""Make/unmake: whatever is pushed and popped again leaves no trace.

Long seeded random walks (thousands of plies, null moves mixed in, backtracking out
of mates) record the full observable state before every push and compare it on the
way back up, so an undo record that forgets a field, a key that drifts or a
history entry that is not restored shows up at the exact ply it goes wrong.
"""

import functools
import random

import pytest

from genchess_core import Board, MoveError

SEED = 7919
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POS3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POS4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POS5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
CASTLING = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
ROOKS = "4k3/8/8/8/8/8/8/R3K2R w KQ - 37 50"

# (start, plies, capture bias, null-move rate, piece floor). Below the floor the walk
# avoids captures, so it wanders with material for thousands of plies (castling,
# promotions, en passant deep in the walk); walks without a floor lose their material
# and shuffle kings, filling the repetition history well past its ring size.
WALKS = [
    (START, 3000, 0.0, 0.05, 10),
    (START, 3000, 0.9, 0.10, 0),
    (KIWIPETE, 2500, 0.5, 0.10, 12),
    (KIWIPETE, 2500, 0.7, 0.10, 0),
    (POS3, 2500, 0.5, 0.10, 6),
    (POS4, 2000, 0.7, 0.05, 8),
    (POS5, 2000, 0.7, 0.05, 0),
    (CASTLING, 2000, 0.3, 0.10, 4),
    (ROOKS, 2000, 0.2, 0.20, 0),
]


def state(board):
    """The position as the Board API shows it."""
    return (board.fen(), board.key, board.turn, board.halfmove_clock, board.fullmove_number,
            board.is_check(), tuple(sorted(board.legal_moves())))


def history_state(board):
    """What depends on the history of keys rather than the position alone."""
    return board.repetition_count(), board.outcome(claim_draw=True).termination


def squares(fen):
    """Square name -> piece letter for the placement field of `fen`."""
    occupied = {}
    for i, row in enumerate(fen.split()[0].split("/")):
        file_ = 0
        for ch in row:
            if ch.isdigit():
                file_ += int(ch)
            else:
                occupied["abcdefgh"[file_] + str(8 - i)] = ch
                file_ += 1
    return occupied


def choose(board, moves, rng, capture_bias, floor):
    occupied = squares(board.fen())
    captures = [m for m in moves if m[2:4] in occupied or len(m) == 5]
    if len(occupied) <= floor:
        quiet = [m for m in moves if m[2:4] not in occupied]
        if quiet:
            return rng.choice(quiet)
    if captures and rng.random() < capture_bias:
        return rng.choice(captures)
    return rng.choice(moves)


class Walk:
    """A walk down and back up, recording (not raising) what was not restored, so a
    broken repetition history does not hide whether the position itself comes back."""

    def __init__(self, start, plies, rng, capture_bias, null_rate, floor):
        self.position_errors = []   # (count, first few)
        self.history_errors = []
        self.stats = {"moves": 0, "nulls": 0, "backtracks": 0, "deepest": 0}
        self.trail = []             # (state, history state, move stack length, pushed)
        self.board = board = Board(start)
        self.initial = state(board)
        pushes = 0
        while pushes < plies:
            moves = board.legal_moves()
            in_check = board.is_check()
            if not moves and in_check:
                # Checkmate: back out a few plies (itself a test of pop mid-walk) and go on.
                for _ in range(min(len(self.trail), rng.randint(1, 4))):
                    self.pop_one()
                self.stats["backtracks"] += 1
                if not self.trail and not board.legal_moves():
                    break
                continue
            record = (state(board), history_state(board))
            if not in_check and (not moves or rng.random() < null_rate):
                board.push_null()
                pushed = "0000"
                self.stats["nulls"] += 1
            else:
                pushed = choose(board, moves, rng, capture_bias, floor)
                board.push_uci(pushed)
                self.stats["moves"] += 1
            self.trail.append(record + (pushed,))
            pushes += 1
            self.stats["deepest"] = max(self.stats["deepest"], len(self.trail))
            if not board.verify_key():
                self.position_errors.append(f"verify_key() False after pushing {pushed} "
                                            f"at ply {len(self.trail)}: {board.fen()}")
            if pushes % 500 == 0:
                self.check_stack()
        self.check_stack()
        while self.trail:
            self.pop_one()
        self.final = state(board)

    def check_stack(self):
        stack = [pushed for _, _, pushed in self.trail]
        if self.board.move_stack != stack:
            self.position_errors.append(f"move_stack differs at ply {len(stack)}")

    def pop_one(self):
        board = self.board
        position, history, pushed = self.trail.pop()
        ply = len(self.trail)
        popped = board.pop()
        if popped != pushed:
            self.position_errors.append(f"pop() returned {popped!r}, pushed {pushed!r} at ply {ply}")
        now = state(board)
        if now != position:
            diff = [(a, b) for a, b in zip(position, now) if a != b]
            self.position_errors.append(f"after popping {pushed} at ply {ply}: (was, now) {diff}")
        if not board.verify_key():
            self.position_errors.append(f"verify_key() False after popping {pushed} at ply {ply}")
        if history_state(board) != history:
            self.history_errors.append(f"after popping {pushed} at ply {ply} ({board.fen()}): "
                                       f"repetition_count and outcome(claim_draw=True) were "
                                       f"{history}, now {history_state(board)}")


@functools.lru_cache(maxsize=None)
def walked(i):
    start, plies, capture_bias, null_rate, floor = WALKS[i]
    rng = random.Random(f"{SEED}:{start}:{plies}:{floor}")
    return Walk(start, plies, rng, capture_bias, null_rate, floor)


def shown(errors):
    return f"{len(errors)} errors, first:\n" + "\n".join(errors[:5])


@pytest.mark.parametrize("i", range(len(WALKS)), ids=[f"walk{i}" for i in range(len(WALKS))])
def test_random_walk_down_and_back_restores_the_position(i):
    start = WALKS[i][0]
    w = walked(i)
    assert not w.position_errors, shown(w.position_errors)
    assert w.final == w.initial
    assert w.board.fen() == Board(start).fen() and w.board.key == Board(start).key
    assert w.board.move_stack == []
    with pytest.raises(IndexError):
        w.board.pop()
    assert w.stats["deepest"] > 1024, w.stats        # well past the repetition ring
    assert 0 < w.stats["nulls"] < w.stats["moves"], w.stats
    assert w.stats["moves"] + w.stats["nulls"] >= 2000, w.stats


def test_random_walks_down_and_back_restore_repetition_history():
    errors = []
    for i in range(len(WALKS)):
        errors += [f"walk{i} {e}" for e in walked(i).history_errors]
    assert not errors, shown(errors)


def test_every_move_of_every_suite_position_unmakes(perftsuite_fens, opening_fens):
    for fen in perftsuite_fens + opening_fens:
        board = Board(fen)
        before = state(board)
        for uci in board.legal_moves():
            board.push_uci(uci)
            assert board.verify_key(), f"{fen} + {uci}"
            assert board.key == Board(board.fen()).key, f"{fen} + {uci}: key differs from its FEN's"
            assert board.pop() == uci
            assert state(board) == before, f"{fen}: {uci} not undone"
        if not board.is_check():
            board.push_null()
            assert board.verify_key()
            assert board.key == Board(board.fen()).key, f"{fen} + null: key differs from its FEN's"
            assert board.pop() == "0000"
            assert state(board) == before, f"{fen}: null move not undone"


def test_repetition_count_survives_popping_back_past_the_history_ring():
    # Kings walk a six-ply triangle (a period that does not divide the ring size)
    # for longer than the key history holds; popping back must give the counts
    # seen on the way down.
    cycle = ["e3d3", "e6d6", "d3d2", "d6d7", "d2e3", "d7e6"]
    board = Board("8/8/4k3/8/8/4K3/8/8 w - - 0 1")
    counts = []
    for i in range(1100):
        counts.append(board.repetition_count())
        board.push_uci(cycle[i % 6])
    wrong = []
    for ply in range(1099, -1, -1):
        board.pop()
        if board.repetition_count() != counts[ply]:
            wrong.append((ply, counts[ply], board.repetition_count()))
    assert not wrong, (f"{len(wrong)} plies with a wrong repetition_count after popping "
                       f"(ply, on the way down, after popping): {wrong[:3]} ... {wrong[-3:]}")


def test_pop_on_a_board_without_moves_raises_index_error():
    with pytest.raises(IndexError):
        Board().pop()
    board = Board(KIWIPETE)
    board.push_uci("e1g1")
    board.set_fen(POS3)                      # a new position starts a new history
    assert board.move_stack == []
    with pytest.raises(IndexError):
        board.pop()
    assert board.fen() == POS3


def test_null_move_in_check_raises_and_changes_nothing():
    board = Board(START)
    for uci in "f2f3 e7e5 g2g4".split():
        board.push_uci(uci)
    board.push_uci("d8h4")                   # mate, and white is in check
    before = state(board)
    with pytest.raises(MoveError):
        board.push_null()
    assert state(board) == before
    assert board.move_stack == ["f2f3", "e7e5", "g2g4", "d8h4"]

    checked = Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    with pytest.raises(MoveError):
        checked.push_null()
    assert checked.fen() == "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"


def test_null_move_passes_the_turn_and_drops_en_passant():
    board = Board(START)
    for uci in "e2e4 g8f6 e4e5 d7d5".split():
        board.push_uci(uci)
    before = state(board)
    assert board.fen().split()[3] == "d6"
    board.push_null()
    fields = board.fen().split()
    assert fields[0] == before[0].split()[0] and fields[1] == "b" and fields[2] == "KQkq"
    assert fields[3] == "-"
    assert board.key == Board(board.fen()).key != before[1]
    board.push_null()                        # two nulls in a row are fine
    assert board.pop() == "0000" and board.pop() == "0000"
    assert state(board) == before


def test_copy_is_independent():
    rng = random.Random(SEED)
    board = Board(KIWIPETE)
    for _ in range(150):                     # past the initial undo capacity
        moves = board.legal_moves()
        if not moves:
            break
        board.push_uci(rng.choice(moves))
    original = state(board)
    stack = board.move_stack
    assert len(stack) > 64
    dup = board.copy()
    assert state(dup) == original and dup.move_stack == stack

    # Moves on the copy leave the original alone, and the other way round.
    dup.push_uci(dup.legal_moves()[0])
    assert state(board) == original
    dup.pop()
    board.push_uci(board.legal_moves()[-1])
    assert state(dup) == original
    board.pop()

    # The copy has its own history all the way back to the start, and survives the original.
    del board
    while dup.move_stack:
        dup.pop()
        assert dup.verify_key()
    assert dup.fen() == Board(KIWIPETE).fen() and dup.key == Board(KIWIPETE).key
    with pytest.raises(IndexError):
        dup.pop()


def test_copy_keeps_repetition_history():
    board = Board("8/8/4k3/8/8/4K3/8/R7 w - - 0 1")
    for uci in "e3d3 e6d6 d3e3 d6e6 e3d3 e6d6 d3e3 d6e6".split():
        board.push_uci(uci)
    dup = board.copy()
    assert board.repetition_count() == dup.repetition_count() == 3
    assert dup.outcome(claim_draw=True).termination == "threefold_repetition"
    dup.set_fen(START)
    assert board.repetition_count() == 3 and board.fen().startswith("8/8/4k3")
