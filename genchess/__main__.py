import sys

from genchess.cli import main

sys.exit(main())
