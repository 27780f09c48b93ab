"""Touché's measures inside PyTerrier (touche/pyterrier/measures.py): ties, stance, ir_measures' spelling."""
from __future__ import annotations

import importlib
import warnings

import pandas as pd
import pytest

from tests.shared import DEMO

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")


# --------------------------------------------------------------------------- 5/6. measures
def _frame(rows, stance=None):
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])
    return frame if stance is None else frame.assign(stance=stance)


def _qrels():
    return pd.DataFrame({"qid": ["1"] * 6, "docno": list("abcdef"), "label": [0, 0, 0, 0, 2, 0]})


def test_a_cut_through_tied_scores_names_the_2021_measure(tpt):
    module = importlib.import_module("touche.pyterrier.scoring")
    module._warned.clear()
    # ranks 5 and 6 tie: f, then the relevant e by rank; e first by score (ties by docid, as in 2021)
    tied = _frame([("1", d, s, r) for r, (d, s) in enumerate(zip("abcdfe", [6, 5, 4, 3, 2, 2]))])
    untied = tied.assign(score=[6, 5, 4, 3, 2, 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        by_rank = pt.Experiment([pt.Transformer.from_df(tied)], pd.DataFrame({"qid": ["1"], "query": ["x"]}),
                                _qrels(), eval_metrics=[tpt.measure("touche.nDCG@5")])
    said = [str(w.message) for w in caught if "touche2021.nDCG@5" in str(w.message)]
    assert len(said) == 1 and "1 topic(s)" in said[0]
    assert by_rank["touche.nDCG@5"][0] == 0  # e (rank 6, tied with f) is cut by rank
    by_score = pt.Experiment([pt.Transformer.from_df(tied)], pd.DataFrame({"qid": ["1"], "query": ["x"]}),
                             _qrels(), eval_metrics=[tpt.measure("touche2021.nDCG@5")])
    assert by_score["touche2021.nDCG@5"][0] > 0  # the 2021 evaluator keeps e: by score, then docid
    module._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pt.Experiment([pt.Transformer.from_df(untied)], pd.DataFrame({"qid": ["1"], "query": ["x"]}), _qrels(),
                      eval_metrics=[tpt.measure("touche.nDCG@5")])
    assert not [w for w in caught if "touche2021" in str(w.message)]


def test_a_stance_measure_of_a_frame_without_stance_says_so(tpt):
    module = importlib.import_module("touche.pyterrier.scoring")
    qrels = tpt.qrels({"relevance": DEMO / "task2" / "qrels-passages-relevance.txt",
                       "stance": DEMO / "task2" / "qrels-passages-stance.txt"}).dropna(subset=["stance"])
    qid, first, second = qrels.qid.iloc[0], qrels.docno.iloc[0], qrels.docno.iloc[1]
    results = _frame([(qid, first, 2.0, 0), (qid, second, 1.0, 1)])
    for frame, says in ((results, True), (results.assign(stance="Q0"), True),
                        (results.assign(stance=["FIRST", "SECOND"]), False)):
        module._warned.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pt.Experiment([pt.Transformer.from_df(frame)], pd.DataFrame({"qid": [qid], "query": ["x"]}),
                          qrels[qrels.qid == qid], eval_metrics=[tpt.measure("stance.F1_macro")])
        assert any("says no stance" in str(w.message) for w in caught) is says


def test_measures_takes_ir_measures_spelling_as_touche_evaluate_does(tpt, topics, bm25_variant):
    (p5,) = tpt.measures("P@5")
    assert str(p5) == str(tpt.measure("P@5"))
    qrels = tpt.qrels(DEMO / "qrels-relevance.txt")
    result = pt.Experiment([bm25_variant], topics, qrels, eval_metrics=tpt.measures("P@5", "ndcg_cut_5"))
    assert {"P@5", "ndcg_cut_5"} <= set(result.columns)
