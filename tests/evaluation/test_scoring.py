"""What the one scorer path (retrieval/evaluation/measures.py ``_scoring_plan``, through
retrieval/evaluation/scoring.py) says wherever a run is scored: a top k holding tied scores is
warned of (Touché's evaluator cuts by rank, trec_eval orders by score), and qrels given under a name
that promises another kind of judgement (``stance=`` graded labels) are refused; an invalid run is
not scored; topic ids that are one number match, disjoint ones are warned of."""
from __future__ import annotations

import logging
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import DEMO, cli, demo_run, judged_documents, one_topic_run, require_shared, run_rows
from tests.tables import table_rows
from touche.errors import InputError, ToucheError
from touche.retrieval.evaluation import registry
from touche.retrieval.evaluation.measures import (
    as_table,
    evaluate,
    evaluate_rows,
    evaluate_rows_per_topic,
    score_rows,
    score_run,
)
from touche.retrieval.evaluation.registry import (
    Measure,
    MeasureFamily,
    check_trec_name,
    leaderboard_measures,
    parse_measure,
    register_measure_family,
)
from touche.retrieval.evaluation.report import format_table
from touche.retrieval.evaluation.scorers import image_precision, trec_measures
from touche.retrieval.formats.gate import load_run, read_run
from touche.retrieval.formats.qrels import QrelsKind
from touche.retrieval.formats.runfile import RunFormat, RunRow
from touche.retrieval.formats.runtable import RowNeed
from touche.retrieval.formats.selection import TopicSelection

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


# --------------------------------------------------------------------------- one scorer path
def test_trec_cut_off_measures_do_not_depend_on_what_else_is_asked_and_equal_ir_measures():
    """trec_eval compares scores as 32-bit floats: 27.806717871351506 and 27.806717649073345 tie
    and are ordered by document id. Olivier-Armstrong-run1 gave 0.479 asked alone, 0.480 with AP."""
    import ir_measures

    from touche.retrieval.evaluation.measures import evaluate
    shared = require_shared()
    qrels = shared / "qrels" / "task2-2022-relevance.qrels"
    reference_qrels = list(ir_measures.read_trec_qrels(str(qrels)))
    cut = ["nDCG@5", "nDCG@10", "P@10", "P@5", "Judged@5", "Judged@10", "RR@10"]
    for run in sorted((shared / "runs" / "task2-2022").glob("*.txt")):
        together = evaluate(run, qrels, [f"trec.{m}" for m in cut] + ["trec.AP"])
        # every row, as trec_eval reads them (ir_measures' own reader cannot split a quoted tag)
        rows = [ir_measures.ScoredDoc(*line.split()[0:3:2], float(line.split()[4]))
                for line in run.read_text().splitlines() if line.strip()]
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in cut], reference_qrels, rows)
        for m in cut:
            alone = evaluate(run, qrels, [f"trec.{m}"])[f"trec.{m}"]
            assert alone == together[f"trec.{m}"] == pytest.approx(expected[ir_measures.parse_measure(m)], abs=1e-12), \
                (run.name, m)


# --------------------------------------------------------------------------- qrels that do not fit
def test_qrels_that_judge_none_of_a_runs_documents_or_topics_are_said_to(tmp_path):
    run = demo_run(tmp_path / "run.txt")
    other = tmp_path / "other.txt"
    other.write_text("1 0 clueweb12-0000tw-00-00000 2\n")
    code, text = cli("evaluate", str(run), str(other))
    assert code == 0 and f"{other} judges none of the documents of {run}" in text
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("77 0 Sa0000001-A00000001 2\n")
    code, text = cli("evaluate", str(run), str(elsewhere))
    assert code == 0 and "have no topic in common" in text and str(elsewhere) in text


# --------------------------------------------------------------------------- measures on rows
def test_measures_on_a_list_of_rows_equal_those_on_the_file(tmp_path):
    from tests.shared import RELEVANCE
    from touche.retrieval.evaluation.measures import evaluate, evaluate_rows, evaluate_rows_per_topic, score_rows
    from touche.retrieval.formats.gate import read_run
    by_topic: dict[str, list[tuple[int, str]]] = {}
    for line in RELEVANCE.read_text().splitlines():  # each topic's judged documents, worst first
        qid, _, doc, label = line.split()
        by_topic.setdefault(qid, []).append((int(label), doc))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{qid} Q0 {doc} {rank} {100 - rank} t\n" for qid, docs in by_topic.items()
                           for rank, (_, doc) in enumerate(sorted(docs), 1)))
    rows = read_run(run)
    assert evaluate_rows(rows, RELEVANCE) == evaluate(run, RELEVANCE)
    assert "touche.nDCG@5" in evaluate_rows(rows, RELEVANCE)  # the default depth is 5
    means, per_topic = score_rows(rows, RELEVANCE)
    assert means == evaluate(run, RELEVANCE)
    assert per_topic == evaluate_rows_per_topic(rows, RELEVANCE)
    assert per_topic["touche.nDCG@5"] and means["touche.nDCG@5"] == pytest.approx(
        np.mean(list(per_topic["touche.nDCG@5"].values())))


