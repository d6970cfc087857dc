#!/bin/sh
# The shipped position set (issue 31): run from a frozen copy of branch `positions`
# (code/ = git archive of the commit in code.commit, plus its built .so files),
# so later edits to the worktree cannot change a running or resumed set.
# Rerun this same script to resume after an interruption:
#   setsid nohup /work/positions-run/command.sh >> /work/positions-run/run.log 2>&1 < /dev/null &
# Progress: tail -1 /work/positions-run/positions.epd.gz.journal (games, positions, seconds).
cd /work/positions-run
PATH=$PATH:/usr/games PYTHONPATH=/work/positions-run/code exec /work/wt-positions/.venv/bin/python -m genchess positions \
  --play genchess --games 7000 --nodes 5000 \
  --play stockfish --games 7000 --nodes 5000 \
  --random-plies 2 --seed 31 --mentor depth=10 --workers 2 --resume \
  -o /work/positions-run/positions.epd.gz
