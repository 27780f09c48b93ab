"""The fast run reader (retrieval/formats/runtable.py) accepts exactly what the validator accepts,
and a measure scored from a table's selected rows equals the measure on every row."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.formats.test_runfile import CASES, q0_lines, stance_lines
from tests.shared import require_shared
from touche.errors import InputError
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runfile import (
    COMPARATIVE_STANCES,
    RunFormat,
    RunRow,
    numbered_lines,
    problems_and_rows,
    run_file_problems,
)
from touche.retrieval.formats.runtable import EVERY_ROW, FAST_FORMATS, RowNeed, RunTable, fast_table

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
    from tests.formats.test_runfile import image_lines
    lines = image_lines()
    pro_first, con_first = tmp_path / "a.txt", tmp_path / "b.txt"
    pro_first.write_text("".join(line + "\n" for line in lines))
    con_first.write_text("".join(line + "\n" for line in lines[10:] + lines[:10]))
    heads = [load_run(p, RunFormat.IMAGE).head(10) for p in (pro_first, con_first)]
    assert heads[0]["column2"].tolist() == heads[1]["column2"].tolist() == ["PRO"] * 10 + ["CON"] * 10
    assert heads[0]["docid"].tolist() == heads[1]["docid"].tolist()


TOPICS = ("1", "2", "3", "topic-x")  # canonical ids (a table keeps them as written)


DOCS = ("a", "b", "c", "d", "e", "f")


FORMATS = (RunFormat.Q0, RunFormat.STANCE, RunFormat.IMAGE)


FAST = settings(max_examples=30, derandomize=True, deadline=None)


@st.composite
def runs(draw, formats=FORMATS):
    """A run as a participant writes it: each ranked group (a topic; a topic and stance for
    images) with distinct ranks (any start, gaps allowed) and scores that never rise down the
    ranking (ties allowed); a document at most once per topic; image topics with one or both
    stances; rows grouped in file order or shuffled."""
    fmt = draw(st.sampled_from(formats))
    rows = []
    for qid in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3, unique=True)):
        docs = iter(draw(st.permutations(DOCS)))
        labels = draw(st.lists(st.sampled_from(("PRO", "CON")), min_size=1, max_size=2, unique=True)) \
            if fmt is RunFormat.IMAGE else [None]
        for label in labels:
            n = draw(st.integers(1, 3 if fmt is RunFormat.IMAGE else 5))
            rank = draw(st.integers(0, 2))
            score = 10.0
            for _ in range(n):
                column2 = label or (
                    "Q0" if fmt is RunFormat.Q0 else draw(st.sampled_from((*COMPARATIVE_STANCES, "Q0")))
                )
                rows.append(RunRow(qid, column2, next(docs), rank, score, "t"))
                rank += draw(st.integers(1, 3))
                score -= draw(st.sampled_from((0.0, 0.5, 1.0)))
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    return fmt, list(rows)


def group_of(row: RunRow, fmt: RunFormat) -> tuple[str, ...]:
    """The rows ranked together: a topic, or a topic and stance for image runs."""
    return (row.qid, row.column2) if fmt is RunFormat.IMAGE else (row.qid,)


def ranked_groups(rows, fmt) -> dict[tuple[str, ...], list[RunRow]]:
    """Each ranked group's rows in rank order (plain Python)."""
    groups = defaultdict(list)
    for row in rows:
        groups[group_of(row, fmt)].append(row)
    return {g: sorted(members, key=lambda r: (r.rank, -r.score)) for g, members in groups.items()}


def by_group(rows, fmt) -> dict[tuple[str, ...], list[tuple[str, int]]]:
    """A table's rows per ranked group, in the order the table gives them: (docid, rank) each."""
    out = defaultdict(list)
    for row in rows:
        out[group_of(row, fmt)].append((row.docid, row.rank))
    return dict(out)


