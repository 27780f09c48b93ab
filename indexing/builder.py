"""Builds Lucene indexes from a corpus through our batching Java indexer, and shares them.

An index lives in ``<root>/<corpus>-<key>/`` where the key hashes what determines the index
(corpus files, analyzer, indexed fields and options): variants that agree on these share one
index, and a sweep never rebuilds one it has. An index is built in a temporary directory and
renamed into place only when complete, with ``touche-index.json`` (the config that built it and
its statistics) written last, so a half-built index never passes for a finished one.

The index root is a location a user names (``--index-root``, ``index_root=``,
``$TOUCHE_INDEX_ROOT``), owned as an output folder is (``guard.named_location``): an index is
placed only where nothing is, and recorded; the toolkit never replaces or deletes an index folder,
and anything in an index's place that is no finished index (a folder of someone's, a file, a link,
a pipe) is refused before any work. A finished index is read wherever it comes from, recorded or
not: the indexes built before records were kept are used as they are.

A *sharded* index (``shards=N``) is N ordinary Lucene indexes of disjoint parts of the corpus,
``<root>/<corpus>-<key>/shard-<k>-of-<N>/``, searched as one through a MultiReader (collection
statistics of the union: the same scores as one index). Shards are built in parallel processes
(each parses its own part of the corpus: a share of the files, or every N-th record of a
single-file corpus), or one at a time on different machines (``shard=k``) into
``<root>/<corpus>-<key>.shards/`` and assembled when all N are there. See docs/performance.md.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from touche import jvm
from touche.atomic import write_text
from touche.config import AnalyzerSpec, IndexSpec, VariantSpec
from touche.errors import InputError, ToucheError
from touche.folderlock import folder_lock
from touche.guard import RECORD, OutputFolder, named_location
from touche.indexing.corpora import CorpusSource, check_fields, open_corpus
from touche.processes import callers_script_hidden
from touche.progress import progress_bar
from touche.settings import heap_bytes, setting
from touche.stemming import analyzers

log = logging.getLogger(__name__)

META_FILE = "touche-index.json"
MAX_LOCAL_SHARDS_PER_CORE = 4  # shards built by local processes: more only adds JVM start-ups
BATCH_SIZE = 1000


@dataclass(frozen=True)
class IndexInfo:
    path: Path
    meta: dict

    @property
    def documents(self) -> int:
        return self.meta["stats"]["documents"]

    @property
    def paths(self) -> list[Path]:
        """The Lucene index directories to search as one: the shards, or the index itself."""
        return index_paths(self.path, self.meta)


def index_paths(path: Path, meta: dict | None = None) -> list[Path]:
    """An index directory → the Lucene directories it consists of (its shards, if sharded)."""
    path = Path(path)
    if meta is None:
        meta = _description(path / META_FILE) if (path / META_FILE).is_file() else {}
    shards = meta.get("shards")
    return [path / name for name in shards] if shards else [path]


def index_dir(root: Path, variant: VariantSpec, source: CorpusSource, base_dir: Path | None = None) -> Path:
    """The index's folder, keyed by what determines its contents: the analyzer and fields as
    written, the contents of every file the analyzer reads, and the corpus files."""
    files = analyzers.content_key(variant.analyzer, base_dir)
    key = hashlib.sha256((variant.index_key() + source.fingerprint() + files).encode()).hexdigest()[:12]
    return root / f"{source.name}-{key}"


def open_index(path: Path) -> IndexInfo | None:
    meta_path = path / META_FILE
    if not meta_path.is_file():
        return None
    return IndexInfo(path, _description(meta_path))


def _description(meta_path: Path) -> dict:
    """A finished index's touche-index.json, or a located error when it is no description."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ToucheError(f"cannot read this index's description ({exc}): restore it, or remove the index's folder "
                          "to build it again", path=meta_path) from None
    if not isinstance(meta, dict):
        raise ToucheError("this index's description is no JSON object: restore it, or remove the index's folder to "
                          "build it again", path=meta_path)
    return meta


