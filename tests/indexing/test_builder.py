"""The index builder's own logic, without Lucene: what it hands the Java indexer, how it batches,
keys, reuses, refuses, shards and assembles, and where it leaves an index. Java's BatchIndexer and
BatchSearcher are stood in for by recorders (the Lucene side is tested by tests/indexing/test_index_search.py
and pinned by the regressions). The last tests build real indexes: an index is keyed by the
contents of the stoplist it read and by the bad records it skipped."""
from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

import pytest

from tests.indexing.test_readers import argument_with_id, write_corpus
from tests.shared import REPO, write_argsme
from touche import jvm
from touche.config import VariantSpec
from touche.errors import InputError, ToucheError
from touche.folderlock import folder_lock
from touche.guard import RECORD, TOOLKIT, OutputFolder
from touche.indexing import builder
from touche.indexing.corpora import ArgsMeSource, open_corpus

ARGUMENTS = [(f"S{i:07x}-A{i:08x}", f"claim {i}", [(f"premise {i} about school", "PRO")], "topic")
             for i in range(7)]


class Indexer:
    """BatchIndexer's part the builder uses, recording what it is handed."""
    made: list[Indexer] = []

    def __init__(self, path, analyzer, fields, positions, docvectors, threads, ram):
        self.path, self.fields, self.options = Path(path), list(fields), (positions, docvectors, threads, ram)
        self.batches: list[tuple] = []
        self.finished = self.closed = None
        Indexer.made.append(self)

    def addPacked(self, data, count, raw):
        self.batches.append(("packed", data, count, raw))

    def addBatch(self, ids, values, raws):
        self.batches.append(("strings", list(ids), list(values), None if raws is None else list(raws)))

    def finish(self, optimize):
        self.finished = optimize
        (self.path / "_0.cfs").write_bytes(b"segment")

    def close(self):
        self.closed = True


class Searcher:
    """BatchSearcher's statistics: 3 documents, per field (documents, with it, unique, total)."""
    opened: list[list[str]] = []

    def __init__(self, paths, analyzer):
        Searcher.opened.append(list(paths))
        self.closed = False

    def numDocs(self):
        return 3 * len(Searcher.opened[-1])

    def fieldStats(self, field):
        return (3, 2, len(field), 10 * len(field))

    def close(self):
        self.closed = True


@pytest.fixture
def java(monkeypatch):
    Indexer.made, Searcher.opened = [], []
    classes = {"touche.lucene.BatchIndexer": Indexer, "touche.lucene.BatchSearcher": Searcher}
    monkeypatch.setattr(jvm, "autoclass", lambda name: classes[name])
    monkeypatch.setattr(builder.analyzers, "build", lambda spec, base_dir=None: "analyzer")
    monkeypatch.delenv("TOUCHE_INDEX_HANDOVER", raising=False)
    return Indexer


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_argsme(tmp_path / "corpus" / "args.json", ARGUMENTS).parent


def variant(**index) -> VariantSpec:
    return VariantSpec(tag="t", index={"fields": ["contents", "conclusion"], **index})


# ---------------------------------------------------------------- a build
def test_an_index_is_built_aside_and_placed_with_its_description(java, corpus, tmp_path):
    root = tmp_path / "R"
    info = builder.ensure_index(variant(threads=3, ram_buffer_mb=64), corpus, root, progress=False)
    name = info.path.name
    assert info.path == root / name and name.startswith("argsme-") and len(name) == len("argsme-") + 12
    assert sorted(p.name for p in root.iterdir()) == [RECORD, name]  # no temporary, no lock left
    assert sorted(p.name for p in info.path.iterdir()) == ["_0.cfs", "touche-index.json"]
    assert OutputFolder(root, command=TOOLKIT).ours(name)
    (indexer,) = java.made
    assert indexer.path.parent == root and indexer.path.name.startswith(f".{name}.~touche.{os.getpid()}.")
    assert indexer.fields == ["contents", "conclusion"] and indexer.options == (True, False, 3, 64.0)
    assert indexer.finished is False and indexer.closed is None
    meta = json.loads((info.path / "touche-index.json").read_text())
    assert meta == info.meta and info.documents == 3
    assert meta["format"] == 1 and meta["corpus"]["files"] == ["args.json"]
    assert meta["stats"] == {"documents": 3, "fields": {"contents": {"documents": 2, "unique_terms": 8,
                                                                     "total_terms": 80},
                                                        "conclusion": {"documents": 2, "unique_terms": 10,
                                                                       "total_terms": 100}}}
    assert meta["build"]["skipped_records"] == 0 and meta["build"]["skipped"] == []
    assert meta["index"]["fields"] == ["contents", "conclusion"] and "shards" not in meta
    assert Searcher.opened == [[str(indexer.path)]]
    assert info.paths == [info.path]


