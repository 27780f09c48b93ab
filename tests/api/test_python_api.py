"""docs/python-api.md runs: every code block, in order, in one namespace; each `print` must
print what the `# …` line after it says. Plus the API's own edges."""
from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys

import pandas as pd
import pytest

from tests.shared import DEMO, RELEVANCE, REPO, judged_documents, one_topic_run
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.topics import read_topics

DOC = REPO / "docs" / "python-api.md"


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def expected_output(block: str) -> list[str]:
    """The `# …` lines that follow a print: what the print shows."""
    lines = block.splitlines()
    return [line[2:] for i, line in enumerate(lines) if line.startswith("# ") and i and
            (lines[i - 1].startswith("print(") or lines[i - 1].startswith("# "))]


@pytest.fixture(scope="module")
def doc_namespace(jvm_started, tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOUCHE_INDEX_ROOT", str(tmp_path_factory.mktemp("api-indexes")))
        namespace: dict = {}
        outputs = []
        for block in code_blocks(DOC.read_text(encoding="utf-8")):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(block, str(DOC), "exec"), namespace)
            outputs.append((block, printed.getvalue().splitlines()))
        yield namespace, outputs


def test_the_doc_has_snippets_for_each_promised_step():
    text = "\n".join(code_blocks(DOC.read_text(encoding="utf-8")))
    for call in ("api.variant(", "api.index(", "api.search(", "api.evaluate(", "api.write(", "per_topic=True",
                 "api.experiment(", "api.report("):
        assert call in text


def test_every_snippet_prints_what_the_doc_says(doc_namespace):
    _, outputs = doc_namespace
    assert outputs
    for block, printed in outputs:
        assert printed == expected_output(block), block


def test_a_searched_frame_scores_as_its_written_run_file(doc_namespace, tmp_path):
    from touche import api
    namespace, _ = doc_namespace
    run = namespace["run"]
    qrels = api.DEMO / "qrels-relevance.txt"
    written = api.write(run, tmp_path / "run.txt", tag="t")
    assert api.evaluate(run, qrels) == api.evaluate(written, qrels)
    # shuffled rows are ranked again by score, as the run file would be
    assert api.evaluate(run.sample(frac=1, random_state=3), qrels) == api.evaluate(written, qrels)


def test_a_frame_built_by_hand_is_scored_like_touche_evaluate(tmp_path):
    from touche import api
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n")
    frame = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    # ranking b (0), a (2), c (1), gain = label: DCG = 0/log2(2) + 2/log2(3) + 1/log2(4); ideal 2 + 1/log2(3)
    import math
    expected = (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))
    assert api.evaluate(frame, qrels, ["touche.nDCG@5"])["touche.nDCG@5"] == pytest.approx(expected)


def test_a_frame_with_a_document_twice_is_refused_and_writes_nothing(tmp_path):
    from touche import api
    from touche.errors import InputError
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="docid a given twice for topic 1"):
        api.write(frame, tmp_path / "run.txt", tag="t")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_variant_name_lists_the_shipped_ones():
    from touche import api
    from touche.errors import ConfigError
    with pytest.raises(ConfigError, match=r"no shipped variant \(shipped: .*task1/1-krovetz-smart-lmd2000-quality"):
        api.variant("task1/no-such-variant")


def test_python_dash_m_touche_is_the_command():
    result = subprocess.run([sys.executable, "-m", "touche", "--help"], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0 and "run-all" in result.stdout


# --------------------------------------------------------------------------- the API does what the commands do
def test_validate_from_python_says_what_the_command_prints(tmp_path, capsys):
    from touche import api
    from touche.cli import main
    from touche.retrieval.formats.verdicts import status_of
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 2.0 t\n2 Q0 a 1 1.0 t\n2 Q0 a 2 0.5 t\n")
    missing = tmp_path / "nothing.txt"
    verdicts = api.validate([run, missing])
    code = main(["validate", str(run), str(missing)])
    printed = capsys.readouterr().out.splitlines()
    assert printed == [line for verdict in verdicts for line in verdict.lines()]
    assert code == status_of(verdicts) == 2 and verdicts[0].status == 1 and len(verdicts[0].errors) == 1
    assert verdicts[0].lines(verbose=True)[-1].startswith(f"{run}: 1 error(s) as Q0 run, 1 warning(s)")


def test_explore_from_python_takes_every_option_the_command_takes(tmp_path):
    from tests.shared import demo_run
    from touche import api
    from touche.cli import main
    runs = [str(demo_run(tmp_path / "a.txt", tag="a")), str(demo_run(tmp_path / "b.txt", tag="b"))]
    qrels = REPO / "demo" / "qrels-relevance.txt"
    options = {"rbo_p": 0.8, "resamples": 500, "test": "t", "correction": "bonferroni", "top": 3, "baseline": "b.txt"}
    api.explore(runs, [f"relevance={qrels}"], out=tmp_path / "api.html", markdown=tmp_path / "api.md",
                latex=tmp_path / "api.tex", csv=tmp_path / "api.csv", topics_except="6", **options)
    assert main(["explore", *runs, "--qrels", f"relevance={qrels}", "-o", str(tmp_path / "cli.html"), "--markdown",
                 str(tmp_path / "cli.md"), "--latex", str(tmp_path / "cli.tex"), "--csv", str(tmp_path / "cli.csv"),
                 "--topics-except", "6", "--rbo-p", "0.8", "--resamples", "500", "--test", "t", "--correction",
                 "bonferroni", "--top", "3", "--baseline", "b.txt"]) == 0
    for kind in ("md", "tex", "csv"):
        assert (tmp_path / f"api.{kind}").read_text() == (tmp_path / f"cli.{kind}").read_text()
    from tests.experiments.test_explorer import page_data
    data = page_data(tmp_path / "api.html")
    assert (data["rbo_p"], data["resamples"], data["test"], data["correction"], data["top"], data["baseline"]) == \
        (0.8, 500, "t", "bonferroni", 3, "b")
    assert data == {**page_data(tmp_path / "cli.html"), "created": data["created"]}
    assert {line.split(",")[1] for line in (tmp_path / "api.csv").read_text().splitlines()[1:]} == \
        {"1", "2", "3", "4", "5"}  # all topics but 6


def test_sweep_and_choose_from_python(jvm_started, index_root, tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche import api
    from touche.retrieval.experiments.sweep import SweepPlan
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(topics_only=[1, 2, 3])}, tmp_path / "out")
    plan = api.sweep(path, dry_run=True)
    assert isinstance(plan, SweepPlan) and [state for _, state, _, _ in plan.runs] == ["todo", "todo"]
    assert plan.lines()[-1] == f"2 points on 1 sets, 2 to run; output {tmp_path / 'out'}"
    outcome = api.sweep(path, index_root=index_root, progress=False)
    assert outcome.computed == 2
    assert outcome.summary()[0].startswith("2 of 2 runs (2 points × 1 sets) finished (2 run now")
    assert [state for _, state, _, _ in api.sweep(path, dry_run=True).runs] == ["done", "done"]
    picks = api.choose(tmp_path / "out", tmp_path / "chosen", count=1, reference=False, progress=False)
    assert len(picks) == 1 and (tmp_path / "chosen" / "suite.yaml").is_file()
