"""Evolving genomes: every training method of GenChess, on one registry and one scaffold.

`registry` is the table of methods (gene pool, kendall-whitwell, multi-niche
crowding): each method module declares its keys, config class and trainer once, and
the config files, `genchess-train --help` and `--genome RUN_FILE` are built from
that. `scaffold` is the run frame every trainer shares (executor, time limit,
Ctrl-C, resume, progress, the SPRT-gated `champion`); each method module is the
loop body and its operators, as plain functions. `config` reads configuration
files, `records` and `chromosome_db` are the runs' files, `kw_study` is the
Kendall-Whitwell mutation study. Games are played through genchess.parallel and
measured by genchess.strength; neither of those imports this package.
"""