def test_the_documents_cross_as_one_packed_buffer_per_batch(java, corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(builder, "BATCH_SIZE", 3)
    builder.ensure_index(variant(store_raw=False), corpus, tmp_path, progress=False)
    batches = java.made[0].batches
    assert [(kind, count, raw) for kind, _, count, raw in batches] == [("packed", 3, False), ("packed", 3, False),
                                                                       ("packed", 1, False)]
    first = batches[0][1].decode("utf-8").split("\x1f")
    assert first[:3] == [ARGUMENTS[0][0], "claim 0\n\npremise 0 about school", "claim 0"] and first[-1] == ""
    assert len(first) == 3 * 3 + 1


def test_raw_records_go_along_when_stored(java, corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(builder, "BATCH_SIZE", 10)
    builder.ensure_index(variant(store_raw=True), corpus, tmp_path, progress=False)
    (kind, data, count, raw), = java.made[0].batches
    parts = data.decode("utf-8").split("\x1f")
    assert (kind, count, raw) == ("packed", 7, True) and len(parts) == 7 * 4 + 1
    assert json.loads(parts[3])["id"] == ARGUMENTS[0][0]


def test_strings_cross_one_by_one_when_asked_or_when_a_text_holds_the_separator(java, tmp_path, monkeypatch):
    indexer = Indexer(tmp_path, None, ["a"], True, False, 1, 1)
    builder._hand_over(indexer, ["d1", "d2"], ["x", "y\x1fz"], None, 1)
    builder._hand_over(indexer, ["d3"], ["w"], ["raw"], 1)
    monkeypatch.setenv("TOUCHE_INDEX_HANDOVER", "strings")
    builder._hand_over(indexer, ["d4"], ["v"], ["r4"], 1)
    assert indexer.batches == [("strings", ["d1", "d2"], ["x", "y\x1fz"], None),
                               ("packed", "d3\x1fw\x1fraw\x1f".encode(), 1, True),
                               ("strings", ["d4"], ["v"], ["r4"])]


def test_batches_hold_batch_size_documents_and_raws_only_when_stored(monkeypatch):
    monkeypatch.setattr(builder, "BATCH_SIZE", 2)
    docs = [(f"d{i}", [f"a{i}", f"b{i}"], f"raw{i}") for i in range(5)]
    assert list(builder._batches(docs, ["a", "b"], True)) == [
        (["d0", "d1"], ["a0", "b0", "a1", "b1"], ["raw0", "raw1"]),
        (["d2", "d3"], ["a2", "b2", "a3", "b3"], ["raw2", "raw3"]), (["d4"], ["a4", "b4"], ["raw4"])]
    assert [raws for _, _, raws in builder._batches(docs, ["a", "b"], False)] == [None, None, None]
    assert list(builder._batches([], ["a"], True)) == []


def test_a_finished_index_is_reused_and_built_once(java, corpus, tmp_path):
    first = builder.ensure_index(variant(), corpus, tmp_path, progress=False)
    again = builder.ensure_index(variant(), corpus, tmp_path, progress=False)
    assert again.path == first.path and again.meta == first.meta and len(java.made) == 1
    other = builder.ensure_index(variant(positions=False), corpus, tmp_path, progress=False)
    assert other.path != first.path and len(java.made) == 2


def test_an_index_built_while_waiting_for_the_lock_is_used(java, corpus, tmp_path, monkeypatch):
    """Another process built the same index while this one waited for its lock."""
    target = builder.index_dir(tmp_path, variant(), open_corpus("argsme", corpus))

    @contextlib.contextmanager
    def waited(folder, name, message, wait=0.0):
        assert (folder, name, wait) == (tmp_path, f".{target.name}.touche.lock", 3600.0)
        target.mkdir()
        (target / "touche-index.json").write_text(json.dumps({"stats": {"documents": 9}, "build": {}}))
        yield
    monkeypatch.setattr(builder, "folder_lock", waited)
    info = builder.ensure_index(variant(), corpus, tmp_path, progress=False)
    assert info.path == target and info.documents == 9 and java.made == []


def test_a_build_held_by_another_process_is_waited_for_then_said(java, corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_INDEX_LOCK_TIMEOUT", "0.2")
    name = builder.index_dir(tmp_path, variant(), open_corpus("argsme", corpus)).name
    with folder_lock(tmp_path, f".{name}.touche.lock", "held"):
        with pytest.raises(ToucheError, match=rf"another process is building this index \(it holds \.{name}"
                                              r"\.touche\.lock\); waited 0\.2 s \(TOUCHE_INDEX_LOCK_TIMEOUT\)"):
            builder.ensure_index(variant(), corpus, tmp_path, progress=False)
    assert java.made == []


def test_a_failed_build_leaves_nothing_and_says_why(java, corpus, tmp_path, monkeypatch):
    import jnius

    def full(*args):
        raise jnius.JavaException("JVM exception occurred", "java.io.IOException", "No space left on device", [])
    monkeypatch.setattr(builder, "_hand_over", full)
    root = tmp_path / "R"
    with pytest.raises(ToucheError, match="no space left on device while writing the index; the partial index was "
                                          "removed") as refused:
        builder.ensure_index(variant(), corpus, root, progress=False)
    assert refused.value.path.startswith(str(root / "argsme-"))
    assert java.made[0].closed is True and list(root.iterdir()) == []

    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(builder, "_hand_over", interrupted)
    with pytest.raises(KeyboardInterrupt):
        builder.ensure_index(variant(), corpus, root, progress=False)
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("classname, inner, said", [
    ("java.io.IOException", "No space left on device", "no space left on device"),
    ("java.lang.RuntimeException", "wrapped: No space left on device", "no space left on device"),
    ("java.io.IOException", "Input/output error", "the disk refused a write (Input/output error)"),
    ("java.nio.file.FileSystemException", "read-only", "the disk refused a write (read-only)"),
    ("java.nio.file.AccessDeniedException", "", "the disk refused a write (JVM exception occurred\n)"),
    ("java.lang.IllegalArgumentException", "bad analyzer", None),
])
def test_what_lucene_could_not_write_is_said_in_a_users_words(classname, inner, said):
    import jnius
    assert builder._write_failure(jnius.JavaException("JVM exception occurred", classname, inner, [])) == said
    assert builder._write_failure(OSError("No space left on device")) is None


def test_the_progress_total_comes_from_an_index_of_the_same_corpus(java, corpus, tmp_path):
    source = open_corpus("argsme", corpus)
    fingerprint = source.fingerprint()

    def sibling(name, **meta):
        (tmp_path / name).mkdir()
        (tmp_path / name / "touche-index.json").write_text(json.dumps(meta))
    assert builder._documents_of_sibling(source, ["contents"], tmp_path) is None
    sibling("a", corpus={"fingerprint": "other"}, index={"fields": ["contents"]}, build={}, stats={"documents": 1})
    sibling("b", corpus={"fingerprint": fingerprint}, index={"fields": ["title"]}, build={}, stats={"documents": 2})
    sibling("c", corpus={"fingerprint": fingerprint}, index={"fields": ["contents"]},
            build={"skipped_records": 1}, stats={"documents": 3})
    assert builder._documents_of_sibling(source, ["contents"], tmp_path) is None
    sibling("d", corpus={"fingerprint": fingerprint}, index={"fields": ["contents"]}, build={},
            stats={"documents": "40"})
    assert builder._documents_of_sibling(source, ["contents"], tmp_path) == 40
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "touche-index.json").write_text("{not json")
    assert builder._documents_of_sibling(source, ["contents"], tmp_path) is None


# ---------------------------------------------------------------- what is refused
def test_settings_that_make_no_index_are_refused_before_any_work(java, corpus, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ToucheError, match="the index root is a file, not a folder: give a folder for the indexes "
                                          r"\(--index-root, index_root=, \$TOUCHE_INDEX_ROOT\)"):
        builder.ensure_index(variant(), corpus, tmp_path / "file")
    for shards in (0, -1, "2", 1.5):
        with pytest.raises(ToucheError, match=rf"--shards must be a whole number ≥ 1 \(1 = one unsharded index\), "
                                              rf"got {shards!r}"):
            builder.ensure_index(variant(), corpus, tmp_path / "R", shards=shards)
    with pytest.raises(ToucheError, match=r"--shard 1 needs --shards N \(N >= 2\): which part of how many"):
        builder.ensure_index(variant(), corpus, tmp_path / "R", shard=1)
    with pytest.raises(ToucheError, match="--shard 1 needs --shards N"):
        builder.ensure_index(variant(), corpus, tmp_path / "R", shards=1, shard=1)
    for shard in (2, -1):
        with pytest.raises(ToucheError, match=rf"--shard must be in 0\.\.1 for --shards 2, got {shard}"):
            builder.ensure_index(variant(), corpus, tmp_path / "R", shards=2, shard=shard)
    assert java.made == [] and not (tmp_path / "R").exists()


def test_an_unfinished_index_of_the_toolkits_is_refused_not_replaced(java, corpus, tmp_path):
    target = builder.index_dir(tmp_path, variant(), open_corpus("argsme", corpus))
    OutputFolder(tmp_path, command=TOOLKIT).folder(target.name)
    with pytest.raises(ToucheError, match="the index's place in the index root holds an unfinished index touche made "
                                          r"\(someone removed its touche-index.json\); it is no finished index "
                                          r"\(touche-index.json missing\)"):
        builder.ensure_index(variant(), corpus, tmp_path, progress=False)
    assert java.made == [] and target.is_dir()


def test_an_index_that_skipped_records_serves_only_runs_that_agree(java, tmp_path):
    corpus = tmp_path / "corpus"
    write_argsme(corpus / "args.json", ARGUMENTS)
    records = json.loads((corpus / "args.json").read_text())
    records["arguments"] += [{"id": f"bad {i}", "conclusion": "c", "premises": []} for i in range(4)]
    (corpus / "args.json").write_text(json.dumps(records))
    skipping = VariantSpec(tag="t", corpus={"skip_bad_records": True})
    info = builder.ensure_index(skipping, corpus, tmp_path / "R", progress=False)
    assert info.meta["build"]["skipped_records"] == 4 and len(info.meta["build"]["skipped"]) == 4
    strict = VariantSpec(tag="t")
    assert builder.index_dir(tmp_path / "R", strict, open_corpus("argsme", corpus)) == info.path
    with pytest.raises(InputError, match=r"the corpus has 4 malformed record\(s\), skipped when this index was built "
                                         r"with --skip-bad-records \(first: .*; .*; [^;]*\); pass --skip-bad-records"):
        builder.ensure_index(strict, corpus, tmp_path / "R", progress=False)
    assert builder.ensure_index(skipping, corpus, tmp_path / "R", progress=False).path == info.path


@pytest.mark.parametrize("have, asked, said", [(["s0", "s1"], 3, "already exists as 2 shards, not 3"),
                                               (None, 2, "already exists as one unsharded index, not 2"),
                                               ([], 2, "already exists as one unsharded index, not 2")])
def test_a_layout_other_than_the_finished_index_is_refused(tmp_path, have, asked, said):
    found = builder.IndexInfo(tmp_path, {"shards": have})
    with pytest.raises(ToucheError, match=said + r"; it gives the same scores: drop --shards to reuse it, or remove "
                                                 rf"the folder to rebuild it as {asked}"):
        builder._check_layout(found, asked)
    builder._check_layout(found, None)
    builder._check_layout(found, len(have or []) or 1)


# ---------------------------------------------------------------- shards
def test_a_shard_is_built_in_the_shards_folder_and_assembled_with_the_others(java, corpus, tmp_path):
    root = tmp_path / "R"
    first = builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=0)
    name = first.path.parent.name.removesuffix(".shards")
    assert first.path == root / f"{name}.shards" / "shard-0-of-2" and first.meta["shard"] == [0, 2]
    assert builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=0).meta == first.meta
    assert builder.started_shards(root / name) == (2, 1)
    second = builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=1)
    assert sorted(p.name for p in (root / f"{name}.shards").iterdir()) == [RECORD, "shard-0-of-2", "shard-1-of-2"]
    first.meta["build"]["seconds"], second.meta["build"]["seconds"] = 2.0, 3.0
    whole = builder.assemble_shards(variant(), root / name, 2)
    assert whole.path == root / name and sorted(p.name for p in root.iterdir()) == [RECORD, name]
    assert sorted(p.name for p in whole.path.iterdir()) == ["shard-0-of-2", "shard-1-of-2", "touche-index.json"]
    meta = whole.meta
    assert meta["shards"] == ["shard-0-of-2", "shard-1-of-2"] and "part" not in meta["corpus"]
    assert meta["stats"]["documents"] == 6
    counted = [Path(p) for p in Searcher.opened[-1]]  # in the index's temporary, before it is placed
    assert [p.name for p in counted] == ["shard-0-of-2", "shard-1-of-2"]
    assert counted[0].parent.name.startswith(f".{name}.~touche.")
    assert whole.paths == [root / name / "shard-0-of-2", root / name / "shard-1-of-2"]
    assert builder.index_paths(root / name) == whole.paths
    documents = first.meta["stats"]["documents"] + second.meta["stats"]["documents"]
    stored = [json.loads((p / "touche-index.json").read_text())["build"]["seconds"] for p in whole.paths]
    assert meta["build"]["shard_seconds"] == stored and meta["build"]["seconds"] == round(max(stored), 3)
    assert meta["build"]["docs_per_second"] == (round(documents / max(stored), 1) if max(stored) else None)
    assert meta["build"]["skipped_records"] == 0 and meta["build"]["skipped"] == []
    assert OutputFolder(root, command=TOOLKIT).ours(name)


