"""Measure names (retrieval/evaluation/registry.py) are checked whole where they are parsed: a name
ir_measures knows but no installed package computes is refused then, naming what to install; a
measure's own parameters (IPrec's recall level, nDCG's gains) are read as ir_measures reads them."""
from __future__ import annotations

import subprocess
import sys

import ir_measures
import pytest

from tests.experiments.test_explorer import _q0_run
from tests.explorer_pages import QRELS
from tests.shared import REPO, cli, demo_run, judged_documents, one_topic_run, run_rows
from touche import api
from touche.cli import main
from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import (
    check_cutoffs,
    evaluate,
    evaluate_rows,
)
from touche.retrieval.evaluation.registry import (
    check_trec_name,
    parse_measure,
    split_measures,
)
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runtable import RowNeed

NOT_INSTALLED = ["trec.alpha_nDCG@5", "trec.ERR_IA@5", "trec.NRBP", "trec.RBP(p=0.8)", "trec.RBP(p=0.8,rel=1)"]


@pytest.fixture
def files(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("".join(f"1 Q0 d{i} {i} {10 - i} t\n" for i in range(1, 8)))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d3 2\n1 0 d9 1\n")
    return run, qrels


@pytest.mark.parametrize("name", NOT_INSTALLED)
def test_a_name_no_installed_scorer_computes_is_refused_as_it_is_parsed(name):
    with pytest.raises(ToucheError) as refused:
        parse_measure(name)
    message = str(refused.value)
    assert name in message and ("pip install ir-measures[" in message or "takes" in message or "take" in message)


def test_the_refusal_names_the_pip_extra_of_the_missing_scorer():
    with pytest.raises(ToucheError, match=r"pyndeval, which is not installed here: pip install ir-measures\[pyndeval"):
        parse_measure("trec.alpha_nDCG@5")


@pytest.mark.parametrize("name", NOT_INSTALLED)
def test_the_cli_and_the_api_refuse_it_without_a_traceback(files, capsys, name):
    run, qrels = files
    assert main(["evaluate", str(run), str(qrels), "--measures", name]) == 2
    err = capsys.readouterr().err
    assert name in err and "internal error" not in err and "Traceback" not in err
    with pytest.raises(ToucheError, match=name.replace("(", r"\(").replace(")", r"\)")):
        api.evaluate(str(run), str(qrels), [name])


@pytest.mark.parametrize("name", sorted(ir_measures.measures.registry))
def test_every_name_ir_measures_knows_is_scored_or_refused_when_parsed(files, name):
    """Whatever a user writes of ir_measures' vocabulary, scoring never fails after the name was
    accepted: it was refused as it was parsed (a ToucheError), or it is scored."""
    run, qrels = files
    for written in (f"trec.{name}", f"trec.{name}@5"):
        try:
            parse_measure(written)
        except ToucheError:
            continue
        scores = evaluate(run, qrels, [written])
        assert set(scores) == {written}


def test_iprec_at_a_recall_level_is_computed_as_ir_measures_computes_it(files):
    """``@0.5`` of IPrec is a recall level, not a cut-off (it was refused as "cut-off must be whole")."""
    run, qrels = files
    got = evaluate(run, qrels, ["trec.IPrec@0.5"])["trec.IPrec@0.5"]
    runs = {"1": {f"d{i}": float(10 - i) for i in range(1, 8)}}
    expected = ir_measures.calc_aggregate([ir_measures.parse_measure("IPrec@0.5")],
                                          {"1": {"d1": 1, "d3": 2, "d9": 1}}, runs)
    assert got == pytest.approx(next(iter(expected.values()))) and 0 < got < 1


@pytest.mark.parametrize("text,names", [
    ("trec.nDCG(gains={0:0,1:5})@5,P@10", ["trec.nDCG(gains={0:0,1:5})@5", "P@10"]),
    ("touche.nDCG@5, quality:trec.nDCG(gains={0:0,1:1,2:3})@5", ["touche.nDCG@5",
                                                                 "quality:trec.nDCG(gains={0:0,1:1,2:3})@5"]),
    ("a", ["a"]),
])
def test_a_measure_list_splits_at_the_commas_between_names_only(text, names):
    assert split_measures(text) == names


def test_a_gains_mapping_is_one_measure_on_the_command_line(files, capsys):
    run, qrels = files
    assert main(["evaluate", str(run), str(qrels), "--measures", "trec.nDCG(gains={0:0,1:5,2:5})@5,P@5"]) == 0
    out = capsys.readouterr().out
    assert "trec.nDCG(gains={0:0,1:5,2:5})@5" in out and "trec.P@5" in out
    with_gains = evaluate(run, qrels, ["trec.nDCG(gains={0:0,1:5,2:5})@5"])["trec.nDCG(gains={0:0,1:5,2:5})@5"]
    binary = evaluate(run, qrels, ["trec.nDCG(gains={0:0,1:1,2:1})@5"])["trec.nDCG(gains={0:0,1:1,2:1})@5"]
    graded = evaluate(run, qrels, ["trec.nDCG@5"])["trec.nDCG@5"]
    assert with_gains == pytest.approx(binary) and abs(binary - graded) > 0.01  # gains alike: the binary nDCG


def test_a_qrels_name_before_a_measure_with_colons_inside_is_read(files):
    measure = parse_measure("quality:trec.nDCG(gains={0:0,1:5})@5")
    assert measure.qrels == "quality" and measure.name == "trec.nDCG(gains={0:0,1:5})@5"
    with pytest.raises(ToucheError, match="QRELS-NAME:MEASURE"):
        parse_measure("a:b:trec.P@5")


def test_a_cut_off_with_leading_zeros_is_its_number(files):
    run, qrels = files
    assert evaluate(run, qrels, ["trec.P@05"])["trec.P@05"] == evaluate(run, qrels, ["trec.P@5"])["trec.P@5"]


# --------------------------------------------------------------------------- smaller ones
def test_a_measure_named_with_its_qrels_is_accepted_and_scores_only_there(tmp_path):
    from touche.retrieval.evaluation.measures import evaluate
    run = _q0_run(tmp_path / "a.txt")
    scores = evaluate(run, QRELS, ["relevance:touche.nDCG@5"])
    assert list(scores) == ["relevance:touche.nDCG@5"]
    assert scores["relevance:touche.nDCG@5"] == evaluate(run, {"relevance": QRELS["relevance"]},
                                                         ["touche.nDCG@5"])["relevance:touche.nDCG@5"]
    code, text = cli("explore", str(run), str(_q0_run(tmp_path / "b.txt")), "--qrels",
                     f"relevance={QRELS['relevance']}",
                     "--measures", "relevance:touche.nDCG@5", "-o", str(tmp_path / "x.html"))
    assert code == 0, text
    with pytest.raises(ToucheError, match="do not apply"):
        evaluate(run, QRELS, ["stance:touche.nDCG@5"])


@pytest.mark.parametrize("name", [":touche.nDCG@5", "a:b:touche.nDCG@5", "relevance:"])
def test_a_measure_with_an_empty_or_doubled_qrels_name_is_refused(name):
    from touche.retrieval.evaluation.registry import parse_measure
    with pytest.raises(ToucheError, match="QRELS-NAME:MEASURE"):
        parse_measure(name)


@pytest.mark.parametrize("args", [["--measures", "trec.P@99999999999999999999"], ["--depth", "99999999999999999999"],
                                  ["--measures", "touche.nDCG@99999999999999999999"]])
def test_a_huge_cut_off_is_a_located_error(tmp_path, args):
    code, text = cli("evaluate", str(demo_run(tmp_path / "run.txt")), str(RELEVANCE), *args)
    assert code == 2 and "at most 100,000" in text and "Traceback" not in text


@pytest.mark.parametrize("measure", ["trec.AP(rel=99999999999999999999)", "trec.AP(rel=3000000000)",
                                     "trec.P(rel=2.5)@10"])
def test_a_measure_parameter_beyond_the_labels_is_refused(tmp_path, measure):
    code, text = cli("evaluate", str(demo_run(tmp_path / "run.txt")), str(RELEVANCE), "--measures", measure)
    assert code == 2 and "its label parameter" in text and "internal error" not in text


DEMO = REPO / "demo"


RELEVANCE = DEMO / "qrels-relevance.txt"


# --------------------------------------------------------------------------- tracebacks and models
@pytest.mark.parametrize("name", ["trec.nDCG(rel=1)@5", "trec.nDCG(foo=1)@5", "trec.P(judged=1)@5"])
def test_a_parameter_ir_measures_lacks_is_refused_by_name(tmp_path, name):
    run = demo_run(tmp_path / "run.txt")
    code, text = cli("evaluate", str(run), str(RELEVANCE), "--measures", name)
    assert code == 2 and "Traceback" not in text and "takes no parameter" in text and "its parameters:" in text


# --------------------------------------------------------------------------- names
def test_a_measure_name_says_its_qrels_depth_and_label():
    named = parse_measure("quality:touche.nDCG@5")
    assert (named.qrels, named.name, named.cutoff) == ("quality", "touche.nDCG@5", 5)
    bare = parse_measure("touche2021.nDCG@10")
    assert bare.qrels is None and bare.cutoff == 10 and parse_measure("stance.F1_macro").cutoff is None
    assert bare.label("relevance") == "relevance:touche2021.nDCG@10" and bare.label(None) == "touche2021.nDCG@10"


def test_stance_n_is_a_per_topic_count_and_f1_a_pooled_value():
    n, f1 = parse_measure("stance.N"), parse_measure("stance.F1_macro")
    assert (n.has_per_topic, n.integer) == (True, True)
    assert (f1.has_per_topic, f1.integer) == (False, False)
    assert parse_measure("touche.nDCG@5").integer is False


def test_each_ndcg_reads_the_rows_its_order_cuts():
    family = parse_measure("touche.nDCG@5").family
    assert family.rows_needed([parse_measure("touche.nDCG@5")]) == RowNeed(rank_depth=5, score_depth=0)
    assert family.rows_needed([parse_measure("touche2021.nDCG@10")]) == RowNeed(rank_depth=0, score_depth=10)
    assert family.rows_needed([parse_measure("touche.nDCG@5"), parse_measure("touche2021.nDCG@3")]) == \
        RowNeed(rank_depth=5, score_depth=3)


def test_a_trec_label_parameter_must_be_a_whole_label_within_bounds():
    check_trec_name(parse_measure("trec.P(rel=2)@10"))  # accepted
    with pytest.raises(ToucheError, match="rel=2000|2000"):
        check_trec_name(parse_measure("trec.P(rel=2000)@10"))


# --------------------------------------------------------------------------- values
# --------------------------------------------------------------------------- measures.py
def test_names_as_ir_measures_users_write_them():
    """A bare nDCG@5 is trec_eval's (unjudged documents count as 0); Touché's is touche.nDCG@5."""
    def label(name):
        measure = parse_measure(name)
        return measure.label(measure.qrels)
    assert label("nDCG@5") == "trec.nDCG@5" and label("touche.nDCG@5") == "touche.nDCG@5"
    assert label("quality:P@10") == "quality:trec.P@10"


@pytest.mark.parametrize("name", ["touche.nDCG@0", "trec.P@\u0665", "touche.nDCG@00"])
def test_a_cut_off_of_zero_or_of_other_digits_is_refused(name):
    from touche.retrieval.evaluation.measures import check_cutoffs
    with pytest.raises(ToucheError, match="must be a positive whole number"):
        check_cutoffs([name])
    check_cutoffs(["touche.nDCG@1", "trec.P@10"])


def test_a_trec_label_parameter_is_refused_before_scoring(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    with pytest.raises(ToucheError, match="2000"):
        evaluate_rows(run_rows(("1", "a", 1, 1.0)), qrels, ["trec.P(rel=2000)@10"])


# =========================================================================== measures.py: cut-offs
def test_the_largest_cut_off_is_accepted_and_one_more_refused():
    """@100000 is the largest cut-off; @100001 (six digits too) and @1000000 are refused; leading
    zeros do not count as digits."""
    check_cutoffs(["touche.nDCG@100000", "trec.P@0000100000"], depth=100000)
    for name in ("touche.nDCG@100001", "trec.P@1000000", "trec.P@" + "9" * 5000):
        with pytest.raises(ToucheError, match="at most 100,000"):
            check_cutoffs([name])
    with pytest.raises(ToucheError, match="--depth is 100001"):
        check_cutoffs([], depth=100001)


@pytest.mark.parametrize("args", [("--depth", "0"), ("--measures", "nDCG@0"), ("--measures", "touche.nDCG@0"),
                                  ("--measures", "Judged@0"), ("--measures", "P@-1")])
def test_a_cut_off_of_zero_is_an_error_not_an_abort(tmp_path, args):
    run = one_topic_run(tmp_path / "run.txt", judged_documents()[:5])
    # in a child process: pytrec_eval's abort would take the test session with it
    done = subprocess.run([sys.executable, "-m", "touche", "evaluate", str(run), str(RELEVANCE), *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2 and "positive whole number" in done.stderr, done.stderr


def test_cut_offs_are_checked_in_compare_and_the_api_too(tmp_path):
    from touche import api
    from touche.errors import ToucheError
    run = one_topic_run(tmp_path / "run.txt", judged_documents()[:5])
    code, text = cli("compare", str(run), str(run), str(RELEVANCE), "--measure", "trec.P@0")
    assert code == 2 and "positive whole number" in text
    frame = api.frame_of_rows(read_run(run))
    for measures in (["P@0"], ["Judged@0"]):
        with pytest.raises(ToucheError, match="positive whole number"):
            api.evaluate(frame, RELEVANCE, measures)
