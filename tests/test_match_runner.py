"""The match runner: pairs and colours, clocks, rule losses, restarts, SPRT stops."""

import concurrent.futures as cf
import sys
from pathlib import Path

import pytest

from genchess.game import TimeControl
from genchess.game.openings import Opening, read_openings
from genchess.strength.engines import parse_engine_spec, probe
from genchess.strength.runner import MatchRunner
from genchess.strength.sprt import Sprt
from genchess_core import STARTING_FEN

FAKE = Path(__file__).parent / "data" / "fake_uci.py"


def fake(mode):
    return probe(parse_engine_spec(f"uci:{sys.executable} {FAKE} {mode} name=Fake-{mode}"))


def run(engines, games, tc="2+0.05", openings=None, sprt=None, pgn=None):
    openings = openings or [Opening(STARTING_FEN, ("e2e4", "e7e5"), "test:1"),
                            Opening(STARTING_FEN, ("d2d4", "d7d5"), "test:2")]
    lines = []
    # Threads instead of processes: the same runner and players, a quicker test.
    runner = MatchRunner(tuple(engines), TimeControl.parse(tc), openings, games, 1, sprt, pgn,
                         out=lines.append, executor_factory=lambda n: cf.ThreadPoolExecutor(n))
    return runner.run(), lines


def test_pairs_alternate_colours_and_share_openings(tmp_path):
    a = probe(parse_engine_spec("random name=A"))
    b = probe(parse_engine_spec("random name=B"))
    result, lines = run([a, b], 4, pgn=tmp_path / "m.pgn")
    records = sorted(result.records, key=lambda r: lines.index(next(l for l in lines if r.reason in l)))
    whites = [r.white for r in result.records]
    assert sorted(whites) == ["A", "A", "B", "B"]
    text = (tmp_path / "m.pgn").read_text()
    # Pair 1 plays opening 1 twice, A White first; pair 2 opening 2.
    for round_tag, white, opening in [("1.1", "A", "test:1"), ("1.2", "B", "test:1"),
                                      ("2.1", "A", "test:2"), ("2.2", "B", "test:2")]:
        game = text.split(f'[Round "{round_tag}"]')[1].split("[Event")[0]
        assert f'[White "{white}"]' in game and f'[Opening "{opening}"]' in game
    assert text.count("{end of opening}") == 4
    assert sum(result.stats.pairs) == 2 and result.stats.games == 4


def test_slow_engine_loses_on_time():
    result, lines = run([fake("slow"), probe(parse_engine_spec("random name=R"))], 2, tc="0.5+0")
    assert result.stats.losses == 2
    assert result.terminations["time forfeit"] == 2
    assert result.failures[("Fake-slow", "time forfeit")] == 2


def test_illegal_move_loses_with_its_reason():
    result, lines = run([fake("illegal"), probe(parse_engine_spec("random name=R"))], 2)
    assert result.stats.losses == 2 and result.terminations["illegal move"] == 2
    assert all("illegal" in r.reason for r in result.records)


def test_crashing_engine_is_restarted_and_the_match_goes_on():
    result, lines = run([fake("crash"), probe(parse_engine_spec("random name=R"))], 4)
    assert result.stats.games == 4 and result.stats.losses == 4
    assert result.terminations["crash"] == 4
    assert all("crashed" in r.reason for r in result.records)


def test_an_engine_killed_by_the_stop_signal_is_no_crash_loss(tmp_path, monkeypatch):
    # Ctrl-C in a terminal, or a kill of the process group, reaches the engines as well
    # as the match: a game whose engine died while the stop was held did not end. It is
    # neither counted nor written, so --resume plays it again; games that did end are.
    from genchess.parallel import executors
    monkeypatch.setattr(executors, "ctrl_c_pending", lambda: True)
    result, lines = run([fake("crash"), probe(parse_engine_spec("random name=R"))], 4,
                        pgn=tmp_path / "m.pgn")
    assert result.stats.games == 0 and not result.records
    assert not (tmp_path / "m.pgn").exists()         # a game's text is all a PGN is written for
    result, lines = run([probe(parse_engine_spec("random name=A")),
                         probe(parse_engine_spec("random name=B"))], 2)
    assert result.stats.games == 2