def test_assembling_sums_the_shards_skips_and_keeps_twenty(java, tmp_path):
    root = tmp_path / "R"
    target = root / "argsme-0123456789ab"
    home = OutputFolder(root, command=TOOLKIT).folder(f"{target.name}.shards")
    for k, skipped in enumerate((15, 12)):
        with home.building(f"shard-{k}-of-2") as shard:
            (shard / "touche-index.json").write_text(json.dumps({
                "corpus": {"files": ["a.json"], "part": [k, 2]},
                "stats": {"documents": 4}, "build": {"seconds": 1.5 + k, "skipped_records": skipped,
                                                     "skipped": [f"{k}:{i}" for i in range(skipped)]}}))
    info = builder.assemble_shards(variant(), target, 2, seconds=4.0)
    build = info.meta["build"]
    assert build["skipped_records"] == 27 and build["skipped"] == [f"0:{i}" for i in range(15)] + \
        [f"1:{i}" for i in range(5)]
    assert (build["seconds"], build["docs_per_second"], build["shard_seconds"]) == (4.0, 2.0, [1.5, 2.5])
    assert info.meta["corpus"] == {"files": ["a.json"]}


def test_assembling_refuses_a_missing_shard_and_one_it_did_not_build(java, corpus, tmp_path):
    root = tmp_path / "R"
    built = builder.ensure_index(variant(), corpus, root, progress=False, shards=3, shard=1)
    target = root / built.path.parent.name.removesuffix(".shards")
    with pytest.raises(ToucheError, match=r"shard 0 of 3 is missing or unfinished \(expected .*shard-0-of-3\); "
                                          r"build it with: touche index \.\.\. --shards 3 --shard 0"):
        builder.assemble_shards(variant(), target, 3)
    for k in (0, 2):
        builder.ensure_index(variant(), corpus, root, progress=False, shards=3, shard=k)
    moved = built.path.with_name("elsewhere")
    built.path.rename(moved)
    moved.rename(built.path)  # the same folder, moved and back: still the one built
    builder.assemble_shards(variant(), target, 3)
    assert builder.open_index(target).meta["shards"] == ["shard-0-of-3", "shard-1-of-3", "shard-2-of-3"]


