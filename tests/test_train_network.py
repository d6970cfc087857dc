"""method = network: a network genome trained on positions, its files, exact resume,
and a best genome that the engine plays."""

from __future__ import annotations

import chess
import chess.engine
import pytest

from genchess.genome import NetworkGenome, load_genome, open_genome
from genchess.train.registry import parse_config, trainer_for
from test_evolve import labelled_set  # noqa: F401  (the fixture: 3000 positions, results)
from train_helpers import config_text

from engine_helpers import genchess_command


def write_config(directory, labelled_set, **changes):
    base = {"method": "network", "run file": str(directory / "net.txt"), "positions": str(labelled_set),
            "hidden": "16", "epochs": "3", "batch size": "256", "learning rate": "0.003",
            "seed": "5", "output volume": "quiet"}
    path = directory / "net.cfg"
    path.write_text(config_text(base, **changes))
    return path


def trainer(config_path, stop_after=None):
    run = trainer_for(parse_config(config_path), out=lambda line: None, progress=False)
    if stop_after is not None:          # as if stopped (a time limit, Ctrl-C) after that epoch
        run.finished = lambda: "stopped" if run.trainer.epoch >= stop_after else None
    return run


def epoch_lines(path):
    """The records' epoch lines without their wall-clock figures."""
    return [line.split(" rate ")[0] for line in path.read_text().splitlines() if line.startswith("epoch ")]


def test_a_network_run_learns_and_its_best_genome_plays(tmp_path, labelled_set):
    assert trainer(write_config(tmp_path, labelled_set, psqt="no")).run() == 0
    lines = epoch_lines(tmp_path / "net.txt")
    assert len(lines) == 3
    first, last = (float(line.split(" quantised ")[1]) for line in (lines[0], lines[-1]))
    assert last < first, (first, last)
    best = open_genome(tmp_path / "net.txt")            # the run file plays its best genome
    assert isinstance(best, NetworkGenome) and best.hidden == 16
    assert "held-out loss" in best.lineage
    last = load_genome(tmp_path / "net.txt_last.genome")    # and the last epoch, whatever its loss
    assert "3 epochs" in last.lineage and "(epoch 3)" in (tmp_path / "net.txt_last.genome").read_text()
    command, env = genchess_command("uci", "--genome", str(tmp_path / "net.txt"))
    with chess.engine.SimpleEngine.popen_uci(command, env=env) as engine:
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(depth=4))
        assert result.move in board.legal_moves


def test_a_resumed_network_run_ends_exactly_as_an_uninterrupted_one(tmp_path, labelled_set):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    assert trainer(write_config(whole, labelled_set)).run() == 0
    config = write_config(parts, labelled_set)
    assert trainer(config, stop_after=1).run() == 0
    saved = (parts / "net.txt_state.npz").read_bytes()
    assert trainer(config, stop_after=2).run() == 0
    (parts / "net.txt_state.npz").write_bytes(saved)      # killed after epoch 2's line, before its state
    assert trainer(config).run() == 0
    assert epoch_lines(parts / "net.txt") == epoch_lines(whole / "net.txt")
    assert open_genome(parts / "net.txt") == open_genome(whole / "net.txt")


def test_a_state_of_other_options_is_refused_in_one_line(tmp_path, labelled_set):
    assert trainer(write_config(tmp_path, labelled_set, epochs=1)).run() == 0
    with pytest.raises(Exception, match="other options"):
        trainer(write_config(tmp_path, labelled_set, hidden=32)).run()


