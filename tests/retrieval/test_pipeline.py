"""End to end: suites on a TIRA-style input directory and on the demo data, the CLI's errors."""
from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.shared import REPO, cli
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runfile import RunFormat, run_file_problems

SUITE = REPO / "configs" / "task1" / "suite.yaml"
_SUITE = yaml.safe_load(SUITE.read_text())
VARIANTS = [Path(v).stem for v in _SUITE["variants"]]
PRIMARY = Path(_SUITE["primary"]).stem


@pytest.fixture(scope="module")
def demo_output(jvm_started, tmp_path_factory, index_root):
    from touche.retrieval.suite import run_suite
    out = tmp_path_factory.mktemp("demo-out")
    assert run_suite(SUITE, None, out, index_root=index_root, progress=False).run_txt.is_file()
    return out


def test_demo_suite_writes_five_valid_runs_and_a_table(demo_output):
    for name in VARIANTS:
        run = demo_output / f"{name}.txt"
        assert [p for p in run_file_problems(run, RunFormat.Q0) if p.is_error] == []
        rows = read_run(run)
        assert {r.qid for r in rows} == {"1", "2", "3", "4", "5", "6"}
    assert (demo_output / "run.txt").read_bytes() == (demo_output / f"{PRIMARY}.txt").read_bytes()
    table = (demo_output / "evaluation.md").read_text()
    assert all(name in table for name in VARIANTS) and "relevance:touche.nDCG@5" in table


def test_demo_variants_rank_differently_and_sensibly(demo_output):
    from touche.retrieval.evaluation.measures import evaluate
    scores = {name: evaluate(demo_output / f"{name}.txt", {"relevance": REPO / "demo" / "qrels-relevance.txt"},
                                 ["touche.nDCG@5"])["relevance:touche.nDCG@5"] for name in VARIANTS}
    assert len({round(s, 4) for s in scores.values()}) == 5, scores
    assert all(s > 0.5 for s in scores.values()), scores  # every variant finds relevant arguments
    top5 = {name: [r.docid for r in read_run(demo_output / f"{name}.txt") if r.qid == "1"][:5] for name in VARIANTS}
    assert len({tuple(v) for v in top5.values()}) > 1


def test_rerun_is_idempotent_and_reuses_indexes(demo_output, tmp_path, index_root):
    from touche.retrieval.suite import run_suite
    before = sorted(p.name for p in index_root.iterdir())
    assert run_suite(SUITE, None, tmp_path, index_root=index_root, progress=False).run_txt.is_file()
    assert sorted(p.name for p in index_root.iterdir()) == before
    for name in VARIANTS:
        assert (tmp_path / f"{name}.txt").read_bytes() == (demo_output / f"{name}.txt").read_bytes()


def test_tira_input_directory(jvm_started, fixture_corpus, tmp_path, index_root):
    from touche.retrieval.suite import run_suite
    out = tmp_path / "tira-out"
    run_suite(SUITE, fixture_corpus, out, index_root=index_root, progress=False)
    rows = read_run(out / "run.txt")
    assert {r.qid for r in rows} == {"1", "2"}
    assert [r.docid for r in rows if r.qid == "1"][0].startswith("Sa0000001")
    assert not (out / "evaluation.md").exists()  # no qrels on TIRA
    # the runs compared before judgements exist: by how their rankings agree
    page = (out / "explore.html").read_text(encoding="utf-8")
    from tests.experiments.test_explorer import page_data
    data = page_data(out / "explore.html")
    assert "no qrels: runs compared by how their rankings agree" in page and data["measures"] == []
    assert len(data["agreement"]) == 10 and data["agreement"][0][0] is not None  # every pair of the five runs


def test_single_variant_becomes_run_txt(jvm_started, fixture_corpus, tmp_path, index_root):
    from touche.retrieval.suite import run_suite
    config = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
    run_suite(SUITE, fixture_corpus, tmp_path, only_config=config, index_root=index_root, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".touche-made", "2-krovetz-bm25.txt", "run.txt"]
    assert read_run(tmp_path / "run.txt")[0].tag == "touche-krovetz-bm25"





def test_cli_input_without_topics(tmp_path, fixture_corpus):
    (tmp_path / "in").mkdir()
    for corpus in fixture_corpus.glob("*.json"):
        (tmp_path / "in" / corpus.name).write_bytes(corpus.read_bytes())
    code, text = cli("run-all", "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"))
    assert code == 2
    assert f"error: {tmp_path / 'in'}: the input directory has no topics.xml" in text
    assert "Traceback" not in text
    code, text = cli("run-all", "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"), "--topics", "nothing.xml")
    assert code == 2 and "nothing.xml" in text and "Traceback" not in text


