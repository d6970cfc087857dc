"""Which genome `--genome FILE` plays (genome.open_genome): no file, the default
genome; a trainer's run file, the genome the run plays; any other file, a genome file."""

from __future__ import annotations

import pytest

from genchess.genome import GenomeError, default_genome, open_genome, read_genomes, write_still_alive
from test_genome import write_genomes


def test_a_plain_genome_file_plays_its_last_genome_or_the_one_asked_for(tmp_path):
    path = tmp_path / "several.genome"
    write_genomes(path, [4, 9, 2])
    genomes = read_genomes(path)
    assert open_genome(path) == genomes[2]
    assert open_genome(path, 9) == genomes[1]


def test_an_unreadable_file_is_one_genome_error_naming_it(tmp_path):
    with pytest.raises(GenomeError, match=f"cannot read genome file {tmp_path / 'nope.genome'}"):
        open_genome(tmp_path / "nope.genome")
    with pytest.raises(GenomeError, match="no genome with ID 7"):
        write_genomes(tmp_path / "one.genome", [1])
        open_genome(tmp_path / "one.genome", 7)


def test_pool_file_gives_smallest_id_still_alive(tmp_path):
    path = tmp_path / "pool.txt"
    write_genomes(path, range(1, 10))
    with open(path, "a") as out:
        write_still_alive(0, [1, 3, 5], out)
        write_still_alive(1, [2, 4, 6], out)
        write_still_alive(0, [3, 7, 5], out)  # 1 died
        write_still_alive(1, [4, 8, 6], out)  # 2 died
    assert open_genome(path).id == 3
    with open(path, "a") as out:
        write_still_alive(0, [9, 7, 5], out)  # 3 died; pool 1 now holds the smallest
    assert open_genome(path).id == 4
    # The pool file's Still Alive lines win over a games file.
    (tmp_path / "pool.txt_games.txt").write_text(pgn_game("GenChess 9", "GenChess 1", "1-0") * 3)
    assert open_genome(path).id == 4


def pgn_game(white, black, result):
    return (
        f'[Event "Training"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
        f"1. e4 e5 {result}\n\n"
    )


def test_games_file_gives_last_genome_with_three_wins(tmp_path):
    path = tmp_path / "genomes.txt"
    write_genomes(path, [10, 20, 30, 40])
    games = [
        pgn_game("GenChess 10", "GenChess 20", "1-0"),
        pgn_game("GenChess 20", "GenChess 10", "0-1"),
        pgn_game("GenChess 10", "Stockfish", "1-0"),  # third win for 10
        pgn_game("GenChess 20", "GenChess 30", "1-0"),
        pgn_game("GenChess 30", "GenChess 20", "0-1"),
        pgn_game("GenChess 40", "GenChess 30", "1/2-1/2"),  # draws are not wins
        pgn_game("GenChess 30", "GenChess 40", "1/2-1/2"),
        pgn_game("GenChess 40", "GenChess 30", "0-1"),  # win for Black (30), not White
        pgn_game("GenChess 30", "GenChess 40", "1-0"),
    ]
    games_path = tmp_path / "genomes.txt_games.txt"
    games_path.write_text("".join(games))
    # 10 has 3 wins, 20 has 2, 30 has 2, 40 has 0: the last qualifying genome is 10.
    assert open_genome(path).id == 10
    games_path.write_text("".join(games) + pgn_game("GenChess 40", "GenChess 30", "0-1"))
    assert open_genome(path).id == 30
    games_path.write_text("".join(games[:2]))
    assert open_genome(path).id == 40  # nobody has three wins: the last genome


def test_no_file_is_the_default_genome_and_an_id_without_a_file_is_an_error():
    assert open_genome(None) == default_genome()
    with pytest.raises(GenomeError, match="genome ID 3 needs a genome file"):
        open_genome(None, 3)


def test_the_caller_chooses_its_own_error_with_the_same_message(tmp_path):
    class OptionProblem(ValueError):
        pass

    missing = tmp_path / "nope.genome"
    with pytest.raises(OptionProblem, match=f"^cannot read genome file {missing}") as raised:
        open_genome(missing, error=OptionProblem)
    assert not isinstance(raised.value, GenomeError)


def test_a_bare_name_is_a_shipped_genome_unless_a_file_has_that_name(tmp_path, monkeypatch):
    from genchess.genome import load_genome
    from genchess.genome.genome_file import GENOMES_DIR
    monkeypatch.chdir(tmp_path)
    shipped = load_genome(GENOMES_DIR / "unified-retuned.genome")
    assert open_genome("unified-retuned") == shipped
    assert open_genome("unified-retuned.genome") == shipped
    write_genomes(tmp_path / "unified-retuned.genome", [5])       # a file of the user's wins
    assert open_genome("unified-retuned.genome") == read_genomes(tmp_path / "unified-retuned.genome")[0]
    with pytest.raises(GenomeError, match=r"unified-retune: no such file, nor a shipped genome .*unified-retuned\)"):
        open_genome("unified-retune")
    with pytest.raises(GenomeError, match="cannot read genome file sub/unified.genome"):
        open_genome("sub/unified.genome")                         # a path is never a shipped name
