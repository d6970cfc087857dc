"""The core against python-chess on tens of thousands of positions.

A GenChess Board and a python-chess Board play the same seeded playouts in
lockstep, and at every position the two are compared: legal moves, check, mate,
stalemate, the draw rules, FEN, repetition count and the Zobrist key. The sample is
built once per module (a fixture that only observes and records) and each rule has
its own test, so one broken rule shows as one failing test with reproductions.

Playouts come in three flavours: uniform random; capture-biased (captures,
promotions, castling and pawn runs first, sometimes checks), which reaches
endgames, promotions, en passant and castling edge cases; and king/knight shuffles
in sparse endgames, which mostly retrace their own steps so that repetitions and the
fifty- and seventy-five-move rules really happen.

Precedence: our outcome() puts stalemate before insufficient material, python-chess
the other way round, so the rules are compared one by one where ours can be seen
(and the precedence itself has its own targeted test at the end).
"""

import random
from collections import Counter, defaultdict, namedtuple

import chess
import pytest

from genchess_core import Board

SEED = 20240917
MIN_POSITIONS = 20_000
MAX_SHOWN = 5           # reproductions shown per failing rule

START = chess.STARTING_FEN

# Sparse endgames: king/knight shuffles reach repetitions and the move-count rules
# (some start with a high halfmove clock), the rest give mates, stalemates,
# promotions, en passant and every flavour of insufficient material.
ENDGAMES = [
    "8/8/3k4/3p4/3P4/3K4/8/8 w - - 0 1",                 # blocked pawns, kings wander
    "4k3/8/8/2n5/8/8/3N4/4K3 w - - 0 1",                 # N v N (sufficient)
    "8/2k5/8/8/8/8/5NN1/6K1 w - - 90 60",                # NN v K, near the fifty-move rule
    "8/8/8/4k3/8/8/2B5/4K1B1 w - - 140 100",             # bishops on both colours, near 75
    "6k1/8/8/8/8/8/1r6/R5K1 w - - 97 80",                # R v R, near fifty
    "8/8/4k3/8/8/2B5/8/4K3 w - - 0 1",                   # K+B v K
    "8/8/4k3/8/8/8/8/4K1N1 b - - 0 1",                   # K+N v K
    "8/8/4kb2/8/8/8/3B4/4K3 w - - 0 1",                  # bishops all on dark squares
    "8/8/4k3/8/8/4K3/8/8 w - - 0 1",                     # K v K
    "k7/8/8/8/8/8/8/4K1Q1 w - - 0 1",                    # K+Q v K
    "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1",                    # K+Q v K, mate or stalemate near
    "8/1P6/8/8/8/8/5pk1/K7 w - - 0 1",                   # promotion race
    "8/8/8/3k4/8/8/4P3/4K3 w - - 0 1",                   # K+P v K
    "4k3/8/8/8/1p1p1p1p/8/P1P1P1P1/4K3 w - - 0 1",       # en passant everywhere
    "4k3/pppppppp/8/1P1P1P1P/8/8/8/4K3 b - - 0 1",       # and for white
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",              # back-rank mates
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",              # castling, rooks to be taken
    "8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1",                 # e2e4: dxe3 pinned on the rank
]

Position = namedtuple("Position", [
    "playout", "ply",
    # the move lists: ours minus theirs, theirs minus ours, our duplicates
    "extra", "missing", "duplicates", "n_legal",
    "our_check", "their_check",
    "termination", "result", "claim_termination", "game_over", "claim_game_over",
    "their_game_over", "checkmate", "stalemate", "insufficient", "seventyfive", "fifty",
    "repetitions", "exact_repetitions", "their_rep3", "their_rep5",
    "our_fen", "their_fen", "fen4", "key", "key_verified", "legal_ep",
])


