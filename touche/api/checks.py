"""Checking run files: ``touche validate`` as a function (light: it loads no scorer)."""
from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Union

from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.formats.verdicts import Verdict, validate_runs

__all__ = ["validate"]

PathLike = Union[str, "os.PathLike[str]"]


def validate(runs: Iterable[PathLike], format: RunFormat | str | None = None) -> list[Verdict]:
    """``touche validate``: each run file's verdict against a Touché run format (``format``: q0,
    pairs, stance or image; default: detected per file): its errors and warnings, or why it could
    not be read as a run; ``verdict.lines()`` is what the command prints, ``verdicts.status_of``
    its exit status."""
    return validate_runs(runs, format)
