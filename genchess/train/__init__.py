"""Evolving genomes: every training method of GenChess, on one registry and one scaffold.

`registry` is the table of methods (gene pool, kendall-whitwell, multi-niche
crowding, evolve): each method module declares its keys, config class, trainer
and plots once, and the config files, `genchess train --help` and `genchess plot`
are built from that. `scaffold` is the run frame every trainer shares (executor,
time limit, Ctrl-C, resume, progress, the SPRT-gated `champion`); each method
module is the loop body and its operators, as plain functions (`gene_pool` with
`pool`, `kendall`, `mnc`, `evolve`), and `*_plots` draws its runs. `config` reads
configuration files (the keys every method shares, the renamed ones), `records`
and `chromosome_db` write the runs' files (their reading, for `--genome RUN_FILE`,
is genchess.genome.run_files), `kw_study` is the Kendall-Whitwell mutation study,
`cli` is `genchess train`. Games are played through genchess.parallel and measured
by genchess.strength; only the command layer (genchess.cli, genchess.plot) imports
this package.
"""
