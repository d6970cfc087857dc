"""The evaluation a user can read (genchess.explain): for every kind, the total it
shows is the number the search uses, and its parts add up to that total."""

import math
import subprocess

import chess
import pytest

from genchess.explain import explain, format_explanation
from genchess.genome import hand_set_genome
from genchess.genome.genome_file import load_genome
from genchess_core.board import Board
from genchess_core.searcher import Searcher

from engine_helpers import PACKAGE_DATA, genchess_command, random_fens

GENOMES = PACKAGE_DATA.parent / "genomes"
SHIPPED = ["network.genome", "unified.genome", "default.genome", "genetic-positions.genome", "evolved.genome",
           "material-positions.genome", "pvt-positions.genome", "pvt-textbook.genome"]


@pytest.mark.parametrize("name", SHIPPED)
def test_the_total_is_what_the_search_evaluates(name):
    genome = load_genome(GENOMES / name)
    searcher = Searcher(1)
    searcher.set_genome(genome.pack())
    for fen in random_fens(80, seed=len(name)):
        board = Board(fen)
        assert explain(genome, board).internal == searcher.evaluate(board), fen


@pytest.mark.parametrize("name", ["unified.genome", "pvt-positions.genome"])
def test_tapered_kinds_parts_add_up_to_their_total(name):
    genome = load_genome(GENOMES / name)
    for fen in random_fens(20, seed=7):
        explanation = explain(genome, Board(fen))
        *parts, (label, total) = explanation.rows
        assert label == "total"
        assert sum(p[0] for _, p in parts) == total[0]
        assert sum(p[1] for _, p in parts) == total[1]
        assert math.isclose(sum(p[2] for _, p in parts), total[2], abs_tol=1e-9)


def test_a_genetic_genome_shows_every_gene_for_both_sides():
    board = Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    explanation = explain(hand_set_genome(), board)
    names = [name for name, _ in explanation.rows]
    assert "Total Force Gene" in names and "Freedom to Move Gene" in names
    *genes, (_, total) = explanation.rows
    # Equal material: the Total Force Gene's two sides cancel; the total is the sum.
    force = dict(genes)["Total Force Gene"]
    assert force[0] == force[1] and force[2] == 0
    assert math.isclose(sum(values[2] for _, values in genes), total[2])
    # The total in the genome's pawns is the internal evaluation over its pawn.
    assert math.isclose(total[2] / 100, explanation.pawns, abs_tol=0.01)


def test_a_side_to_move_flip_negates_the_evaluation_not_the_table():
    genome = load_genome(GENOMES / "unified.genome")
    white = explain(genome, Board("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"))
    black = explain(genome, Board("4k3/8/8/3P4/8/8/8/4K3 b - - 0 1"))
    # The tempo term follows the side to move; everything else is White's view of the board.
    rows = {name: values for name, values in white.rows}
    assert rows["material"][0] > 0
    assert white.white_pawns > 0 and black.white_pawns > 0
    assert black.pawns == -black.white_pawns


def test_the_table_shows_the_phase_and_the_total():
    text = format_explanation(explain(load_genome(GENOMES / "unified.genome"), Board()), "start")
    assert text.splitlines()[0] == "start"
    assert "| term" in text and "| total" in text
    assert "phase 24 of 24" in text
    assert "Evaluation:" in text


def test_genchess_eval_prints_the_table_and_names_a_bad_fen():
    command, env = genchess_command("eval", "8/5k2/8/3P4/8/8/5K2/8 w - - 0 1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "the default genome (network.genome), kind network" in done.stdout
    assert "| white pawn d5" in done.stdout and "| total" in done.stdout
    command, env = genchess_command("eval", "--genome", str(GENOMES / "unified.genome"),
                                    "8/5k2/8/3P4/8/8/5K2/8 w - - 0 1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "passed pawn" in done.stdout and "phase 0 of 24" in done.stdout
    command, env = genchess_command("eval", "--genome", str(GENOMES / "evolved.genome"),
                                    "8/8/8/8/8/8/8/8 w - - 0 1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("genchess eval: ") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_uci_eval_prints_the_table_for_the_current_position():
    command, env = genchess_command("uci")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60,
                          input="uci\nposition startpos moves e2e4\neval\nquit\n")
    assert "| total" in done.stdout
    assert "Evaluation:" in done.stdout and "for Black, to move" in done.stdout