def test_validation_games_the_champion_and_the_plots(tmp_path, labelled_set):
    from train_helpers import plot_command
    from train_helpers import run as run_command
    config = write_config(tmp_path, labelled_set, epochs=2, validation_games=2,
                          validation_interval=1, game_time=0.05, champion_interval=2,
                          champion_max_games=4)
    assert trainer(config).run() == 0
    records = (tmp_path / "net.txt").read_text()
    assert "validation 1: best vs default" in records and "validation 2: best vs default" in records
    assert (tmp_path / "net.txt_champion.genome").exists()
    proc = run_command(plot_command(str(tmp_path / "net.txt")), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for name in ("loss.png", "validation.png", "first-layer.png"):
        assert (tmp_path / "net.txt_plots" / name).stat().st_size > 10_000, name


def test_the_first_layer_plot_shows_the_units_that_move_the_output_most():
    import numpy as np
    from genchess.train.network_plots import strongest_units
    rng = np.random.default_rng(3)
    w1, w2 = rng.normal(0, 0.05, (768, 32)), rng.normal(0, 0.1, 64)
    w1[:, 7] *= 10                       # a wide spread of first-layer weights...
    w2[[20, 52]] = 2.0                   # ...or large output weights on both halves
    assert strongest_units(w1, w2, 2) == [7, 20] or strongest_units(w1, w2, 2) == [20, 7]
    w2[[7, 39]] = 0.0                    # a unit the output ignores is not shown
    assert 7 not in strongest_units(w1, w2, 4)


def test_the_held_out_loss_can_come_from_other_games(tmp_path, labelled_set):
    from genchess.fitness.network_training import training_parts
    from genchess.position_sets.position_set import load_positions
    positions = load_positions(labelled_set)
    train_set, other_games = positions.subset(slice(0, 2500)), positions.subset(slice(2400, 3000))
    train_set.write(tmp_path / "train.gcpos")
    other_games.write(tmp_path / "other.gcpos")
    train, held = training_parts(train_set, 0.1, 5, other_games)
    seen = {train_set.fen(i) for i in range(len(train_set))}
    unseen = sum(other_games.fen(i) not in seen for i in range(len(other_games)))
    assert 490 <= unseen <= 500                  # the 100 the training set holds (and repeats) not
    assert len(train) == 2500 and len(held) == unseen       # ...counted as held out
    # The run reads each file's positions once (records.load_records).
    distinct_seen = len(seen)
    distinct_unseen = len({other_games.fen(i) for i in range(len(other_games))} - seen)
    assert distinct_seen < 2500 and distinct_unseen <= unseen
    config = write_config(tmp_path, tmp_path / "train.gcpos", epochs=1,
                          validation_positions=str(tmp_path / "other.gcpos"))
    run = trainer(config)
    assert run.run() == 0
    assert len(run.trainer.train) == distinct_seen and len(run.trainer.held_out) == distinct_unseen
    records = (tmp_path / "net.txt").read_text()
    assert f"validated on {tmp_path / 'other.gcpos'} ({distinct_unseen})" in records
    assert open_genome(tmp_path / "net.txt").lineage.endswith("on other.gcpos")


def best_loss(path):
    return min(float(line.split(" quantised ")[1]) for line in epoch_lines(path))


def test_the_piece_square_term_knows_material_from_the_start_and_plays(tmp_path, labelled_set):
    """The set's results follow material (labelled_set), which the term starts from:
    with it the network is better after one epoch than without it after three."""
    without, with_term = tmp_path / "without", tmp_path / "with"
    without.mkdir(), with_term.mkdir()
    assert trainer(write_config(without, labelled_set, psqt="no")).run() == 0
    assert trainer(write_config(with_term, labelled_set, epochs=1)).run() == 0
    assert best_loss(with_term / "net.txt") < best_loss(without / "net.txt")
    best = open_genome(with_term / "net.txt")
    assert best.psqt is not None and "psqt" in (with_term / "net.txt").read_text().splitlines()[0]
    command, env = genchess_command("uci", "--genome", str(with_term / "net.txt"))
    with chess.engine.SimpleEngine.popen_uci(command, env=env) as engine:
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        assert engine.play(board, chess.engine.Limit(depth=4)).move in board.legal_moves


def test_a_bucketed_run_plays_and_its_lineage_names_the_data_and_its_maker(tmp_path, labelled_set):
    """Data made by network n trains n + 1: the genome says which set (its records'
    hash and its manifest's) and which genome made it (the set's recipe)."""
    import hashlib
    import json
    from genchess.position_sets.position_set import load_positions
    from genchess.position_sets.records import PackedSet
    folder = tmp_path / "net0"
    folder.mkdir()
    load_positions(labelled_set).write(folder / "chunk-1.gcpos")
    (folder / "recipe.json").write_text(json.dumps({"genome": "net0.genome", "genome_sha256": "ab" * 32}))
    (folder / "MANIFEST.json").write_text(json.dumps([{"chunk": "chunk-1.gcpos"}]))
    manifest_sha = hashlib.sha256((folder / "MANIFEST.json").read_bytes()).hexdigest()[:16]
    assert trainer(write_config(tmp_path, folder, output_buckets=8, epochs=1)).run() == 0
    best = open_genome(tmp_path / "net.txt")
    assert best.buckets == 8 and best.architecture == "768x2 -> 16 -> 1x8, screlu, psqt"
    assert "-> 1x8" in (tmp_path / "net.txt").read_text().splitlines()[0]
    records = PackedSet.load(folder)
    assert best.lineage.startswith(f"set net0 ({len(records)} positions, records {records.fingerprint()}; "
                                   f"manifest MANIFEST.json sha256 {manifest_sha}; made by net0.genome "
                                   f"{'ab' * 6}), result labels, 1 epochs")
    command, env = genchess_command("uci", "--genome", str(tmp_path / "net.txt"))
    with chess.engine.SimpleEngine.popen_uci(command, env=env) as engine:
        board = chess.Board("8/5k2/8/3P4/8/8/5K2/8 w - - 0 1")              # a bucket of its own
        assert engine.play(board, chess.engine.Limit(depth=4)).move in board.legal_moves


def test_a_king_bucketed_run_writes_the_network_it_trained(tmp_path, labelled_set):
    """`kings = mirrored, ...`: the genome carries the layout, and the engine's integer
    evaluation of it is the trainer's float network up to the quantisation's rounding."""
    import numpy as np
    from genchess.fitness.network_model import network_inputs
    from genchess.fitness.network_training import load_network
    from genchess.position_sets.position_set import load_positions
    layout = "mirrored, 0 0 1 1 2 2 2 2" + " 3 3 3 3" * 6
    assert trainer(write_config(tmp_path, labelled_set, kings=layout, epochs=1)).run() == 0
    best = open_genome(tmp_path / "net.txt")
    assert best.kings.buckets == 4 and best.kings.mirrored and best.kings.text() == layout
    assert best.architecture.endswith("4 king buckets, mirrored")
    assert f"Kings: {layout}" in (tmp_path / "net.txt_best.genome").read_text().splitlines()
    float_net = load_network(tmp_path / "net.txt_state.npz")
    assert float_net.w1.shape == (4 * 768, 16)
    positions = load_positions(labelled_set)
    sample = positions.subset(np.arange(0, len(positions), max(1, len(positions) // 40)))
    expected = float_net.cp_white(*network_inputs(sample, best.kings), sample.side)
    engine_cp = sample.evaluate(best) / 10                  # White's view, 10 units a centipawn
    assert len(sample) >= 30 and np.abs(expected).max() > 50
    assert np.abs(engine_cp - expected).max() < 3.0


@pytest.mark.parametrize("changes, message", [
    (dict(kings="mirrored, 0 1"), ":10: kings: expected mirrored, then 32 bucket numbers"),
    (dict(output_buckets="0"), ":10: output buckets: must be at least 1, not 0"),
    (dict(output_buckets="17"), ":10: output buckets: must be at most 16, not 17"),
    (dict(threads="0"), ":10: threads: must be at least 1, not 0"),
    (dict(hidden="24"), ":4: hidden must be a multiple of 16, not 24"),
    (dict(hidden="2048"), ":4: hidden: must be at most 1024, not 2048"),
    (dict(wdl="-0.1"), ":10: wdl: must be at least 0, not -0.1"),
    (dict(labels="mix"), ":10: labels = mix needs 'wdl'"),
])
def test_bad_values_are_one_line_and_write_nothing(tmp_path, labelled_set, capsys, changes, message):
    from genchess.train import cli as train_cli
    config = write_config(tmp_path, labelled_set, **changes)
    assert train_cli.main([str(config)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(f"genchess-train: {config}{message}"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.cfg"]


def test_the_trained_network_plays_the_search_genes_of_the_genome_it_replaces(tmp_path, labelled_set):
    # A network is trained to replace the default genome, whose search genes were tuned
    # by games: without them it would play the search's untuned defaults.
    from genchess.genome import default_genome
    from genchess.train.config import ConfigError
    tuned = default_genome().search
    assert tuned                                        # the default genome carries some
    assert trainer(write_config(tmp_path, labelled_set, epochs=1)).run() == 0
    best = open_genome(tmp_path / "net.txt")
    assert best.search == tuned and "search genes of the default genome" in best.lineage

    other = tmp_path / "other.genome"
    source = open_genome(tmp_path / "net.txt").with_search({"rfp_margin": 77})
    other.write_text(source.to_text())
    (tmp_path / "two").mkdir()
    assert trainer(write_config(tmp_path / "two", labelled_set, epochs=1,
                                search_genes=str(other))).run() == 0
    assert open_genome(tmp_path / "two" / "net.txt").search == {"rfp_margin": 77}

    bad = tmp_path / "bad.genome"
    bad.write_text("Kind: network\nSearch rfp_margin: lots\n")
    with pytest.raises(ConfigError, match="search genes") as refused:
        trainer(write_config(tmp_path / "two", labelled_set, search_genes=str(bad)))
    assert "bad.genome" in str(refused.value) and "\n" not in str(refused.value)


def test_a_run_on_the_first_chunks_of_a_growing_folder_resumes_on_them(tmp_path, labelled_set, capsys):
    # The data machine adds chunks to a folder while networks train on it: `chunks = N`
    # pins a run to the first N, so a chunk landing mid-run neither stops its resume
    # (without the key the run refuses: "trained on another position set") nor changes it.
    from genchess.position_sets.position_set import load_positions
    from genchess.position_sets.records import PackedSet
    from genchess.train import cli as train_cli
    whole = load_positions(labelled_set)
    first, second = whole.split(0.5)
    folder = tmp_path / "growing"
    folder.mkdir()
    first.write(folder / "set-0001.gcpos")
    alone, pinned = tmp_path / "alone", tmp_path / "pinned"
    alone.mkdir(), pinned.mkdir()
    assert trainer(write_config(alone, folder, chunks=1)).run() == 0
    config = write_config(pinned, folder, chunks=1)
    assert trainer(config, stop_after=1).run() == 0
    second.write(folder / "set-0002.gcpos")                    # a chunk lands mid-run
    assert len(PackedSet.load(folder)) > len(PackedSet.load(folder, 1))
    assert trainer(config).run() == 0
    assert epoch_lines(pinned / "net.txt") == epoch_lines(alone / "net.txt")
    lineage = open_genome(pinned / "net.txt").lineage
    assert f"set growing ({len(PackedSet.load(folder, 1))} positions of chunks 1-1, " in lineage

    too_many = write_config(tmp_path, folder, chunks=3)              # more than the folder holds
    line = next(n for n, text in enumerate(too_many.read_text().splitlines(), 1) if text.startswith("chunks"))
    capsys.readouterr()
    assert train_cli.main([str(too_many)]) == 2
    err = capsys.readouterr().err
    assert err == (f"genchess-train: {too_many}:{line}: {folder}: holds 2 chunks, and the first 3 "
                   f"were asked for\n"), err


def test_several_sets_train_as_one_in_order_and_chunks_count_across_them(tmp_path, labelled_set, capsys):
    # Each generation's data has its folder (data/net1, data/net2): `positions = A, B` reads
    # them as one set, A's chunks then B's, exactly as one folder holding both in that order
    # would, and `chunks` counts across them, so a run resumes while B still grows.
    from genchess.position_sets.position_set import load_positions
    from genchess.position_sets.records import PackedSet
    from genchess.train import cli as train_cli
    first, rest = load_positions(labelled_set).split(0.4)
    second, third = rest.split(0.5)
    older, newer, together = tmp_path / "net1", tmp_path / "net2", tmp_path / "together"
    for folder in (older, newer, together):
        folder.mkdir()
    first.write(older / "net1-0001.gcpos")
    second.write(older / "net1-0002.gcpos")
    third.write(newer / "net2-0001.gcpos")
    for n, part in enumerate((first, second, third), 1):
        part.write(together / f"set-{n:04d}.gcpos")
    listed = f"{older}, {newer}"
    assert (PackedSet.load(together).records == PackedSet.load(parse_config(
        write_config(tmp_path, listed)).positions).records).all()

    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    assert trainer(write_config(one, together, chunks=3)).run() == 0
    config = write_config(two, listed, chunks=3)
    assert trainer(config, stop_after=1).run() == 0
    (newer / "net2-0002.gcpos").write_bytes((together / "set-0001.gcpos").read_bytes())   # B grows
    assert trainer(config).run() == 0
    assert epoch_lines(two / "net.txt") == epoch_lines(one / "net.txt")
    lineage = open_genome(two / "net.txt").lineage
    assert f"set net1 + net2 ({len(PackedSet.load(together))} positions of chunks 1-3, " in lineage

    only_older = write_config(tmp_path / "one", listed, chunks=2)    # the first member's chunks alone
    assert len(PackedSet.load(parse_config(only_older).positions, 2)) == len(PackedSet.load(older))

    too_many = write_config(tmp_path, listed, chunks=5)
    line = next(n for n, text in enumerate(too_many.read_text().splitlines(), 1) if text.startswith("chunks"))
    capsys.readouterr()
    assert train_cli.main([str(too_many)]) == 2
    assert capsys.readouterr().err == (f"genchess-train: {too_many}:{line}: {listed}: hold 4 chunks, "
                                       f"and the first 5 were asked for\n")
