"""`genchess selftest`: a quick built-in check for users without pytest.

It reads genchess/data/selftest.epd (perft counts, a table of rules, mates in
one), shipped inside the package so an installed GenChess can check itself, and
checks: move generation (perft), how games end and what the tricky rules allow,
SAN writing and reading, that every computer player finds each mate in one (and
random plays only legal moves), and that a genome survives a write and a read.
Each check prints one line; a summary follows; the exit status is 1 on any
failure. It takes a few seconds (Monte Carlo thinks a fixed 0.3 s per mate).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from genchess.files import package_file

DATA = package_file("data", "selftest.epd")
PLAYERS = ("turing", "montecarlo", "genetic")
MC_SECONDS = 0.3


def read_epd(path: Path | None = None) -> list[tuple[str, list[tuple[str, list[str]]], int]]:
    """[(fen, [(opcode, operands)], line number)] of an EPD file (default: the
    shipped table); '#' lines are comments."""
    path = path or DATA
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fen, _, rest = line.partition(";")
        ops = []
        for op in rest.split(";"):
            words = op.split()
            if words:
                ops.append((words[0], [w.strip('"') for w in words[1:]]))
        entries.append((fen.strip(), ops, number))
    return entries


class Report:
    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        line = f"{'ok  ' if ok else 'FAIL'}  {name}"
        if detail and not ok:
            line += f": {detail}"
        print(line, file=self.out, flush=True)
        return ok

    def run(self, name: str, fn) -> None:
        """A check that passes unless fn raises (AssertionError carries the detail)."""
        try:
            fn()
        except AssertionError as e:
            self.check(name, False, str(e))
        except Exception as e:
            self.check(name, False, f"{type(e).__name__}: {e}\n" + traceback.format_exc(limit=3))
        else:
            self.check(name, True)


def _name(fen, ops, number):
    for opcode, operands in ops:
        if opcode == "id":
            return " ".join(operands)
    return f"line {number}: {fen}"


def check_perft(report: Report, entries) -> None:
    from genchess_core import Board
    for fen, ops, number in entries:
        depths = [(int(op[1:]), int(operands[0])) for op, operands in ops
                  if op[:1] == "D" and op[1:].isdigit()]
        if not depths:
            continue
        depth, expected = max(depths)
        board = Board(fen)
        got = board.perft(depth)
        report.check(f"perft {depth} = {expected:>7}  {fen}", got == expected, f"got {got}")


def check_rules(report: Report, entries) -> None:
    from genchess_core import Board
    for fen, ops, number in entries:
        wanted = [(op, operands) for op, operands in ops if op in ("status", "legal", "has", "lacks")]
        if not wanted:
            continue
        name = _name(fen, ops, number)

        def run(fen=fen, ops=ops):
            board = Board(fen)
            for op, operands in ops:
                if op == "moves":
                    for move in operands:
                        board.push_uci(move)
            legal = board.legal_moves()
            for op, operands in ops:
                if op == "status":
                    termination = board.outcome(claim_draw=True).termination or "ongoing"
                    assert termination == operands[0], f"status {termination}, expected {operands[0]}"
                elif op == "legal":
                    assert len(legal) == int(operands[0]), f"{len(legal)} legal moves, expected {operands[0]}"
                elif op == "has":
                    assert operands[0] in legal, f"{operands[0]} should be legal"
                elif op == "lacks":
                    assert operands[0] not in legal, f"{operands[0]} should not be legal"
        report.run(f"rules: {name}", run)


def check_san(report: Report, entries) -> None:
    """SAN written for every legal move reads back as that move, on every table position."""
    from genchess.players.human import parse_move, san_moves
    from genchess_core import Board

    def run():
        count = 0
        for fen, ops, _ in entries:
            board = Board(fen)
            for move, text in san_moves(board).items():
                assert parse_move(board, text) == move, f"{text} read back wrongly in {fen}"
                assert parse_move(board, move) == move, f"{move} read back wrongly in {fen}"
                count += 1
        assert count > 500, f"only {count} moves checked"
    report.run("SAN: every legal move of the table written and read back", run)


def mate_positions(entries):
    """[(name, fen, {uci moves that mate})] from the table's bm lines."""
    from genchess.players.human import parse_move
    from genchess_core import Board
    found = []
    for fen, ops, number in entries:
        for op, operands in ops:
            if op == "bm":
                board = Board(fen)
                found.append((_name(fen, ops, number), fen, {parse_move(board, s) for s in operands}))
    return found


def check_players(report: Report, entries) -> None:
    from genchess.players import make_player
    from genchess_core import Board
    mates = mate_positions(entries)
    for spec in PLAYERS:
        player = make_player(spec, seed=1, untimed_seconds=MC_SECONDS)
        for name, fen, moves in mates:
            def run(player=player, fen=fen, moves=moves):
                chosen = player.choose_move(Board(fen), None)
                assert chosen in moves, f"played {chosen}, expected one of {sorted(moves)}"
            report.run(f"{spec}: mate in one, {name}", run)
    for name, fen, moves in mates:
        board = Board(fen)
        if len(board.legal_moves()) == 1:
            report.run(f"random: mate in one, {name}",
                       lambda fen=fen, moves=moves: _assert_in(
                           make_player("random", seed=1).choose_move(Board(fen), None), moves))

    def random_games():
        player = make_player("random", seed=7)
        for game in range(10):
            board = Board()
            for ply in range(120):
                if board.is_game_over(claim_draw=True):
                    break
                move = player.choose_move(board, None)
                assert move in board.legal_moves(), f"illegal {move} in {board.fen()}"
                board.push_uci(move)
    report.run("random: 10 games of legal moves", random_games)


def _assert_in(move, moves):
    assert move in moves, f"played {move}, expected one of {sorted(moves)}"


def check_genome(report: Report) -> None:
    from genchess.genome import hand_set_genome, load_genome, parse_genome_text, write_genome

    def text_round_trip():
        genome = hand_set_genome()
        again = parse_genome_text(genome.to_text()).genomes[-1]
        assert again == genome, "the default genome changed when written and read as text"

    def file_round_trip():
        genome = hand_set_genome()
        rng = random.Random(3)
        mutant = genome.copy(new_id=genome.id + 1)
        mutant.mutate(rng, mean_changes=5)
        handle, path = tempfile.mkstemp(suffix=".genome")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                write_genome(genome, f)
                write_genome(mutant, f)
            assert load_genome(path, genome.id) == genome, "the first genome changed in the file"
            assert load_genome(path) == mutant, "the last genome is not the one loaded by default"
        finally:
            os.unlink(path)
    report.run("genome: default genome written and read as text", text_round_trip)
    report.run("genome: two genomes through a file, selected by ID and by default", file_round_trip)


def run_selftest(out=None) -> int:
    report = Report(out)
    start = time.monotonic()
    try:
        entries = read_epd()
    except OSError as e:
        print(f"genchess selftest: cannot read {DATA}: {e.strerror}", file=sys.stderr)
        return 2
    for section in (check_perft, check_rules, check_san, check_players):
        try:
            section(report, entries)
        except Exception as e:      # a broken section is a failure, not a traceback
            report.check(section.__name__, False, f"{type(e).__name__}: {e}")
    check_genome(report)
    elapsed = time.monotonic() - start
    total = report.passed + report.failed
    verdict = "all passed" if not report.failed else f"{report.failed} FAILED"
    print(f"\nselftest: {total} checks, {verdict} ({elapsed:.1f} s)", file=report.out, flush=True)
    return 1 if report.failed else 0