def ensure_index(variant: VariantSpec, corpus_path: str | Path, root: str | Path, *, base_dir: Path | None = None,
                 progress: bool = True, shards: int | None = None, shard: int | None = None,
                 sharded_builder: Callable[..., IndexInfo] | None = None) -> IndexInfo:
    """The variant's index, built only if no finished index with the same key exists.

    ``shards=N`` builds it as N shards in parallel processes (searched as one), or with
    ``sharded_builder`` (``build_sharded``'s signature; e.g. on Ray, indexing/distributed.py);
    with ``shard=k`` only shard k is built (another machine builds the others) and its IndexInfo
    is returned. A finished index is reused whether or not it is sharded: shards change no score.
    """
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise ToucheError("the index root is a file, not a folder: give a folder for the indexes "
                          "(--index-root, index_root=, $TOUCHE_INDEX_ROOT)", path=root)
    source = open_corpus(variant.corpus.format, corpus_path, skip_bad_records=variant.corpus.skip_bad_records)
    check_fields(source, variant.index.fields)
    target = index_dir(root, variant, source, base_dir)
    if shards is not None and (not isinstance(shards, int) or shards < 1):
        raise ToucheError(f"--shards must be a whole number ≥ 1 (1 = one unsharded index), got {shards!r}")
    if shard is not None:
        _check_shard_numbers(shards, shard)
    found = open_index(target)
    if found is not None and shard is None:
        _check_layout(found, shards)
        return _agreed_skips(found, variant)
    indexes = index_root_folder(root)
    target = indexes.path / target.name  # the root's own folder, when it was named by a link
    if shard is None:
        free_place(indexes, target.name, "index")
        folder, lock = indexes, f".{target.name}{LOCK_SUFFIX}"
    else:
        folder = shards_folder(target, indexes)  # shards is given with shard (checked above)
        lock = f".{shard_dir(target, shard, shards).name}{LOCK_SUFFIX}"  # type: ignore[arg-type]
    wait = setting("TOUCHE_INDEX_LOCK_TIMEOUT")
    with folder_lock(folder.path, lock, f"another process is building this index (it holds {lock}); waited {wait:g} "
                     "s (TOUCHE_INDEX_LOCK_TIMEOUT) for it: wait longer or run again", wait=wait):
        if shard is not None:
            return ensure_shard(variant, corpus_path, target, shard, shards,  # type: ignore[arg-type]
                                base_dir=base_dir, progress=progress)
        found = open_index(target)  # built by another process while we waited
        if found is not None:
            return _agreed_skips(found, variant)
        if shards is None and (started := started_shards(target)):
            # Shards built one by one (--shard K, one machine each) are this index: finish and
            # assemble them rather than build it again whole beside them.
            log.info("found shards of this index (%d of %d built): building the rest and assembling them",
                     started[1], started[0])
            shards = started[0]
        if shards and shards > 1:
            return (sharded_builder or build_sharded)(variant, corpus_path, target, shards, base_dir=base_dir,
                                                      progress=progress)
        return build_index(source, variant.analyzer, variant.index, target, base_dir=base_dir, progress=progress,
                           folder=indexes)


LOCK_SUFFIX = ".touche.lock"  # .<index>.touche.lock: one build of an index at a time, the others wait


def index_root_folder(root: str | Path) -> OutputFolder:
    """The index root as the guard owns it: only what the toolkit recorded there is its own."""
    return named_location(root, "index root")


