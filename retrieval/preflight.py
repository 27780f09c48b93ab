"""Checking a variant's files before the work: every model file it reads is loaded now.

A missing, empty or damaged model file (a stance model, a quality model) was found only when
its stage ran, i.e. after indexing and retrieval: hours into a full-size run. ``preflight`` is
what every entry runs before a variant's first index (a session's first use of it, so ``run``,
``run-all``, ``sweep``, ``api.search`` and ``touche.pyterrier.Variant`` alike; ``run-all`` and
``sweep`` run it for all their variants before the first one).
"""
from __future__ import annotations

from pathlib import Path

from touche.config import LoadedVariant, load_variant
from touche.errors import ConfigError, ToucheError
from touche.retrieval.fingerprint import check_fusion_cycles, files_read
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


def preflight(loaded: LoadedVariant, checked: set[tuple] | None = None) -> None:
    """Everything a variant can be refused for before any work: fusion that leads back to itself,
    a task that does not read its corpus family, a stoplist or model file that is missing or
    damaged. ``checked``: what was loaded already (a sweep's points share their model files), so
    each file is loaded once."""
    variant = loaded.variant
    folder = loaded.path.parent
    fused = tuple(str(other) for stage in variant.rerank for other in stage.fused_variants(folder))
    if fused:
        check_fusion_cycles(loaded)  # a → b → a named by its files, not a RecursionError mid-run
    task = handler(variant.task)
    if variant.corpus.format not in task.corpus_formats:
        raise ToucheError(f"{variant.task} runs on {' or '.join(task.corpus_formats)} corpora, "
                          f"not corpus.format '{variant.corpus.format}'", path=loaded.path)
    key = (str(folder), variant.analyzer.stoplist, files_read(loaded), fused)
    if checked is not None and key in checked:
        return
    check_variant_files(loaded)
    if checked is not None:
        checked.add(key)