def test_sprt_stops_the_match_at_a_bound():
    # A random mover against the engine at depth 1 loses every pair: H0 of [0, 100].
    strong = probe(parse_engine_spec("genchess name=Strong"))
    weak = probe(parse_engine_spec("random name=Weak"))
    result, lines = run([weak, strong], 200, tc="depth=1", sprt=Sprt(0, 100))
    assert result.stopped.startswith("SPRT accepted H0")
    assert result.stats.games < 200
    assert any(line.startswith("SPRT: LLR") for line in lines)


def test_openings_files(tmp_path):
    moves = tmp_path / "lines.txt"
    moves.write_text("e2e4 e7e5\n# comment\n\nd2d4 d7d5 c2c4\n")
    assert [o.moves for o in read_openings(moves)] == [("e2e4", "e7e5"), ("d2d4", "d7d5", "c2c4")]
    pgn = tmp_path / "o.pgn"
    pgn.write_text('[Event "x"]\n\n1. e4 c5 2. Nf3 d6 3. d4 *\n\n[Event "y"]\n\n1. d4 Nf6 *\n')
    assert [o.moves for o in read_openings(pgn, plies=3)] == [("e2e4", "c7c5", "g1f3"), ("d2d4", "g8f6")]
    assert all(o.from_start for o in read_openings(pgn))
    epd = read_openings(Path(__file__).parents[1] / "genchess" / "data" / "openings.epd")
    assert len(epd) == 200 and not epd[0].from_start


# --------------------------------------------------------------------------- resuming

def resume_runner(engines, games, pgn, sprt=None, openings=None):
    openings = openings or [Opening(STARTING_FEN, ("e2e4", "e7e5"), "test:1"),
                            Opening(STARTING_FEN, ("d2d4", "d7d5"), "test:2")]
    lines = []
    runner = MatchRunner(tuple(engines), TimeControl.parse("depth=1"), openings, games, 1, sprt,
                         str(pgn), out=lines.append,
                         executor_factory=lambda n: cf.ThreadPoolExecutor(n))
    return runner, lines


def test_a_resumed_match_counts_the_pgn_and_plays_only_the_rest(tmp_path):
    a = probe(parse_engine_spec("random name=A"))
    b = probe(parse_engine_spec("genchess name=B"))
    pgn = tmp_path / "m.pgn"
    first, _ = run([a, b], 3, tc="depth=1", pgn=pgn)           # a pair and a half
    runner, lines = resume_runner([a, b], 6, pgn)
    assert runner.resume(pgn) == 3
    assert runner.result.stats.games == 3 and sum(runner.result.stats.pairs) == 1
    # Game 4 completes pair 2; games 5 and 6 are pair 3: nothing is replayed.
    assert [job.number for job in runner.jobs()] == [3, 4, 5]
    result = runner.run()
    assert result.stats.games == 6 and sum(result.stats.pairs) == 3
    text = pgn.read_text()
    assert sorted(t.split('"')[1] for t in text.split("[Round ")[1:]) == \
        ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]


def test_a_resumed_sprt_goes_on_from_its_llr(tmp_path):
    weak = probe(parse_engine_spec("random name=Weak"))
    strong = probe(parse_engine_spec("genchess name=Strong"))
    pgn = tmp_path / "sprt.pgn"
    run([weak, strong], 4, tc="depth=1", pgn=pgn)
    runner, _ = resume_runner([weak, strong], 200, pgn, sprt=Sprt(0, 100))
    runner.resume(pgn)
    llr_after_two_pairs = runner.sprt.last_llr
    assert llr_after_two_pairs < 0
    result = runner.run()
    assert result.stopped.startswith("SPRT accepted H0")
    # One sequential test: the verdict counts the first run's pairs too.
    assert result.stats.games == 4 + len(result.records)
    assert sum(result.stats.pairs) == result.stats.games // 2


@pytest.mark.parametrize("change, message", [
    ({"names": ("X", "B")}, "but this match plays X - B there"),
    ({"openings": [Opening(STARTING_FEN, ("c2c4",), "other:1")]}, "opening test:1, but this match plays other:1"),
    ({"games": 2}, "outside this match of 2 games"),
])
def test_resume_refuses_another_match(tmp_path, change, message):
    from genchess.strength.runner import ResumeError
    a = probe(parse_engine_spec("random name=A"))
    b = probe(parse_engine_spec("random name=B"))
    pgn = tmp_path / "m.pgn"
    run([a, b], 3, tc="depth=1", pgn=pgn)
    engines = [probe(parse_engine_spec(f"random name={n}")) for n in change.get("names", ("A", "B"))]
    runner, _ = resume_runner(engines, change.get("games", 10), pgn, openings=change.get("openings"))
    with pytest.raises(ResumeError, match=message):
        runner.resume(pgn)


