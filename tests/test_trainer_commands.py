"""`genchess train` and `genchess plot` are genchess-train and genchess-plot under the
one command: the same parser (so the same arguments, help and errors), named as run."""

from __future__ import annotations

import pytest

from genchess import cli, plot
from genchess.train import cli as train_cli


def named(text: str, alone: str, under: str) -> str:
    """`text` as the command named `under` prints it: its usage line and the error
    lines that start with its name (what the commands say of themselves stays)."""
    text = text.replace(f"usage: {alone}", f"usage: {under}")
    return "\n".join(f"{under}:{line[len(alone) + 1:]}" if line.startswith(f"{alone}:") else line
                     for line in text.split("\n"))


def run(main, argv, capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


TRAIN_ARGS = [["--help"], [], ["no-such.cfg"], ["--export", "no-such.db"], ["a.cfg", "--export", "b.db"],
              ["--bogus"]]
PLOT_ARGS = [["--help"], [], ["no-such-run.txt"], ["x", "--bogus"]]
CASES = ([("train", train_cli.main, "genchess-train", args) for args in TRAIN_ARGS]
         + [("plot", plot.main, "genchess-plot", args) for args in PLOT_ARGS])


@pytest.mark.parametrize("word, alone_main, alone_name, args", CASES,
                         ids=[f"{c[0]} {' '.join(c[3])}" for c in CASES])
def test_the_subcommand_accepts_what_the_console_script_accepts(word, alone_main, alone_name, args,
                                                                capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    alone = run(alone_main, args, capsys)
    under = run(cli.main, [word, *args], capsys)
    assert alone[0] == under[0]
    assert under[1:] == tuple(named(text, alone_name, f"genchess {word}") for text in alone[1:])


def test_both_commands_are_listed_in_genchess_help(capsys):
    status, out, _ = run(cli.main, ["--help"], capsys)
    assert status == 0 and "    train " in out and "    plot " in out


def test_options_before_the_command_word_still_reach_it(capsys, tmp_path):
    status, _, err = run(cli.main, ["--hash", "64", "train", str(tmp_path / "no.cfg")], capsys)
    assert status == 2 and err == f"genchess train: {tmp_path / 'no.cfg'}: no such file\n"
