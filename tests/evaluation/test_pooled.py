"""Pooled measures (stance macro-F1) resampled from per-topic confusion counts: the same F1 as the
scorer, the interval and the swap test against brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from touche.retrieval.evaluation import pooled
from touche.retrieval.evaluation.scorers import stance_f1
from touche.retrieval.formats.qrels import STANCE_LABELS
from touche.retrieval.formats.runfile import RunRow


def _runs(seed: int, topics: int = 6, per_topic: int = 7):
    """Stance qrels and two runs labelling the judged passages (plus unjudged and Q0 rows)."""
    rng = np.random.default_rng(seed)
    qrels, a, b = {}, [], []
    for t in range(1, topics + 1):
        qid = str(t)
        qrels[qid] = {f"p{t}-{i}": STANCE_LABELS[rng.integers(4)] for i in range(per_topic)}
        for run, skill in ((a, 0.7), (b, 0.4)):
            for i, (docid, truth) in enumerate(qrels[qid].items()):
                label = truth if rng.random() < skill else STANCE_LABELS[rng.integers(4)]
                run.append(RunRow(qid, label if i % 5 else "Q0", docid, i + 1, 100.0 - i, "t"))
            run.append(RunRow(qid, "FIRST", f"unjudged-{t}", per_topic + 1, 1.0, "t"))
    return qrels, a, b


def test_pooled_f1_and_its_per_topic_values_are_the_scorers():
    qrels, a, _ = _runs(1)
    parts = pooled.confusion(a, qrels)
    assert parts.total() == pytest.approx(stance_f1(a, qrels).f1_macro, abs=1e-12)
    for qid, value in parts.per_topic().items():
        assert value == pytest.approx(stance_f1([r for r in a if r.qid == qid], qrels).f1_macro, abs=1e-12)
    # accuracy by hand on one topic
    rows = [r for r in a if r.qid == "1" and r.column2 != "Q0" and r.docid in qrels["1"]]
    right = sum(r.column2 == qrels["1"][r.docid] for r in rows)
    assert pooled.accuracy(parts.parts[0]) == pytest.approx(right / len(rows))


def test_swap_test_is_the_exact_enumeration_of_swaps():
    qrels, a, b = _runs(2, topics=6)
    pa, pb = pooled.confusion(a, qrels), pooled.confusion(b, qrels)
    delta, p = pooled.paired_test(pa, pb)
    observed = stance_f1(a, qrels).f1_macro - stance_f1(b, qrels).f1_macro
    assert delta == pytest.approx(observed, abs=1e-12)
    by_topic = {q: ([r for r in a if r.qid == q], [r for r in b if r.qid == q]) for q in qrels}
    nulls = []
    for swaps in itertools.product((False, True), repeat=len(by_topic)):
        x = [r for (q, (ra, rb)), s in zip(by_topic.items(), swaps) for r in (rb if s else ra)]
        y = [r for (q, (ra, rb)), s in zip(by_topic.items(), swaps) for r in (ra if s else rb)]
        nulls.append(stance_f1(x, qrels).f1_macro - stance_f1(y, qrels).f1_macro)
    nulls = np.array(nulls)
    less, greater = (nulls <= observed + 1e-12).mean(), (nulls >= observed - 1e-12).mean()
    assert p == pytest.approx(min(1.0, 2 * min(less, greater)))


def test_interval_resamples_topics_and_identical_runs_have_p_one():
    qrels, a, _ = _runs(3, topics=12)
    parts = pooled.confusion(a, qrels)
    low, high = pooled.interval(parts)
    assert low < parts.total() < high
    # the same draws by hand: recompute the F1 of each resample from its rows
    rng = np.random.default_rng(20220401)
    drawn = rng.integers(0, 12, (2000, 12))
    values = [pooled.macro_f1(parts.parts[d].sum(axis=0)) for d in drawn[:50]]
    by_rows = [stance_f1([r for i in d for r in a if r.qid == parts.topics[i]], qrels).f1_macro for d in drawn[:50]]
    assert np.allclose(values, by_rows)
    assert pooled.paired_test(parts, parts)[1] == 1.0
