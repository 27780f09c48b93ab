"""touche.pyterrier.Variant: candidates re-ranked, not searched again; stages as parameters by
position and name; fusion weights; a query that analyses to nothing named by its qid."""
from __future__ import annotations

import logging
import warnings

import pandas as pd
import pytest

from tests.shared import BM25_VARIANT, DEMO

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")
QUALITY_VARIANT = "task1/1-krovetz-smart-lmd2000-quality"


def _pairs(frame: pd.DataFrame) -> set[tuple[str, str]]:
    return set(zip(frame["qid"].astype(str), frame["docno"].astype(str)))


# --------------------------------------------------------------------------- re-ranking mode
@pytest.mark.parametrize("depth", [1, 3, 7])
def test_candidates_piped_into_a_variant_are_scored_not_searched_again(tpt, index, bm25_variant, topics, depth):
    """``bm25 % k >> variant`` once gave 120 rows a topic: the variant searched afresh."""
    first = index.bm25(1.2, 0.75) % depth  # another BM25 than the variant's (0.9, 0.4): another order
    candidates = first.transform(topics)
    reranked = (first >> bm25_variant).transform(topics)
    assert _pairs(reranked) == _pairs(candidates)  # every candidate, and only those
    full = bm25_variant.transform(topics)
    own = dict(zip(zip(full.qid, full.docno), full.score))
    for qid, docno, score in zip(reranked.qid, reranked.docno, reranked.score):
        assert score == pytest.approx(own[qid, docno], rel=1e-6)  # the variant's own score of each
    for _, group in reranked.groupby("qid"):
        assert group["rank"].tolist() == list(range(len(group)))
        assert group["score"].is_monotonic_decreasing