class Sample:
    """All observed positions plus what is needed to reproduce each one."""

    def __init__(self):
        self.playouts = []          # (label, start FEN, moves)
        self.positions = []
        self.setup_errors = []
        self.moves = Counter()      # kinds of moves played

    def where(self, pos):
        label, start, moves = self.playouts[pos.playout]
        line = " ".join(moves[:pos.ply]) or "(no moves)"
        return f"[{label}] Board({start!r}), then {line}\n    -> {pos.their_fen}"

    def report(self, bad, what):
        shown = "\n".join(f"  {what(p)}\n    at {self.where(p)}" for p in bad[:MAX_SHOWN])
        return f"{len(bad)} of {len(self.positions)} positions differ:\n{shown}"


def observe(sample, index, ply, ours, theirs, exact_repetitions):
    our_moves = ours.legal_moves()
    our_set = set(our_moves)
    their_set = {m.uci() for m in theirs.legal_moves}
    outcome = ours.outcome()
    claimed = ours.outcome(claim_draw=True)
    their_fen = theirs.fen()
    sample.positions.append(Position(
        playout=index, ply=ply,
        extra=sorted(our_set - their_set), missing=sorted(their_set - our_set),
        duplicates=len(our_moves) - len(our_set), n_legal=len(their_set),
        our_check=ours.is_check(), their_check=theirs.is_check(),
        termination=outcome.termination, result=outcome.result,
        claim_termination=claimed.termination,
        game_over=ours.is_game_over(), claim_game_over=ours.is_game_over(claim_draw=True),
        their_game_over=theirs.is_game_over(),
        checkmate=theirs.is_checkmate(), stalemate=theirs.is_stalemate(),
        insufficient=theirs.is_insufficient_material(),
        seventyfive=theirs.is_seventyfive_moves(), fifty=theirs.is_fifty_moves(),
        repetitions=ours.repetition_count(), exact_repetitions=exact_repetitions,
        their_rep3=theirs.is_repetition(3), their_rep5=theirs.is_fivefold_repetition(),
        our_fen=ours.fen(), their_fen=their_fen, fen4=" ".join(their_fen.split()[:4]),
        key=ours.key, key_verified=ours.verify_key(), legal_ep=theirs.has_legal_en_passant(),
    ))
    return sorted(our_set & their_set)


# ------------------------------------------------------------------ move choice

def uniform(board, moves, rng, history):
    return rng.choice(moves)


def ends_the_game(board, uci):
    board.push_uci(uci)
    try:
        return not any(board.generate_legal_moves())
    finally:
        board.pop()


def capture_biased(board, moves, rng, history):
    if chess.popcount(board.occupied) <= 6 and rng.random() < 0.5:
        # Sparse: look for mates and stalemates, rare in random play.
        enders = [u for u in moves if ends_the_game(board, u)]
        if enders:
            return rng.choice(enders)
    if rng.random() < 0.85:
        special, forcing = [], []
        for uci in moves:
            move = chess.Move.from_uci(uci)
            if move.promotion or board.is_en_passant(move) or board.is_castling(move):
                special.append(uci)
            elif board.is_capture(move):
                forcing.append(uci)
            elif board.piece_type_at(move.from_square) == chess.PAWN:
                to_rank = chess.square_rank(move.to_square)
                if abs(to_rank - chess.square_rank(move.from_square)) == 2 and \
                        _next_to_enemy_pawn(board, move.to_square):
                    special.append(uci)       # a double push that gives an en-passant right
                elif to_rank in (1, 2, 5, 6):
                    forcing.append(uci)       # pawns running to promote
        if special and rng.random() < 0.8:
            uci = rng.choice(special)
            if len(uci) == 5 and rng.random() < 0.5:
                uci = uci[:4] + "q"          # queens as often as the three others together
            return uci
        if forcing:
            return rng.choice(forcing + special)
        if rng.random() < 0.5:
            checks = [u for u in moves if board.gives_check(chess.Move.from_uci(u))]
            mates = [u for u in checks if ends_the_game(board, u)]
            if mates or checks:
                return rng.choice(mates or checks)
    return rng.choice(moves)


