"""Several runs against a baseline (retrieval/evaluation/experiment.py, ``api.experiment``): names, tests, stance F1."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.experiments.test_explorer import _q0_run, runs_of
from tests.explorer_pages import QRELS
from tests.shared import DEMO
from touche import api

T2 = DEMO / "task2"


def test_runs_keyed_by_numbers_are_named_by_them(tmp_path):
    from touche import api
    a, b = _q0_run(tmp_path / "a.txt"), _q0_run(tmp_path / "b.txt")
    table = api.experiment({1: a, 2: b}, QRELS["relevance"], ["touche.nDCG@5"], baseline=1)
    assert set(table["baseline"]) == {"1"}
    assert math.isnan(table.set_index("run").loc["1", "delta"])


def test_an_experiment_tests_stance_f1_by_swapping_predictions_and_says_how():
    from touche.retrieval.evaluation.experiment import experiment
    qrels = {"stance": T2 / "qrels-passages-stance.txt"}
    judged = [line.split() for line in qrels["stance"].read_text().splitlines() if line.strip()]
    from touche.retrieval.formats.runfile import RunRow
    right = [RunRow(q, label, d, i + 1, 100.0 - i, "t") for i, (q, _, d, label) in enumerate(judged)]
    wrong = [RunRow(q, "NO" if label != "NO" else "FIRST", d, i + 1, 100.0 - i, "t")
             for i, (q, _, d, label) in enumerate(judged)]
    table = experiment({"right": right, "wrong": wrong}, qrels, ["stance.F1_macro", "stance.N"], baseline="right")
    assert any("stance.F1_macro: one value over all judged rows" in note and "swapping" in note
               for note in table.attrs["notes"])
    f1 = table[table["measure"] == "stance:stance.F1_macro"].set_index("run")
    assert f1.loc["right", "mean"] == 1.0 and f1.loc["wrong", "delta"] == pytest.approx(f1.loc["wrong", "mean"] - 1.0)
    topics = len({q for q, *_ in judged})
    # wrong on every topic: only "no swap" and "swap all" reach the difference, of 2^topics (exact)
    assert f1.loc["wrong", "p"] == pytest.approx(2 / 2 ** topics)
    assert f1.loc["wrong", "losses"] == topics and f1.loc["wrong", "wins"] == 0
    counts = table[table["measure"] == "stance:stance.N"].set_index("run")
    assert pd.isna(counts.loc["wrong", "p"])  # a count is not tested either


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_the_apis_experiment_offers_the_t_and_wilcoxon_tests(demo_out, test):
    runs = runs_of(demo_out)[:3]
    table = api.experiment(runs, QRELS["relevance"], "touche.nDCG@5", test=test, correction="none")
    from touche.retrieval.evaluation.measures import evaluate_rows_per_topic
    from touche.retrieval.formats.gate import read_run
    values = [evaluate_rows_per_topic(read_run(r), QRELS["relevance"],
                                      ["touche.nDCG@5"])["touche.nDCG@5"] for r in runs]
    for name, other in zip(table["run"].iloc[1:], values[1:]):
        common = sorted(set(values[0]) & set(other))
        x, y = [other[t] for t in common], [values[0][t] for t in common]
        expected = stats.ttest_rel(x, y).pvalue if test == "t" else stats.wilcoxon(np.subtract(x, y)).pvalue
        p = table.set_index("run").loc[name, "p"]
        assert (math.isnan(p) and math.isnan(expected)) or p == pytest.approx(expected, rel=1e-9)