LOGGER = "touche.retrieval.evaluation.measures"


NDCG_1_OF_2 = 2 / math.log2(3) / 2  # a topic's label-2 document at rank 2 behind a label-0 one: 0.6309…


@pytest.fixture
def graded(tmp_path):
    """Topic 1: a (2), b (0); topic 2: c (1)."""
    path = tmp_path / "graded.qrels"
    path.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n")
    return path


@pytest.fixture
def families():
    """The registered families, restored after a test registers its own."""
    saved = list(registry.MEASURE_FAMILIES)
    yield registry.MEASURE_FAMILIES
    registry.MEASURE_FAMILIES[:] = saved


def _counting_family():
    class RowCount(MeasureFamily):
        """count.rows: the rows a run holds; records each batch it is asked for."""
        prefixes = ("count.",)
        pattern = __import__("re").compile(r"count\.(rows)")
        qrels_kind = QrelsKind.GRADED
        names = "count.rows"
        batches: list[list[str]] = []

        def means(self, measures, rows, judgments):
            type(self).batches.append([m.name for m in measures])
            return {m.name: float(len(list(rows))) for m in measures}

        def per_topic(self, measures, rows, judgments):
            return {}
    return RowCount


# =========================================================================== registry
def test_a_family_registered_by_decorator_stays_its_class_and_adds_no_default_measures(families, graded):
    """``@register_measure_family`` gives back the class (a decorator must), and a family that
    names no defaults adds nothing to what scoring computes unasked: the defaults of graded qrels
    stay Touché's nDCG and trec_eval's five."""
    family = _counting_family()
    assert register_measure_family(family) is family
    assert any(type(f) is family for f in families)
    assert MeasureFamily().defaults(5) == []
    scores = evaluate_rows(run_rows(("1", "a", 1, 2.0)), graded)
    assert sorted(scores) == sorted(["touche.nDCG@5", "trec.nDCG@5", "trec.nDCG@10", "trec.P@10", "trec.AP",
                                     "trec.Judged@5"])


def test_a_measure_asked_for_twice_is_computed_once(families, graded):
    """``count.rows`` named twice (and ``P@5`` as well as ``trec.P@5``): the family is asked for
    each once, and the result holds each once."""
    family = register_measure_family(_counting_family())
    family.batches.clear()
    rows = run_rows(("1", "a", 1, 2.0), ("1", "b", 2, 1.0))
    scores = evaluate_rows(rows, graded, ["count.rows", "count.rows", "P@5", "trec.P@5"])
    assert family.batches == [["count.rows"]]
    assert scores == {"count.rows": 2.0, "trec.P@5": pytest.approx(1 / 5)}


def test_an_unknown_measure_is_refused_with_every_family_named():
    """The refusal lists what is known, family by family, in registration order."""
    with pytest.raises(
        ToucheError,
        match=r"unknown measure 'stance\.F2'; known: touche\.nDCG@k, touche2021\.nDCG@k, "
        r"trec\.<ir_measures name>, stance\.F1_macro, stance\.N, image\.on_topic_P@10",
    ):
        parse_measure("stance.F2")


def test_leaderboard_measures_read_the_kinds_once_even_from_a_generator():
    """A generator of kinds gives the same compact set as a list (membership is not re-read from
    an exhausted iterator)."""
    kinds = [QrelsKind.STANCE, QrelsKind.IMAGE]
    expected = ["stance.F1_macro", "image.on_topic_P@10", "image.argumentative_P@10", "image.on_stance_P@10"]
    assert leaderboard_measures(kinds) == expected
    assert leaderboard_measures(k for k in kinds) == expected
    assert leaderboard_measures(iter([QrelsKind.GRADED])) == ["touche.nDCG@5", "trec.Judged@5"]


