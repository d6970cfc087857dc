"""Packed position sets (genchess/position_sets/packed.py): 32 bytes a position, the same set
back as EPD gives, and every damaged file refused in one line naming the record."""

from __future__ import annotations

import gzip
import subprocess

import numpy as np
import pytest

from engine_helpers import genchess_command
from genchess.files import package_file
from genchess.position_sets import packed
from genchess.position_sets.position_set import PositionSet, PositionSetError, load_positions

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1",                      # black to move, two rights
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",   # a usable ep square
    "8/8/8/8/8/8/8/K6k w - - 0 1",                             # two kings alone
    "8/P6k/8/8/8/8/6p1/K7 b - - 0 1",                          # pawns one step from promoting
]


def small_set() -> PositionSet:
    return PositionSet.from_fens(FENS, ["1-0", "1/2-1/2", "0-1", "1/2-1/2", "0-1"],
                                 [35, None, -12000, 0, -250])


def same(a: PositionSet, b: PositionSet) -> None:
    for column in ("pieces", "side", "castling", "ep", "result"):
        assert np.array_equal(getattr(a, column), getattr(b, column)), column
    assert np.array_equal(np.isnan(a.mentor), np.isnan(b.mentor))
    known = ~np.isnan(a.mentor)
    clamped = np.clip(np.rint(a.mentor[known]), -packed.MENTOR_CLAMP_CP, packed.MENTOR_CLAMP_CP)
    assert np.array_equal(clamped, b.mentor[known])


@pytest.mark.parametrize("name", ["set.gcpos", "set.gcpos.gz"])
def test_a_set_comes_back_as_it_went(tmp_path, name):
    positions = small_set()
    path = tmp_path / name
    positions.write(path)
    if name.endswith(".gz"):
        assert gzip.open(path).read(6) == packed.MAGIC
    else:
        assert path.stat().st_size == packed.HEADER_SIZE + 32 * len(positions)
    back = load_positions(path)
    same(positions, back)
    assert back.mentor[2] == -packed.MENTOR_CLAMP_CP      # a mate clamped, as EPD writes it
    assert [back.fen(i) for i in range(len(back))] == [positions.fen(i) for i in range(len(positions))]


def test_the_shipped_set_round_trips_and_is_half_its_gzipped_epd(tmp_path):
    shipped = package_file("data", "positions.epd.gz")
    positions = load_positions(shipped).subset(slice(0, 20000))
    positions.write(tmp_path / "sample.gcpos")
    positions.write(tmp_path / "sample.epd")
    same(positions, load_positions(tmp_path / "sample.gcpos"))
    # EPD text is about 2.5 times the packed size for the same labels.
    assert (tmp_path / "sample.gcpos").stat().st_size * 2 < (tmp_path / "sample.epd").stat().st_size


def test_an_epd_file_is_not_packed(tmp_path):
    small_set().write(tmp_path / "set.epd")
    assert not packed.is_packed(tmp_path / "set.epd")
    assert not packed.is_packed(tmp_path / "missing.gcpos")


def test_more_than_32_pieces_cannot_be_packed():
    # No FEN sets up such an army any more (at most 8 pawns a side): the set's columns
    # are crowded by hand, as a bug elsewhere might.
    crowded = PositionSet.from_fens(["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"], ["1-0"])
    crowded.pieces[0, 0] |= np.uint64(0xFF0000)            # white pawns on rank 3
    crowded.pieces[0, 6] |= np.uint64(0xFF0000000000)      # black pawns on rank 6
    with pytest.raises(ValueError, match="position 0: 48 pieces; a packed record holds 32"):
        packed.encode(crowded)


def record_bytes(tmp_path) -> bytearray:
    small_set().write(tmp_path / "good.gcpos")
    return bytearray((tmp_path / "good.gcpos").read_bytes())


