"""Access to the real Touché data beside the repository (never copied into it).

The data is found through ``TOUCHE_SHARED`` (default ``<repo>/../shared/touche``); tests that
need it skip, saying why, when it is absent.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from touche.paths import shared_touche_dir


def shared_dir() -> Path:
    return shared_touche_dir()


def has_shared() -> bool:
    return (shared_dir() / "qrels").is_dir()


def require_shared() -> Path:
    if not has_shared():
        pytest.skip(f"real Touché data not found at {shared_dir()} (set TOUCHE_SHARED to its path)")
    return shared_dir()


def missing_tool(reason: str, environ=None) -> None:
    """A test tool (Chromium, Playwright) is missing: the test skips on a developer's machine, and
    fails in CI (``CI`` set, as the CI runner sets it), where run_tests.sh installs the tools.
    The explorer's exports are written in Python and in the page's script and held equal only by
    the browser tests: a skip in CI would let the two drift apart unseen."""
    environ = os.environ if environ is None else environ
    if environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{reason}; in CI (CI={environ['CI']}) a missing test tool fails, never skips: "
                    "run_tests.sh installs it (scripts/ensure_env.sh)", pytrace=False)
    pytest.skip(reason)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def parse_leaderboard(path: Path) -> list[dict[str, str]]:
    """Rows of an official leaderboard page: one `` | ``-prefixed cell per line.

    The header is an empty corner cell and the column names; data rows have one cell per
    column. The first numeric cell is a row's third (after Team and Tag), which tells where the
    header ends.
    """
    cells = [line[2:].strip() for line in path.read_text(encoding="utf-8").splitlines() if line.startswith(" |")]
    first_number = next(i for i, c in enumerate(cells) if _NUMBER.fullmatch(c))
    header = cells[1 : first_number - 2]
    data = cells[first_number - 2 :]
    if not header or len(data) % len(header):
        raise ValueError(f"{path}: cannot split {len(data)} cells into rows of {len(header)}")
    return [dict(zip(header, data[i : i + len(header)])) for i in range(0, len(data), len(header))]