def test_a_trec_measure_cut_at_one_reads_each_topics_best_row_only():
    """trec_eval orders by score: P@1 sees a topic's best row, P@1 with P@3 its best three; AP
    (no cut-off) and a judged-only measure see every row."""
    family = parse_measure("trec.P@1").family
    assert family.rows_needed([parse_measure("trec.P@1")]) == RowNeed(score_depth=1)
    assert family.rows_needed([parse_measure("trec.P@1"), parse_measure("trec.P@3")]) == RowNeed(score_depth=3)
    assert family.rows_needed([parse_measure("trec.AP")]).every
    assert family.rows_needed([parse_measure("trec.P@1"), parse_measure("trec.AP")]).every


def test_stance_n_per_topic_counts_judged_rows_that_predict_a_stance(tmp_path):
    """Topic 1: an unjudged FIRST on top (read, as each topic's best row is), a judged Q0 row
    (predicts no stance) and a judged SECOND: N is 1. Topic 2: a judged NO: N is 1. The mean's N
    (all topics) is their sum."""
    qrels = tmp_path / "stance.qrels"
    qrels.write_text("1 0 a FIRST\n1 0 b SECOND\n2 0 c NO\n")
    run = tmp_path / "run.txt"
    run.write_text("1 FIRST x 1 3.0 t\n1 Q0 a 2 2.0 t\n1 SECOND b 3 1.0 t\n2 NO c 1 1.0 t\n")
    table = load_run(run, "stance")
    assert evaluate_rows_per_topic(table, qrels, ["stance.N"]) == {"stance.N": {"1": 1.0, "2": 1.0}}
    assert evaluate_rows(table, qrels, ["stance.N"]) == {"stance.N": 2}


def test_touche2021_orders_by_score_and_touche_by_rank():
    """Two documents tied on score, b ranked above a: touche.nDCG@1 takes rank 1 (b, label 0: 0),
    touche2021.nDCG@1 the best score with ties by document id (a, label 2: 1), per topic too."""
    qrels = {"1": {"a": 2, "b": 0}}
    rows = run_rows(("1", "b", 1, 1.0), ("1", "a", 2, 1.0))
    by_rank, by_score = parse_measure("touche.nDCG@1"), parse_measure("touche2021.nDCG@1")
    family = by_rank.family
    assert family.means([by_rank, by_score], rows, qrels) == {"touche.nDCG@1": 0.0, "touche2021.nDCG@1": 1.0}
    assert family.per_topic([by_rank, by_score], rows, qrels) == \
        {"touche.nDCG@1": {"1": 0.0}, "touche2021.nDCG@1": {"1": 1.0}}


def test_an_empty_measure_list_computes_nothing(graded):
    """Asking for no measure is not asking for the defaults: nothing is computed."""
    rows = run_rows(("1", "a", 1, 1.0))
    assert evaluate_rows(rows, graded, []) == {} and evaluate_rows_per_topic(rows, graded, []) == {}
    assert score_rows(rows, graded, []) == ({}, {})


def test_a_gains_mapping_is_checked_key_and_value_against_the_label_bounds():
    """``nDCG(gains={label: gain})``: both the labels and the gains are labels of qrels, whole
    numbers within −1000…1000; a valid mapping passes. (Built as a Measure: a colon in a name is
    read as QRELS-NAME:MEASURE, so a gains mapping cannot be written as a measure name.)"""
    family = parse_measure("trec.P@5").family

    def measure(inner):
        return Measure(f"trec.{inner}", family, (inner,))
    check_trec_name(measure("nDCG(gains={0:0,1:1,2:3})@5"))
    with pytest.raises(ToucheError, match=r"its label parameter 3000 lies outside -1000…1000"):
        check_trec_name(measure("nDCG(gains={0:0,3000:1})@5"))
    with pytest.raises(ToucheError, match=r"its label parameter 2000 lies outside"):
        check_trec_name(measure("nDCG(gains={0:0,1:2000})@5"))


# =========================================================================== scorers
def test_trec_measures_of_an_empty_run_are_undefined_not_zero():
    """No row: every asked measure is nan (trec_eval would report no topic), keyed ``trec.<name>``."""
    found = trec_measures([], {"1": {"a": 1}}, ["P@5", "AP"])
    assert list(found) == ["trec.P@5", "trec.AP"] and all(math.isnan(v) for v in found.values())


