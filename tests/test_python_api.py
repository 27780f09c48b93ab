"""docs/python-api.md runs: every code block, in order, in one namespace; each `print` must
print what the `# …` line after it says. Plus the API's own edges."""
from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parent.parent

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
    with pytest.raises(
        ConfigError, match=r"no shipped variant of that name \(shipped: .*task1/1-krovetz-smart-lmd2000-quality"
    ):
        api.variant("task1/no-such-variant")


def test_python_dash_m_touche_is_the_command():
    result = subprocess.run([sys.executable, "-m", "touche", "--help"], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0 and "run-all" in result.stdout


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
