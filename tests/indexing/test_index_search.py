"""Index statistics and exact BM25 / LM-Dirichlet scores on a five-argument fixture.

The expected values are computed here from the analyzed tokens with the textbook formulas (as
Lucene 9 defines them), not read back from Lucene.
"""
from __future__ import annotations

import math
from collections import Counter

import pytest

from touche.config import BM25, LMDirichlet, VariantSpec

FIELDS = ["contents", "conclusion", "premises"]


@pytest.fixture(scope="module")
def built(jvm_started, fixture_corpus, index_root):
    from touche.indexing.builder import ensure_index
    variant = VariantSpec(tag="t", index={"fields": FIELDS})
    return variant, ensure_index(variant, fixture_corpus, index_root, progress=False)


def analyzed_contents(variant):
    from touche.indexing.argsme import read_arguments
    from touche.indexing.corpora import argument_fields
    from touche.stemming.analyzers import tokens
    return lambda path: {a.id: tokens(variant.analyzer, argument_fields(a)["contents"]) for a in read_arguments([path])}


@pytest.fixture(scope="module")
def docs(built, fixture_corpus):
    variant, _ = built
    return analyzed_contents(variant)(fixture_corpus / "args-fixture.json")


def test_index_statistics(built, docs):
    _, info = built
    stats = info.meta["stats"]
    assert stats["documents"] == 5
    contents = stats["fields"]["contents"]
    assert contents["total_terms"] == sum(len(t) for t in docs.values()) == 55
    assert contents["unique_terms"] == len({t for ts in docs.values() for t in ts})
    assert stats["fields"]["conclusion"]["documents"] == 5
    # the config that built it is recorded beside it
    assert info.meta["analyzer"]["stemmer"] == "none" and info.meta["index"]["fields"] == FIELDS
    assert (info.path / "touche-index.json").is_file()


def test_index_is_reused_not_rebuilt(built, fixture_corpus, index_root):
    from touche.indexing.builder import ensure_index
    variant, info = built
    again = ensure_index(variant.model_copy(update={"retrieval": variant.retrieval}), fixture_corpus, index_root,
                         progress=False)
    assert again.path == info.path and again.meta["build"]["created"] == info.meta["build"]["created"]
    krovetz = VariantSpec(tag="k", index={"fields": FIELDS}, analyzer={"stemmer": "krovetz"})
    other = ensure_index(krovetz, fixture_corpus, index_root, progress=False)
    assert other.path != info.path


def test_pyserini_reads_our_index(built):
    from pyserini.index.lucene import LuceneIndexReader
    _, info = built
    stats = LuceneIndexReader(str(info.path)).stats()
    assert stats["documents"] == 5 and stats["total_terms"] == 55


def bm25_by_hand(query_terms, doc_id, docs, k1, b):
    n_docs = len(docs)
    avgdl = sum(len(t) for t in docs.values()) / n_docs
    tf = Counter(docs[doc_id])
    dl = len(docs[doc_id])
    score = 0.0
    for term, count in Counter(query_terms).items():
        n = sum(1 for ts in docs.values() if term in ts)
        if tf[term] == 0:
            continue
        idf = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
        score += count * idf * tf[term] / (tf[term] + k1 * (1 - b + b * dl / avgdl))
    return score


def lmd_by_hand(query_terms, doc_id, docs, mu):
    total = sum(len(t) for t in docs.values())
    tf = Counter(docs[doc_id])
    dl = len(docs[doc_id])
    score = 0.0
    for term, count in Counter(query_terms).items():
        if tf[term] == 0:
            continue
        p = (sum(ts.count(term) for ts in docs.values()) + 1) / (total + 1)
        score += count * max(0.0, math.log(1 + tf[term] / (mu * p)) + math.log(mu / (dl + mu)))
    return score


@pytest.mark.parametrize("similarity", [BM25(k1=0.9, b=0.4), BM25(k1=1.2, b=0.75), LMDirichlet(mu=10)])
def test_exact_scores(built, docs, similarity):
    from touche.retrieval.search import Searcher
    from touche.stemming.analyzers import tokens
    variant, info = built
    query = "school uniforms for schools"
    terms = tokens(variant.analyzer, query)
    with Searcher(info.path, variant.analyzer) as searcher:
        searcher.set_similarity(similarity)
        ranking = searcher.search({"1": query}, {"contents": 1.0}, k=10)["1"]
    assert ranking, "the query matches documents"
    for doc_id, score in ranking:
        if isinstance(similarity, BM25):
            expected = bm25_by_hand(terms, doc_id, docs, similarity.k1, similarity.b)
        else:
            expected = lmd_by_hand(terms, doc_id, docs, similarity.mu)
        assert score == pytest.approx(expected, rel=1e-5), doc_id
    assert [d for d, _ in ranking][0] == "Sa0000001-A00000001"
    scores = [s for _, s in ranking]
    assert scores == sorted(scores, reverse=True)


def test_field_weights_add_boosted_field_scores(built):
    from touche.retrieval.search import Searcher
    variant, info = built
    with Searcher(info.path, variant.analyzer) as searcher:
        contents = dict(searcher.search({"1": "nuclear energy"}, {"contents": 1.0})["1"])
        conclusion = dict(searcher.search({"1": "nuclear energy"}, {"conclusion": 1.0})["1"])
        both = dict(searcher.search({"1": "nuclear energy"}, {"contents": 1.0, "conclusion": 2.0})["1"])
        assert set(both) == set(contents) | set(conclusion)
        for doc_id, score in both.items():
            assert score == pytest.approx(contents.get(doc_id, 0) + 2 * conclusion.get(doc_id, 0), rel=1e-5)
        explanation = searcher.explain("nuclear energy", {"contents": 1.0}, "Sa0000002-A00000001")
        assert "BM25Similarity" in explanation and "contents:nuclear" in explanation


def test_raw_record_is_stored(built):
    from touche.indexing.records import Argument
    from touche.retrieval.search import Searcher
    variant, info = built
    with Searcher(info.path, variant.analyzer) as searcher:
        raw = searcher.raw(["Sa0000002-A00000002", "no-such-id"])
    assert raw["no-such-id"] is None
    argument = Argument.from_json(raw["Sa0000002-A00000002"])
    assert argument.conclusion == "Nuclear energy is too risky" and argument.premises[0].stance == "CON"


def test_sharded_search_equals_single_index(jvm_started, tmp_path, built, docs):
    """Two shards searched as one give the single index's scores (same collection statistics)."""
    from tests.shared import FIXTURE_ARGUMENTS, write_argsme
    from touche.indexing.builder import ensure_index
    from touche.retrieval.search import Searcher
    variant, info = built
    write_argsme(tmp_path / "s1" / "a.json", FIXTURE_ARGUMENTS[:2])
    write_argsme(tmp_path / "s2" / "a.json", FIXTURE_ARGUMENTS[2:])
    shards = [ensure_index(variant, tmp_path / s, tmp_path / "idx", progress=False).path for s in ("s1", "s2")]
    with Searcher(shards, variant.analyzer) as sharded, Searcher(info.path, variant.analyzer) as single:
        query = {"1": "students school uniforms nuclear"}
        assert sharded.search(query, {"contents": 1.0}) == single.search(query, {"contents": 1.0})