def test_a_candidate_the_index_lacks_is_said_and_left_out_and_one_it_does_not_match_kept_last_with_0(
        tpt, index, bm25_variant, topics):
    """A docno the index does not hold was kept, with a score of 0, and nothing said."""
    candidates = (index.bm25() % 2).transform(topics.head(1))
    unmatched = next(d for d in (index.bm25() % 200).transform(topics.tail(1)).docno if d not in set(candidates.docno)
                     and d not in set((index.bm25() % 1000).transform(topics.head(1)).docno))
    stranger = candidates.head(1).assign(docno="not-in-this-index", score=99.0)
    given = pd.concat([stranger, candidates, candidates.head(1).assign(docno=unmatched, score=98.0)], ignore_index=True)
    for transformer in (bm25_variant, index.reranker()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = transformer.transform(given)
        assert "not-in-this-index" not in set(results.docno) and len(results) == 3, transformer
        assert results.docno.tolist()[-1] == unmatched and results.score.tolist()[-1] == 0.0
        said = [str(w.message) for w in caught if "not in this index" in str(w.message)]
        assert said == [f"topic {topics.qid[0]}: 1 candidate document(s) are not in this index "
                        "('not-in-this-index'): left out of its results"], transformer


def test_a_variant_with_stages_keeps_to_the_candidates(tpt, index, index_root, topics):
    quality = tpt.Variant(QUALITY_VARIANT, corpus=DEMO / "args.me", index_root=index_root)
    first = index.bm25() % 4
    assert _pairs((first >> quality).transform(topics)) == _pairs(first.transform(topics))


def test_a_feature_union_scores_the_same_candidates_with_each(tpt, index, bm25_variant, topics):
    first = index.bm25(1.2, 0.75) % 5
    union = (first >> (bm25_variant ** index.reranker())).transform(topics)
    assert _pairs(union) == _pairs(first.transform(topics))
    assert union["features"].map(len).eq(2).all()
    alone = (first >> bm25_variant).transform(topics)
    by_pair = dict(zip(zip(alone.qid, alone.docno), alone.score))
    assert [f[0] for f in union["features"]] == pytest.approx([by_pair[p] for p in zip(union.qid, union.docno)])


# --------------------------------------------------------------------------- per-query robustness
@pytest.mark.parametrize("empty", ["?", "", "the of and"])
def test_a_query_without_a_word_gets_no_rows_and_the_batch_goes_on(tpt, index, bm25_variant, topics, empty, caplog):
    frame = pd.concat([topics.head(2), pd.DataFrame({"qid": ["99"], "query": [empty]})], ignore_index=True)
    for transformer in (bm25_variant, index.bm25()):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            results = transformer.transform(frame)
        assert set(results.qid) == set(topics.qid.head(2))
        assert results.groupby("qid").size().min() > 0
        assert "99" in caplog.text and ("has no word" in caplog.text or "analyses to nothing" in caplog.text)


def test_a_candidate_frame_whose_query_analyses_to_nothing_gives_nothing(tpt, index, bm25_variant, topics, caplog):
    candidates = (index.bm25() % 3).transform(topics.head(2))
    stopwords = candidates.assign(
        query=candidates["qid"].map({topics.qid[0]: "the of and"}).fillna(candidates["query"])
    )
    with caplog.at_level(logging.WARNING):
        results = bm25_variant.transform(stopwords)
    assert set(results.qid) == {topics.qid[1]} and f"topic {topics.qid[0]}" in caplog.text


# --------------------------------------------------------------------------- every stage a parameter
def test_a_stage_is_a_parameter_by_position_and_by_name(tpt, index_root, topics):
    quality = tpt.Variant(QUALITY_VARIANT, corpus=DEMO / "args.me", index_root=index_root)
    assert quality.get_parameter("rerank.0.weight") == quality.get_parameter("rerank.quality_model.weight") == 0.05
    before = quality.transform(topics)
    quality.set_parameter("rerank.quality_model.weight", 0.9)
    assert quality.get_parameter("rerank.0.weight") == 0.9
    assert not quality.transform(topics)[["docno", "score"]].equals(before[["docno", "score"]])
    quality.set_parameter("rerank.0.weight", 0.05)
    pd.testing.assert_frame_equal(quality.transform(topics), before)


@pytest.mark.parametrize("key, message", [
    ("rerank.3.weight", r"rerank holds 1 entry \(positions 0-0; names: quality_model\), and '3' is neither"),
    ("rerank.rrf.k", r"'rrf' is neither a position nor a name there"),
    ("rerank.0.wieght", r"unknown key 'rerank.0.wieght'"),
])
def test_a_stage_parameter_that_is_not_there_is_named(tpt, index_root, key, message):
    from touche.errors import ConfigError
    quality = tpt.Variant(QUALITY_VARIANT, corpus=DEMO / "args.me", index_root=index_root)
    with pytest.raises(ConfigError, match=message):
        quality.set_parameter(key, 0.5)


def test_a_variant_without_stages_says_it_has_none_to_set():
    from touche.config import load_variant
    from touche.errors import ConfigError
    with pytest.raises(ConfigError, match="rerank is not set in this variant, so it has no entry 0"):
        load_variant(BM25_VARIANT, {"rerank.0.weight": 0.2})


def test_grid_scan_tunes_a_stage_weight(tpt, index_root, topics):
    quality = tpt.Variant(QUALITY_VARIANT, corpus=DEMO / "args.me", index_root=index_root)
    scanned = pt.GridScan(quality, {quality: {"rerank.0.weight": [0.0, 0.05, 1.0]}}, topics,
                          tpt.qrels(DEMO / "qrels-relevance.txt"), metrics=[tpt.measure("touche.nDCG@5")],
                          verbose=False)
    values = dict(zip(scanned["tran_0_rerank.0.weight"], scanned["touche.nDCG@5"]))
    from touche import api
    from touche.config import load_variant
    for weight, value in values.items():  # each point is the variant so set, run as touche run runs it
        run = api.search(load_variant(QUALITY_VARIANT, {"rerank.0.weight": weight}), DEMO / "topics.xml",
                         DEMO / "args.me", index_root=index_root)
        assert value == pytest.approx(api.evaluate(run, DEMO / "qrels-relevance.txt", "touche.nDCG@5")
                                      ["touche.nDCG@5"], abs=1e-12)
    assert len(values) == 3 and len(set(values.values())) > 1  # the weight changes the ranking


def test_fusion_weights_weigh_each_ranking():
    from touche.retrieval.stages.fusion import reciprocal_rank_fusion
    a = {"1": [("x", 9.0), ("y", 8.0)]}
    b = {"1": [("y", 5.0), ("z", 4.0)]}
    fused = dict(reciprocal_rank_fusion([a, b], k=1, weights=[3.0, 1.0])["1"])
    assert fused == pytest.approx({"x": 3 / 2, "y": 3 / 3 + 1 / 2, "z": 1 / 3})
    assert reciprocal_rank_fusion([a, b], k=1)["1"] == reciprocal_rank_fusion([a, b], k=1, weights=[1, 1])["1"]


def test_fusion_weights_are_one_per_ranking():
    from touche.config import load_variant
    from touche.errors import ConfigError
    fused = "task1/3-porter-krovetz-fusion"
    assert load_variant(fused, {"rerank.rrf.weights": "[1.0, 0.5]"}).variant.rerank[0].weights == (1.0, 0.5)
    with pytest.raises(ConfigError, match=r"weights: 3 given for 2 fused ranking\(s\)"):
        load_variant(fused, {"rerank.rrf.weights": "[1, 1, 1]"})


@pytest.mark.parametrize("door", ["variant", "retriever", "variant re-ranking", "retriever re-ranking"])
def test_a_query_that_analyses_to_nothing_is_named_by_its_qid_in_logging_and_warnings(tpt, index, bm25_variant,
                                                                                     topics, caplog, door):
    """The note said 'topic 5: the query 'a AND b OR NOT c' analyses to nothing' of the frame's q9
    (its position), and only through logging: warnings.catch_warnings saw nothing."""
    from touche.notes import TopicNote
    frame = pd.DataFrame({"qid": ["q1", "q9"], "query": [topics["query"].iloc[0], "a AND b OR NOT c"]})
    transformer = bm25_variant if door.startswith("variant") else index.bm25()
    if door.endswith("re-ranking"):
        frame = (index.bm25() % 3).transform(frame.head(1)).pipe(
            lambda first: pd.concat([first, first.assign(qid="q9", query="a AND b OR NOT c")], ignore_index=True))
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        results = transformer.transform(frame)
    assert set(results.qid) == {"q1"}
    notes = [str(w.message) for w in caught if issubclass(w.category, TopicNote)]
    assert notes == ["topic q9: the query 'a AND b OR NOT c' analyses to nothing (stopwords and punctuation only): "
                     "no results for it"]
    assert "topic q9: the query 'a AND b OR NOT c' analyses to nothing" in caplog.text and "topic 2:" not in caplog.text


def test_a_query_without_a_word_is_a_warning_too(tpt, index, topics):
    from touche.notes import TopicNote
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index.bm25().transform(pd.DataFrame({"qid": ["x7", "x8"], "query": ["?", topics["query"].iloc[0]]}))
    assert [str(w.message) for w in caught if issubclass(w.category, TopicNote)] == \
        ["topic x7: the query '?' has no word: no results for it"]
