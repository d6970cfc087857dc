"""A set held as packed records (genchess.position_sets.records): the same positions and
labels as the PositionSet of the same files, each position once, the same hashes."""

import numpy as np
import pytest

from genchess.position_sets import packed
from genchess.position_sets.epd import PositionSetError
from genchess.position_sets.position_set import load_positions
from genchess.position_sets.records import load_records, record_hashes
from script_helpers import small_set


@pytest.fixture
def sets(tmp_path):
    """One EPD file and the packed file of its first half, in one folder: half of the
    folder's positions are there twice."""
    folder = tmp_path / "set"
    folder.mkdir()
    epd = small_set(tmp_path, 600)
    positions = load_positions(epd)
    (folder / "a.epd").write_text(epd.read_text())
    packed.write_packed(positions.subset(slice(0, 300)), folder / "b.gcpos.gz")
    return folder, positions


def test_a_folder_reads_as_the_position_sets_folder_does(sets):
    folder, _ = sets
    records = load_records(folder)
    positions = load_positions(folder)
    assert len(records) == len(positions)
    assert records.tobytes() == packed.encode(positions)


def test_record_hashes_are_the_sets_hashes(sets):
    folder, positions = sets
    records = np.frombuffer(packed.encode(positions), dtype=packed.RECORD)
    assert np.array_equal(record_hashes(records), positions.hashes())
    assert np.array_equal(record_hashes(records, seed=7), positions.hashes(seed=7))


def test_a_bad_record_is_named_by_file_and_index(sets, tmp_path):
    _, positions = sets
    records = np.frombuffer(packed.encode(positions), dtype=packed.RECORD).copy()
    records["result"][5] = 9
    path = tmp_path / "bad.gcpos"
    path.write_bytes(packed.HEADER + records.tobytes())
    with pytest.raises(PositionSetError, match=rf"{path}: record 5 \(byte 176\): result 9"):
        load_records(path)
