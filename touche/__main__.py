"""``python -m touche …`` is the ``touche`` command (the CLI wing, touche/cli)."""
import sys

from touche.cli import main

sys.exit(main())
