"""Run the gene-pool trainer from a source checkout: python scripts/train.py CONFIG."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genchess.train.cli import main  # noqa: E402

sys.exit(main())
