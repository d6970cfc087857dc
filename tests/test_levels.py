"""Strength levels (genchess.levels): the skill's settings, the choice among the best
moves, UCI_Elo's mapping from the measured calibration, the options in both
protocols, the match spec, `genchess play --elo`, and a lower level losing to a
higher one."""

from __future__ import annotations

import random
import subprocess

import chess
import chess.pgn
import pytest

from engine_helpers import (assert_xboard_plays_a_legal_first_move, genchess_command, opening_fens,
                            uci_session, xboard_session)
from genchess import levels
from genchess.engine import Engine
from genchess.genome import default_genome, levels_genome, load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess.protocols.options import ELO_RANGE, OptionError, Settings
from genchess.timeman import Limits

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"          # Ra8#


def test_the_calibration_is_measured_and_increasing():
    """UCI_Elo needs at least two measured skills, rising together in skill and rating,
    each with its games on record."""
    points = sorted(levels.CALIBRATION, key=lambda p: p.skill)
    assert len(points) >= 2
    assert [p.elo for p in points] == sorted(p.elo for p in points)
    assert len({p.elo for p in points}) == len(points)
    for point in points:
        assert point.games >= 20 and point.interval > 0 and point.pgn.endswith(".pgn.gz")
    assert ELO_RANGE == (points[0].elo, points[-1].elo)
    assert ELO_RANGE[0] <= 1200      # the example: genchess play human genetic --elo 1200


def test_the_skill_sets_nodes_and_temperature():
    assert levels.nodes_for(levels.MAX_SKILL) == 0 and levels.temperature_for(levels.MAX_SKILL) == 0
    nodes = [levels.nodes_for(s) for s in range(levels.MAX_SKILL)]
    assert nodes == sorted(nodes) and nodes[0] == levels.NODES_AT_SKILL_0
    assert levels.nodes_for(levels.SKILL_STEPS_PER_DOUBLING) == 2 * levels.nodes_for(0)
    temperatures = [levels.temperature_for(s) for s in range(levels.MAX_SKILL + 1)]
    assert temperatures == sorted(temperatures, reverse=True)
    assert levels.lines_for(0) == levels.LINES and levels.lines_for(19) == 1


def test_the_choice_prefers_small_gaps_and_never_takes_a_mated_line():
    rng = random.Random(7)
    lines = [(30.0, "a"), (20.0, "b"), (-70.0, "c"), (-100_000.0, "d")]
    picks = [levels.choose(lines, 50.0, rng) for _ in range(20_000)]
    share = [picks.count(i) / len(picks) for i in range(4)]
    weights = [1.0, 2.718281828 ** -0.2, 2.718281828 ** -2.0, 0.0]
    expected = [w / sum(weights) for w in weights]
    for got, want in zip(share, expected):
        assert abs(got - want) < 0.015, (share, expected)
    assert share[3] == 0
    assert levels.choose(lines, 0.0, rng) == 0             # full strength: always the best
    assert levels.choose(lines[:1], 80.0, rng) == 0


def test_uci_elo_maps_between_measured_points():
    points = sorted(levels.CALIBRATION, key=lambda p: p.elo)
    low, high = points[0], points[1]
    assert levels.skill_for_elo(low.elo) == pytest.approx(low.skill)
    assert levels.skill_for_elo(points[-1].elo) == pytest.approx(points[-1].skill)
    middle = (low.elo + high.elo) / 2
    assert levels.skill_for_elo(middle) == pytest.approx((low.skill + high.skill) / 2)
    for outside in (points[0].elo - 1, points[-1].elo + 1):
        with pytest.raises(ValueError, match="must be from"):
            levels.skill_for_elo(outside)


