#!/bin/bash
# The network's self-play set, chunk by chunk (data/README.md): run from the repository
# root as `lab/network/make-chunks.sh FIRST LAST`. Each chunk is 5000 games of
# unified.genome at 5000 nodes with its own seed; a chunk that exists is skipped, one
# cut short (Ctrl-C, kill -9) is resumed where it stopped. `touch STOP` ends the loop
# after the chunk being made.
set -e
first=${1:?the seed of the first chunk}; last=${2:?the seed of the last chunk}
mkdir -p data/selfplay
for seed in $(seq "$first" "$last"); do
  [ -f STOP ] && { rm -f STOP; exit 0; }
  out=data/selfplay/selfplay-s$seed.gcpos.gz
  [ -f "$out" ] && [ ! -f "$out.part" ] && continue
  resume=()
  [ -f "$out.part" ] || [ -f "$out.journal" ] && resume=(--resume)
  genchess positions --play genchess --games 5000 --nodes 5000 --random-plies 8 --per-game 400 \
    --genome genchess/genomes/unified.genome --mentor genchess:game --seed "$seed" \
    -o "$out" "${resume[@]}"
done