def test_cli_input_that_holds_nothing(tmp_path):
    (tmp_path / "in").mkdir()
    code, text = cli("run-all", "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"))
    assert code == 2 and "the input directory holds no corpus" in text and "it holds nothing" in text
    assert not (tmp_path / "out").exists()


def test_cli_unwritable_output(jvm_started, fixture_corpus, tmp_path):
    blocker = tmp_path / "a-file"  # a folder inside a file: not even root can make it (no system path touched)
    blocker.write_text("")
    target = str(blocker / "out")
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", target)
    assert code == 2 and "cannot create the output directory" in text and target in text


def test_cli_bad_config_key(tmp_path, fixture_corpus):
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: %s\ntag: x\nretrieval: {topk: 10}\n" % (REPO / "configs" / "task1" / "base.yaml"))
    code, text = cli("run", "-c", str(bad), "-i", str(fixture_corpus), "-t", str(fixture_corpus / "topics.xml"),
                     "-o", str(tmp_path / "run.txt"))
    assert code == 2 and "unknown key 'retrieval.topk'" in text and str(bad) in text
    assert not (tmp_path / "run.txt").exists()


def test_cli_validate_reports_lines(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 doc1 1 2.0 tag\n1 Q0 doc2 2 3.0 tag\n1 Q0 doc2 3 1.0 tag\n")
    code, text = cli("validate", str(run), "--format", "q0")
    assert code == 1
    assert ":3:" in text  # the duplicate docid's line


def test_cli_analyze(jvm_started):
    code, text = cli("analyze", "-c", str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"),
                     "Should teachers get tenure?")
    assert code == 0 and text.strip() == "[teacher] [tenure]"


def test_cli_empty_query_is_reported_with_its_topic(jvm_started, fixture_corpus, tmp_path):
    topics = tmp_path / "topics.xml"
    topics.write_text("<topics><topic><number>7</number><title>Should it be?</title></topic></topics>")
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "4-krovetz-shingles.yaml"), "-i",
                     str(fixture_corpus), "-t", str(topics), "-o", str(tmp_path / "r.txt"))
    assert code == 2 and f"{topics}, topic 7: the query is empty" in text


@pytest.mark.skipif(not (REPO / ".venv" / "bin" / "touche").exists(), reason="needs the project environment")
def test_run_all_sh_is_the_tira_entry_point(fixture_corpus, tmp_path):
    env = dict(os.environ, TOUCHE_INDEX_ROOT=str(tmp_path / "indexes"))
    result = subprocess.run([str(REPO / "run_all.sh"), "-i", str(fixture_corpus), "-o", str(tmp_path / "out")],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "run.txt").is_file()
    assert len(list((tmp_path / "out").glob("*.txt"))) == 6


def test_bad_record_stops_indexing_unless_skipping_is_asked_for(jvm_started, tmp_path):
    import json

    from tests.shared import write_argsme
    corpus = write_argsme(tmp_path / "corpus" / "args.json")
    data = json.loads(corpus.read_text())
    data["arguments"][2]["premises"] = "not a list"
    corpus.write_text(json.dumps(data))
    config = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")
    root = str(tmp_path / "indexes")
    code, text = cli("index", "-c", config, "-i", str(corpus.parent), "--index-root", root)
    assert code == 2
    assert f"error: {corpus}, argument #3 (1-based), id 'Sa0000002-A00000001': 'premises' must be" in text
    assert "--skip-bad-records" in text
    assert not any(p.name.startswith("argsme-") for p in (tmp_path / "indexes").glob("*") if p.is_dir())
    code, text = cli("index", "-c", config, "-i", str(corpus.parent), "--index-root", root, "--skip-bad-records")
    assert code == 0, text
    assert "documents: 4" in text and "skipped records: 1" in text
    assert "1 bad record(s) skipped" in text and "argument #3" in text


def test_the_task_is_detected_from_a_tira_input_directory(tmp_path):
    from touche.inputs import detect_task
    layouts = {
        "task1": ["args.json", "topics.xml"],
        "task1-pairs": ["args_processed.csv", "topics.xml"],
        "task2": ["ClueWeb12_00/0000wb/0000wb-00.warc.gz", "topics.xml"],
        "task2-stance": ["passages.jsonl.gz", "topics.xml"],
        "image": ["images/I00/I0011223344556677/image.webp", "topics.xml"],
    }
    for task, files in layouts.items():
        root = tmp_path / task
        for name in files:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("")
        assert detect_task(root) == task