def free_place(folder: OutputFolder, name: str, what: str) -> None:
    """Refuse, before any work, a ``name`` in ``folder`` that holds anything but a finished index
    (which ``open_index`` reads): an index is placed only where nothing is, and nothing is
    deleted to make room (a folder there was once deleted with a user's files in it)."""
    path = folder.path / name
    if not (path.exists() or path.is_symlink()):
        return
    why = folder.foreign(name) or "an unfinished index touche made (someone removed its touche-index.json)"
    raise ToucheError(f"the {what}'s place in the {folder.what} holds {why}; it is no finished index ({META_FILE} "
                      "missing) and touche deletes nothing to make room: remove or rename it, or give another "
                      "--index-root", path=path)


def _agreed_skips(found: IndexInfo, variant: VariantSpec) -> IndexInfo:
    """An index that skipped malformed records serves only a run that agreed to skip them: a
    later run without --skip-bad-records would otherwise miss records silently."""
    build = found.meta.get("build", {})
    skipped = build.get("skipped_records", 0)
    if skipped and not variant.corpus.skip_bad_records:
        first = "; ".join(build.get("skipped", [])[:3])
        raise InputError(f"the corpus has {skipped} malformed record(s), skipped when this index was built with "
                         f"--skip-bad-records (first: {first}); pass --skip-bad-records (corpus.skip_bad_records: "
                         "true) to run on it without them, or fix the corpus", path=found.path)
    return found


# ---------------------------------------------------------------- shards
def _check_shard_numbers(shards: int | None, shard: int) -> None:
    if not shards or shards < 2:
        raise ToucheError(f"--shard {shard} needs --shards N (N >= 2): which part of how many")
    if not 0 <= shard < shards:
        raise ToucheError(f"--shard must be in 0..{shards - 1} for --shards {shards}, got {shard}")


def shards_home(target: Path) -> Path:
    """Where finished shards wait until all N are there (one machine each, or parallel processes)."""
    return target.parent / f"{target.name}.shards"


def shards_folder(target: Path, indexes: OutputFolder | None = None) -> OutputFolder:
    """``shards_home`` as the guard owns it: a folder of the index root made and recorded by the
    toolkit, or one holding nothing but shards it built (gathered from other machines); a link, a
    file or a folder of someone's in its place is refused before any work."""
    indexes = indexes or index_root_folder(target.parent)
    return indexes.folder(shards_home(target).name, f"shards folder of {target.name}", adopt=_gathered_shards)


# What Lucene writes into an index folder: commit points, segment files, its lock.
_LUCENE_FILE = re.compile(r"segments_\w+|write\.lock|_\w+\.\w+")


def _built_shard(path: Path) -> bool:
    """A finished shard as the toolkit builds it, on this machine or another (gathered there by
    rsync, say): Lucene's files and the description that names it as this shard, nothing else."""
    match = _SHARD_NAME.fullmatch(path.name)
    try:
        with os.scandir(path) as scan:
            entries = [(entry.name, entry.is_file(follow_symlinks=False)) for entry in scan]
        if match is None or (META_FILE, True) not in entries:
            return False
        meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(meta, dict) and meta.get("shard") == [int(match[1]), int(match[2])]
            and all(regular and (name == META_FILE or _LUCENE_FILE.fullmatch(name)) for name, regular in entries))


def _gathered_shards(path: Path) -> bool:
    """A shards folder holding finished shards and nothing else but the toolkit's bookkeeping (its
    record, a shard's lock)."""
    try:
        with os.scandir(path) as scan:
            entries = [Path(entry.path) for entry in scan]
    except OSError:
        return False
    shards = [entry for entry in entries if entry.name != RECORD and not entry.name.endswith(LOCK_SUFFIX)]
    return bool(shards) and all(_built_shard(entry) for entry in shards)


def shard_dir(target: Path, k: int, n: int) -> Path:
    return shards_home(target) / f"shard-{k}-of-{n}"


_SHARD_NAME = re.compile(r"shard-(\d+)-of-(\d+)")


