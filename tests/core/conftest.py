"""Fixtures of the core's tests: an ir_datasets cache of the test's own (touche/datasets.py)."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def irds(tmp_path, monkeypatch) -> Path:
    """An empty ir_datasets cache of our own (nothing from ~/.ir_datasets leaks in)."""
    home = tmp_path / "ir_datasets"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.delenv("TOUCHE_DATASETS_CACHE", raising=False)
    return home