def frame_rows(frame) -> list[RunRow]:
    return [RunRow(*values) for values in frame[["qid", "column2", "docid", "rank", "score", "tag"]]
            .itertuples(index=False, name=None)]


# --------------------------------------------------------------------------- the rows a measure reads
def reference_keep(rows, fmt, need: RowNeed, judged) -> list[bool]:
    """Which rows ``need`` asks for, computed row by row: ranked ≤ rank_depth, scored at least
    as high as the group's k-th best score (as 32-bit floats, trec_eval's ties), judged."""
    if need.every:
        return [True] * len(rows)
    threshold = {}
    for group, members in ranked_groups(rows, fmt).items():
        best = sorted((np.float32(r.score) for r in members), reverse=True)
        threshold[group] = best[min(need.score_depth, len(best)) - 1] if need.score_depth else None
    keep = []
    for row in rows:
        by_rank = bool(need.rank_depth) and row.rank <= need.rank_depth
        by_score = bool(need.score_depth) and np.float32(row.score) >= threshold[group_of(row, fmt)]
        is_judged = bool(need.judged) and row.docid in (judged or {}).get(row.qid, {})
        keep.append(by_rank or by_score or is_judged)
    return keep


needs = st.builds(RowNeed, rank_depth=st.integers(0, 4), score_depth=st.integers(0, 4),
                  judged=st.booleans(), every=st.sampled_from((False, False, False, True)))


judgements = st.dictionaries(st.sampled_from((*TOPICS, "99")),
                             st.dictionaries(st.sampled_from((*DOCS, "zz")), st.integers(0, 2), max_size=4), max_size=4)


@FAST
@given(runs(), needs, judgements)
def test_a_table_selects_the_rows_each_measure_reads(run, need, judged):
    """``select``/``mask``/``subset`` give exactly the rows ranked within the depth, the k best by
    score per ranked group (ties at the cut kept), and the judged ones (only when the measure
    asks for judged rows), in file order; ``every`` gives all of them."""
    fmt, rows = run
    table = RunTable.from_rows(rows, fmt)
    assert len(table) == len(rows)
    expected = [row for row, keep in zip(rows, reference_keep(rows, fmt, need, judged)) if keep]
    assert table.select(need, judged) == expected
    assert table.subset(need, judged).records() == expected


@FAST
@given(runs(), needs, needs, judgements)
def test_a_union_of_needs_selects_the_rows_either_selects(run, first, second, judged):
    """Measures asked together read the union of what each reads (``RowNeed | RowNeed``)."""
    fmt, rows = run
    table = RunTable.from_rows(rows, fmt)
    union = first | second
    assert union == RowNeed(max(first.rank_depth, second.rank_depth), max(first.score_depth, second.score_depth),
                            first.judged or second.judged, first.every or second.every)
    either = [a or b for a, b in zip(reference_keep(rows, fmt, first, judged),
                                     reference_keep(rows, fmt, second, judged))]
    assert table.select(union, judged) == [row for row, keep in zip(rows, either) if keep]


def test_union_of_needs_by_hand():
    assert RowNeed(rank_depth=5) | RowNeed(score_depth=3, judged=True) == RowNeed(5, 3, True, False)
    assert RowNeed(rank_depth=2, score_depth=7) | EVERY_ROW == RowNeed(2, 7, False, True)
    assert RowNeed(judged=True) | RowNeed() == RowNeed(judged=True)


def test_judged_rows_count_only_for_a_measure_that_reads_them():
    """A qrels' judged documents add rows only to a measure that asks for judged rows; one that
    asks for them with no qrels at hand reads none."""
    rows = [RunRow("1", "Q0", d, i + 1, 10.0 - i, "t") for i, d in enumerate("abcd")]
    table = RunTable.from_rows(rows, RunFormat.Q0)
    judged = {"1": {"d": 2}}
    assert [r.docid for r in table.select(RowNeed(rank_depth=1), judged)] == ["a"]
    assert [r.docid for r in table.select(RowNeed(rank_depth=1, judged=True), judged)] == ["a", "d"]
    assert table.select(RowNeed(judged=True), None) == []
    assert table.subset(EVERY_ROW) is table


