"""The Python API: what the command line does, as functions; runs are pandas DataFrames.

A run frame has ir_measures' run columns ``query_id``, ``doc_id``, ``score`` plus Touché's
``stance`` (the run file's second column: ``Q0``, ``PRO``/``CON``, ``FIRST``/``SECOND`` …) and
``rank``; its rows are in the order, and cut to the depth, of the run file the variant writes.
Examples (run by tests/api/test_python_api.py): docs/python-api.md.

Every ``touche`` command is a function here (``COMMANDS``): the command parses its arguments,
calls that function and prints what it returns, so a participant's loop runs the same from
Python (tests/project/test_architecture.py checks that no command holds a decision this API lacks).
Each function loads with its module on first use (``variants``, ``scores``, ``checks``,
``experiments``, ``tools``): ``import touche.api`` is light, and ``touche validate`` does not load the scorers.

This package is part of the command-line wing (docs/architecture.md): it may import every layer,
and no layer imports it.
"""
from __future__ import annotations

import importlib
from typing import Any

# name → the module of this package that defines it
_HOME = {
    **dict.fromkeys(["RUN_COLUMNS", "DEMO", "variant", "analyze", "index", "search", "run", "run_all", "write",
                     "frame_of_rows"], "variants"),
    **dict.fromkeys(["evaluate", "evaluate_runs", "experiment", "compare", "explore", "report", "Report",
                     "write_report", "read_report"], "scores"),
    "validate": "checks",
    **dict.fromkeys(["sweep", "choose"], "experiments"),
    **dict.fromkeys(["datasets", "contact_sheet", "chatnoir", "regressions", "train_quality", "train_stance"], "tools"),
}

# each ``touche`` command → the function of this API it calls (and nothing else decides)
COMMANDS = {"analyze": "analyze", "index": "index", "run": "run", "run-all": "run_all", "evaluate": "evaluate_runs",
            "explore": "explore", "datasets": "datasets", "contact-sheet": "contact_sheet", "validate": "validate",
            "sweep": "sweep", "compare": "compare", "choose": "choose", "chatnoir": "chatnoir",
            "regressions": "regressions", "train-quality": "train_quality", "train-stance": "train_stance"}

__all__ = [*_HOME, "COMMANDS"]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'touche.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"touche.api.{_HOME[name]}"), name)
    globals()[name] = value  # found once
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