def test_image_precision_without_a_judged_topic_is_undefined_over_zero_topics():
    """No topic of the run judged (or no row): the three precisions are nan, over 0 topics."""
    for rows in ([], [RunRow("9", "PRO", "I1", 1, 1.0, "t")]):
        found = image_precision(rows, {"1": {"I1": {"ONTOPIC": 1}}})
        assert found.topics == 0
        assert all(math.isnan(v) for v in (found.on_topic, found.argumentative, found.on_stance))


# =========================================================================== measures.py: depth
def test_scoring_without_a_depth_computes_ndcg_at_5(graded):
    """The default depth is 5 for every entry point: evaluate_rows, its per-topic twin,
    score_rows and score_run. Topic 1 ranks b (0) above a (2): nDCG@5 = (2/log2 3)/2."""
    rows = run_rows(("1", "b", 1, 2.0), ("1", "a", 2, 1.0), ("2", "c", 1, 1.0))
    assert evaluate_rows(rows, graded)["touche.nDCG@5"] == pytest.approx((NDCG_1_OF_2 + 1) / 2)
    assert evaluate_rows_per_topic(rows, graded)["touche.nDCG@5"] == pytest.approx({"1": NDCG_1_OF_2, "2": 1.0})
    means, per_topic = score_rows(rows, graded)
    assert "touche.nDCG@5" in means and "trec.Judged@5" in per_topic
    assert "touche.nDCG@5" in score_run(as_table(rows), graded).means


# =========================================================================== measures.py: runs
def test_a_run_frame_is_scored_against_a_qrels_path(graded):
    """A PyTerrier frame is a run, not a file to look into for swapped arguments: scored (it once
    crashed looking for the frame's first columns). b above a on topic 1, c on topic 2."""
    frame = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    assert evaluate(frame, graded, ["touche.nDCG@5"]) == {"touche.nDCG@5": pytest.approx((NDCG_1_OF_2 + 1) / 2)}
    assert score_run(frame, graded, ["touche.nDCG@5"]).means == {"touche.nDCG@5": pytest.approx((NDCG_1_OF_2 + 1) / 2)}


def test_score_run_says_when_run_and_qrels_are_swapped(tmp_path, graded):
    """score_run, like evaluate: a 4-column file given as the run and a 6-column one as the qrels."""
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2.0 t\n")
    with pytest.raises(InputError, match="looks like a qrels file .* give the run first"):
        score_run(graded, run)


def test_a_qrels_file_given_as_the_run_against_qrels_is_not_called_swapped(tmp_path, graded):
    """Swapping helps only when the qrels look like a run: a qrels file given for both is a bad
    run file, not arguments the wrong way round."""
    with pytest.raises(InputError) as caught:
        evaluate(graded, graded)
    assert "give the run first" not in str(caught.value)


def test_rows_from_a_generator_are_scored_like_a_list(graded):
    """A generator of rows is read once: the same scores as the list."""
    rows = run_rows(("1", "b", 1, 2.0), ("1", "a", 2, 1.0), ("2", "c", 1, 1.0))
    assert evaluate_rows((r for r in rows), graded, ["touche.nDCG@5", "trec.P@5"]) == \
        evaluate_rows(rows, graded, ["touche.nDCG@5", "trec.P@5"])
    assert len(as_table(r for r in rows).frame) == 3


def test_image_rows_of_both_stances_are_an_image_run():
    """Rows whose second column holds PRO and CON only are images ranked per stance."""
    rows = [RunRow("1", "PRO", "I1", 1, 2.0, "t"), RunRow("1", "CON", "I2", 1, 1.0, "t")]
    assert as_table(rows).format is RunFormat.IMAGE


# =========================================================================== measures.py: warnings
def _warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]


def test_the_no_common_topic_warning_names_the_run_by_its_file_or_frame_name(tmp_path, graded, caplog):
    """A run file is named by its path; a frame by ``attrs["name"]``, else "the run frame"; a
    table read already as "the run"."""
    run = tmp_path / "other-year.txt"
    run.write_text("7 Q0 a 1 2.0 t\n")
    frame = pd.DataFrame({"qid": ["7"], "docno": ["a"], "score": [1.0]})
    named = frame.copy()
    named.attrs["name"] = "bm25 frame"
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        evaluate(run, graded, ["touche.nDCG@5"])
        score_run(frame, graded, ["touche.nDCG@5"])
        score_run(named, graded, ["touche.nDCG@5"])
        score_run(load_run(run), graded, ["touche.nDCG@5"])
    said = _warnings(caplog)
    assert [m.split(" and ")[0] for m in said] == \
        [f"warning: {run}", "warning: the run frame", "warning: bm25 frame", "warning: the run"]
    assert all("have no topic in common" in m for m in said)