def started_shards(target: Path) -> tuple[int, int] | None:
    """(N, finished shards) of the sharded build of ``target`` that has the most finished shards,
    or None when no shard of it is finished."""
    home = shards_home(target)
    finished: dict[int, int] = {}
    for folder in home.glob("shard-*-of-*") if home.is_dir() else ():
        match = _SHARD_NAME.fullmatch(folder.name)
        if match and open_index(folder) is not None:
            n = int(match.group(2))
            finished[n] = finished.get(n, 0) + 1
    if not finished:
        return None
    n = max(finished, key=lambda size: (finished[size], size))
    return n, finished[n]


def partition(source: CorpusSource, k: int, n: int) -> CorpusSource:
    """Shard k of n of a source, cut before the expensive part where the source allows it.

    Corpora of at least n files are cut by file (every n-th file from k: a shard reads only its
    files; duplicate ids across shards are then not detected). A corpus of fewer files is cut by
    record (every n-th from k): ``documents_part`` where the source has it (args.me skips the
    others' records right after JSON parsing), else the full stream, sliced.
    """
    files = getattr(source, "files", None)
    if files is not None and len(files) >= n:
        source.files = files[k::n]  # type: ignore[attr-defined]  # a source of files
        return source
    return _RecordShard(source, k, n)


class _RecordShard:
    def __init__(self, source: CorpusSource, k: int, n: int):
        self.source, self.k, self.n = source, k, n
        self.name, self.fields = source.name, source.fields

    @property
    def report(self):
        return self.source.report

    def fingerprint(self) -> str:
        return self.source.fingerprint()

    def describe(self) -> dict:
        return {**self.source.describe(), "part": [self.k, self.n]}

    def documents(self, fields: list[str]) -> Iterator[tuple[str, list[str], str]]:
        part = getattr(self.source, "documents_part", None)
        if part is not None:
            return part(fields, self.k, self.n)
        return islice(self.source.documents(fields), self.k, None, self.n)


def check_shards(target: Path, n: int, missing: list[int]) -> OutputFolder:
    """Before the missing shards are built: the shards folder is the toolkit's (made and recorded
    now if need be), a missing shard's place holds nothing, and every finished shard is one the
    toolkit built (assembling moves them into the index)."""
    home = shards_folder(target)
    for k in range(n):
        name = shard_dir(target, k, n).name
        if k in missing:
            free_place(home, name, f"shard {k} of {n}")
        elif not (home.intact(name) or name not in home.made and home.adopt(name, _built_shard)):
            why = home.foreign(name) or "not the folder touche built"
            raise ToucheError(f"shard {k} of {n} is {why}: touche moves into an index only the shards it built; "
                              "remove it and build it again", path=home.path / name)
    return home


def ensure_shard(variant: VariantSpec, corpus_path: str | Path, target: Path, k: int, n: int, *,
                  base_dir: Path | None, progress: bool) -> IndexInfo:
    path = shard_dir(target, k, n)
    found = open_index(path)
    if found is not None:
        return found
    home = shards_folder(target)
    free_place(home, path.name, f"shard {k} of {n}")
    source = open_corpus(variant.corpus.format, corpus_path, skip_bad_records=variant.corpus.skip_bad_records)
    return build_index(partition(source, k, n), variant.analyzer, variant.index, path, base_dir=base_dir,
                       progress=progress, extra_meta={"shard": [k, n]}, folder=home)


def _build_shard_process(args: tuple) -> dict:
    """Entry point of a shard-building process (spawned: its own interpreter and JVM)."""
    variant_json, corpus_path, target, k, n, base_dir, heap = args
    jvm.start(heap)
    variant = VariantSpec.model_validate_json(variant_json)
    info = ensure_shard(variant, corpus_path, Path(target), k, n, base_dir=base_dir and Path(base_dir),
                         progress=False)
    return info.meta