def _next_to_enemy_pawn(board, square):
    enemy_pawns = board.pieces_mask(chess.PAWN, not board.turn)
    file_ = chess.square_file(square)
    neighbours = [square + d for d, ok in ((-1, file_ > 0), (1, file_ < 7)) if ok]
    return any(enemy_pawns & chess.BB_SQUARES[n] for n in neighbours)


def shuffle(board, moves, rng, history):
    quiet = []
    for uci in moves:
        move = chess.Move.from_uci(uci)
        if board.piece_type_at(move.from_square) in (chess.KING, chess.KNIGHT) \
                and not board.is_capture(move):
            quiet.append(uci)
    if len(history) >= 2 and rng.random() < 0.6:
        back = history[-2][2:4] + history[-2][:2]     # undo our own last move
        if back in quiet:
            return back
    return rng.choice(quiet or moves)


def playout(sample, label, start, policy, max_plies, rng, stop_when_dead=True):
    try:
        ours = Board(start)
    except ValueError as e:
        sample.setup_errors.append(f"[{label}] Board({start!r}) raised {e!r}")
        return
    theirs = chess.Board(start)
    history = []
    index = len(sample.playouts)
    sample.playouts.append((label, start, history))
    seen = Counter()
    for ply in range(max_plies + 1):
        # Positions can only repeat between irreversible moves, and every irreversible
        # move changes the position for good, so a plain count over the playout is
        # the exact repetition count.
        fen4 = " ".join(theirs.fen().split()[:4])
        seen[fen4] += 1
        common = observe(sample, index, ply, ours, theirs, seen[fen4])
        if not common or ply == max_plies:
            return
        if stop_when_dead and theirs.is_insufficient_material():
            return
        uci = policy(theirs, common, rng, history)
        move = chess.Move.from_uci(uci)
        if theirs.is_castling(move):
            sample.moves["castling"] += 1
        if theirs.is_en_passant(move):
            sample.moves["en passant"] += 1
        if move.promotion:
            sample.moves["promotion" if move.promotion == chess.QUEEN else "underpromotion"] += 1
        if theirs.is_capture(move):
            sample.moves["capture"] += 1
        ours.push_uci(uci)
        theirs.push(move)
        history.append(uci)


@pytest.fixture(scope="module")
def sample(perftsuite_fens, opening_fens):
    s = Sample()

    def rng(*parts):
        return random.Random(":".join(map(str, (SEED,) + parts)))

    for i in range(20):
        playout(s, f"start uniform #{i}", START, uniform, 300, rng("start-u", i))
        playout(s, f"start capture-biased #{i}", START, capture_biased, 300, rng("start-c", i))
    for i, fen in enumerate(perftsuite_fens):
        playout(s, f"perftsuite line {i + 1} uniform", fen, uniform, 40, rng("suite-u", i))
        playout(s, f"perftsuite line {i + 1} capture-biased", fen, capture_biased, 60,
                rng("suite-c", i))
    for i, fen in enumerate(opening_fens):
        policy = capture_biased if i % 2 else uniform
        playout(s, f"openings line {i + 1} {policy.__name__}", fen, policy, 50, rng("open", i))
    for i, fen in enumerate(ENDGAMES):
        for rep in range(2):
            playout(s, f"endgame {i} shuffle #{rep}", fen, shuffle, 300, rng("end-s", i, rep),
                    stop_when_dead=False)
        playout(s, f"endgame {i} uniform", fen, uniform, 150, rng("end-u", i))
        for rep in range(4):
            playout(s, f"endgame {i} capture-biased #{rep}", fen, capture_biased, 150,
                    rng("end-c", i, rep))
    return s


def failures(sample, broken, what):
    bad = [p for p in sample.positions if broken(p)]
    assert not bad, sample.report(bad, what)


# ------------------------------------------------------------- the sample itself

def test_every_start_position_is_accepted(sample):
    assert not sample.setup_errors, "\n".join(sample.setup_errors)


