"""The fast run reader (retrieval/formats/runtable.py) accepts exactly what the validator accepts,
and a measure scored from a table's selected rows equals the measure on every row."""
from __future__ import annotations

from pathlib import Path

import pytest
from shared import require_shared
from test_runfile import CASES, q0_lines, stance_lines

from touche.errors import InputError
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runfile import RunFormat, numbered_lines, problems_and_rows, run_file_problems
from touche.retrieval.formats.runtable import FAST_FORMATS, RowNeed, RunTable, fast_table

ERROR_CASES = [c for c in CASES if c[4][1] == "error" and c[1] in FAST_FORMATS and c[3] is None]
# Errors the validator finds only with a line the one-space splitter reads otherwise.
SPLITTER_CASES = {
    "tab inside an id": "1 Q0 d\tx 1 5 t\n",
    "two spaces": "1 Q0 d1  1 5 t\n",
    "trailing field": "1 Q0 d1 1 5 t extra\n",
    "rank as a float": "1 Q0 d1 1.0 5 t\n",
    "rank in exponent form": "1 Q0 d1 1e0 5 t\n",
    "score nan": "1 Q0 d1 1 nan t\n",
    "score inf": "1 Q0 d1 1 inf t\n",
    "control character": "1 Q0 d\x01 1 5 t\n",
    "lone carriage return": "1 Q0 d1 1 5 t\r1 Q0 d2 2 4 t\n",
    "quote in an id": '1 Q0 "d1 1 5 t\n',
    "unicode space": "1 Q0 d\u20031 1 5 t\n",
    "empty quoted tag": '1 Q0 d1 1 5 ""\n',
    "short line": "1 Q0 d1 1\n",
    "seven columns on every line": "x 1 Q0 d1 1 2.5 t\nx 1 Q0 d2 2 1.5 t\n",  # pandas would index by the first
}


