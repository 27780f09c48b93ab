"""Where things are: the project, the index root (indexes and caches), the shared Touché data.

One module so that no layer has to ask another (the index root was once found through the
ir_datasets module)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONFIGS = PROJECT_ROOT / "configs"


def default_index_root() -> Path:
    """Where indexes and caches are kept: TOUCHE_INDEX_ROOT, else <project>/indexes, else the
    temp dir (read-only checkouts)."""
    env = os.environ.get("TOUCHE_INDEX_ROOT")
    if env:
        return Path(env)
    if os.access(PROJECT_ROOT, os.W_OK):
        return PROJECT_ROOT / "indexes"
    return Path(tempfile.gettempdir()) / "touche-indexes"


def shared_touche_dir() -> Path:
    """The real Touché data beside the checkout (``$TOUCHE_SHARED``, default ``../shared/touche``):
    read by tests, benchmarks and the leaderboard page, never shipped."""
    return Path(os.environ.get("TOUCHE_SHARED", PROJECT_ROOT.parent / "shared" / "touche"))