def test_a_shard_replaced_by_a_copy_is_not_assembled(java, corpus, tmp_path):
    import shutil
    root = tmp_path / "R"
    for k in (0, 1):
        built = builder.ensure_index(variant(), corpus, root, progress=False, shards=2, shard=k)
    copy = built.path.with_name("copy")
    shutil.copytree(built.path, copy)
    shutil.rmtree(built.path)
    copy.rename(built.path)  # a folder of the same name and content, not the one built
    target = root / built.path.parent.name.removesuffix(".shards")
    with pytest.raises(ToucheError, match="shard 1 of 2 is not the folder touche built: touche moves into an index "
                                          "only the shards it built; remove it and build it again"):
        builder.assemble_shards(variant(), target, 2)


def test_started_shards_counts_the_finished_shards_of_the_fullest_layout(tmp_path):
    target = tmp_path / "argsme-0123456789ab"
    assert builder.started_shards(target) is None
    home = builder.shards_home(target)
    for name, finished in [("shard-0-of-2", True), ("shard-1-of-3", True), ("shard-2-of-3", True),
                           ("shard-0-of-3", False), ("shard-0-of-4", True), ("shard-1-of-4", True),
                           ("shard-x-of-2", True), ("notes", True)]:
        (home / name).mkdir(parents=True)
        if finished:
            (home / name / "touche-index.json").write_text("{}")
    assert builder.started_shards(target) == (4, 2)  # a tie of two: the larger layout
    (home / "shard-0-of-4" / "touche-index.json").unlink()
    assert builder.started_shards(target) == (3, 2)