@pytest.mark.parametrize("fmt, lines", [c[1:3] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_fast_reader_never_accepts_a_run_the_validator_refuses(tmp_path: Path, fmt: RunFormat, lines) -> None:
    path = tmp_path / "run.txt"
    path.write_text("".join(line + "\n" for line in lines))
    assert any(p.is_error for p in run_file_problems(path, fmt))
    assert fast_table(path.read_bytes(), fmt) is None
    with pytest.raises(InputError, match="not a valid"):
        load_run(path, fmt)


@pytest.mark.parametrize("text", SPLITTER_CASES.values(), ids=SPLITTER_CASES.keys())
def test_fast_reader_leaves_lines_it_cannot_split_as_the_validator_does_to_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="utf-8", newline="")
    assert fast_table(path.read_bytes(), RunFormat.Q0) is None
    problems, rows = problems_and_rows(numbered_lines(path), RunFormat.Q0, None)
    if not any(p.is_error for p in problems):  # a tab between fields is legal: the validator's rows
        assert load_run(path, RunFormat.Q0).records() == rows


@pytest.mark.parametrize("fmt, text", [
    (RunFormat.Q0, "".join(line + "\n" for line in q0_lines(50) + q0_lines(30, qid="007"))),
    (RunFormat.STANCE, "".join(line + "\n" for line in stance_lines(20))),
    (RunFormat.Q0, "\ufeff1 Q0 d1 1 5 t\r\n1 Q0 d2 2 5 t\r\n\n2 Q0 é 1 3.5e-1 t\r\n"),  # BOM, CRLF, blank, UTF-8
])
def test_fast_reader_reads_clean_runs_as_the_validator_does(tmp_path: Path, fmt: RunFormat, text: str) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    assert fast_table(path.read_bytes(), fmt) is not None, "a clean run went to the slow path"
    problems, rows = problems_and_rows(numbered_lines(path), fmt, None)
    assert not any(p.is_error for p in problems)
    expected = [r.__class__(str(int(r.qid)) if r.qid.isdecimal() else r.qid, *(getattr(r, f) for f in
                ("column2", "docid", "rank", "score", "tag"))) for r in rows]
    assert load_run(path, fmt).records() == expected  # canonical topic ids: 007 is 7


def test_row_needs_select_what_each_measure_reads(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    # topic 1: ranks 1..8, scores tied at the 2nd and 3rd place; topic 2 ranks from 0
    path.write_text("1 Q0 a 1 9 t\n1 Q0 b 2 8 t\n1 Q0 c 3 8 t\n1 Q0 d 4 7 t\n1 Q0 e 5 6 t\n"
                    "2 Q0 a 0 5 t\n2 Q0 f 1 4 t\n2 Q0 g 2 3 t\n")
    table = load_run(path, RunFormat.Q0)
    docids = lambda need, judged=None: [(r.qid, r.docid) for r in table.select(need, judged)]  # noqa: E731
    assert docids(RowNeed(rank_depth=1)) == [("1", "a"), ("2", "a"), ("2", "f")]
    assert docids(RowNeed(score_depth=2)) == [("1", "a"), ("1", "b"), ("1", "c"), ("2", "a"), ("2", "f")]
    assert docids(RowNeed(judged=True), {"1": {"d": 1}, "2": {"g": 0}}) == [("1", "d"), ("2", "g")]
    assert len(table.select(RowNeed(every=True))) == 8
    assert table.head(2)["docid"].tolist() == ["a", "b", "a", "f"]


def test_scores_from_selected_rows_equal_scores_from_every_row() -> None:
    """Every default measure of Touché's graded and stance qrels, on the 16 official Task 2 2022
    runs: the table's rows (the first 5, the judged ones …) give the same means and per-topic values."""
    shared = require_shared()
    qrels = {"relevance": shared / "qrels" / "task2-2022-relevance.qrels",
             "quality": shared / "qrels" / "task2-2022-quality.qrels",
             "stance": shared / "qrels" / "task2-2022-stance.qrels"}
    qrels = {k: v for k, v in qrels.items() if v.is_file()}
    if len(qrels) < 3:
        pytest.skip("Task 2 2022 qrels not in ../shared")
    runs = sorted((shared / "runs" / "task2-2022").glob("*.txt"))
    assert len(runs) == 16
    for path in runs:
        table = load_run(path, RunFormat.STANCE)
        rows = table.records()
        assert evaluate_rows(table, qrels) == evaluate_rows(rows, qrels), path.name
        assert evaluate_rows_per_topic(table, qrels) == evaluate_rows_per_topic(rows, qrels), path.name
        cut = ["trec.Judged@5", "trec.P@10", "trec.nDCG@10", "touche2021.nDCG@5"]  # the k best by score only
        assert evaluate_rows(table, qrels, cut) == evaluate_rows(rows, qrels, cut), path.name
        assert evaluate_rows_per_topic(table, qrels, cut) == evaluate_rows_per_topic(rows, qrels, cut), path.name
        assert isinstance(table, RunTable) and len(table) == len(rows)


def test_judged_only_measures_read_every_row(tmp_path: Path):
    """trec_eval's judged_only drops unjudged documents before the cut-off, so judged ones ranked
    below k count: the k best by score are not enough."""
    path, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    path.write_text("".join(f"1 Q0 d{i} {i} {100 - i} t\n" for i in range(1, 11)))
    qrels.write_text("1 0 d8 2\n1 0 d9 1\n1 0 d1 0\n")
    table = load_run(path, RunFormat.Q0)
    measures = ["trec.nDCG(judged_only=True)@5", "trec.P(judged_only=True)@2"]
    assert evaluate_rows(table, qrels, measures) == evaluate_rows(table.records(), qrels, measures)
    assert evaluate_rows(table, qrels, measures)["trec.P(judged_only=True)@2"] == 0.5


def test_image_runs_rank_pro_before_con_whatever_the_files_order(tmp_path: Path):
    from test_runfile import image_lines
    lines = image_lines()
    pro_first, con_first = tmp_path / "a.txt", tmp_path / "b.txt"
    pro_first.write_text("".join(line + "\n" for line in lines))
    con_first.write_text("".join(line + "\n" for line in lines[10:] + lines[:10]))
    heads = [load_run(p, RunFormat.IMAGE).head(10) for p in (pro_first, con_first)]
    assert heads[0]["column2"].tolist() == heads[1]["column2"].tolist() == ["PRO"] * 10 + ["CON"] * 10
    assert heads[0]["docid"].tolist() == heads[1]["docid"].tolist()