def test_a_level_searches_its_node_budget_and_plays_legal_moves():
    engine = Engine(default_genome())
    engine.set_skill(0)
    engine.level_rng.seed(3)
    board = chess.Board()
    for _ in range(40):
        engine.set_position(chess.STARTING_FEN, [m.uci() for m in board.move_stack])
        result = engine.search(Limits(movetime=5000))
        assert result.nodes <= levels.NODES_AT_SKILL_0
        move = chess.Move.from_uci(result.bestmove)
        assert move in board.legal_moves
        board.push(move)
        if board.is_game_over():
            break


def test_a_level_sometimes_plays_a_second_best_move_but_takes_a_mate():
    full, weak = Engine(levels_genome()), Engine(default_genome())     # the levels' genome both
    weak.set_skill(0)
    weak.level_rng.seed(11)
    differ = 0
    fens = opening_fens(24, seed=5)
    for fen in fens:
        full.set_position(fen)
        weak.set_position(fen)
        best = full.search(Limits(nodes=levels.nodes_for(0) + 1)).bestmove
        differ += weak.search(Limits(movetime=1000)).bestmove != best
    assert 0 < differ < len(fens)
    for seed in range(10):
        weak.level_rng.seed(seed)
        weak.set_position(MATE_IN_ONE)
        assert weak.search(Limits(movetime=1000)).bestmove == "a1a8"


def test_a_level_plays_the_genome_it_was_calibrated_with():
    """The ratings of the levels were measured with unified.genome: a level plays it in
    place of the default genome (whose stronger evaluation would play above the rating
    the level names), and any genome the user chose as it is."""
    engine = Engine(default_genome())
    assert engine.genome.KIND == "network"
    engine.set_skill(7)
    assert engine.genome == levels_genome() and engine.chosen_genome == default_genome()
    engine.set_skill(12)
    assert engine.genome == levels_genome()
    engine.set_skill(levels.MAX_SKILL)
    assert engine.genome == default_genome()
    engine.set_skill(3)
    engine.set_genome(default_genome())
    assert engine.genome == levels_genome()
    chosen = load_genome(GENOMES_DIR / "evolved.genome")
    engine.set_genome(chosen)
    assert engine.genome == chosen
    engine.set_skill(levels.MAX_SKILL)
    assert engine.genome == chosen


def test_analysis_stays_at_full_strength():
    engine = Engine(default_genome())
    engine.set_skill(0)
    engine.set_position(chess.STARTING_FEN)
    engine.go(Limits(infinite=True))
    import time
    time.sleep(0.3)
    engine.stop()
    engine.wait()
    assert engine.searcher.progress()[0] > 20 * levels.NODES_AT_SKILL_0


def test_settings_limit_strength_wins_over_skill_level():
    engine = Engine(default_genome())
    settings = Settings(engine)
    settings.set_skill_level("5")
    assert engine.skill == 5
    low, high = ELO_RANGE
    settings.set_uci_elo(str(high))
    assert engine.skill == 5                     # UCI_Elo counts only with UCI_LimitStrength
    settings.set_limit_strength("true")
    assert engine.skill == pytest.approx(levels.skill_for_elo(high))
    settings.set_limit_strength("false")
    assert engine.skill == 5
    for setter, bad, words in ((settings.set_uci_elo, str(low - 1), "from"),
                               (settings.set_skill_level, "21", "from 0 to 20"),
                               (settings.set_limit_strength, "maybe", "true or false")):
        with pytest.raises(OptionError, match=words):
            setter(bad)
    assert engine.skill == 5


def test_uci_offers_and_checks_the_level_options():
    low, high = ELO_RANGE
    with uci_session() as engine:
        engine.send("uci")
        seen: list[str] = []
        engine.expect("uciok", seen=seen)
        assert "option name UCI_LimitStrength type check default false" in seen
        assert f"option name UCI_Elo type spin default {low} min {low} max {high}" in seen
        assert "option name Skill Level type spin default 20 min 0 max 20" in seen
        for option, bad in (("UCI_Elo", str(high + 100)), ("UCI_Elo", "strong"),
                            ("Skill Level", "-1"), ("UCI_LimitStrength", "yes please")):
            engine.send(f"setoption name {option} value {bad}")
            _, line = engine.expect("info string", timeout=5)
            assert option in line, line
        engine.send("setoption name UCI_LimitStrength value true")
        engine.send(f"setoption name UCI_Elo value {low}")
        engine.send("position startpos moves e2e4")
        engine.send("go wtime 10000 btime 10000 winc 100 binc 100")
        _, best = engine.expect("bestmove", timeout=10)
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(best.split()[1]) in board.legal_moves


