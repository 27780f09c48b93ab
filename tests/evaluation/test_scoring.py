"""What the one scorer path (retrieval/evaluation/measures.py ``_scoring_plan``, through
retrieval/evaluation/scoring.py) says wherever a run is scored: a top k holding tied scores is
warned of (Touché's evaluator cuts by rank, trec_eval orders by score), and qrels given under a name
that promises another kind of judgement (``stance=`` graded labels) are refused."""
from __future__ import annotations

import logging
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import cli, demo_run
from touche.errors import ToucheError

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo"
RELEVANCE = DEMO / "qrels-relevance.txt"
STANCE = DEMO / "task2" / "qrels-passages-stance.txt"
TIED = re.compile(r"warning: \S*tied\S* holds tied scores in the top (5|10) of 1 topic\(s\) \(3\): Touché's "
                  r"evaluator cuts each topic by rank, trec_eval orders it by score")


def tied_run(path: Path) -> Path:
    """The demo run with topic 3's top 6 all scored alike (its file order still ranks them)."""
    lines = demo_run(path.with_suffix(".base")).read_text().splitlines()
    out = []
    for line in lines:
        qid, q0, doc, rank, score, tag = line.split()
        out.append(f"{qid} {q0} {doc} {rank} {'99.5' if qid == '3' and int(rank) <= 6 else score} {tag}\n")
    path.write_text("".join(out))
    return path


# --------------------------------------------------------------------------- ties, wherever scored
def _evaluate_cli(run, tmp):
    return cli("evaluate", str(run), str(RELEVANCE))[1]


def _explore_cli(run, tmp):
    return cli("explore", str(run), "--qrels", f"relevance={RELEVANCE}", "-o", str(tmp / "p.html"))[1]


def _compare_cli(run, tmp):
    return cli("compare", str(demo_run(tmp / "base.txt", tag="b")), str(run), str(RELEVANCE))[1]


def _api_evaluate(run, tmp):
    from touche import api
    api.evaluate(run, RELEVANCE, "touche.nDCG@5")


def _api_experiment(run, tmp):
    from touche import api
    api.experiment([demo_run(tmp / "base.txt", tag="b"), run], RELEVANCE, "touche.nDCG@5")


def _api_explore(run, tmp):
    from touche import api
    api.explore([run], {"relevance": RELEVANCE}, out=tmp / "p.html")


@pytest.mark.parametrize("entry", [_evaluate_cli, _explore_cli, _compare_cli, _api_evaluate, _api_experiment,
                                   _api_explore], ids=lambda f: f.__name__.strip("_"))
def test_a_tied_top_k_is_warned_of_wherever_the_run_is_scored(entry, tmp_path, caplog):
    run = tied_run(tmp_path / "tied.txt")
    with caplog.at_level(logging.WARNING):
        said = (entry(run, tmp_path) or "") + caplog.text
    assert TIED.search(said), said
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        said = (entry(demo_run(tmp_path / "untied.txt"), tmp_path) or "") + caplog.text
    assert "tied scores" not in said


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([1.0, 2.0, 3.0, 2.5e-8, 2.5000001e-8]), min_size=1, max_size=9),
                min_size=1, max_size=4), st.integers(1, 6))
def test_the_topics_tied_in_their_top_k_are_those_a_by_hand_reading_finds(topics, k):
    from touche.retrieval.formats.runfile import RunFormat, RunRow
    from touche.retrieval.formats.runtable import RunTable
    rows = []
    for number, scores in enumerate(topics, 1):
        ordered = sorted(scores, reverse=True)
        rows += [RunRow(str(number), "Q0", f"d{i}", i, s, "t") for i, s in enumerate(ordered, 1)]
    table = RunTable.from_rows(rows, RunFormat.Q0)
    by_hand = [str(n) for n, scores in enumerate(topics, 1)
               if len(set(np.float32(s) for s in sorted(scores, reverse=True)[:k + 1])) < len(scores[:k + 1])]
    assert table.tied_topics(k) == by_hand


# --------------------------------------------------------------------------- qrels of the kind their name promises
@pytest.fixture
def stance_run(tmp_path):
    qrels = [line.split() for line in STANCE.read_text().splitlines()]
    run = tmp_path / "stance-run.txt"
    run.write_text("".join(f"{q} FIRST {d} {i} {100 - i} t\n" for i, (q, _, d, _) in enumerate(qrels[:5], 1)))
    return run


def test_relevance_qrels_given_for_stance_are_refused_everywhere(stance_run, tmp_path):
    from touche import api
    graded = DEMO / "task2" / "qrels-passages-relevance.txt"
    said = "these qrels are given as stance judgements (stance=…) but hold no stance labels (FIRST, SECOND, NEUTRAL, " \
           "NO): they hold graded labels (relevance or quality)"
    code, text = cli("evaluate", str(stance_run), f"stance={graded}")
    assert code == 2 and said in text and str(graded) in text
    code, text = cli("explore", str(stance_run), "--qrels", f"stance={graded}", "-o", str(tmp_path / "p.html"))
    assert code == 2 and said in text and not (tmp_path / "p.html").exists()
    with pytest.raises(ToucheError, match=re.escape(said)):
        api.evaluate(stance_run, {"stance": graded})
    tpt = pytest.importorskip("touche.pyterrier")
    with pytest.raises(ToucheError, match=re.escape(said)):
        tpt.qrels({"relevance": graded, "stance": graded})


def test_stance_qrels_given_for_relevance_are_refused_and_the_right_names_score(stance_run):
    from touche import api
    code, text = cli("evaluate", str(stance_run), f"relevance={STANCE}")
    assert code == 2 and "given as relevance judgements (relevance=…) but hold no graded labels" in text
    scores = api.evaluate(stance_run, {"stance": STANCE})
    assert set(scores) == {"stance:stance.F1_macro", "stance:stance.N"}
