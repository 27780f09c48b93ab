"""Stance in pt.Experiment: the stance a variant labels survives every PyTerrier path (a saved
run reused, pyterrier-caching, pt.apply, .compile(), batches, the tree plan) with the same
stance F1; a pooled measure's mean is the F1 of all rows, its per-topic values each topic's own,
and a test against a baseline the toolkit's pooled swap test, not a t-test of a constant; the
measures in pt.GridSearch; each run gated once for all the toolkit's measures."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from tests.shared import REPO, require_shared

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")

DEMO = REPO / "demo"
CORPUS, TOPICS = DEMO / "task2" / "passages.jsonl", DEMO / "task2" / "topics-passages.xml"
STANCE_VARIANT = "task2-stance/3-rerank"


@pytest.fixture(scope="module")
def stance_variant(tpt, index_root):
    return tpt.Variant(STANCE_VARIANT, corpus=CORPUS, index_root=index_root, progress=False)


@pytest.fixture(scope="module")
def demo_qrels(tpt):
    return tpt.qrels({"relevance": DEMO / "task2" / "qrels-passages-relevance.txt",
                      "stance": DEMO / "task2" / "qrels-passages-stance.txt"})


def _f1(tpt, system, qrels, **options) -> float:
    result = pt.Experiment([system], tpt.topics(TOPICS), qrels, eval_metrics=tpt.measures("stance.F1_macro"), **options)
    return float(result["stance.F1_macro"].iloc[0])


# --------------------------------------------------------------------------- every path keeps the stance
def test_a_saved_run_reused_keeps_its_stance(tpt, stance_variant, demo_qrels, tmp_path):
    """save_mode="reuse" once read the saved run without stance: F1 0.503, then 0.000."""
    first = _f1(tpt, stance_variant, demo_qrels, save_dir=str(tmp_path), names=["v"], save_mode="reuse")
    saved = next(tmp_path.glob("v.res*"))
    assert {line.split()[1] for line in pd.read_csv(saved, header=None)[0]} <= {"FIRST", "SECOND", "NEUTRAL", "NO"}
    again = _f1(tpt, stance_variant, demo_qrels, save_dir=str(tmp_path), names=["v"], save_mode="reuse")
    assert first > 0 and again == first


def test_pyterriers_results_files_keep_the_stance_and_nothing_else_changes(tpt, tmp_path):
    frame = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [2.0, 1.0, 3.0],
                          "rank": [0, 1, 0], "stance": ["FIRST", None, "NO"]})
    pt.io.write_results(frame, tmp_path / "s.res", run_name="r")
    assert (tmp_path / "s.res").read_text().splitlines() == ["1 FIRST a 0 2.0 r", "1 Q0 b 1 1.0 r", "2 NO c 0 3.0 r"]
    back = pt.io.read_results(str(tmp_path / "s.res"))
    assert back.stance.tolist() == ["FIRST", "Q0", "NO"] and back.docno.tolist() == ["a", "b", "c"]
    pt.io.write_results(frame.drop(columns="stance"), tmp_path / "plain.res", run_name="r")
    assert (tmp_path / "plain.res").read_text().splitlines()[0] == "1 Q0 a 0 2.0 r"
    assert list(pt.io.read_results(str(tmp_path / "plain.res")).columns) == ["qid", "docno", "rank", "score", "name"]
    (tmp_path / "zero.res").write_text("1 0 a 1 2.0 r\n")  # another column 2 than Touché's labels: dropped, as before
    assert "stance" not in pt.io.read_results(str(tmp_path / "zero.res")).columns


def test_a_one_column_scorer_cache_of_a_stance_variant_is_refused_and_cached_keeps_both(tpt, stance_variant,
                                                                                       index_root, tmp_path):
    pyterrier_caching = pytest.importorskip("pyterrier_caching")
    from touche.errors import ToucheError
    index = tpt.Index.of(STANCE_VARIANT, CORPUS, index_root=index_root)
    topics = tpt.topics(TOPICS)
    with pytest.raises(ToucheError, match=r"keeps one column .* touche.pyterrier.cached\(transformer, path\)"):
        (index.bm25() % 5 >> pyterrier_caching.ScorerCache(str(tmp_path / "one"), stance_variant)).transform(topics)
    calls = []
    # inspection's probes (empty frames) are not calls
    counting = pt.apply.generic(lambda frame: (calls.append(len(frame)) if len(frame) else None) or frame)
    pipeline = index.bm25() % 5 >> tpt.cached(counting >> stance_variant, tmp_path / "both")
    direct = (index.bm25() % 5 >> stance_variant).transform(topics)
    first, second = pipeline.transform(topics), pipeline.transform(topics)
    assert len(calls) == 1 and calls[0] == len(direct)  # scored once, then read from the cache
    columns = ["qid", "docno", "score", "stance"]
    expected = direct[columns].sort_values(["qid", "docno"]).reset_index(drop=True)
    for got in (first, second):
        assert got[columns].sort_values(["qid", "docno"]).reset_index(drop=True).equals(expected)
        assert got.groupby("qid")["rank"].apply(lambda r: sorted(r) == list(range(len(r)))).all()


def test_the_stance_f1_is_the_same_through_every_path(tpt, stance_variant, demo_qrels, index_root, tmp_path):
    plain = _f1(tpt, stance_variant, demo_qrels)
    index = tpt.Index.of(STANCE_VARIANT, CORPUS, index_root=index_root)
    rescored = pt.apply.doc_score(lambda row: row["score"] * 2)
    paths = {
        "apply between stages": stance_variant.first_stage >> rescored >> stance_variant.stages,
        "apply after": stance_variant >> rescored,
        "apply by query": stance_variant >> pt.apply.by_query(lambda frame: frame),
        "compiled": (stance_variant >> rescored).compile(),
        "cached": index.bm25() % 1000 >> tpt.cached(stance_variant, tmp_path / "cache"),
    }
    for name, system in paths.items():
        assert _f1(tpt, system, demo_qrels) == pytest.approx(plain, abs=1e-12), name
    assert _f1(tpt, stance_variant, demo_qrels, batch_size=1) == pytest.approx(plain, abs=1e-12)
    assert _f1(tpt, stance_variant, demo_qrels, plan="tree") == pytest.approx(plain, abs=1e-12)
    assert plain > 0


# --------------------------------------------------------------------------- pooled measures in an experiment
def _official(names):
    shared = require_shared()
    import touche.pyterrier as tpt
    frames = [tpt.read_run(shared / "runs" / "task2-2022" / name) for name in names]
    qrels = {n: shared / "qrels" / f"task2-2022-{n}.qrels" for n in ("relevance", "stance")}
    return shared, frames, qrels, tpt.qrels(qrels), tpt.topics(shared / "topics" / "task2-2022.xml")


def test_a_baseline_test_of_a_pooled_measure_is_the_toolkits_pooled_test():
    """baseline=0 with stance.F1_macro gave p = 0.0 for every run (a t-test of the same value on
    every topic) and 50 losses to 0 wins."""
    import touche.pyterrier as tpt
    from touche import api
    names = ["Olivier-Armstrong-run1.txt", "Grimjack-run4.txt", "Katana-run3.txt"]
    shared, frames, qrels_files, qrels, topics = _official(names)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = pt.Experiment(frames, topics, qrels, names=names, baseline=0, correction="holm",
                             eval_metrics=tpt.measures("stance.F1_macro", "stance.N", "touche.nDCG@5"))
    ours = ours.set_index("name")
    said = [str(w.message) for w in caught]
    assert any("stance.F1_macro is one value over all judged rows" in s and "randomization" in s for s in said)
    assert any("stance.N: a count" in s for s in said)
    expected = api.experiment({n: shared / "runs" / "task2-2022" / n for n in names}, qrels_files,
                              ["stance.F1_macro"], correction="holm").set_index("run")
    for name in names[1:]:
        assert ours.loc[name, "stance.F1_macro p-value"] == pytest.approx(expected.loc[name, "p"], abs=1e-12)
        assert ours.loc[name, "stance.F1_macro p-value corrected"] == pytest.approx(expected.loc[name, "p_corrected"],
                                                                                   abs=1e-12)
        assert (ours.loc[name, "stance.F1_macro +"], ours.loc[name, "stance.F1_macro -"]) == \
            (expected.loc[name, "wins"], expected.loc[name, "losses"])
        assert ours.loc[name, "stance.F1_macro"] == pytest.approx(expected.loc[name, "mean"], abs=1e-12)
        assert math.isnan(ours.loc[name, "stance.N p-value"]) and math.isnan(ours.loc[name, "stance.N +"])
        assert 0 < ours.loc[name, "stance.F1_macro p-value"] < 1
        assert ours.loc[name, "touche.nDCG@5 p-value"] < 1  # PyTerrier's own t-test of the other measures
    assert ours.loc["Katana-run3.txt", "stance.F1_macro +"] + ours.loc["Katana-run3.txt", "stance.F1_macro -"] <= 50


def test_per_topic_values_of_a_pooled_measure_are_each_topics_own_and_the_mean_is_the_pooled_value():
    import touche.pyterrier as tpt
    from touche.retrieval.evaluation.measures import pooled_parts
    from touche.retrieval.formats.gate import load_run
    names = ["Grimjack-run4.txt"]
    shared, frames, qrels_files, qrels, topics = _official(names)
    mean, per_query = pt.Experiment(frames, topics, qrels, names=names, perquery="both",
                                    eval_metrics=tpt.measures("stance.F1_macro", "stance.N"))
    run = shared / "runs" / "task2-2022" / names[0]
    parts = pooled_parts(load_run(run), qrels_files, "stance:stance.F1_macro")
    own = parts.per_topic()
    f1 = per_query[per_query.measure == "stance.F1_macro"].set_index("qid")["value"]
    assert {q: v for q, v in f1.items() if not math.isnan(v)} == pytest.approx(own, abs=1e-12)
    assert len(set(np.round(list(own.values()), 9))) > 5  # not one pooled value on every topic
    counts = per_query[per_query.measure == "stance.N"].set_index("qid")["value"]
    assert counts.sum() == mean["stance.N"].iloc[0] == 1208
    assert f"{mean['stance.F1_macro'].iloc[0]:.3f}" == "0.313"  # the leaderboard's, not the mean of topics
    assert abs(np.nanmean(f1.to_numpy()) - 0.313) > 0.01


def test_a_pooled_measure_aggregates_its_parts_in_ir_measures_too():
    import ir_measures

    import touche.pyterrier as tpt
    names = ["Grimjack-run4.txt"]
    _, frames, _, qrels, _ = _official(names)
    run = frames[0].rename(columns={"qid": "query_id", "docno": "doc_id"})
    judged = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    found = ir_measures.calc_aggregate([tpt.measure("stance.F1_macro"), tpt.measure("stance.N")], judged, run)
    assert f"{found[tpt.measure('stance.F1_macro')]:.3f}" == "0.313" and found[tpt.measure("stance.N")] == 1208


# --------------------------------------------------------------------------- speed and GridSearch
def test_each_run_is_gated_once_for_all_the_toolkits_measures(monkeypatch):
    import touche.pyterrier as tpt
    from touche.pyterrier import scoring
    names = ["Grimjack-run4.txt", "Katana-run3.txt"]
    _, frames, _, qrels, topics = _official(names)
    gated = []
    original = scoring.load_run
    monkeypatch.setattr(scoring, "load_run", lambda frame, **kw: gated.append(len(frame)) or original(frame, **kw))
    qrels_read = []
    original_qrels = scoring.load_qrels
    monkeypatch.setattr(scoring, "load_qrels", lambda frame: qrels_read.append(1) or original_qrels(frame))
    scoring._gated.qrels.clear()
    pt.Experiment(frames, topics, qrels, names=names,
                  eval_metrics=tpt.measures("touche.nDCG@5", "touche2021.nDCG@5", "stance.F1_macro", "stance.N"))
    assert gated == [len(f) for f in frames]  # once per run, not once per run and measure
    assert len(qrels_read) == 2  # relevance and stance, once for the whole experiment


def test_grid_search_finds_the_best_setting_by_a_touche_measure(tpt, index_root):
    variant = tpt.Variant("task1/examples/2-krovetz-bm25", corpus=DEMO / "args.me", index_root=index_root)
    topics, qrels = tpt.topics(DEMO / "topics.xml"), tpt.qrels(DEMO / "qrels-relevance.txt")
    grid = {"retrieval.similarity.k1": [0.3, 1.2, 3.0]}
    scanned = pt.GridScan(variant, {variant: grid}, topics, qrels, metrics=[tpt.measure("touche.nDCG@5")],
                          verbose=False)
    best = scanned.loc[scanned["touche.nDCG@5"].idxmax(), "tran_0_retrieval.similarity.k1"]
    value, setting = pt.GridSearch(variant, {variant: grid}, topics, qrels, metric=tpt.measure("touche.nDCG@5"),
                                   verbose=False, return_type="best_setting")
    assert [(param, v) for _, param, v in setting] == [("retrieval.similarity.k1", best)]
    assert value == scanned["touche.nDCG@5"].max() and len(set(scanned["touche.nDCG@5"])) > 1
    assert tpt.measure("touche.nDCG@5") == "touche.nDCG@5" and {"touche.nDCG@5": 1}[tpt.measure("touche.nDCG@5")] == 1