def test_the_no_common_topic_warning_shows_six_topics_then_how_many(graded, caplog):
    """Seven run topics: the first six in topic order, then '… (7 in all)'."""
    rows = run_rows(*[(str(q), "a", 1, 1.0) for q in range(10, 17)])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        evaluate_rows(rows, graded, ["touche.nDCG@5"])
    assert "(run: 10, 11, 12, 13, 14, 15, … (7 in all); qrels: 1, 2)" in _warnings(caplog)[0]


def test_the_nothing_judged_warning_shows_the_runs_first_three_ids(graded, caplog):
    rows = run_rows(("1", "x1", 1, 4.0), ("1", "x2", 2, 3.0), ("1", "x3", 3, 2.0), ("1", "x4", 4, 1.0))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        evaluate_rows(rows, graded, ["touche.nDCG@5"], name="mine")
    assert _warnings(caplog) == [
        f"warning: {graded} judges none of the documents of mine (its ids look like "
        "x1, x2, x3): every score is 0 or undefined; are they of the same task and collection?"
    ]


def test_a_topic_selection_restricts_run_and_qrels_alike(graded, caplog):
    """Run topics 1 and 3, qrels 1 and 2, only 2 and 3 selected: no topic in common, and the
    warning shows the selected topics of each (run: 3; qrels: 2); selecting 1 and 3 scores topic 1
    only."""
    rows = run_rows(("1", "b", 1, 2.0), ("1", "a", 2, 1.0), ("3", "a", 1, 1.0))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        evaluate_rows(rows, graded, ["touche.nDCG@5"], topics=TopicSelection.parse("2,3"))
    assert "(run: 3; qrels: 2)" in _warnings(caplog)[0]
    assert evaluate_rows(rows, graded, ["touche.nDCG@5"], topics=TopicSelection.parse("1,3")) == \
        {"touche.nDCG@5": pytest.approx(NDCG_1_OF_2)}


# =========================================================================== measures.py: tables
def test_a_mean_over_another_number_of_topics_says_its_own():
    """The ``topics`` column holds the usual count (the most frequent); a mean over another says
    it in brackets; an undefined mean or one without a count does not."""
    text = format_table({"run": {"a": 0.5, "b": 0.25, "c": math.nan, "d": 1.0}},
                        counts={"run": {"a": 4, "b": 3, "c": 2}})
    assert table_rows(text) == [{"run": "run", "topics": "4", "a": "0.500", "b": "0.250 (3)", "c": "–",
                                 "d": "1.000"}]


def test_evaluate_refuses_a_run_concatenated_with_itself(tmp_path):
    """It once scored 1.314: a score above 1 must be impossible, so an invalid run is refused."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n")
    run = tmp_path / "run.txt"
    once = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n"
    run.write_text(once + once)
    code, text = cli("evaluate", str(run), str(qrels))
    assert code == 2 and "not a valid Q0 run" in text and "so not scored" in text and "Traceback" not in text
    assert f"touche validate {run}" in text
    run.write_text(once)
    code, text = cli("evaluate", str(run), str(qrels), "--measures", "touche.nDCG@5")
    assert code == 0 and "1.000" in text


def test_topic_ids_that_are_the_same_number_are_matched_and_disjoint_ones_warned_about(tmp_path, caplog):
    from touche import api
    judged = judged_documents()[:5]
    plain = one_topic_run(tmp_path / "plain.txt", judged)
    padded = one_topic_run(tmp_path / "padded.txt", judged, qid="001")
    score = api.evaluate(plain, RELEVANCE, ["touche.nDCG@5"])["touche.nDCG@5"]
    assert api.evaluate(padded, RELEVANCE, ["touche.nDCG@5"])["touche.nDCG@5"] == score > 0
    frame = api.frame_of_rows(read_run(plain))
    frame["query_id"] = frame["query_id"].astype(float)  # 1.0, as pandas makes of a column with gaps
    assert api.evaluate(frame, RELEVANCE, ["touche.nDCG@5"])["touche.nDCG@5"] == score
    other = one_topic_run(tmp_path / "other.txt", judged, qid="77")
    with caplog.at_level("WARNING"):
        api.evaluate(other, RELEVANCE, ["touche.nDCG@5"])
    assert "no topic in common (run: 77; qrels: 1, 2, 3, 4, 5, 6)" in caplog.text