def test_a_plain_build_finishes_shards_built_one_by_one(java, corpus, tmp_path):
    builder.ensure_index(variant(), corpus, tmp_path, progress=False, shards=3, shard=0)
    calls = []

    def sharded(variant_, corpus_path, target, n, *, base_dir, progress):
        calls.append((target.parent, n, base_dir, progress))
        return "assembled"
    assert builder.ensure_index(variant(), corpus, tmp_path, progress=False, sharded_builder=sharded) == "assembled"
    assert calls == [(tmp_path, 3, None, False)]
    assert builder.ensure_index(variant(), corpus, tmp_path, progress=True, shards=2,
                                sharded_builder=sharded) == "assembled"
    assert calls[-1] == (tmp_path, 2, None, True)


class InlinePool:
    """The process pool, run here: what each shard process does, in order."""
    made: list[tuple] = []

    def __init__(self, workers, maxtasksperchild=None):
        InlinePool.made.append((workers, maxtasksperchild))
        self.closed = False

    def imap_unordered(self, function, jobs):
        return map(function, jobs)

    def close(self):
        self.closed = True

    def join(self):
        pass

    def terminate(self):
        InlinePool.terminated = True


@pytest.fixture
def inline_pool(monkeypatch):
    import multiprocessing
    InlinePool.made, InlinePool.terminated = [], False
    monkeypatch.setattr(multiprocessing, "get_context", lambda method: type("Spawn", (), {"Pool": InlinePool}))
    monkeypatch.setattr(jvm, "start", lambda heap=None: None)
    return InlinePool


