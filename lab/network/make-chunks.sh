#!/bin/bash
# The network's self-play set, chunk by chunk (data/README.md): run from the repository
# root as `lab/network/make-chunks.sh FIRST LAST`. Each chunk is 5000 games at 5000 nodes
# with its own seed, labelled by the playing search's own scores; a chunk that exists is
# skipped, one cut short (Ctrl-C, kill -9) is resumed where it stopped. `touch STOP` ends
# the loop after the chunk being made.
#
# The genome that plays and labels is unified.genome (the s101-s117 recipe, chunks
# named selfplay-sN); GENOME and NAME name another recipe, whose chunks must not share
# the first one's names:
#   GENOME=genchess/genomes/network.genome NAME=netplay lab/network/make-chunks.sh 201 210
# DEPTH=N plays the games at a fixed depth instead of 5000 nodes (depth 5 gives labels as
# good for two thirds of the nodes, docs/network.md), again under a NAME of its own.
set -e
first=${1:?the seed of the first chunk}; last=${2:?the seed of the last chunk}
genome=${GENOME:-genchess/genomes/unified.genome}
name=${NAME:-selfplay}
if { [ "$genome" != genchess/genomes/unified.genome ] || [ -n "$DEPTH" ]; } && [ "$name" = selfplay ]; then
  echo "make-chunks.sh: GENOME=$genome${DEPTH:+ DEPTH=$DEPTH} is another recipe: give its chunks a NAME of their own" >&2
  exit 2
fi
limit=(--nodes 5000)
[ -n "$DEPTH" ] && limit=(--depth "$DEPTH")
# Another recipe's chunks go in a folder of their own: a trainer reads a folder as one set.
folder=data/$name
mkdir -p "$folder"
for seed in $(seq "$first" "$last"); do
  [ -f STOP ] && { rm -f STOP; exit 0; }
  out=$folder/$name-s$seed.gcpos.gz
  [ -f "$out" ] && [ ! -f "$out.part" ] && continue
  resume=()
  [ -f "$out.part" ] || [ -f "$out.journal" ] && resume=(--resume)
  genchess positions --play genchess --games 5000 "${limit[@]}" --random-plies 8 --per-game 400 \
    --genome "$genome" --mentor genchess:game --seed "$seed" \
    -o "$out" "${resume[@]}"
done
