"""touche.pyterrier.Index: an index opened by path is a transformer, round-trips as a pt.Artifact
(a copied folder loads by pt.Artifact.load and gives the same results), loads text for a re-ranker,
makes a variant over itself, and an iterator of documents becomes one."""
from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.pyterrier.test_variant import _pairs
from tests.shared import BM25_VARIANT, DEMO

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")



def test_an_index_opened_by_path_is_a_bm25_transformer_over_its_fields(tpt, index):
    opened = tpt.Index(index.path)
    assert opened.documents == 320 and opened.fields == ("contents", "conclusion")
    topics = tpt.topics(DEMO / "topics.xml")
    results = opened.transform(topics)
    assert list(results.columns[-3:]) == ["docno", "score", "rank"] and results.groupby("qid").size().max() <= 1000
    pd.testing.assert_frame_equal(results, opened.bm25(0.9, 0.4).transform(topics))
    assert not results.equals(opened.bm25(1.2, 0.75).transform(topics))
    assert (results.groupby("qid")["rank"].apply(lambda r: r.tolist() == list(range(len(r))))).all()
    named = opened.transform(topics.head(2).assign(qid=["x1", "y2"]))  # any qid, as PyTerrier allows
    assert named.qid.unique().tolist() == ["x1", "y2"]
    assert named.docno.tolist() == results[results.qid.isin(topics.qid.head(2))].docno.tolist()


def test_the_folder_is_a_pt_artifact_that_gives_the_same_results_where_it_is_copied(tpt, index, tmp_path):
    topics = tpt.topics(DEMO / "topics.xml")
    before = index.transform(topics)
    copy = Path(shutil.copytree(index.path, tmp_path / "copied"))
    assert not (copy / "pt_meta.json").exists()  # known by its touche-index.json, nothing written into it
    loaded = pt.Artifact.load(str(copy))
    assert type(loaded) is tpt.Index and loaded.path == copy
    pd.testing.assert_frame_equal(loaded.transform(topics), before)
    assert pt.inspect.artifact_type_format(loaded) == ("sparse_index", "touche-lucene")


def test_text_loader_gives_the_explorers_text_and_a_variant_uses_this_index(tpt, index, index_root):
    topics = tpt.topics(DEMO / "topics.xml").head(1)
    with_text = (index.bm25() >> index.text_loader()).transform(topics)
    from touche import api
    from touche.indexing.corpora import document_texts, open_corpus
    expected = document_texts(open_corpus("argsme", DEMO / "args.me"), set(with_text.docno))
    assert dict(zip(with_text.docno, with_text.text)) == expected
    variant = index.variant(BM25_VARIANT)
    frame = variant.transform(topics)
    assert api.index(BM25_VARIANT, DEMO / "args.me", index_root=index_root).path == index.path
    assert len(frame) > 10


def test_documents_from_an_iterator_become_an_index_that_needs_no_corpus(tpt, tmp_path):
    documents = [{"docno": "d1", "text": "Nuclear energy is safe and clean."},
                 {"docno": "d2", "text": "Teachers should get tenure."},
                 {"docno": "d3", "text": "Nuclear waste stays for centuries; nuclear is unsafe."}]
    made = tpt.Index.indexer(tmp_path / "new").index(iter(documents))
    assert made.path == tmp_path / "new" and made.documents == 3
    # no corpus or work folder left; the index recorded as the toolkit's
    assert sorted(p.name for p in tmp_path.iterdir()) == [".touche-made", "new"]
    found = (made.bm25() >> made.text_loader()).transform(pd.DataFrame({"qid": ["1"], "query": ["nuclear"]}))
    assert set(found.docno) == {"d1", "d3"} and found.set_index("docno").text["d1"] == documents[0]["text"]
    from touche.errors import InputError
    with pytest.raises(InputError, match="exists"):
        tpt.Index.indexer(tmp_path / "new").index(iter(documents))
    with pytest.raises(InputError, match="document 2: expected a non-empty string 'docno'"):
        tpt.Index.indexer(tmp_path / "bad").index(iter([documents[0], {"text": "no id"}]))
    assert not (tmp_path / "bad").exists()
    with pytest.raises(InputError, match="needs the corpus"):
        made.variant("task2-stance/1-bm25")


def test_a_folder_that_is_no_index_is_named(tpt, tmp_path):
    from touche.errors import InputError
    assert not tpt.Index(tmp_path).built()  # an empty folder: an index to build
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="touche-index.json is missing"):
        tpt.Index(tmp_path)
    with pytest.raises(InputError, match="not in this index"):
        tpt.Indexer  # noqa: B018  (exported)
        tpt.Index.of(BM25_VARIANT, DEMO / "args.me", index_root=tmp_path / "i").bm25(field_weights={"title": 1.0})


# --------------------------------------------------------------------------- every first-stage knob a parameter
def _reranking(index):
    reranker = index.reranker()
    return index.bm25() % 8 >> reranker, reranker