@FAST
@given(runs(), judgements)
def test_judged_mask_marks_the_rows_whose_topic_and_document_are_judged(run, judged):
    fmt, rows = run
    table = RunTable.from_rows(rows, fmt)
    assert table.judged_mask(judged).tolist() == [row.docid in judged.get(row.qid, {}) for row in rows]


# --------------------------------------------------------------------------- a page's rows
@FAST
@given(runs(), st.integers(0, 4))
def test_head_shows_the_first_rows_of_each_ranked_group_in_rank_order(run, top):
    """A page shows each topic's (each topic and stance's, for images) first ``top`` rows by rank."""
    fmt, rows = run
    table = RunTable.from_rows(rows, fmt)
    expected = {g: [(r.docid, r.rank) for r in members[:top]] for g, members in ranked_groups(rows, fmt).items()}
    assert by_group(frame_rows(table.head(top)), fmt) == {g: m for g, m in expected.items() if m}


def test_an_image_topic_with_one_stance_is_its_own_group():
    """Images rank per topic and stance: topic 2 holding CON images only does not run on from
    topic 1's CON images (nor topic 3's PRO from topic 2's PRO)."""
    rows = [RunRow("1", "PRO", "p1", 1, 9.0, "t"), RunRow("1", "CON", "c1", 1, 8.0, "t"),
            RunRow("1", "CON", "c2", 2, 7.0, "t"), RunRow("2", "CON", "c3", 1, 6.0, "t"),
            RunRow("3", "PRO", "p4", 1, 5.0, "t"), RunRow("3", "PRO", "p5", 2, 4.0, "t")]
    table = RunTable.from_rows(rows, RunFormat.IMAGE)
    assert sorted(table.head(1)["docid"].tolist()) == ["c1", "c3", "p1", "p4"]


# --------------------------------------------------------------------------- restricted runs
@FAST
@given(runs(), st.sets(st.sampled_from(DOCS)))
def test_a_run_kept_to_a_collection_is_ranked_again_within_each_group(run, collection):
    """``keeping(docids)``: the other rows dropped, each ranked group's rest in its rank order
    and ranked 1, 2, … (topics per stance for images; a stance run's labels are no groups); a
    collection holding every document leaves the run as it is."""
    fmt, rows = run
    table = RunTable.from_rows(rows, fmt)
    kept = table.keeping(set(collection))
    if all(row.docid in collection for row in rows):
        assert kept.records() == rows
        return
    expected = {}
    for group, members in ranked_groups(rows, fmt).items():
        rest = [r.docid for r in members if r.docid in collection]
        if rest:
            expected[group] = [(d, i) for i, d in enumerate(rest, start=1)]
    assert by_group(kept.records(), fmt) == expected
    assert len(kept) == sum(map(len, expected.values()))


def test_a_stance_run_kept_to_a_collection_ranks_each_topic_not_each_label():
    rows = [RunRow("1", "FIRST", "a", 1, 3.0, "t"), RunRow("1", "SECOND", "b", 2, 2.0, "t"),
            RunRow("1", "FIRST", "c", 3, 1.0, "t"), RunRow("2", "NO", "d", 1, 1.0, "t")]
    kept = RunTable.from_rows(rows, RunFormat.STANCE).keeping({"b", "c", "d"})
    assert [(r.qid, r.column2, r.docid, r.rank) for r in kept.records()] == \
        [("1", "SECOND", "b", 1), ("1", "FIRST", "c", 2), ("2", "NO", "d", 1)]


