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


def shipped_variant(name: str | Path) -> Path | None:
    """The shipped variant of a name (``task1/examples/2-krovetz-bm25``: the file's path under
    ``configs/``, ``.yaml`` optional), or None. Only names inside ``configs/`` count: ``..`` or an
    absolute path is no shipped name."""
    text = str(name)
    if not text.strip() or Path(text).is_absolute() or ".." in Path(text).parts:
        return None
    candidate = CONFIGS / (text if text.endswith((".yaml", ".yml")) else f"{text}.yaml")
    try:
        inside = candidate.resolve().is_relative_to(CONFIGS.resolve())
    except (OSError, ValueError):
        return None
    return candidate if inside and candidate.is_file() else None


def shipped_variant_names() -> list[str]:
    return sorted(str(p.relative_to(CONFIGS).with_suffix("")) for p in CONFIGS.glob("**/*.yaml")
                  if p.name not in ("suite.yaml", "regression.yaml", "base.yaml") and "sweeps" not in p.parts
                  and "parts" not in p.parts)