def test_sample_is_large_and_reaches_the_edge_cases(sample):
    n = len(sample.positions)
    print(f"\n{n} positions compared in {len(sample.playouts)} playouts; "
          f"{len({p.fen4 for p in sample.positions})} distinct; moves played: {dict(sample.moves)}")
    assert n >= MIN_POSITIONS
    seen = Counter()
    for p in sample.positions:
        seen["checkmate"] += p.checkmate
        seen["stalemate"] += p.stalemate
        seen["insufficient material"] += p.insufficient
        seen["seventy-five moves"] += p.seventyfive
        seen["fifty moves"] += p.fifty
        seen["threefold"] += p.their_rep3
        seen["fivefold"] += p.their_rep5
        seen["legal en passant"] += p.legal_ep
        seen["check"] += p.their_check
    # About half of what the seeded sample reaches: a guard against a playout change
    # that quietly stops reaching the rare cases.
    minimum = {"checkmate": 10, "stalemate": 8, "insufficient material": 1000,
               "seventy-five moves": 1000, "fifty moves": 1000, "threefold": 1000, "fivefold": 300,
               "legal en passant": 60, "check": 1000}
    minimum_moves = {"castling": 60, "en passant": 25, "promotion": 50, "underpromotion": 60,
                     "capture": 2000}
    print(f"positions by kind: {dict(seen)}")
    thin = {k: (seen[k], m) for k, m in minimum.items() if seen[k] < m}
    thin.update({k: (sample.moves[k], m) for k, m in minimum_moves.items() if sample.moves[k] < m})
    assert not thin, f"the sample is too thin here (seen, wanted): {thin}"


# ------------------------------------------------------------------ move generation

def test_legal_moves_match(sample):
    failures(sample, lambda p: p.extra or p.missing,
             lambda p: f"ours only: {p.extra}, python-chess only: {p.missing}")


def test_legal_moves_have_no_duplicates(sample):
    failures(sample, lambda p: p.duplicates, lambda p: f"{p.duplicates} duplicate moves")


def test_is_check_matches(sample):
    failures(sample, lambda p: p.our_check != p.their_check,
             lambda p: f"is_check: ours {p.our_check}, python-chess {p.their_check}")


# ------------------------------------------------------------------ game end, rule by rule

def test_checkmate_matches(sample):
    def broken(p):
        if p.checkmate:
            return p.termination != "checkmate" or p.result != ("0-1" if " w " in p.fen4 else "1-0")
        return p.termination == "checkmate"
    failures(sample, broken, lambda p: f"checkmate {p.checkmate}, ours {p.termination} {p.result}")


def test_stalemate_matches(sample):
    failures(sample, lambda p: (p.termination == "stalemate") != p.stalemate
             or (p.stalemate and p.result != "1/2-1/2"),
             lambda p: f"stalemate {p.stalemate}, ours {p.termination} {p.result}")


def test_insufficient_material_matches(sample):
    # Seen in our outcome only when the side to move has a move (stalemate comes first).
    failures(sample, lambda p: p.n_legal and (p.termination == "insufficient_material") != p.insufficient,
             lambda p: f"insufficient material {p.insufficient}, ours {p.termination}")


def test_seventyfive_move_rule_matches(sample):
    failures(sample, lambda p: p.n_legal and not p.insufficient
             and (p.termination == "seventyfive_moves") != p.seventyfive,
             lambda p: f"seventy-five moves {p.seventyfive}, ours {p.termination}")


def test_fivefold_repetition_matches(sample):
    failures(sample, lambda p: p.n_legal and not p.insufficient and not p.seventyfive
             and (p.termination == "fivefold_repetition") != p.their_rep5,
             lambda p: f"fivefold {p.their_rep5}, ours {p.termination}")


def test_repetition_count_matches(sample):
    failures(sample, lambda p: p.repetitions != p.exact_repetitions
             or (p.repetitions >= 3) != p.their_rep3 or (p.repetitions >= 5) != p.their_rep5,
             lambda p: f"repetition_count {p.repetitions}, occurrences {p.exact_repetitions}, "
                       f"python-chess is_repetition(3) {p.their_rep3}, (5) {p.their_rep5}")


