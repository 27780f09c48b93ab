"""A variant behaves as PyTerrier's transformers do: a rewritten query is what it searches, any
qid goes through, its YAML keys are parameters pt.GridScan tunes (to touche sweep's values), it
pickles after use, and topics come from PyTerrier's datasets too."""
from __future__ import annotations

import collections
import pickle

import pandas as pd
import pytest
import yaml

from tests.shared import DEMO, REPO

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")

SWEEP = REPO / "configs" / "sweeps" / "task1-demo.yaml"


@pytest.fixture
def bm25(tpt, index_root):
    return tpt.Variant("task1/examples/2-krovetz-bm25", corpus=DEMO / "args.me", index_root=index_root)


# --------------------------------------------------------------------------- queries and qids
def test_a_rewritten_query_is_what_the_variant_searches(tpt, bm25):
    topics = tpt.topics(DEMO / "topics.xml")
    rewritten = (pt.apply.query(lambda row: "nuclear energy") >> bm25).transform(topics)
    plain = bm25.transform(topics)
    asked = bm25.transform(topics.assign(query="nuclear energy", title="nuclear energy"))
    assert rewritten.docno.tolist() != plain.docno.tolist()
    assert rewritten.docno.tolist() == asked.docno.tolist()
    assert set(rewritten["query"]) == {"nuclear energy"} and "query_0" in rewritten.columns  # PyTerrier's own


def test_any_qid_goes_through_and_comes_back_as_given(tpt, bm25):
    topics = tpt.topics(DEMO / "topics.xml").head(2)
    numbered = bm25.transform(topics)
    named = bm25.transform(topics.assign(qid=["x1", "topic-b"]))
    assert named.qid.unique().tolist() == ["x1", "topic-b"]
    assert named.docno.tolist() == numbered.docno.tolist() and named.score.tolist() == numbered.score.tolist()
    staged = (bm25.first_stage >> bm25.stages).transform(topics.assign(qid=["x1", "topic-b"]))
    pd.testing.assert_frame_equal(staged, named)


def test_a_used_variant_pickles_and_runs_again(tpt, bm25):
    topics = tpt.topics(DEMO / "topics.xml")
    before = bm25.transform(topics)
    copy = pickle.loads(pickle.dumps(bm25))
    assert copy._session is None and bm25._session is not None
    pd.testing.assert_frame_equal(copy.transform(topics), before)
    copy.close()


# --------------------------------------------------------------------------- parameters
def test_yaml_keys_are_parameters_and_a_bad_one_is_refused_at_once(tpt, bm25):
    assert bm25.get_parameter("retrieval.similarity.k1") == 1.2
    assert bm25.get_parameter("analyzer.stemmer") == "krovetz"
    assert bm25.get_parameter("retrieval.top_k") == bm25.loaded.variant.retrieval.top_k  # a default, not in the file
    bm25.set_parameter("retrieval.similarity.k1", 0.6)
    assert bm25.get_parameter("retrieval.similarity.k1") == 0.6 and bm25.loaded.variant.retrieval.similarity.k1 == 0.6
    with pytest.raises(ValueError, match="has no key 'retrieval.nope'"):
        bm25.get_parameter("retrieval.nope")
    from touche.errors import ConfigError
    with pytest.raises(ConfigError, match="stemmer"):
        bm25.set_parameter("analyzer.stemmer", "lancaster")
    assert bm25.get_parameter("analyzer.stemmer") == "krovetz" and bm25.overrides == {"retrieval.similarity.k1": 0.6}


def test_the_newest_setting_wins_and_the_callers_value_stays_its_own(tpt, bm25):
    similarity = {"name": "bm25", "k1": 2.0, "b": 0.3}
    bm25.set_parameter("retrieval.similarity", similarity)
    bm25.set_parameter("retrieval.similarity.k1", 0.5)
    assert similarity == {"name": "bm25", "k1": 2.0, "b": 0.3}  # not changed by the later key
    bm25.set_parameter("retrieval.similarity", {"name": "bm25", "k1": 3.0, "b": 0.3})
    assert bm25.loaded.variant.retrieval.similarity.k1 == 3.0 and bm25.get_parameter("retrieval.similarity.k1") == 3.0
    bm25.set_parameter("retrieval.similarity.k1", "0.9")  # as --set writes it: YAML text
    assert bm25.get_parameter("retrieval.similarity.k1") == 0.9


def test_start_java_after_the_toolkits_own_jvm_says_to_call_it_first(tpt):
    from touche.errors import EnvironmentProblem
    if pt.java.started():
        pytest.skip("PyTerrier's Java runs in this test process")
    with pytest.raises(EnvironmentProblem, match=r"call touche.pyterrier.start_java\(\) before the first variant"):
        tpt.start_java(terrier=False)