@pytest.mark.parametrize("make, grid", [
    (lambda index: index.bm25(), {"k1": [0.4, 1.5], "b": [0.2, 0.9]}),
    (lambda index: index.dirichlet(), {"mu": [50.0, 2500.0]}),
    (_reranking, {"k1": [0.4, 1.5]}),
    (lambda index: index.bm25(), {"num_results": [3, 9]}),
])
def test_every_parameter_of_an_index_retriever_is_a_grid_scan_parameter(tpt, index, make, grid):
    """pt.GridScan over k1 once said the retriever 'does not expose a parameter named k1': only
    whole similarity objects could be varied."""
    from touche.config import BM25, LMDirichlet
    made = make(index)
    pipeline, tuned = made if isinstance(made, tuple) else (made, made)
    topics, qrels = tpt.topics(DEMO / "topics.xml"), tpt.qrels(DEMO / "qrels-relevance.txt")
    scanned = pt.GridScan(pipeline, {tuned: grid}, topics, qrels, metrics=[tpt.measure("touche.nDCG@5")],
                          verbose=False)
    keys = list(grid)
    assert len(scanned) == np.prod([len(v) for v in grid.values()])
    for _, row in scanned.iterrows():
        setting = {key: row[f"tran_{i}_{key}"] for i, key in enumerate(keys)}
        kind = type(tuned.similarity)
        chosen = {k: v for k, v in setting.items() if k != "num_results"}
        similarity = kind(**{**tuned.similarity.model_dump(), **chosen})
        direct = tpt.Index(index.path).retriever(similarity, num_results=int(setting.get("num_results", 1000)))
        if pipeline is not tuned:
            direct.candidates_only = True
            direct = index.bm25() % 8 >> direct
        expected = pt.Experiment([direct], topics, qrels, eval_metrics=[tpt.measure("touche.nDCG@5")])
        assert row["touche.nDCG@5"] == pytest.approx(expected["touche.nDCG@5"].iloc[0], abs=1e-12)
    assert len(set(scanned["touche.nDCG@5"])) > 1 and isinstance(tuned.similarity, (BM25, LMDirichlet))


def test_a_retriever_parameter_out_of_range_or_unknown_is_refused_at_once(tpt, index):
    from touche.errors import ConfigError
    bm25 = index.bm25()
    assert bm25.parameters() == ["k1", "b", "num_results"] and index.dirichlet().parameters() == ["mu", "num_results"]
    with pytest.raises(ConfigError, match=r"bm25 k1: must be at most 10"):
        bm25.set_parameter("k1", 11)
    with pytest.raises(ConfigError, match="num_results must be a whole number"):
        bm25.set_parameter("num_results", 0)
    with pytest.raises(ValueError, match=r"has no parameter 'mu' \(its parameters: k1, b, num_results\)"):
        bm25.set_parameter("mu", 10)
    assert (bm25.get_parameter("k1"), bm25.get_parameter("b")) == (0.9, 0.4)


def test_index_of_takes_overrides_as_a_variant_does(tpt, index_root):
    porter = tpt.Index.of(BM25_VARIANT, DEMO / "args.me", index_root=index_root,
                          overrides={"analyzer.stemmer": "porter"})
    krovetz = tpt.Index.of(BM25_VARIANT, DEMO / "args.me", index_root=index_root)
    assert porter.analyzer.stemmer == "porter" and krovetz.analyzer.stemmer == "krovetz"
    assert porter.path != krovetz.path and porter.documents == krovetz.documents
    from touche.errors import ConfigError
    with pytest.raises(ConfigError, match="stemmer"):
        tpt.Index.of(BM25_VARIANT, DEMO / "args.me", index_root=index_root, overrides={"analyzer.stemmer": "nope"})


def test_the_index_reranker_rescores_given_documents_and_refuses_queries_alone(tpt, index, topics):
    from touche.config import BM25
    from touche.errors import InputError
    candidates = (index.bm25() % 3).transform(topics)
    rescored = index.reranker(BM25(k1=1.2, b=0.75)).transform(candidates)
    full = index.bm25(1.2, 0.75).transform(topics)
    own = dict(zip(zip(full.qid, full.docno), full.score))
    assert _pairs(rescored) == _pairs(candidates)
    assert [own[p] for p in zip(rescored.qid, rescored.docno)] == pytest.approx(rescored.score.tolist())
    with pytest.raises(InputError, match="a re-ranker scores the documents it is given"):
        index.reranker().transform(topics)


# --------------------------------------------------------------------------- indexes, runs, the wheel
def test_an_index_not_built_yet_is_built_by_its_own_indexer(tpt, tmp_path):
    from touche.errors import InputError
    fresh = tpt.Index(tmp_path / "new")
    assert not fresh.built()
    with pytest.raises(InputError, match="not built yet"):
        fresh.documents  # noqa: B018
    documents = [{"docno": "d1", "text": "nuclear energy is clean"}, {"docno": "d2", "text": "wind energy is cheap"}]
    built = fresh.indexer().index(iter(documents))
    assert fresh.built() and built.num_docs() == fresh.num_docs() == 2
    assert tpt.Index.indexer is not None and type(tpt.Index.indexer(tmp_path / "other")).__name__ == "Indexer"
    results = built.bm25().transform(pd.DataFrame({"qid": ["1"], "query": ["wind"]}))
    assert results.docno.tolist() == ["d2"]


def test_a_packed_index_names_its_distribution_and_leaves_lucenes_lock_behind(tpt, index, tmp_path):
    assert tpt.Index.ARTIFACT_PACKAGE_HINT == "touche-toolkit"
    assert any(p.name == "write.lock" for p in index.path.rglob("*"))  # Lucene leaves it in the folder
    package = tmp_path / "index.tar.lz4"
    index.build_package(str(package))
    import lz4.frame
    with lz4.frame.open(package) as raw, tarfile.open(fileobj=raw, mode="r|") as tar:
        names = [member.name for member in tar]
    assert names and not [n for n in names if n.endswith("write.lock")]
    assert any(n.endswith("touche-index.json") for n in names)