def test_xboard_offers_the_level_options():
    low, high = ELO_RANGE
    with xboard_session() as engine:
        engine.send("xboard")
        engine.send("protover 2")
        seen: list[str] = []
        _, last = engine.expect(lambda line: "done=1" in line, seen=seen)
        features = " ".join(seen + [last])
        assert 'option="UCI_LimitStrength -check 0"' in features
        assert f'option="UCI_Elo -spin {low} {low} {high}"' in features
        assert 'option="Skill Level -spin 20 0 20"' in features
        engine.send("option Skill Level=30")
        _, line = engine.expect("Error", timeout=5)
        assert "Skill Level" in line
        engine.send("option UCI_LimitStrength=1")
        engine.send(f"option UCI_Elo={low}")
        assert_xboard_plays_a_legal_first_move(engine)


def test_match_specs_take_a_skill():
    from genchess.strength.engines import SpecError, make_match_player, parse_engine_spec
    spec = parse_engine_spec("genchess skill=4.5 name=Weak")
    assert spec.skill == 4.5
    assert make_match_player(spec).engine.skill == 4.5
    assert parse_engine_spec("genchess").skill == levels.MAX_SKILL
    for bad in ("genchess skill=21", "genchess skill=weak", "turing skill=3"):
        with pytest.raises(SpecError, match="skill"):
            parse_engine_spec(bad)


def test_play_at_a_rating_in_the_terminal(tmp_path):
    low, high = ELO_RANGE
    pgn = tmp_path / "level.pgn"
    command, env = genchess_command("play", "genetic", "random", "--elo", str(low), "--seed", "2",
                                    "--pgn", str(pgn))
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"GenChess (Elo {low}) (White)" in proc.stdout
    game = chess.pgn.read_game(open(pgn))
    assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
    for args, words in ((["--elo", str(high + 1)], "--elo must be from"),
                        (["--skill", "25"], "--skill must be from 0 to 20")):
        command, env = genchess_command("play", "genetic", "random", *args)
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    command, env = genchess_command("play", "human", "random", "--elo", str(low))
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "neither player" in proc.stderr


def test_a_lower_level_loses_to_a_higher_one():
    """Skill 4 against skill 12, six games from varied openings with colours
    alternating. Both sides are node-limited and seeded, so the match is the same
    every run; the higher level must take most of the points."""
    engines = {}
    for skill in (4, 12):
        engines[skill] = Engine(default_genome())
        engines[skill].set_skill(skill)
        engines[skill].level_rng.seed(skill)
    points = {4: 0.0, 12: 0.0}
    for game, fen in enumerate(opening_fens(6, seed=9)):
        white, black = (4, 12) if game % 2 == 0 else (12, 4)
        board = chess.Board(fen)
        for skill in engines:
            engines[skill].new_game()
        while board.outcome(claim_draw=True) is None and board.ply() < 200:
            engine = engines[white if board.turn == chess.WHITE else black]
            engine.set_position(fen, [m.uci() for m in board.move_stack])
            move = chess.Move.from_uci(engine.search(Limits(movetime=10_000)).bestmove)
            assert move in board.legal_moves
            board.push(move)
        outcome = board.outcome(claim_draw=True)
        if outcome is None or outcome.winner is None:
            points[4] += 0.5
            points[12] += 0.5
        else:
            points[white if outcome.winner == chess.WHITE else black] += 1
    assert points[12] >= 4.5, points
