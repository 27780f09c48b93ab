"""``python -m bench``: the benchmark suite (see bench/run.py and docs/performance.md)."""
import sys

from bench.run import main

sys.exit(main())