def damaged(tmp_path, data: bytes):
    path = tmp_path / "bad.gcpos"
    path.write_bytes(bytes(data))
    with pytest.raises(PositionSetError) as caught:
        load_positions(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


def at(record: int, offset: int) -> int:
    return packed.HEADER_SIZE + 32 * record + offset


def test_a_torn_tail_is_named_with_its_byte(tmp_path):
    data = record_bytes(tmp_path)
    assert damaged(tmp_path, data[:-5]) == (f"{tmp_path / 'bad.gcpos'}: truncated: 27 bytes after its 4 whole "
                                            f"records (a record is 32 bytes), at byte {at(4, 0)}")


def test_a_header_of_another_version_or_none(tmp_path):
    data = record_bytes(tmp_path)
    data[6] = 2
    assert "packed format version 2 with 32-byte records" in damaged(tmp_path, data)
    (tmp_path / "short.gcpos").write_bytes(b"GCPOS")
    with pytest.raises(PositionSetError, match="short.gcpos: not a packed position set"):
        packed.read_packed(tmp_path / "short.gcpos")


@pytest.mark.parametrize("record, offset, value, problem", [
    (0, 8, 0xDD, "piece code 13 (codes are 0 to 11)"),
    (3, 8, 0x55, "2 white kings"),              # K k -> K K
    (3, 8, 0xBB, "0 white kings"),              # K k -> k k
    (1, 24, 0x40, "flags 83 (bits 5-7 must be 0)"),     # black to move, K and q: 19
    (2, 25, 70, "en-passant square 70"),
    (4, 28, 3, "result 3 (0, 1 or 2)"),
])
def test_a_damaged_record_is_named(tmp_path, record, offset, value, problem):
    data = record_bytes(tmp_path)
    data[at(record, offset)] = value if offset != 24 else data[at(record, offset)] | value
    assert damaged(tmp_path, data).endswith(f"record {record} (byte {at(record, 0)}): {problem}")


def test_a_pawn_on_the_first_rank_is_refused(tmp_path):
    data = record_bytes(tmp_path)
    data[at(0, 8)] = 0x10                      # the a1 rook (code 3) made a white pawn (0)
    assert damaged(tmp_path, data).endswith("record 0 (byte 16): a pawn on the first or last rank")


def test_a_score_out_of_range_is_refused(tmp_path):
    data = record_bytes(tmp_path)
    data[at(0, 26):at(0, 28)] = (20000).to_bytes(2, "little", signed=True)
    assert damaged(tmp_path, data).endswith("record 0 (byte 16): score 20000 (at most 10000 either way)")


def test_the_set_maker_writes_a_packed_set(tmp_path):
    """`genchess positions -o FILE.gcpos` makes the same positions as an EPD run."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 '
                   '7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 1-0\n')
    for name in ("set.epd", "set.gcpos"):
        argv, env = genchess_command("positions", "--pgn", str(pgn), "--workers", "1", "--skip-plies", "2",
                                     "-o", str(tmp_path / name))
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert not (tmp_path / "set.gcpos.part").exists()
    same(load_positions(tmp_path / "set.epd"), load_positions(tmp_path / "set.gcpos"))
    assert len(load_positions(tmp_path / "set.gcpos")) > 0


def test_a_folder_of_chunks_reads_as_one_set_each_position_once(tmp_path):
    from genchess.fitness.scoring import fitted_labels, sidecar_path
    folder = tmp_path / "chunks"
    folder.mkdir()
    positions = small_set()
    positions.subset(slice(0, 3)).write(folder / "a.gcpos.gz")
    positions.subset(slice(2, 5)).write(folder / "b.epd")          # position 2 again, as EPD
    (folder / "notes.txt").write_text("not a set")
    whole = load_positions(folder)
    same(positions, whole)                       # name order, the repeated position once
    assert whole.source == str(folder)
    labels = fitted_labels(folder, whole)
    assert sidecar_path(folder) == folder / "fitted.json" and (folder / "fitted.json").exists()
    positions.subset(slice(0, 1)).write(folder / "c.gcpos")        # a chunk adds nothing new...
    assert len(load_positions(folder)) == len(positions)
    grown = PositionSet.from_fens(FENS + ["8/8/8/8/8/8/8/K5kq w - - 0 1"],   # ...a new one: fitted again
                                  ["1-0", "1/2-1/2", "0-1", "1/2-1/2", "0-1", "0-1"])
    grown.subset(slice(5, 6)).write(folder / "d.gcpos")
    again = fitted_labels(folder, load_positions(folder))
    import json
    assert json.loads((folder / "fitted.json").read_text())["fitted"]["k_result"]["positions"] == 6
    assert labels.kind == again.kind


def test_a_sets_fitted_k_follows_its_files_not_the_positions_passed(tmp_path):
    import json
    from genchess.fitness.scoring import fitted_labels, set_key, sidecar_path
    folder = tmp_path / "chunks"
    folder.mkdir()
    positions = small_set()
    positions.subset(slice(0, 3)).write(folder / "a.gcpos")
    positions.subset(slice(3, 5)).write(folder / "b.gcpos")
    whole = load_positions(folder)
    fitted_labels(folder, whole)
    stored = json.loads(sidecar_path(folder).read_text())["fitted"]
    assert stored["set"] == set_key(folder) and stored["k_result"]["positions"] == 5
    fitted_labels(folder, whole.subset(slice(0, 2)))       # a caller's subset: the fit stays
    assert json.loads(sidecar_path(folder).read_text())["fitted"] == stored
    # A sidecar from before the key: kept (and stamped) when its count matches...
    old = dict(stored)
    del old["set"]
    sidecar_path(folder).write_text(json.dumps({"fitted": old}))
    fitted_labels(folder, whole)
    assert json.loads(sidecar_path(folder).read_text())["fitted"] == stored
    # ...and a file's old fit is kept whatever is passed (it was fitted on the file).
    single = tmp_path / "one.gcpos"
    positions.write(single)
    fitted_labels(single, positions)
    first = json.loads(sidecar_path(single).read_text())["fitted"]
    del first["set"]
    first["k_result"]["K"] = 1.2345                       # marks the old fit
    sidecar_path(single).write_text(json.dumps({"fitted": first}))
    assert fitted_labels(single, positions.subset(slice(0, 2))).k_result == 1.2345
    # A grown file is fitted again.
    PositionSet.from_fens(FENS + ["8/8/8/8/8/8/8/K5kq w - - 0 1"],
                          ["1-0", "1/2-1/2", "0-1", "1/2-1/2", "0-1", "0-1"]).write(single)
    assert fitted_labels(single, load_positions(single)).k_result != 1.2345
    assert json.loads(sidecar_path(single).read_text())["fitted"]["k_result"]["positions"] == 6


def test_a_folder_without_a_set_is_named(tmp_path):
    (tmp_path / "readme.txt").write_text("x")
    with pytest.raises(PositionSetError, match="no position set in it"):
        load_positions(tmp_path)
