"""Search genes (genome/search_genes.py): `Search <name>: <value>` lines in a genome of any
kind set the search's and the time manager's numbers; without them a genome plays as
before; bad lines are file:line errors; `genchess uci --tune` offers them as options."""

import chess
import chess.engine
import pytest

from genchess.engine import Engine
from genchess.genome import GenomeError
from genchess.genome.genome_file import GENOMES_DIR, parse_genome_text, read_genome_file
from genchess.genome.search_genes import search_genes
from genchess.timeman import Limits, allocate
from genchess_core.board import Board
from genchess_core.search_gene_table import SEARCH, genes_of
from genchess_core.searcher import Searcher

KINDS = ["unified.genome", "default.genome", "evolved.genome", "pvt-positions.genome"]
FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def with_lines(name, *lines):
    text = (GENOMES_DIR / name).read_text()
    at = text.rindex("\nEND")
    return text[:at] + "".join(f"\n{line}" for line in lines) + text[at:]


def nodes(genome, depth=8):
    searcher = Searcher(16)
    searcher.set_genome(genome.pack())
    return searcher.search(Board(FEN), max_depth=depth)["nodes"]


@pytest.mark.parametrize("name", KINDS)
def test_every_kind_reads_writes_and_packs_its_search_genes(name):
    text = with_lines(name, "Search rfp_margin: 120", "Search time_growth: 180")
    genome = parse_genome_text(text, name).genomes[-1]
    assert genome.search == {"rfp_margin": 120, "time_growth": 180}
    packed = genome.pack()
    assert packed["search"] == {"rfp_margin": 120} and packed["time_factors"] == {"time_growth": 180}
    again = parse_genome_text(genome.to_text(), "again").genomes[0]
    assert again == genome and again.to_text() == genome.to_text()
    assert genome.copy(7).search == genome.search


@pytest.mark.parametrize("name", KINDS)
def test_a_genome_without_the_lines_packs_and_searches_as_before(name):
    plain = read_genome_file(GENOMES_DIR / name).genomes[-1]
    assert "search" not in plain.pack() and "time_factors" not in plain.pack()
    defaults = [f"Search {gene.name}: {gene.default}" for gene in genes_of(SEARCH)]
    said = parse_genome_text(with_lines(name, *defaults), name).genomes[-1]
    assert nodes(said) == nodes(plain)
    changed = parse_genome_text(with_lines(name, "Search lmr_base: 150", "Search rfp_margin: 50"),
                                name).genomes[-1]
    assert nodes(changed, depth=9) != nodes(plain, depth=9)


@pytest.mark.parametrize("line, problem", [
    ("Search rfp_margn: 90", "unknown search gene 'rfp_margn' (did you mean rfp_margin?)"),
    ("Search rfp_margin: 1000", "search gene rfp_margin: 1000 is outside 30 to 250"),
    ("Search lmr_base: 7.5", "search gene lmr_base needs a whole number, got '7.5'"),
])
def test_a_bad_line_is_named_with_its_file_and_line(line, problem):
    text = with_lines("unified.genome", line)
    line_number = text[:text.index(line)].count("\n") + 1
    with pytest.raises(GenomeError) as caught:
        parse_genome_text(text, "mine.genome")
    assert str(caught.value) == f"mine.genome:{line_number}: {problem}"


def test_a_gene_given_twice_is_an_error():
    with pytest.raises(GenomeError, match="search gene rfp_margin is given twice"):
        parse_genome_text(with_lines("default.genome", "Search rfp_margin: 90", "Search rfp_margin: 91"), "g")


def test_time_genes_reach_the_time_manager():
    limits = Limits(wtime=10_000, btime=10_000, winc=100, binc=100)
    plain = allocate(limits, True, 20, 60.0, 0.5, 30)
    assert allocate(limits, True, 20, 60.0, 0.5, 30, factors={"time_growth": 200, "time_hard_ratio": 300,
                                                              "time_min_moves": 8}) == plain
    slower = allocate(limits, True, 20, 60.0, 0.5, 30, factors={"time_growth": 150})
    assert slower.soft > plain.soft and slower.hard == plain.hard
    genome = parse_genome_text(with_lines("unified.genome", "Search time_growth: 150"), "g").genomes[0]
    engine = Engine(genome)
    mean, spread = engine.look_ahead
    assert engine._budget(limits) == allocate(limits, True, 0, mean, spread, engine.move_overhead_ms,
                                              factors={"time_growth": 150})
    assert engine._budget(limits) != allocate(limits, True, 0, mean, spread, engine.move_overhead_ms)


def test_tune_options_appear_only_when_asked_and_change_the_search(launcher):
    plain = launcher.genchess("uci")
    assert "rfp_margin" not in plain.options
    tuned = launcher.genchess("uci", "--tune")
    option = tuned.options["rfp_margin"]
    assert (option.type, option.default, option.min, option.max) == ("spin", 90, 30, 250)
    for gene in search_genes().values():
        assert (tuned.options[gene.name].min, tuned.options[gene.name].max) == (gene.lo, gene.hi), gene.name
    board = chess.Board(FEN)
    # A new game object each time: python-chess sends ucinewgame, so the hash starts empty.
    before = tuned.analyse(board, chess.engine.Limit(depth=9), game=object())["nodes"]
    assert tuned.analyse(board, chess.engine.Limit(depth=9), game=object())["nodes"] == before
    tuned.configure({"lmr_base": 150, "rfp_margin": 50})
    after = tuned.analyse(board, chess.engine.Limit(depth=9), game=object())["nodes"]
    assert after != before
