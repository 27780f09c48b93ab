"""Measure names (retrieval/evaluation/registry.py) are checked whole where they are parsed: a name
ir_measures knows but no installed package computes is refused then, naming what to install; a
measure's own parameters (IPrec's recall level, nDCG's gains) are read as ir_measures reads them."""
from __future__ import annotations

import ir_measures
import pytest

from touche import api
from touche.cli import main
from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import evaluate
from touche.retrieval.evaluation.registry import parse_measure, split_measures

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
