"""Run the gene-pool trainer from a source checkout: python scripts/train.py CONFIG."""

import sys
from pathlib import Path

try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    # Only a checkout without an install goes on sys.path, after the installed
    # GenChess would have been found: processes this one spawns inherit sys.path.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genchess.train.cli import main  # noqa: E402

sys.exit(main())
