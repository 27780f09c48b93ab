"""Experiments over runs: sweeps (``sweep``), picking five submissions (``choose``), the run
explorer (``explorer``), criteria over several development sets (``robust``), reports and pinned
regressions."""