def test_claimable_draws_match(sample):
    def expected(p):
        if p.termination is not None:
            return p.termination          # automatic ends come first
        if p.fifty:
            return "fifty_moves"
        if p.their_rep3:
            return "threefold_repetition"
        return None
    failures(sample, lambda p: p.claim_termination != expected(p),
             lambda p: f"with claim_draw ours {p.claim_termination}, expected {expected(p)} "
                       f"(fifty {p.fifty}, threefold {p.their_rep3})")


def test_is_game_over_matches(sample):
    # Whether the game is over does not depend on the order of the rules.
    failures(sample, lambda p: p.game_over != p.their_game_over
             or p.game_over != (p.termination is not None)
             or p.claim_game_over != (p.their_game_over or p.fifty or p.their_rep3),
             lambda p: f"is_game_over ours {p.game_over}/{p.claim_game_over} (claim), "
                       f"python-chess {p.their_game_over}, fifty {p.fifty}, threefold {p.their_rep3}")


# ------------------------------------------------------------------ FEN and Zobrist

def test_fen_matches(sample):
    failures(sample, lambda p: p.our_fen != p.their_fen, lambda p: f"our FEN {p.our_fen}")


def test_incremental_key_matches_recomputed_key(sample):
    failures(sample, lambda p: not p.key_verified, lambda p: f"verify_key() False, key {p.key:#x}")


def test_same_position_has_same_key(sample):
    keys = defaultdict(set)
    first = {}
    for p in sample.positions:
        keys[p.fen4].add(p.key)
        first.setdefault((p.fen4, p.key), p)
    bad = [first[fen4, k] for fen4, ks in keys.items() if len(ks) > 1 for k in sorted(ks)]
    assert not bad, sample.report(bad, lambda p: f"key {p.key:#x} for {p.fen4}")


def test_different_positions_have_different_keys(sample):
    owner = {}
    bad = []
    for p in sample.positions:
        other = owner.setdefault(p.key, p)
        if other.fen4 != p.fen4:
            bad.append((other, p))
    assert not bad, f"{len(bad)} collisions:\n" + "\n".join(
        f"  {a.key:#x}: {a.fen4}  and  {b.fen4}\n    at {sample.where(b)}" for a, b in bad[:MAX_SHOWN])


def test_key_of_played_position_equals_key_of_its_fen(sample):
    first = {}
    for p in sample.positions:
        first.setdefault(p.fen4, p)
    failures(sample, lambda p: first[p.fen4] is p and Board(p.our_fen).key != p.key,
             lambda p: f"key {p.key:#x} after the moves, {Board(p.our_fen).key:#x} from the FEN")


def test_keys_tell_castling_rights_and_side_to_move_apart(sample):
    # Random play seldom reaches one placement with two sets of castling rights, so
    # build the variants of each sampled position: every subset of its rights, and
    # the other side to move (without an ep square) where that is a legal position.
    bad = []
    checked = 0
    for fen4 in sorted({p.fen4 for p in sample.positions}):
        placement, side, rights, ep = fen4.split()
        if rights == "-" and ep == "-":
            continue
        variants = {"".join(c for i, c in enumerate(rights) if mask >> i & 1) or "-"
                    for mask in range(1 << len(rights))} if rights != "-" else {"-"}
        fens = [f"{placement} {side} {r} {ep}" for r in variants]
        fens += [f"{placement} {'b' if side == 'w' else 'w'} {r} -" for r in variants]
        keys = {}
        for fen in fens:
            try:
                board = Board(fen)
            except ValueError:
                continue                    # e.g. the side not to move would be in check
            if board.fen().split()[:4] != fen.split():
                continue                    # an ep square dropped: the same position again
            if board.key in keys:
                bad.append(f"{fen} and {keys[board.key]} share key {board.key:#x}")
            keys[board.key] = fen
            checked += 1
    assert checked > 1000
    assert not bad, f"{len(bad)} collisions:\n" + "\n".join(bad[:MAX_SHOWN])


# ------------------------------------------------------------------ targeted cases

