"""Sharded indexes: N shards built apart (parallel processes, or one by one as on several
machines), assembled, and searched as one with exactly the single index's run."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.shared import DEMO, REPO, cli, write_argsme
from touche.config import VariantSpec
from touche.errors import ToucheError

FIELDS = ["contents", "conclusion"]


def _arguments(n: int):
    """n arguments over a few topics; every text appears twice under two ids, so scores tie and
    only the tie-break (by id) decides the order."""
    words = ["school uniforms", "nuclear energy", "homework", "animal testing", "vegan diet"]
    out = []
    for i in range(n):
        topic = words[(i // 2) % len(words)]
        out.append((f"S{i % 7:07x}-A{i:08x}", f"{topic} is good" if i % 4 < 2 else f"{topic} is bad",
                    [(f"Arguments about {topic} and students number {i // 2}.", "PRO" if i % 2 else "CON")], topic))
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("shard-corpus")
    write_argsme(root / "args.me" / "args.json", _arguments(40))
    return root / "args.me"


def test_record_partition_covers_the_corpus_once(corpus):
    from touche.indexing.builder import partition
    from touche.indexing.corpora import ArgsMeSource
    all_ids = [d for d, _, _ in ArgsMeSource(corpus).documents(FIELDS)]
    parts = [[d for d, _, _ in partition(ArgsMeSource(corpus), k, 3).documents(FIELDS)] for k in range(3)]
    assert sorted(sum(parts, [])) == sorted(all_ids)
    assert parts[1] == all_ids[1::3]  # every third argument from the second: balanced shards


def test_file_partition_reads_only_its_files(tmp_path):
    from touche.indexing.builder import partition
    from touche.indexing.corpora import ArgsMeSource
    args = _arguments(9)
    for i in range(3):
        write_argsme(tmp_path / f"part-{i}.json", args[3 * i:3 * i + 3])
    shard = partition(ArgsMeSource(tmp_path), 0, 2)
    assert [f.name for f in shard.files] == ["part-0.json", "part-2.json"]
    assert [d for d, _, _ in shard.documents(FIELDS)] == [a[0] for a in args[:3] + args[6:]]


def test_parallel_shards_search_as_the_single_index(jvm_started, corpus, tmp_path):
    from touche.indexing.builder import ensure_index, index_paths
    from touche.retrieval.search import Searcher
    variant = VariantSpec(tag="t", index={"fields": FIELDS}, analyzer={"stemmer": "krovetz"})
    single = ensure_index(variant, corpus, tmp_path / "single", progress=False)
    sharded = ensure_index(variant, corpus, tmp_path / "sharded", progress=False, shards=2)  # two processes
    assert sharded.meta["shards"] == ["shard-0-of-2", "shard-1-of-2"]
    assert [p.name for p in index_paths(sharded.path)] == sharded.meta["shards"] == [p.name for p in sharded.paths]
    assert sharded.meta["stats"] == single.meta["stats"]  # statistics of the union
    assert not (tmp_path / "sharded" / f"{sharded.path.name}.shards").exists()
    queries = {"1": "school uniforms students", "2": "nuclear energy is bad", "3": "homework"}
    with Searcher(single.path, variant.analyzer) as one, Searcher(sharded.path, variant.analyzer) as two:
        for weights in ({"contents": 1.0}, {"contents": 1.0, "conclusion": 0.5}):
            expected = one.search(queries, weights, k=7)
            assert two.search(queries, weights, k=7) == expected
        ranking = expected["3"]
        assert ranking[0][1] == ranking[1][1] and ranking[0][0] < ranking[1][0]  # a tie, broken by id
        assert two.raw([ranking[0][0]])[ranking[0][0]] == one.raw([ranking[0][0]])[ranking[0][0]]
    # a finished sharded index is reused by a later call that asks for no layout, or for its own
    again = ensure_index(variant, corpus, tmp_path / "sharded", progress=False)
    assert again.meta["build"]["created"] == sharded.meta["build"]["created"]
    assert ensure_index(variant, corpus, tmp_path / "sharded", progress=False, shards=2).path == sharded.path
    # … but another explicit layout is an error, not a silent reuse (--shards 3 returned the 2 shards)
    with pytest.raises(ToucheError, match="already exists as 2 shards, not 3"):
        ensure_index(variant, corpus, tmp_path / "sharded", progress=False, shards=3)
    with pytest.raises(ToucheError, match="already exists as one unsharded index, not 2"):
        ensure_index(variant, corpus, tmp_path / "single", progress=False, shards=2)


def test_shard_by_shard_then_assemble(jvm_started, corpus, tmp_path):
    """As on several machines: each builds its shard; the last call only assembles."""
    from touche.indexing.builder import ensure_index
    variant = VariantSpec(tag="t", index={"fields": FIELDS})
    first = ensure_index(variant, corpus, tmp_path, progress=False, shards=2, shard=0)
    second = ensure_index(variant, corpus, tmp_path, progress=False, shards=2, shard=1)
    assert first.meta["shard"] == [0, 2] and second.meta["shard"] == [1, 2]
    assert first.documents + second.documents == 40
    assert first.path.parent.name.endswith(".shards") and first.path.name == "shard-0-of-2"
    again = ensure_index(variant, corpus, tmp_path, progress=False, shards=2, shard=0)
    assert again.meta["build"]["created"] == first.meta["build"]["created"]  # not rebuilt
    whole = ensure_index(variant, corpus, tmp_path, progress=False, shards=2)
    assert whole.documents == 40
    assert whole.meta["build"]["shard_seconds"] == [first.meta["build"]["seconds"], second.meta["build"]["seconds"]]
    meta = json.loads((whole.path / "touche-index.json").read_text())
    assert meta["shards"] == ["shard-0-of-2", "shard-1-of-2"]


def test_assembling_with_a_missing_shard_names_it(jvm_started, corpus, tmp_path):
    from touche.indexing.builder import assemble_shards, ensure_index, index_dir
    from touche.indexing.corpora import open_corpus
    variant = VariantSpec(tag="t", index={"fields": FIELDS})
    ensure_index(variant, corpus, tmp_path, progress=False, shards=3, shard=1)
    target = index_dir(tmp_path, variant, open_corpus("argsme", corpus))
    with pytest.raises(ToucheError, match=r"shard 0 of 3 is missing.*--shards 3 --shard 0"):
        assemble_shards(variant, target, 3)


@pytest.mark.parametrize("argv, message", [
    (["--shard", "1"], "--shard 1 needs --shards N"),
    (["--shards", "2", "--shard", "2"], "--shard must be in 0..1"),
])
def test_cli_rejects_bad_shard_numbers(corpus, capsys, argv, message):
    from touche.cli import main
    code = main(["index", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i", str(corpus),
                 "--index-root", str(corpus.parent),
                 *argv])
    assert code == 2 and message in capsys.readouterr().err


def test_shards_built_one_by_one_are_assembled_by_a_plain_run(jvm_started, tmp_path):
    from touche.config import load_variant
    from touche.indexing.builder import ensure_index
    variant = load_variant(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml").variant
    root = tmp_path / "idx"
    for k in (0, 1):
        ensure_index(variant, DEMO / "args.me", root, shards=2, shard=k, progress=False)
    info = ensure_index(variant, DEMO / "args.me", root, progress=False)  # as `touche run` asks for it
    assert len(info.meta["shards"]) == 2 and info.documents == 320
    assert [p.name for p in root.iterdir() if p.is_dir()] == [info.path.name]  # no second, whole index


@pytest.mark.parametrize("shards, message", [("0", "whole number ≥ 1"), ("-1", "whole number ≥ 1"),
                                             ("500", "500 shards to build on a machine")])
def test_shard_counts_that_make_no_sense_are_refused_at_once(tmp_path, shards, message):
    started = time.perf_counter()
    code, text = cli("index", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(DEMO / "args.me"), "--index-root", str(tmp_path / "idx"), "--shards", shards)
    assert code == 2 and message in text, text
    assert time.perf_counter() - started < 30


def test_a_sharded_build_leaves_no_leaked_semaphore(tmp_path):
    done = subprocess.run([sys.executable, "-m", "touche", "index", "-c",
                           str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i", str(DEMO / "args.me"),
                           "--index-root", str(tmp_path / "idx"), "--shards", "3"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "leaked" not in done.stderr and "resource_tracker" not in done.stderr
