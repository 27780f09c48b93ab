"""Checking a variant's files before the work: every model file it reads is loaded now.

A missing, empty or damaged model file (a stance model, a quality model) was found only when
its stage ran, i.e. after indexing and retrieval: hours into a full-size run. ``run-all``,
``run`` and ``sweep`` call ``check_variant_files`` for every variant before the first index.
"""
from __future__ import annotations

from pathlib import Path

from touche.config import LoadedVariant, load_variant
from touche.errors import ConfigError, ToucheError
from touche.retrieval.tasks import handler
from touche.stemming.analyzers import stoplist_path


def check_variant_files(loaded: LoadedVariant, _seen: frozenset[Path] = frozenset()) -> None:
    """Load every file the variant's stages and task read, and those of every variant it fuses
    (``rrf``), all the way down; a problem is a located ToucheError naming the variant's file and
    the key that points at the file."""
    if loaded.path in _seen:
        return  # a fusion cycle: check_fusion_cycles names it
    folder = loaded.path.parent
    stoplist = stoplist_path(loaded.variant.analyzer.stoplist, folder)
    if stoplist is not None and not stoplist.is_file():  # said with the variant, not as a path alone
        raise ConfigError(f"analyzer.stoplist: {loaded.variant.analyzer.stoplist!r} is neither a known list (none, "
                          f"lucene, snowball, smart, terrier) nor a file (looked for {stoplist})", path=loaded.path)
    try:
        for stage in loaded.variant.rerank:
            stage.check_files(folder)
        task = handler(loaded.variant.task)
        if task.check_files is not None:
            task.check_files(loaded.variant, folder)
    except ToucheError as exc:
        where = f"{loaded.path}" + (f", {exc.where}" if exc.where else "")
        raise ToucheError(exc.message, path=exc.path, where=where) from None
    for stage in loaded.variant.rerank:
        for other in stage.fused_variants(folder):
            check_variant_files(load_variant(other), _seen | {loaded.path})