def test_a_report_written_as_json_reads_back_and_every_format_by_its_suffix(tmp_path):
    """The report api.report returns is the one evaluate writes: a JSON file of it reads back equal,
    and write_report picks the format from the suffix (or refuses to guess)."""
    from touche import api
    from touche.errors import InputError
    run = tmp_path / "a.txt"
    run.write_text("1 Q0 d1 1 2 t\n1 Q0 d2 2 1 t\n2 Q0 d3 1 1 t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 0\n1 0 d2 1\n2 0 d3 2\n")
    report = api.report(run, qrels, ["touche.nDCG@5", "trec.P@1"])
    assert report.runs[0].name == "a" and report.runs[0].topics == {"touche.nDCG@5": 2, "trec.P@1": 2}
    assert report.runs[0].per_topic["trec.P@1"] == {"1": 0.0, "2": 1.0}
    for suffix, start in ((".json", "{"), (".csv", "run,query_id,measure,value,topics"), (".md", "| run"),
                          (".tex", "% touche evaluate")):
        assert api.write_report(report, tmp_path / f"r{suffix}").read_text().startswith(start)
    assert api.read_report(tmp_path / "r.json") == report
    with pytest.raises(InputError, match="say which format"):
        api.write_report(report, tmp_path / "r.txt")


@pytest.mark.parametrize("door", ["api.search", "tpt.Variant"])
def test_a_dense_variants_first_encoding_reports_its_progress_by_default(door, jvm_started, index_root, tmp_path,
                                                                          monkeypatch, capsys):
    """The first dense run of a variant showed nothing for 12 minutes: the API's progress was off."""
    from touche import api
    monkeypatch.setenv("TOUCHE_MODEL_CACHE", str(tmp_path / "models"))  # nothing encoded yet
    monkeypatch.setenv("TOUCHE_PROGRESS", "lines")
    corpus, topics = api.DEMO / "task2" / "passages.jsonl", api.DEMO / "task2" / "topics-passages.xml"
    if door == "api.search":
        api.search("task2-stance/3-rerank", topics, corpus, index_root=index_root)
    else:
        tpt = pytest.importorskip("touche.pyterrier")
        tpt.Variant("task2-stance/3-rerank", corpus=corpus, index_root=index_root).transform(tpt.topics(topics))
    said = capsys.readouterr().err
    assert re.search(r"dense encoding, once: the vectors are kept for later runs: [0-9,]+ texts in", said), said
    monkeypatch.setenv("TOUCHE_MODEL_CACHE", str(tmp_path / "again"))
    api.search("task2-stance/3-rerank", topics, corpus, index_root=index_root, progress=False)
    assert "dense encoding" not in capsys.readouterr().err


def test_api_mistakes_are_touche_errors_naming_the_argument(jvm_started, tmp_path):
    from touche import api
    from touche.errors import ToucheError
    with pytest.raises(ToucheError, match="variant\\(''\\)"):
        api.variant("")
    run = one_topic_run(tmp_path / "run.txt", judged_documents()[:5])
    assert api.evaluate(run, RELEVANCE, "touche.nDCG@5")["touche.nDCG@5"] > 0  # one name, not a list
    frame = api.frame_of_rows(read_run(run))
    (tmp_path / "folder").mkdir()
    with pytest.raises(ToucheError, match="is a directory") as error:
        api.write(frame, tmp_path / "folder", "tag")
    assert str(tmp_path / "folder") in str(error.value) and ".tmp" not in str(error.value)
    (tmp_path / "root-file").write_text("")
    with pytest.raises(ToucheError, match="index root is a file") as error:
        api.index("task1/1-krovetz-smart-lmd2000-quality", DEMO / "args.me", index_root=tmp_path / "root-file")
    assert str(tmp_path / "root-file") in str(error.value)
    topics = tmp_path / "topics.xml"
    topics.write_text(f"<topics><topic><number>{10**30}</number><title>x</title></topic></topics>")
    with pytest.raises(ToucheError, match="has 31 digits"):
        read_topics(topics)
