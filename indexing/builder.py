"""Builds Lucene indexes from a corpus through our batching Java indexer, and shares them.

An index lives in ``<root>/<corpus>-<key>/`` where the key hashes what determines the index
(corpus files, analyzer, indexed fields and options): variants that agree on these share one
index, and a sweep never rebuilds one it has. An index is built in a temporary directory and
renamed into place only when complete, with ``touche-index.json`` (the config that built it and
its statistics) written last, so a half-built index never passes for a finished one.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from filelock import FileLock, Timeout
from tqdm import tqdm

from indexing.corpora import CorpusSource, check_fields, open_corpus
from stemming import analyzers
from touche import jvm
from touche.config import AnalyzerSpec, IndexSpec, Variant
from touche.errors import ToucheError

META_FILE = "touche-index.json"
BATCH_SIZE = 1000


@dataclass(frozen=True)
class IndexInfo:
    path: Path
    meta: dict

    @property
    def documents(self) -> int:
        return self.meta["stats"]["documents"]


def index_dir(root: Path, variant: Variant, source: CorpusSource) -> Path:
    key = hashlib.sha256((variant.index_key() + source.fingerprint()).encode()).hexdigest()[:12]
    return root / f"{source.name}-{key}"


def open_index(path: Path) -> IndexInfo | None:
    meta_path = path / META_FILE
    if not meta_path.is_file():
        return None
    return IndexInfo(path, json.loads(meta_path.read_text()))


def ensure_index(variant: Variant, corpus_path: str | Path, root: str | Path, *, base_dir: Path | None = None,
                 progress: bool = True) -> IndexInfo:
    """The variant's index, built only if no finished index with the same key exists."""
    root = Path(root)
    source = open_corpus(variant.corpus.format, corpus_path, skip_bad_records=variant.corpus.skip_bad_records)
    check_fields(source, variant.index.fields)
    target = index_dir(root, variant, source)
    found = open_index(target)
    if found is not None:
        return found
    root.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(target) + ".lock")
    try:
        lock.acquire(timeout=float(os.environ.get("TOUCHE_INDEX_LOCK_TIMEOUT", 3600)))
    except Timeout:
        raise ToucheError(f"another process is building this index (lock {target}.lock held); "
                          "wait for it or remove the lock if that process is gone", path=target) from None
    try:
        found = open_index(target)  # built by another process while we waited
        if found is not None:
            return found
        return build_index(source, variant.analyzer, variant.index, target, base_dir=base_dir, progress=progress)
    finally:
        lock.release()


def build_index(source: CorpusSource, analyzer_spec: AnalyzerSpec, spec: IndexSpec, target: Path, *,
                base_dir: Path | None = None, progress: bool = True) -> IndexInfo:
    tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    _remove_stale_temporaries(target)
    tmp.mkdir(parents=True)
    analyzer = analyzers.build(analyzer_spec, base_dir)
    fields = list(spec.fields)
    indexer = jvm.autoclass("touche.lucene.BatchIndexer")(
        str(tmp), analyzer, fields, spec.positions, spec.docvectors, spec.threads, float(spec.ram_buffer_mb))
    started = time.perf_counter()
    count = 0
    try:
        with tqdm(desc=f"indexing {source.name}", unit=" docs", disable=not progress, mininterval=1.0) as bar:
            for ids, values, raws in _batches(source.documents(fields), fields, spec.store_raw):
                indexer.addBatch(ids, values, raws)
                count += len(ids)
                bar.update(len(ids))
        indexer.finish(spec.optimize)
    except BaseException:
        indexer.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    seconds = time.perf_counter() - started
    if source.report.skipped:
        print(f"warning: {source.report.summary()}", file=sys.stderr)
    meta = {
        "format": 1,
        "corpus": source.describe(),
        "analyzer": analyzer_spec.model_dump(mode="json"),
        "index": spec.model_dump(mode="json"),
        "stats": _statistics(tmp, analyzer, fields),
        "build": {"seconds": round(seconds, 3), "docs_per_second": round(count / seconds, 1) if seconds else None,
                  "skipped_records": source.report.skipped,
                  "skipped": [str(r) for r in source.report.first_skipped], "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
    }
    (tmp / META_FILE).write_text(json.dumps(meta, indent=2))
    if target.exists():  # an unfinished index from an older layout: replace it
        shutil.rmtree(target)
    os.replace(tmp, target)
    return IndexInfo(target, meta)


def _remove_stale_temporaries(target: Path) -> None:
    """Temporaries of interrupted builds (their process is gone) are removed before a rebuild."""
    for stale in target.parent.glob(f".{target.name}.tmp-*"):
        pid = stale.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _process_alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _batches(docs: Iterable[tuple[str, list[str], str]], fields: list[str], store_raw: bool
             ) -> Iterator[tuple[list[str], list[str], list[str] | None]]:
    ids: list[str] = []
    values: list[str] = []
    raws: list[str] = []
    for doc_id, texts, raw in docs:
        ids.append(doc_id)
        values.extend(texts)
        raws.append(raw)
        if len(ids) == BATCH_SIZE:
            yield ids, values, raws if store_raw else None
            ids, values, raws = [], [], []
    if ids:
        yield ids, values, raws if store_raw else None


def _statistics(path: Path, analyzer, fields: list[str]) -> dict:
    searcher = jvm.autoclass("touche.lucene.BatchSearcher")([str(path)], analyzer)
    try:
        stats = {"documents": int(searcher.numDocs()), "fields": {}}
        for field in fields:
            docs, with_field, unique, total = (int(x) for x in searcher.fieldStats(field))
            stats["fields"][field] = {"documents": with_field, "unique_terms": unique, "total_terms": total}
        return stats
    finally:
        searcher.close()
