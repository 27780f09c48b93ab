"""Where things are: the project, the index root (indexes and caches), the shared Touché data.

One module so that no layer has to ask another (the index root was once found through the
ir_datasets module)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from touche.settings import setting

PACKAGE = Path(__file__).resolve().parent


def _checkout() -> Path | None:
    """The repository root when running from a checkout (the layer folders beside touche/),
    None in an installed package (where they live inside touche/)."""
    root = PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "retrieval").is_dir() else None


CHECKOUT = _checkout()
# configs/, demo/ and java/ sit beside touche/ in a checkout and inside it when installed.
PROJECT_ROOT = CHECKOUT if CHECKOUT is not None else PACKAGE
CONFIGS = PROJECT_ROOT / "configs"
DEMO = PROJECT_ROOT / "demo"


def user_cache_dir() -> Path:
    """Where an installed toolkit keeps what it builds (``$XDG_CACHE_HOME/touche``)."""
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "touche"


def default_index_root() -> Path:
    """Where indexes and caches are kept: TOUCHE_INDEX_ROOT, else <checkout>/indexes (or the
    user's cache for an installed package), else the temp dir (read-only places)."""
    env = setting("TOUCHE_INDEX_ROOT")
    if env:
        return env
    if CHECKOUT is None:
        return user_cache_dir() / "indexes"
    if os.access(CHECKOUT, os.W_OK):
        return CHECKOUT / "indexes"
    return Path(tempfile.gettempdir()) / "touche-indexes"


def shared_touche_dir() -> Path:
    """The real Touché data beside the checkout (``$TOUCHE_SHARED``, default ``../shared/touche``):
    read by tests, benchmarks and the leaderboard page, never shipped."""
    return setting("TOUCHE_SHARED") or PROJECT_ROOT.parent / "shared" / "touche"
