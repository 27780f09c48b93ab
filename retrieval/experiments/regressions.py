"""Pinned regressions, as Anserini's regression files: what each suite gives on its demo data.

Beside every ``configs/<task>/suite.yaml`` a ``regression.yaml`` pins the statistics of every
index the suite builds (documents, and per field the documents, unique terms and tokens) and
every variant's scores in the suite's evaluation table (rounded to ``DIGITS`` decimals, as
Anserini pins its MAP and nDCG). ``tests/experiments/test_regressions.py`` runs every suite and compares
all of them exactly: a change that moves one figure fails until the pin is rewritten on purpose
(``touche regressions --write``), and the diff of the pin shows what moved.
"""
from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import yaml

from touche.atomic import write_text
from touche.config import read_yaml
from touche.paths import CONFIGS
from touche.retrieval.suite import run_suite

REGRESSION_FILE = "regression.yaml"
DIGITS = 4
HEADER = """\
# Pinned figures of this suite on its demo data (Anserini-style regression): the statistics of
# every index it builds and every variant's scores. tests/experiments/test_regressions.py checks them exactly.
# After an intended change: touche regressions --write (then read the diff of this file).
"""


def suites() -> list[Path]:
    """Every task's suite that has demo data (a corpus and topics of its own)."""
    return sorted(CONFIGS.glob("*/suite.yaml"))


def measure(suite: Path, index_root: Path, warnings: dict[str, list] | None = None) -> dict[str, Any]:
    """Run the suite on its demo data and collect what the regression file pins (and, into
    ``warnings``, what the validator said of each run written)."""
    with tempfile.TemporaryDirectory(prefix="touche-regression-") as out:
        outcome = run_suite(suite, None, Path(out), index_root=index_root, progress=False)
    if warnings is not None:
        warnings.update({r.loaded.name: list(r.written.warnings) for r in outcome.results if r.written})
    indexes = {}
    for result in outcome.results:
        stats = result.index.meta["stats"]
        indexes[result.loaded.name] = {
            "documents": int(stats["documents"]),
            "fields": {name: {key: int(value) for key, value in sorted(field.items())}
                       for name, field in sorted(stats["fields"].items())},
        }
    scores = {name: {m: _rounded(v) for m, v in values.items()} for name, values in outcome.scores.items()}
    return {"indexes": indexes, "scores": scores}


def _rounded(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), DIGITS)


def pinned(suite: Path) -> dict[str, Any] | None:
    path = suite.parent / REGRESSION_FILE
    return read_yaml(path) if path.is_file() else None


def write(suite: Path, figures: dict[str, Any]) -> Path:
    text = HEADER + yaml.safe_dump(figures, sort_keys=False, default_flow_style=False, width=120)
    return write_text(suite.parent / REGRESSION_FILE, text)


def differences(expected: dict[str, Any] | None, actual: dict[str, Any]) -> list[str]:
    """Every pinned figure that differs, as 'section.variant.key: pinned → now' lines."""
    if expected is None:
        return ["no regression.yaml: run touche regressions --write"]
    lines: list[str] = []

    def walk(path: str, want: Any, got: Any) -> None:
        if isinstance(want, dict) and isinstance(got, dict):
            for key in sorted(set(want) | set(got), key=str):
                walk(f"{path}.{key}" if path else str(key), want.get(key, "(absent)"), got.get(key, "(absent)"))
        elif want != got:
            lines.append(f"{path}: pinned {want} → now {got}")

    walk("", expected, actual)
    return lines
