"""What a run reads, as one digest: reuse a finished result only while none of it changed.

A sweep point (retrieval/experiments/sweep/loading.py) is reused when its key is unchanged. The key must
cover everything the run reads besides the index: the validated variant, the contents of every
file its analyzer and its stages read (a stoplist, a model file), and, for a fusion stage, the
same of every variant it fuses, all the way down. An edited ``other.yaml`` fused by ``rrf`` once
left a resumed sweep showing the old score.

Fusion may not lead back to the variant itself: ``check_fusion_cycles`` follows every fused variant
and reports a cycle by its files (a → b → a), as ``extends`` cycles are reported, instead of a
RecursionError in the middle of a run.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from touche.config import LoadedVariant, load_variant
from touche.errors import ConfigError
from touche.retrieval.tasks import handler
from touche.stemming.analyzers import content_key

__all__ = ["data_fingerprint", "variant_fingerprint", "check_fusion_cycles", "files_read"]

SMALL_FILE = 50 * 2**20


def data_fingerprint(path: Path) -> str:
    """A file or folder by content where it is small (topics, qrels, a model: its bytes) and by
    name, size and modification time where it is large (a corpus: every file under it)."""
    path = Path(path)
    h = hashlib.sha256()
    if not path.exists():
        h.update(b"missing\0" + str(path).encode())
    elif path.is_file() and path.stat().st_size <= SMALL_FILE:
        h.update(path.read_bytes())
    else:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for f in files:
            st = f.stat()
            h.update(f"{f.relative_to(path) if path.is_dir() else f.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def files_read(loaded: LoadedVariant) -> tuple[Path, ...]:
    """The files (models) the variant's stages and its task read besides the index."""
    here = loaded.path.parent
    task_files = handler(loaded.variant.task).files_read
    return (*(path for stage in loaded.variant.rerank for path in stage.files_read(here)),
            *(task_files(loaded.variant, here) if task_files is not None else ()))


def _description(loaded: LoadedVariant, chain: tuple[Path, ...]) -> dict[str, Any]:
    """The variant as it decides a run, with the files it reads and the variants it fuses."""
    if loaded.path in chain:
        raise ConfigError("rrf fusion forms a cycle: " + " → ".join(p.name for p in (*chain, loaded.path))
                          + " (a variant cannot fuse itself, directly or through others)", path=loaded.path)
    here = loaded.path.parent
    variant = loaded.variant
    files = {str(path): data_fingerprint(path) for path in files_read(loaded)}
    fused: list[dict[str, Any]] = []
    for stage in variant.rerank:
        for other in stage.fused_variants(here):
            try:
                other_loaded = load_variant(other)
            except ConfigError as exc:
                raise ConfigError(f"rrf: the fused variant {other} cannot be loaded: {exc}", path=loaded.path) from None
            fused.append(_description(other_loaded, (*chain, loaded.path)))
    return {"variant": variant.model_dump(mode="json", exclude={"tag", "description"}),
            "analyzer_files": content_key(variant.analyzer, here), "files": files, "fused": fused}


def variant_fingerprint(loaded: LoadedVariant) -> str:
    """Digest of everything the variant's run reads besides the corpus and topics."""
    payload = json.dumps(_description(loaded, ()), sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def check_fusion_cycles(loaded: LoadedVariant) -> None:
    """Raise ConfigError naming the files when fusion leads back to a variant already on the way."""
    _description(loaded, ())