def test_the_initialisers_option_rules():
    from touche.pyterrier.java import _already_set, without_module
    assert without_module(["--add-modules=java.sql,jdk.incubator.vector", "-Xss4m",
                           "--add-modules jdk.incubator.vector"], "jdk.incubator.vector") == \
        ["--add-modules=java.sql", "-Xss4m"]
    configured = {"options": ["-Xss4m", "-XX:+UseG1GC"], "mem": None}
    assert _already_set("-Xss8m", configured) and _already_set("-XX:+UseSerialGC", configured)
    assert not _already_set("-Xmx2g", configured) and _already_set("-Xmx2g", {"options": [], "mem": 4096})
    assert not _already_set("-Xrs", configured) and _already_set("-Xrs", {"options": ["-Xrs"], "mem": None})


def test_a_missing_qid_is_named_by_its_row(tpt):
    from touche.errors import InputError
    from touche.pyterrier.frames import numbered_topics
    with pytest.raises(InputError) as raised:
        numbered_topics(pd.DataFrame({"qid": ["1", None], "query": ["a", "b"]}))
    assert raised.value.where == "row 2"


def test_grid_scan_gives_touche_sweeps_values_and_best_point(tpt, bm25, index_root, tmp_path):
    from touche.retrieval.experiments.sweep import run_sweep
    spec = yaml.safe_load(SWEEP.read_text())
    sweep_file = tmp_path / "sweep.yaml"
    sweep_file.write_text(yaml.safe_dump({**spec, "base": str(SWEEP.parent / spec["base"]),
                                          "qrels": {k: str(SWEEP.parent / v) for k, v in spec["qrels"].items()},
                                          "topics": str(SWEEP.parent / spec["topics"]),
                                          "corpus": str(SWEEP.parent / spec["corpus"]),
                                          "output": str(tmp_path / "out")}))
    outcome = run_sweep(sweep_file, index_root=index_root, progress=False)
    swept = {tuple(r.overrides[k] for k in spec["grid"]): r.measures[spec["measure"]] for r in outcome.records}

    scanned = pt.GridScan(bm25, {bm25: spec["grid"]}, tpt.topics(DEMO / "topics.xml"),
                          tpt.qrels(DEMO / "qrels-relevance.txt"), metrics=[tpt.measure("touche.nDCG@5")],
                          verbose=False)
    columns = [f"tran_{i}_{key}" for i, key in enumerate(spec["grid"])]
    grid = {tuple(row[c] for c in columns): row["touche.nDCG@5"] for _, row in scanned.iterrows()}
    assert len(grid) == len(swept) == 12
    assert grid == pytest.approx(swept, abs=1e-12)
    best = outcome.best()
    assert grid[tuple(best.overrides[k] for k in spec["grid"])] == max(grid.values())


# --------------------------------------------------------------------------- topics from datasets
Query = collections.namedtuple("Query", ["query_id", "title", "description", "narrative"])
BeirQuery = collections.namedtuple("BeirQuery", ["query_id", "text", "description", "narrative"])


class _Irds:
    def __init__(self, queries):
        self._queries = queries

    def queries_iter(self):
        return iter(self._queries)


class _PyTerrierDataset:
    """What pt.get_dataset("irds:…") gives: irds_ref() to ir_datasets' dataset, get_topics()."""

    def __init__(self, queries):
        self._queries = queries

    def irds_ref(self):
        return _Irds(self._queries)

    def get_topics(self, variant=None):
        raise AssertionError("Touché's fields come from the records, not PyTerrier's lowercased text")


def test_topics_from_a_pyterrier_dataset_keep_touches_fields(tpt):
    touche = _PyTerrierDataset([Query("1", "Should teachers get tenure?", "A user asks.", "Relevant: …")])
    beir = _PyTerrierDataset([BeirQuery("2", "Is homework beneficial?", "Looks for …", "Highly relevant …")])
    frame = tpt.topics(touche)
    assert frame.iloc[0][["qid", "query", "title", "description"]].tolist() == \
        ["1", "Should teachers get tenure?", "Should teachers get tenure?", "A user asks."]
    assert tpt.topics(beir).iloc[0][["qid", "query", "narrative"]].tolist() == \
        ["2", "Is homework beneficial?", "Highly relevant …"]


def test_beirs_queries_are_fetched_by_reading_them(monkeypatch, tmp_path):
    """ir_datasets 0.6.3's BEIR queries have no queries_path(): reading them caches the file."""
    import ir_datasets

    import touche.datasets as ds
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds"))
    target = ds.cached_path(ds.dataset("beir/webis-touche2020/v2").topics)
    line = '{"_id": "1", "text": "Should teachers get tenure?", "metadata": {"description": "d", "narrative": "n"}}\n'

    class Handler:  # no queries_path, as BEIR's
        pass

    class Dataset:
        def queries_handler(self):
            return Handler()

        def queries_iter(self):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(line)
            yield from ()

    monkeypatch.setattr(ir_datasets, "load", lambda dataset_id: Dataset())
    assert ds.topics_path("beir/webis-touche2020/v2") == target and target.read_text() == line
