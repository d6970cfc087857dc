"""scripts/dev/plot_sprt.py: an SPRT's LLR and Elo pair by pair, from the match's PGN."""

import gzip
import math

import pytest

from genchess.strength.sprt import Sprt, llr
from script_helpers import load_script, run_script


plot_sprt = load_script("dev/plot_sprt.py")

# (Round, White, Black, Result) in the order the games finished, two at a time: A is
# the match's first engine (White in game 1 of each pair). Pair 1: A wins both; pair 2:
# two draws; pair 3: A loses both. A gauntlet's other pairing is mixed in.
GAMES = [("1.1", "A", "B", "1-0"), ("2.1", "A", "B", "1/2-1/2"), ("1.2", "B", "A", "0-1"),
         ("1.1", "C", "D", "1-0"), ("3.1", "A", "B", "0-1"), ("2.2", "B", "A", "1/2-1/2"),
         ("3.2", "B", "A", "1-0")]


def pgn_text(games) -> str:
    return "".join(f'[Event "GenChess match"]\n[Round "{r}"]\n[White "{w}"]\n[Black "{b}"]\n'
                   f'[Result "{result}"]\n\n{result}\n\n' for r, w, b, result in games)


def test_pairs_count_as_they_complete_and_the_llr_is_the_matchs(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(pgn_text(GAMES))
    trajectory = plot_sprt.read_trajectory(path, Sprt())
    assert (trajectory.engine, trajectory.opponent) == ("A", "B")
    # Pair 1 completes with the third game, pair 2 with the sixth (C-D passed over).
    assert [p.games for p in trajectory.points] == [3, 5, 6]
    last = trajectory.points[-1]
    assert (last.wins, last.draws, last.losses) == (2, 2, 2)
    assert last.llr == pytest.approx(llr([1, 0, 1, 0, 1], 0, 10))
    assert trajectory.points[0].llr == pytest.approx(llr([0, 0, 0, 0, 1], 0, 10))
    assert math.isinf(trajectory.points[0].estimate.elo)    # a perfect score so far
    assert last.estimate.low < 0 < last.estimate.high and last.estimate.elo == pytest.approx(0)


def test_the_other_engines_side_and_a_gauntlets_other_pairing(tmp_path):
    path = tmp_path / "match.pgn.gz"
    with gzip.open(path, "wt") as f:
        f.write(pgn_text(GAMES[:3]))
    first = plot_sprt.read_trajectory(path, Sprt()).points[-1]
    b_side = plot_sprt.read_trajectory(path, Sprt(), engine="B").points[-1]
    assert (first.wins, first.losses) == (2, 0) and (b_side.wins, b_side.losses) == (0, 2)
    assert b_side.llr == pytest.approx(llr([1, 0, 0, 0, 0], 0, 10))
    assert b_side.llr < 0 < first.llr
    gauntlet = tmp_path / "gauntlet.pgn"
    gauntlet.write_text(pgn_text(GAMES[3:4] + [("1.2", "D", "C", "1/2-1/2")] + GAMES))
    c_side = plot_sprt.read_trajectory(gauntlet, Sprt(), engine="C")
    assert (c_side.engine, c_side.opponent) == ("C", "D") and c_side.points[-1].wins == 1


def test_the_script_draws_the_png_and_prints_the_table(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(pgn_text(GAMES))
    done = run_script("dev/plot_sprt.py", path, "--sprt", "elo0=-5", "elo1=5")
    assert done.returncode == 0, done.stderr
    png = tmp_path / "match.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "SPRT [-5, 5] normalized" in done.stdout
    assert "| 6 | +2 =2 -2 |" in done.stdout


@pytest.mark.parametrize("text, args, message, code", [
    (pgn_text([("7", "A", "B", "1-0")]), [], "game 1: Round '7' is not 'pair.game'", 1),
    ("", [], "no games", 1),
    (pgn_text(GAMES[:1]), [], "no complete game pair yet", 1),
    (pgn_text(GAMES), ["--engine", "Z"], "no games of Z", 1),
    (pgn_text(GAMES), ["--sprt", "elo1=ten"], "'ten' is not a number", 2),
])
def test_a_file_it_cannot_follow_is_one_line(tmp_path, text, args, message, code):
    path = tmp_path / "match.pgn"
    path.write_text(text)
    done = run_script("dev/plot_sprt.py", path, *args)
    assert done.returncode == code
    assert message in done.stderr and "Traceback" not in done.stderr


def test_a_missing_or_broken_file_is_one_line(tmp_path):
    done = run_script("dev/plot_sprt.py", tmp_path / "nowhere.pgn")
    assert done.returncode == 1 and "no such file" in done.stderr
    broken = tmp_path / "match.pgn.gz"
    broken.write_text(pgn_text(GAMES))                      # not gzipped
    done = run_script("dev/plot_sprt.py", broken)
    assert done.returncode == 1 and "cannot read it" in done.stderr
    assert "Traceback" not in done.stderr
