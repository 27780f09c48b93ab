"""A count (stance.N, the judged rows a run labels with a stance) is shown as the sum of its
per-topic counts, so its interval must be the sum's: the explorer once showed stance.N = 37 with
the per-topic mean's interval [8.5, 10.0]. One function (``significance.measure_interval``) gives
every table and page its interval; these tests hold it for the explorer's cells, the experiment
table and the bootstrap itself."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from touche.retrieval.evaluation.experiment import experiment
from touche.retrieval.evaluation.significance import bootstrap_interval, measure_interval
from touche.retrieval.experiments.explorer.build import check_qrels, load_runs
from touche.retrieval.experiments.explorer.data import explorer_data
from touche.retrieval.formats.gate import load_run

TASK2 = Path(__file__).resolve().parents[2] / "demo" / "task2"
STANCE_QRELS = TASK2 / "qrels-passages-stance.txt"
TOPICS = ("1", "2", "3", "4")


def _judged_per_topic() -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in STANCE_QRELS.read_text().splitlines():
        qid = line.split()[0]
        if qid in TOPICS:
            counts[qid] = counts.get(qid, 0) + 1
    return counts


def _exact_run(path: Path) -> Path:
    """Every judged passage of topics 1–4 ranked with its true stance: N counts them all."""
    ranks: dict[str, int] = {}
    lines = []
    for qid, _, docid, truth in (line.split() for line in STANCE_QRELS.read_text().splitlines()):
        if qid in TOPICS:
            ranks[qid] = ranks.get(qid, 0) + 1
            lines.append(f"{qid} {truth} {docid} {ranks[qid]} {100 - ranks[qid]} exact\n")
    path.write_text("".join(lines))
    return path


def _no_run(path: Path) -> Path:
    text = _exact_run(path).read_text()
    path.write_text("".join(f"{q} NO {rest}" for q, _, rest in (line.split(" ", 2) for line in text.splitlines(True))))
    return path


def test_the_explorer_shows_a_count_with_the_interval_of_its_total(tmp_path):
    counts = _judged_per_topic()
    assert len(set(counts.values())) > 1  # topics judged unequally: the interval is not a point
    runs = load_runs([_exact_run(tmp_path / "exact.txt"), _no_run(tmp_path / "no.txt")])
    qrels = {"stance": STANCE_QRELS}
    page = explorer_data(runs, qrels, check_qrels(qrels, runs.format, runs.runs), measures=["stance.N"], resamples=100)
    cell = page["cells"]["exact"]["stance:stance.N"]
    assert cell["mean"] == sum(counts.values()) and cell["topics"] == len(counts)
    low, high = cell["ci"]
    # the total of 4 topics drawn with replacement lies between 4 × the smallest and 4 × the largest count
    assert len(counts) * min(counts.values()) <= low < cell["mean"] < high <= len(counts) * max(counts.values())
    mean_low, mean_high = bootstrap_interval(list(counts.values()))
    assert (low, high) == (pytest.approx(len(counts) * mean_low, abs=1e-6),
                           pytest.approx(len(counts) * mean_high, abs=1e-6))


def test_the_experiment_table_gives_a_count_the_interval_of_its_total_and_a_mean_the_means(tmp_path):
    counts = _judged_per_topic()
    runs = {"exact": load_run(_exact_run(tmp_path / "exact.txt"))}
    table = experiment(runs, {"stance": STANCE_QRELS}, ["stance.N", "stance.F1_macro"], baseline=None,
                       bootstrap=500).set_index("measure")
    count = table.loc["stance:stance.N"]
    assert count["mean"] == sum(counts.values())
    assert count["ci_low"] < count["mean"] < count["ci_high"]
    assert count["ci_high"] > max(counts.values())  # not the per-topic mean's interval
    low, high = bootstrap_interval(list(counts.values()), resamples=500)
    assert (count["ci_low"], count["ci_high"]) == (pytest.approx(4 * low), pytest.approx(4 * high))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=2, max_size=12))
@example([7, 7, 7])  # equal counts: the interval without resampling
@example([0, 50])
def test_a_totals_interval_is_the_topic_count_times_the_means_interval(values):
    """Summing n resampled topics is n × their mean: the two percentile intervals differ by n,
    for any counts, equal ones (no resampling needed) included."""
    n = len(values)
    mean_low, mean_high = bootstrap_interval(values, resamples=300, seed=3)
    low, high = bootstrap_interval(values, resamples=300, seed=3, total=True)
    assert low == pytest.approx(n * mean_low, rel=1e-9, abs=1e-9)
    assert high == pytest.approx(n * mean_high, rel=1e-9, abs=1e-9)
    assert n * min(values) <= low <= high <= n * max(values)


def test_measure_interval_reads_the_measure_name_with_or_without_its_qrels():
    values = [3.0, 9.0, 4.0, 12.0]
    total = bootstrap_interval(values, total=True)
    mean = bootstrap_interval(values)
    assert measure_interval("stance:stance.N", values) == total == measure_interval("stance.N", values)
    assert measure_interval("relevance:touche.nDCG@5", values) == mean == measure_interval("stance.F1_macro", values)
    assert all(math.isnan(v) for v in measure_interval("stance.N", [5.0]))  # one topic: nothing to resample
    assert np.ptp(values) > 0