def build_sharded(variant: VariantSpec, corpus_path: str | Path, target: Path, n: int, *, base_dir: Path | None = None,
                  progress: bool = True, processes: int | None = None) -> IndexInfo:
    """Build the shards still missing (``processes`` at a time, default: one per core), then
    assemble the N shards into the searchable index ``target``."""
    import multiprocessing
    started = time.perf_counter()
    missing = [k for k in range(n) if open_index(shard_dir(target, k, n)) is None]
    cores = os.cpu_count() or 1
    if len(missing) > max(MAX_LOCAL_SHARDS_PER_CORE * cores, 8):
        raise ToucheError(f"{len(missing)} shards to build on a machine of {cores} cores: each shard starts a "
                          "process and a JVM, so past a few per core they only add start-up time (500 shards of "
                          f"320 arguments once took 290 s). Use --shards {cores} here, or build them on a cluster "
                          "(--ray, or --shard K on each machine)")
    workers = max(1, min(len(missing), processes or cores))
    if missing:
        check_shards(target, n, missing)
        heap = shard_heap(workers)
        # Each shard process runs one indexing thread when processes share the cores.
        shard_variant = variant.model_copy(update={"index": variant.index.model_copy(
            update={"threads": max(1, variant.index.threads // workers)})})
        jobs = [(shard_variant.model_dump_json(), str(corpus_path), str(target), k, n,
                 str(base_dir) if base_dir else None, heap) for k in missing]
        if progress:
            log.info("building %d of %d shards, %d at a time", len(missing), n, workers)
        # maxtasksperchild=1 starts a fresh worker (a fresh JVM) after each shard, so the caller's
        # script stays hidden from the workers for the pool's whole life (touche/processes.py).
        with callers_script_hidden():
            pool = multiprocessing.get_context("spawn").Pool(workers, maxtasksperchild=1)
            try:
                for meta in pool.imap_unordered(_build_shard_process, jobs):
                    if progress:
                        k, _ = meta["shard"]
                        log.info("shard %s of %d: %s documents in %s s", k, n, meta["stats"]["documents"],
                                 meta["build"]["seconds"])
                # close + join, not the context manager's terminate(): terminate kills the worker that
                # maxtasksperchild=1 starts after each task mid-start-up, which leaves its semaphores to
                # the resource tracker ("leaked semaphore objects" at exit).
                pool.close()
                pool.join()
            except BaseException:
                pool.terminate()
                pool.join()
                raise
    return assemble_shards(variant, target, n, base_dir=base_dir, seconds=time.perf_counter() - started)


def shard_heap(workers: int) -> str:
    """Each shard process' JVM heap: the configured heap shared among the parallel processes."""
    mib = heap_bytes(jvm.jvm_heap()) / 2**20
    return f"{max(512, int(mib / workers))}m"


def assemble_shards(variant: VariantSpec, target: Path, n: int, *, base_dir: Path | None = None,
                    seconds: float | None = None) -> IndexInfo:
    """Move N finished shards into ``target`` and write its statistics (those of the union)."""
    metas = []
    indexes = index_root_folder(target.parent)
    names = [shard_dir(target, k, n).name for k in range(n)]
    for k, name in enumerate(names):
        info = open_index(shards_home(target) / name)
        if info is None:
            raise ToucheError(f"shard {k} of {n} is missing or unfinished (expected {shard_dir(target, k, n)}); "
                              f"build it with: touche index ... --shards {n} --shard {k}", path=shards_home(target))
        metas.append(info.meta)
    home = check_shards(target, n, [])
    free_place(indexes, target.name, "index")
    analyzer = analyzers.build(variant.analyzer, base_dir)
    fields = list(variant.index.fields)
    build_seconds = seconds if seconds is not None else max(m["build"]["seconds"] for m in metas)
    documents = sum(m["stats"]["documents"] for m in metas)
    with indexes.building(target.name) as tmp:
        for name in names:
            home.take(name, tmp / name)
        meta = {
            "format": 1,
            "corpus": {k: v for k, v in metas[0]["corpus"].items() if k != "part"},
            "analyzer": variant.analyzer.model_dump(mode="json"),
            "index": variant.index.model_dump(mode="json"),
            "shards": names,
            "stats": _statistics([tmp / name for name in names], analyzer, fields),
            "build": {"seconds": round(build_seconds, 3),
                      "docs_per_second": round(documents / build_seconds, 1) if build_seconds else None,
                      "skipped_records": sum(m["build"]["skipped_records"] for m in metas),
                      "skipped": [s for m in metas for s in m["build"]["skipped"]][:20],
                      "shard_seconds": [m["build"]["seconds"] for m in metas],
                      "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
        }
        write_text(tmp / META_FILE, json.dumps(meta, indent=2))
    indexes.remove(home.path.name)  # gone when nothing but its record is left (a lock, a file of someone's: kept)
    return IndexInfo(indexes.path / target.name, meta)


def _check_layout(found: IndexInfo, shards: int | None) -> None:
    """An explicit --shards N that the finished index does not have is an error, not a silent
    reuse of another layout (the scores would be the same; the user asked for something else)."""
    if shards is None:
        return
    have = len(found.meta.get("shards") or []) or 1
    if have != shards:
        layout = f"{have} shards" if have > 1 else "one unsharded index"
        raise ToucheError(f"this index already exists as {layout}, not {shards}; it gives the same scores: drop "
                          f"--shards to reuse it, or remove the folder to rebuild it as {shards}", path=found.path)


def _write_failure(exc: BaseException) -> str | None:
    """What went wrong when Lucene could not write (a Java IOException, e.g. a full disk), in a
    user's words; None for anything else (bad input keeps its own located error)."""
    if type(exc).__name__ != "JavaException":
        return None
    message = f"{getattr(exc, 'innermessage', '') or ''} {exc}"
    if "No space left on device" in message:
        return "no space left on device"
    if getattr(exc, "classname", "") in ("java.io.IOException", "java.nio.file.FileSystemException",
                                         "java.nio.file.AccessDeniedException"):
        return f"the disk refused a write ({getattr(exc, 'innermessage', '') or exc})"
    return None


def build_index(source: CorpusSource, analyzer_spec: AnalyzerSpec, spec: IndexSpec, target: Path, *,
                base_dir: Path | None = None, progress: bool = True, extra_meta: dict | None = None,
                folder: OutputFolder | None = None) -> IndexInfo:
    """Build the index ``target`` in a temporary of the guard's (of ``folder``, the guard's owner of
    ``target.parent``) and place it there when finished."""
    folder = folder or named_location(target.parent, "index root")
    analyzer = analyzers.build(analyzer_spec, base_dir)
    with folder.building(target.name) as tmp:
        meta = _fill(tmp, source, analyzer, analyzer_spec, spec, target, progress)
        meta.update(extra_meta or {})
        write_text(tmp / META_FILE, json.dumps(meta, indent=2))
    return IndexInfo(folder.path / target.name, meta)


def _fill(tmp: Path, source: CorpusSource, analyzer, analyzer_spec: AnalyzerSpec, spec: IndexSpec, target: Path,
          progress: bool) -> dict:
    """Index the documents of ``source`` into the folder ``tmp``; the index's description."""
    fields = list(spec.fields)
    indexer = jvm.autoclass("touche.lucene.BatchIndexer")(
        str(tmp), analyzer, fields, spec.positions, spec.docvectors, spec.threads, float(spec.ram_buffer_mb))
    started = time.perf_counter()
    count = 0
    # the bar knows its total: the bytes of the corpus files as the reader gets through them
    # (args.me JSON), else the documents of an index of the same corpus already built here
    size = source.total_bytes() if hasattr(source, "total_bytes") else None
    total = size or _documents_of_sibling(source, fields, target.parent)
    try:
        with progress_bar(desc=f"indexing {source.name}", total=total, unit="B" if size else " docs",
                          unit_scale=bool(size), disable=not progress, mininterval=1.0) as bar:
            # a source that knows its size reports positions
            documents = (source.documents(fields, on_position=lambda done: bar.update(done - bar.n))  # type: ignore[call-arg]
                         if size else source.documents(fields))
            for ids, values, raws in _batches(documents, fields, spec.store_raw):
                _hand_over(indexer, ids, values, raws, len(fields))
                count += len(ids)
                if size:
                    bar.set_postfix_str(f"{count:,} docs", refresh=False)
                else:
                    bar.update(len(ids))
        indexer.finish(spec.optimize)
    except BaseException as exc:
        try:
            indexer.close()
        except Exception:  # noqa: BLE001 — the error that stopped the build is the one to report
            pass
        failure = _write_failure(exc)
        if failure:
            raise ToucheError(f"{failure} while writing the index; the partial index was removed",
                              path=target) from None
        raise
    seconds = time.perf_counter() - started
    if source.report.skipped:
        log.warning("warning: %s", source.report.summary())
    return {
        "format": 1,
        "corpus": source.describe(),
        "analyzer": analyzer_spec.model_dump(mode="json"),
        "index": spec.model_dump(mode="json"),
        "stats": _statistics([tmp], analyzer, fields),
        "build": {"seconds": round(seconds, 3), "docs_per_second": round(count / seconds, 1) if seconds else None,
                  "skipped_records": source.report.skipped,
                  "skipped": [str(r) for r in source.report.first_skipped],
                  "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
    }


def _documents_of_sibling(source: CorpusSource, fields: list[str], root: Path) -> int | None:
    """The documents of an index of the same corpus and fields (any analyzer) in ``root``: what
    a build of another variant's index will count."""
    try:
        fingerprint = source.fingerprint()
        for meta_file in root.glob(f"*/{META_FILE}"):
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            if meta.get("corpus", {}).get("fingerprint") == fingerprint and meta["index"]["fields"] == fields \
                    and not meta["build"].get("skipped_records"):
                return int(meta["stats"]["documents"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return None


_SEPARATOR = "\x1f"  # BatchIndexer.SEPARATOR


def _hand_over(indexer, ids: list[str], values: list[str], raws: list[str] | None, n_fields: int) -> None:
    """One batch to the JVM as one UTF-8 buffer (BatchIndexer.addPacked): a single byte[]
    crosses JNI and the indexing threads decode it, instead of the Python thread converting
    thousands of strings. A text that itself holds the separator (U+001F, a control character
    no corpus text should have) sends its batch the slow way, as String arrays."""
    if setting("TOUCHE_INDEX_HANDOVER") == "strings":
        indexer.addBatch(ids, values, raws)
        return
    per_doc = 1 + n_fields + (raws is not None)
    parts: list[str] = []
    for i, doc_id in enumerate(ids):
        parts.append(doc_id)
        parts.extend(values[i * n_fields:(i + 1) * n_fields])
        if raws is not None:
            parts.append(raws[i])
    parts.append("")  # the last record's separator
    packed = _SEPARATOR.join(parts)
    if packed.count(_SEPARATOR) != per_doc * len(ids):
        indexer.addBatch(ids, values, raws)
        return
    indexer.addPacked(packed.encode("utf-8", "surrogatepass"), len(ids), raws is not None)


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


def _statistics(paths: list[Path], analyzer, fields: list[str]) -> dict:
    searcher = jvm.autoclass("touche.lucene.BatchSearcher")([str(p) for p in paths], analyzer)
    try:
        stats: dict[str, Any] = {"documents": int(searcher.numDocs()), "fields": {}}
        for field in fields:
            docs, with_field, unique, total = (int(x) for x in searcher.fieldStats(field))
            stats["fields"][field] = {"documents": with_field, "unique_terms": unique, "total_terms": total}
        return stats
    finally:
        searcher.close()