def test_shards_are_built_by_processes_then_assembled(java, corpus, tmp_path, inline_pool, monkeypatch, caplog):
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "4g")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    caplog.set_level(logging.INFO)
    info = builder.ensure_index(variant(threads=4), corpus, tmp_path / "R", progress=True, shards=3)
    assert inline_pool.made == [(2, 1)] and inline_pool.terminated is False
    assert [i.options[2] for i in java.made] == [2, 2, 2]  # the threads shared among two processes
    assert info.meta["shards"] == ["shard-0-of-3", "shard-1-of-3", "shard-2-of-3"]
    assert "building 3 of 3 shards, 2 at a time" in caplog.text
    assert "shard 1 of 3: 3 documents in" in caplog.text
    assert builder.shard_heap(2) == "2048m" and builder.shard_heap(16) == "512m" and builder.shard_heap(3) == "1365m"
    assert sorted(p.name for p in (tmp_path / "R").iterdir()) == [RECORD, info.path.name]


def test_processes_default_to_the_cores_and_a_failing_shard_ends_the_pool(java, corpus, tmp_path, inline_pool,
                                                                          monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    target = builder.index_dir(tmp_path, variant(), open_corpus("argsme", corpus))
    builder.build_sharded(variant(), corpus, target, 2, progress=False, processes=None)
    assert inline_pool.made == [(1, 1)]

    def broken(*args, **kwargs):
        raise InputError("a bad shard")
    monkeypatch.setattr(builder, "ensure_shard", broken)
    other = builder.index_dir(tmp_path, variant(positions=False), open_corpus("argsme", corpus))
    with pytest.raises(InputError, match="a bad shard"):
        builder.build_sharded(variant(), corpus, other, 2, progress=False, processes=5)
    assert inline_pool.made[-1] == (2, 1) and inline_pool.terminated is True


def test_too_many_shards_for_one_machine_are_refused_at_once(java, corpus, tmp_path, inline_pool, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    target = builder.index_dir(tmp_path, variant(), open_corpus("argsme", corpus))
    with pytest.raises(ToucheError, match=r"13 shards to build on a machine of 3 cores: .* Use --shards 3 here"):
        builder.build_sharded(variant(), corpus, target, 13)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    with pytest.raises(ToucheError, match="9 shards to build on a machine of 1 cores"):
        builder.build_sharded(variant(), corpus, target, 9)
    assert inline_pool.made == [] and java.made == []
    builder.build_sharded(variant(), corpus, target, 8, progress=False)
    assert inline_pool.made == [(1, 1)]


def test_a_shard_process_starts_its_own_jvm_and_builds_its_part(java, corpus, tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(jvm, "start", started.append)
    target = builder.index_dir(tmp_path, variant(), open_corpus("argsme", corpus))
    meta = builder._build_shard_process((variant().model_dump_json(), str(corpus), str(target), 1, 2, None, "700m"))
    assert started == ["700m"] and meta["shard"] == [1, 2] and meta["corpus"]["part"] == [1, 2]


def test_a_partition_takes_files_or_every_nth_record(tmp_path):
    for i in range(3):
        write_argsme(tmp_path / f"part-{i}.json", ARGUMENTS[2 * i:2 * i + 2])
    by_file = builder.partition(ArgsMeSource(tmp_path), 1, 3)
    assert [f.name for f in by_file.files] == ["part-1.json"]
    by_record = builder.partition(ArgsMeSource(tmp_path), 1, 4)
    assert isinstance(by_record, builder._RecordShard) and by_record.name == "argsme"
    assert [d for d, _, _ in by_record.documents(["contents"])] == [ARGUMENTS[1][0], ARGUMENTS[5][0]]
    assert by_record.describe()["part"] == [1, 4] and by_record.report is by_record.source.report
    assert by_record.fingerprint() == ArgsMeSource(tmp_path).fingerprint()
    assert by_record.fields == by_record.source.fields

    class Plain:  # a source without documents_part: its stream, sliced
        name, fields, report = "plain", ["contents"], None

        def documents(self, fields):
            return iter([("a", [], ""), ("b", [], ""), ("c", [], ""), ("d", [], "")])
    assert [d for d, _, _ in builder.partition(Plain(), 0, 3).documents(["contents"])] == ["a", "d"]


def test_index_paths_read_the_description_when_not_given(tmp_path):
    assert builder.index_paths(tmp_path) == [tmp_path]
    (tmp_path / "touche-index.json").write_text(json.dumps({"shards": ["a", "b"]}))
    assert builder.index_paths(tmp_path) == [tmp_path / "a", tmp_path / "b"]
    assert builder.index_paths(tmp_path, {}) == [tmp_path]
    assert builder.open_index(tmp_path / "none") is None


def test_a_damaged_index_description_is_a_located_error(java, corpus, tmp_path):
    info = builder.ensure_index(variant(), corpus, tmp_path / "R", progress=False)
    meta = info.path / "touche-index.json"
    meta.write_text(meta.read_text() + "\nedited by hand\n")
    with pytest.raises(ToucheError, match=r"touche-index.json: cannot read this index's description \(Extra data: "
                                          r"line \d+ column 1 \(char \d+\)\): restore it, or remove the index's "
                                          "folder to build it again"):
        builder.ensure_index(variant(), corpus, tmp_path / "R", progress=False)
    meta.write_text("[1]")
    with pytest.raises(ToucheError, match="touche-index.json: this index's description is no JSON object"):
        builder.index_paths(info.path)
    assert len(java.made) == 1


def test_an_index_is_keyed_by_the_contents_of_the_stoplist_it_read(jvm_started, fixture_corpus, tmp_path, index_root):
    """Two variants with 'stoplist: stop.txt' in different folders (different lists) and one
    whose list was edited get their own indexes; the same list in two places shares one."""
    from touche.config import load_variant
    from touche.indexing.builder import ensure_index

    def variant_in(folder, words):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "stop.txt").write_text("\n".join(words) + "\n")
        path = folder / "v.yaml"
        path.write_text(
            f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: x\nanalyzer: {{stoplist: stop.txt}}\n"
        )
        return load_variant(path)

    a = variant_in(tmp_path / "a", ["the", "of"])
    b = variant_in(tmp_path / "b", ["the", "of", "uniforms"])
    same_as_a = variant_in(tmp_path / "c", ["the", "of"])
    built = {name: ensure_index(v.variant, fixture_corpus, index_root, base_dir=v.path.parent, progress=False)
             for name, v in {"a": a, "b": b, "c": same_as_a}.items()}
    assert built["a"].path != built["b"].path
    assert built["a"].path == built["c"].path
    terms = {name: info.meta["stats"]["fields"]["contents"]["total_terms"] for name, info in built.items()}
    assert terms["b"] < terms["a"]  # "uniforms" really was stopped in b's index
    (tmp_path / "a" / "stop.txt").write_text("the\nof\nuniforms\n")  # edited in place
    edited = ensure_index(a.variant, fixture_corpus, index_root, base_dir=a.path.parent, progress=False)
    assert edited.path != built["a"].path and edited.path == built["b"].path


def test_an_index_that_skipped_records_is_not_reused_by_a_run_that_did_not_agree(jvm_started, tmp_path):
    from touche.config import load_variant
    from touche.errors import InputError
    from touche.indexing.builder import ensure_index
    corpus = write_corpus(tmp_path / "c" / "args.json", [argument_with_id("Sa-A1"), {"id": 3, "conclusion": "bad"}])
    variant = REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"
    skipping = load_variant(variant, {"corpus.skip_bad_records": "true"}).variant
    assert ensure_index(skipping, corpus.parent, tmp_path / "idx", progress=False).documents == 1
    with pytest.raises(InputError, match="skipped when this index was built with --skip-bad-records"):
        ensure_index(load_variant(variant).variant, corpus.parent, tmp_path / "idx", progress=False)