def test_a_tira_folder_of_several_argsme_files_is_read_whole(jvm_started, tmp_path, index_root):
    """The real Task 1 input holds one JSON file per debate portal; every one of them is indexed."""
    import json

    from touche.retrieval.suite import run_suite
    arguments = json.loads((REPO / "demo" / "args.me" / "args-demo.json").read_text())["arguments"]
    portals = ["debateorg", "debatepedia", "debatewise", "idebate", "parliamentary"]
    tira = tmp_path / "in"
    tira.mkdir()
    for k, portal in enumerate(portals):
        part = arguments[k::len(portals)]
        (tira / f"{portal}.json").write_text(json.dumps({"arguments": part}), encoding="utf-8")
    (tira / "topics.xml").write_bytes((REPO / "demo" / "topics.xml").read_bytes())
    config = REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"
    outcome = run_suite(SUITE, tira, tmp_path / "out", only_config=config, index_root=index_root, progress=False)
    assert outcome.results[0].index.meta["stats"]["documents"] == len(arguments)
    found = {r.docid for r in read_run(tmp_path / "out" / "run.txt")}
    for k, portal in enumerate(portals):  # each file contributes retrieved arguments
        assert found & {a["id"] for a in arguments[k::len(portals)]}, portal


def test_run_all_says_which_task_it_detected_and_refuses_a_folder_of_two_tasks(tmp_path):
    both = tmp_path / "both"
    both.mkdir()
    (both / "topics.xml").write_text("<topics><topic><number>1</number><title>A?</title></topic></topics>")
    (both / "passages.jsonl").write_text("")
    (both / "args.csv").write_text("")
    code, text = cli("run-all", "-i", str(both), "-o", str(tmp_path / "out"))
    assert code == 2 and "holds the files of two tasks (task2-stance and task1-pairs)" in text
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "topics.xml").write_text("<topics><topic><number>1</number><title>A?</title></topic></topics>")
    code, text = cli("run-all", "-i", str(empty), "-o", str(tmp_path / "out2"))
    assert code == 2 and "holds no corpus" in text and "it holds topics.xml" in text


def test_a_topic_without_hits_is_named_not_silently_absent(jvm_started, fixture_corpus, tmp_path, index_root):
    """One topic matches, one's title has no indexed word, one is 20,001 distinct made-up words (cut
    to its first 4,000, then matching nothing): the run holds the first only, and both others are
    named (the note said "N hits for 1 topics")."""
    long_title = " ".join(f"zq{i}x" for i in range(20_001))
    topics = tmp_path / "topics.xml"
    topics.write_text("<topics><topic><number>1</number><title>Should school uniforms be mandatory?</title></topic>"
                      "<topic><number>7</number><title>Qwzzx vblorp?</title></topic>"
                      f"<topic><number>9</number><title>{long_title}</title></topic></topics>")
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus), "-t", str(topics), "-o", str(tmp_path / "run.txt"),
                     "--index-root", str(index_root))
    assert code == 0, text
    assert "topic 9: the query has 20001 distinct words; searched with its first 4000" in text
    assert "warning: 1-bm25: no hits for topics 7, 9" in text and "the run holds no line for them" in text
    assert "hits for 1 of 3 topics; none for topic 7, 9" in text
    assert {row.qid for row in read_run(tmp_path / "run.txt")} == {"1"}


def test_a_tira_run_makes_no_network_call(jvm_started, fixture_corpus, tmp_path, monkeypatch, index_root):
    from touche.retrieval.suite import run_suite

    def refuse(*args, **kwargs):
        raise AssertionError(f"network call attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert run_suite(SUITE, fixture_corpus, tmp_path / "out", index_root=index_root, progress=False).run_txt.is_file()
    assert (tmp_path / "out" / "run.txt").is_file()


def test_a_query_of_thousands_of_terms_loses_no_topic(jvm_started, fixture_corpus, tmp_path, index_root, caplog):
    """More than 1,024 distinct terms raised Lucene's TooManyClauses and ended the whole run."""
    long_title = "uniforms " + " ".join(f"word{i}" for i in range(6000))  # 6,001 distinct terms
    topics = tmp_path / "topics.xml"
    topics.write_text("<topics><topic><number>1</number><title>Should school uniforms be mandatory?</title></topic>"
                      f"<topic><number>2</number><title>{long_title}</title></topic></topics>")
    run = tmp_path / "run.txt"
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus),
                     "-t", str(topics), "-o", str(run), "--index-root", str(index_root))
    assert code == 0, text
    assert {line.split()[0] for line in run.read_text().splitlines()} == {"1", "2"}
    assert "topic 2: the query has 6001 distinct words; searched with its first 4000" in text


def test_an_unwritable_output_is_found_before_any_indexing(tmp_path, fixture_corpus, monkeypatch):
    import touche.indexing.builder as builder

    monkeypatch.setattr(builder, "build_index", lambda *a, **k: (_ for _ in ()).throw(AssertionError("indexed")))
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, text = cli("run", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus),
                     "-t", str(fixture_corpus / "topics.xml"), "-o", str(blocker / "run.txt"),
                     "--index-root", str(tmp_path / "idx"))
    assert code == 2 and "cannot create the output directory" in text and "indexed" not in text