def with_ep(fen, square):
    fields = fen.split()
    fields[3] = square
    return " ".join(fields)


def play(fen, moves):
    board = Board(fen)
    for uci in moves.split():
        board.push_uci(uci)
    return board


def test_transposition_by_two_move_orders_shares_key():
    a = play(START, "g1f3 g8f6 b1c3 b8c6")
    b = play(START, "b1c3 b8c6 g1f3 g8f6")
    c = play(START, "g1f3 b8c6 b1c3 g8f6")
    assert a.fen() == b.fen() == c.fen()
    assert a.key == b.key == c.key
    assert a.key == Board(a.fen()).key
    assert a.key != Board().key
    # Knights out and back: the start position again, with the start key.
    assert play(START, "g1f3 g8f6 f3g1 f6g8").key == Board().key


def test_king_out_and_back_changes_the_key_through_castling_rights():
    rooks = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    board = play(rooks, "e1f1 e8f8 f1e1 f8e8")
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3"
    assert board.key != Board(rooks).key
    assert board.key == Board("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1").key
    assert len({Board(f"r3k2r/8/8/8/8/8/8/R3K2R w {r} - 0 1").key
                for r in ["KQkq", "KQk", "KQq", "Kkq", "Qkq", "KQ", "kq", "Kk", "Qq", "Kq",
                          "Qk", "K", "Q", "k", "q", "-"]}) == 16
    assert board.repetition_count() == 1


def test_useless_en_passant_square_is_neither_shown_nor_hashed():
    after_e4 = play(START, "e2e4")              # no black pawn can take on e3
    without = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert after_e4.fen() == without
    oracle = chess.Board()
    oracle.push_uci("e2e4")
    assert after_e4.fen() == oracle.fen()
    assert after_e4.key == Board(without).key
    assert after_e4.key == Board(with_ep(without, "e3")).key
    # The same position by a move order with no double push at all.
    a = play(START, "e2e4 e7e6 g1f3")
    b = play(START, "g1f3 e7e6 e2e4")
    assert b.fen().split()[3] == "-"
    assert a.fen().split()[:4] == b.fen().split()[:4]
    assert a.key == b.key


def test_legal_en_passant_square_is_shown_and_hashed():
    board = play(START, "e2e4 g8f6 e4e5 d7d5")   # exd6 is legal
    oracle = chess.Board()
    for uci in "e2e4 g8f6 e4e5 d7d5".split():
        oracle.push_uci(uci)
    assert board.fen() == oracle.fen()
    assert board.fen().split()[3] == "d6"
    assert "e5d6" in board.legal_moves()
    without = with_ep(board.fen(), "-")
    assert board.key != Board(without).key
    assert board.key == Board(board.fen()).key
    # One move later the right is gone and the key is that of the plain position.
    board.push_uci("b1c3")
    board.push_uci("b8c6")
    reached = play(without, "b1c3 b8c6")
    assert board.key == reached.key


def test_en_passant_square_of_a_pinned_capture_is_dropped():
    # After ...d5 the capture exd6 would open the fifth rank between Ka5 and Rh5.
    start = "8/3p4/8/K3P2r/8/8/8/7k b - - 0 1"
    board = play(start, "d7d5")
    oracle = chess.Board(start)
    oracle.push_uci("d7d5")
    assert board.fen() == oracle.fen()
    assert board.fen().split()[3] == "-"
    assert "e5d6" not in board.legal_moves()
    assert board.key == Board(board.fen()).key
    assert board.key == Board(with_ep(board.fen(), "d6")).key


def test_outcome_precedence_stalemate_with_insufficient_material():
    # Black is stalemated and K+B v K cannot mate: python-chess's outcome() reports
    # insufficient material first, and genchess_core's game_status says it follows
    # "python-chess's order of precedence".
    fen = "7k/5K2/6B1/8/8/8/8/8 b - - 0 1"
    oracle = chess.Board(fen)
    assert oracle.is_stalemate() and oracle.is_insufficient_material()
    assert Board(fen).outcome().termination == oracle.outcome().termination.name.lower()