def test_resume_knows_an_opening_file_read_from_another_directory(tmp_path):
    a = probe(parse_engine_spec("random name=A"))
    b = probe(parse_engine_spec("random name=B"))
    pgn = tmp_path / "m.pgn"
    here = [Opening(STARTING_FEN, ("e2e4",), "/one/checkout/openings.epd:1"),
            Opening(STARTING_FEN, ("d2d4",), "/one/checkout/openings.epd:2")]
    run([a, b], 2, tc="depth=1", pgn=pgn, openings=here)
    there = [Opening(o.fen, o.moves, o.source.replace("/one/checkout", "/another")) for o in here]
    runner, _ = resume_runner([a, b], 4, pgn, openings=there)
    assert runner.resume(pgn) == 2


def test_time_odds_give_each_engine_its_own_clock_whatever_its_colour(tmp_path):
    slow = probe(parse_engine_spec("random tc=3+0.05 name=Slow"))
    fast = probe(parse_engine_spec("random name=Fast"))
    pgn = tmp_path / "odds.pgn"
    result, lines = run([slow, fast], 2, tc="1+0.01", pgn=pgn)
    for record in result.records:
        slow_side = 0 if record.white == "Slow" else 1
        moves = [(len(record.moves) + 1) // 2, len(record.moves) // 2]     # each side's moves
        assert record.clock[slow_side] == pytest.approx(3 + 0.05 * moves[slow_side], abs=0.5)
        assert record.clock[1 - slow_side] == pytest.approx(1 + 0.01 * moves[1 - slow_side], abs=0.5)
    text = pgn.read_text()
    assert '[WhiteTimeControl "3+0.05"]\n[BlackTimeControl "1+0.01"]' in text
    assert '[WhiteTimeControl "1+0.01"]\n[BlackTimeControl "3+0.05"]' in text
    assert "TimeControl \"" not in text.replace("WhiteTimeControl \"", "").replace("BlackTimeControl \"", "")
    # Resuming checks each side's control; the same match resumes, another is refused.
    same = MatchRunner((slow, fast), TimeControl.parse("1+0.01"), [Opening(STARTING_FEN, ("e2e4", "e7e5"), "test:1"),
                       Opening(STARTING_FEN, ("d2d4", "d7d5"), "test:2")], 2, 1, None, pgn, out=lines.append)
    assert same.resume(pgn) == 2
    from genchess.strength.runner import ResumeError
    even = MatchRunner((probe(parse_engine_spec("random name=Slow")), fast), TimeControl.parse("1+0.01"),
                       same.openings, 2, 1, None, pgn, out=lines.append)
    with pytest.raises(ResumeError, match=r"3\+0.05 \(White\) and 1\+0.01 \(Black\), but this match plays 1\+0.01 and 1\+0.01"):
        even.resume(pgn)


def test_an_engines_own_time_control_is_checked_when_it_is_named():
    from genchess.strength.engines import SpecError
    with pytest.raises(SpecError, match="tc: time control 'banana'"):
        parse_engine_spec("random tc=banana")
    spec = parse_engine_spec(f"uci:{sys.executable} {FAKE} random tc=nodes=500 Hash=8")
    assert spec.tc == "nodes=500" and dict(spec.options) == {"Hash": "8"}      # not an engine option


def test_a_pgn_replaced_during_the_match_gets_the_next_games(tmp_path):
    # As git does in a checkout or a stash: the file is replaced by a new one with the
    # same games. The games after it go to the file at the path, not to the old one.
    a = probe(parse_engine_spec("random name=A"))
    b = probe(parse_engine_spec("random name=B"))
    pgn = tmp_path / "m.pgn"
    lines = []

    def out(line):
        lines.append(line)
        if line.startswith("Game 1/"):
            text = pgn.read_text()
            pgn.unlink()
            pgn.write_text(text)
    runner = MatchRunner((a, b), TimeControl.parse("depth=1"),
                         [Opening(STARTING_FEN, ("e2e4", "e7e5"), "test:1")], 4, 1, None, str(pgn),
                         out=out, executor_factory=lambda n: cf.ThreadPoolExecutor(n))
    assert runner.run().stats.games == 4
    assert pgn.read_text().count("[Event ") == 4
