"""The data machine (`genchess datagen`): chunks, manifest, recipe, resume after kill -9,
the same bytes on a loopback dask cluster, and one line for each bad input."""

from __future__ import annotations

import hashlib
import json
import os
import signal

import pytest

from genchess.position_sets.chains import read_chain_games, read_chain_records
from genchess.position_sets.position_set import load_positions
from train_helpers import Background, genchess_command, run, wait_for

# Small and fast: a chunk of 6 games at a few hundred nodes a move.
SMALL = ("--games-per-chunk", "6", "--soft-nodes", "200", "--nodes", "2000", "--seed", "7")


def datagen(folder, *args, timeout=300, cwd=None):
    return run(genchess_command("datagen", str(folder), *args), cwd=cwd or folder.parent, timeout=timeout)


def manifest(folder):
    return json.loads((folder / "MANIFEST.json").read_text())


def test_two_chunks_with_manifest_recipe_and_genome(tmp_path):
    folder = tmp_path / "net"
    proc = datagen(folder, *SMALL, "--chunks", "2", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    rows = manifest(folder)
    assert [r["chunk"] for r in rows] == ["net-0001.chains.xz", "net-0002.chains.xz"]
    for row in rows:
        data = (folder / row["chunk"]).read_bytes()
        assert row["sha256"] == hashlib.sha256(data).hexdigest() and row["bytes"] == len(data)
        records, counts = read_chain_records(folder / row["chunk"])
        assert row["positions"] == len(records) > 0 and row["games"] == 6
        assert row["plies"] == sum(len(g[4]) for g in read_chain_games(folder / row["chunk"]))
    recipe = json.loads((folder / "recipe.json").read_text())
    genome = (folder / "recipe.genome").read_text()
    assert recipe["genome_sha256"] == hashlib.sha256(genome.encode()).hexdigest()
    assert (recipe["soft_nodes"], recipe["nodes"], recipe["games_per_chunk"]) == (200, 2000, 6)
    assert "Kind: network" in genome
    # The folder reads as one set; nothing is left of the chunks' making.
    assert len(load_positions(folder)) > 0
    assert not list(folder.glob("*.part")) and not list(folder.glob("*.journal"))
    verified = datagen(folder, "--verify")
    assert verified.returncode == 0
    table = verified.stdout.splitlines()
    assert table[2].startswith(f"| net-0001.chains.xz | {rows[0]['positions']:,} | 6 |")
    assert table[-1].startswith(f"| **2 chunks** | **{rows[0]['positions'] + rows[1]['positions']:,}** | 12 |")


def test_a_later_run_grows_the_set_by_its_recipe_and_refuses_another(tmp_path):
    folder = tmp_path / "net"
    assert datagen(folder, *SMALL, "--chunks", "1", "--workers", "1").returncode == 0
    # No recipe options: the folder's recipe.
    assert datagen(folder, "--chunks", "2", "--workers", "1").returncode == 0
    assert len(manifest(folder)) == 2
    proc = datagen(folder, "--soft-nodes", "300", "--chunks", "3")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"genchess datagen: {folder} is made by its recipe (the default genome (network.genome), "
        f"200 soft nodes (2000 hard) a move, 8 random plies, 10% Chess960, wins adjudicated at 1000 cp "
        f"for 4 plies, draws at 10 cp for 12 plies from ply 80); these options differ from it: "
        f"--soft-nodes. Another recipe is another set: give it another folder"]
    assert len(manifest(folder)) == 2