def test_an_image_run_kept_to_a_collection_ranks_each_topic_and_stance():
    rows = [RunRow("1", "PRO", "p1", 1, 9.0, "t"), RunRow("1", "PRO", "p2", 2, 8.0, "t"),
            RunRow("1", "CON", "c1", 1, 7.0, "t"), RunRow("1", "CON", "c2", 2, 6.0, "t")]
    kept = RunTable.from_rows(rows, RunFormat.IMAGE).keeping({"p2", "c1", "c2"})
    assert sorted((r.column2, r.docid, r.rank) for r in kept.records()) == \
        [("CON", "c1", 1), ("CON", "c2", 2), ("PRO", "p2", 1)]


# --------------------------------------------------------------------------- which row holds a pair
@FAST
@given(runs(), st.lists(st.tuples(st.sampled_from((*TOPICS, "99")), st.sampled_from((*DOCS, "zz"))), max_size=12))
def test_rows_of_finds_the_first_row_holding_each_topic_and_document(run, pairs):
    """-1 for a pair the run does not hold: an unknown topic or document, or a topic and a
    document both in the run but never together."""
    fmt, rows = run
    first = {}
    for i, row in enumerate(rows):
        first.setdefault((row.qid, row.docid), i)
    table = RunTable.from_rows(rows, fmt)
    found = table.rows_of([q for q, _ in pairs], [d for _, d in pairs])
    assert found.tolist() == [first.get(pair, -1) for pair in pairs]


def test_rows_of_by_hand():
    rows = [RunRow("1", "Q0", "a", 1, 3.0, "t"), RunRow("1", "Q0", "b", 2, 2.0, "t"),
            RunRow("2", "Q0", "a", 1, 1.0, "t")]
    table = RunTable.from_rows(rows, RunFormat.Q0)
    # (2, b): both ids in the run, never together, and past the run's last (topic, document)
    assert table.rows_of(["1", "1", "2", "2", "3", "1"], ["a", "b", "a", "b", "a", "c"]).tolist() == \
        [0, 1, 2, -1, -1, -1]


def test_rows_of_an_empty_run_finds_nothing():
    table = RunTable.from_rows([], RunFormat.Q0)
    assert len(table) == 0
    assert table.rows_of(["1", "2"], ["a", "b"]).tolist() == [-1, -1]


# --------------------------------------------------------------------------- the fast reader's files
def as_validator_reads(path: Path, fmt: RunFormat) -> list[RunRow]:
    problems, rows = problems_and_rows(numbered_lines(path), fmt, None)
    assert not any(p.is_error for p in problems)
    return rows


def test_a_clean_run_with_windows_line_ends_is_read_by_the_fast_reader(tmp_path: Path):
    """CR before every LF splits as the validator splits: read at library speed, as it reads."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 a 1 2.5 t\r\n1 Q0 b 2 1.5 t\r\n2 Q0 a 1 3 t\r\n")
    table = fast_table(path.read_bytes(), RunFormat.Q0)
    assert table is not None, "a clean CRLF run went to the slow path"
    assert table.records() == as_validator_reads(path, RunFormat.Q0)


def test_a_run_whose_ids_hold_true_or_false_is_read_with_numeric_scores(tmp_path: Path):
    """A tag or id holding the letters of a boolean makes the reader check scores as text; the
    scores it returns are still the validator's numbers."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 true-doc 1 2.5 falsehood\n1 Q0 b 2 -1e-1 falsehood\n")
    table = fast_table(path.read_bytes(), RunFormat.Q0)
    assert table is not None
    assert table.frame["score"].dtype == np.float64
    assert table.records() == as_validator_reads(path, RunFormat.Q0)
    assert [r.score for r in table.records()] == [2.5, -0.1]


def test_a_run_that_is_not_utf8_is_left_to_the_validator(tmp_path: Path):
    """Latin-1 bytes: the fast reader does not read the file; the validator refuses it by name."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 caf\xe9 1 2.5 t\n")
    assert fast_table(path.read_bytes(), RunFormat.Q0) is None
    with pytest.raises(InputError, match="not UTF-8"):
        load_run(path, RunFormat.Q0)