def test_resume_after_kill_9_mid_chunk_equals_an_uninterrupted_run(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    common = ("--games-per-chunk", "80", "--soft-nodes", "400", "--nodes", "4000", "--seed", "3",
              "--chunks", "1", "--workers", "2")
    assert datagen(whole, *common).returncode == 0
    bg = Background(genchess_command("datagen", str(killed), *common), cwd=tmp_path, unbuffered=True)
    journal = killed / "killed-0001.chains.journal"
    try:
        wait_for(lambda: journal.exists() and len(journal.read_text().splitlines()) >= 1, 120,
                 "the first batch written", bg)
        os.killpg(bg.pid, signal.SIGKILL)
    finally:
        bg.proc.wait()
    lines = journal.read_text().splitlines()
    assert 0 < json.loads(lines[-1])["games"] < 80, "the kill landed mid-chunk"
    # A torn journal line and a torn record, as a kill inside a write leaves them.
    with open(journal, "a") as f:
        f.write('{"games": 99, "off')
    with open(killed / "killed-0001.chains.part", "ab") as f:
        f.write(b"\xc5\x02\x10garbage")
    assert datagen(killed, "--chunks", "1", "--workers", "2").returncode == 0
    assert (killed / "killed-0001.chains.xz").read_bytes() == (whole / "whole-0001.chains.xz").read_bytes()
    assert manifest(killed)[0]["positions"] == manifest(whole)[0]["positions"]


def test_the_loopback_cluster_makes_the_local_bytes(tmp_path):
    distributed = pytest.importorskip("distributed", reason='needs pip install "genchess[cluster]"')
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    common = ("--games-per-chunk", "8", "--soft-nodes", "200", "--nodes", "2000", "--seed", "11",
              "--chunks", "1")
    assert datagen(local, *common, "--workers", "1").returncode == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as dask:
        proc = datagen(cluster, *common, "--scheduler", dask.scheduler_address)
    assert proc.returncode == 0, proc.stderr
    assert (cluster / "cluster-0001.chains.xz").read_bytes() == (local / "local-0001.chains.xz").read_bytes()


def test_a_stop_file_ends_the_run_after_its_chunk(tmp_path):
    folder = tmp_path / "net"
    folder.mkdir()
    (folder / "STOP").touch()
    proc = datagen(folder, *SMALL, "--workers", "1")
    assert proc.returncode == 0
    assert "STOP found: stopped after 0 chunks" in proc.stderr
    assert not (folder / "STOP").exists()


def test_a_damaged_chunk_or_manifest_is_one_line(tmp_path):
    folder = tmp_path / "net"
    assert datagen(folder, *SMALL, "--chunks", "1", "--workers", "1").returncode == 0
    chunk = folder / "net-0001.chains.xz"
    data = bytearray(chunk.read_bytes())
    data[40] ^= 0x55
    chunk.write_bytes(bytes(data))
    proc = datagen(folder, "--verify")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"genchess datagen: {chunk}: its sha256 is not the manifest's: "
                                   f"the file was changed or damaged")
    (folder / "MANIFEST.json").write_text("[{\"chunk\": ")
    proc = datagen(folder, "--chunks", "2")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"genchess datagen: {folder / 'MANIFEST.json'}: not a data "
                                          f"machine manifest")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args, message", [
    (("--soft-nodes", "0"), "argument --soft-nodes: expected a whole number of at least 1, not 0"),
    (("--chess960", "1.5"), "argument --chess960: a share from 0 to 1, not '1.5'"),
    (("--soft-nodes", "10", "--depth", "3"), "argument --depth: not allowed with argument --soft-nodes"),
    (("--genome", "no-such.genome"), "no-such.genome"),
    (("--win-adjudication", "500", "0"), "PLIES at least 1, or all 0 for none"),
])
def test_bad_options_are_one_line(tmp_path, args, message):
    proc = datagen(tmp_path / "net", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "net" / "recipe.json").exists()


def test_the_recipe_names_its_genome_without_the_machines_folders(tmp_path, monkeypatch):
    # recipe.json is committed with the set: a genome given by an absolute path is named
    # relative to where the command ran, a shipped one by its place in the package.
    from genchess.files import package_file
    from genchess.position_sets.datagen_cli import _recipe
    genome = tmp_path / "genomes" / "mine.genome"
    genome.parent.mkdir()
    genome.write_text((package_file() / "genomes" / "network.genome").read_text())
    monkeypatch.chdir(tmp_path)
    recipe, _ = _recipe({"genome": str(genome)}, tmp_path / "net")
    assert recipe.genome == "genomes/mine.genome"
    shipped = package_file() / "genomes" / "network.genome"
    assert _recipe({"genome": str(shipped.resolve())}, tmp_path / "net")[0].genome == "genchess/genomes/network.genome"
