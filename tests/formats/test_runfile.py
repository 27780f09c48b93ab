"""Run files (retrieval/formats/runfile.py): reading, validating (each problem at its line, in
line order), detecting the format, official runs. Writing: test_runwriter.py."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import RELEVANCE, cli, require_shared
from touche.errors import InputError
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runfile import (
    Problem,
    RunFormat,
    RunRow,
    Severity,
    canonical_topic,
    detect_format,
    natural_key,
    problems_and_rows,
    run_file_problems,
    run_file_warnings,
)

SID = "S21dc5a14-A8b896cb0__PREMISE__{}"
CONC = "S30dbd85-A2d776428__CONC__1"


def image_id(n: int) -> str:
    return f"I{n:016x}"


def pair_id(n: int) -> str:
    return f"{SID.format(n)},{CONC}"


# ------------------------------------------------------------------------------- reading


def test_reader_tolerates_tabs_quoted_tags_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text('1\tQ0\td1\t1\t2.5\t"my tag"\n\n1 Q0  d2 2 1e-3 "my tag"\r\n')
    assert read_run(path) == [RunRow("1", "Q0", "d1", 1, 2.5, "my tag"), RunRow("1", "Q0", "d2", 2, 0.001, "my tag")]


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        ("1 Q0 d1 1 2.5\n", None, "expected 6 columns `qid Q0 docid rank score tag`, found 5"),
        ("1 Q0 d1 one 2.5 t\n", None, "rank 'one' is not an integer"),
        ("1 Q0 d1 1.0 2.5 t\n", None, "rank '1.0' is not an integer"),
        ("1 Q0 d1 1 high t\n", None, "score 'high' is not a finite number"),
        ("1 Q0 d1 1 nan t\n", None, "score 'nan' is not a finite number"),
        ("1 PRO d1 1 2.5 t\n", "q0", "'PRO' is not allowed in a Q0 run"),
        ("1 Q0 d1 1 2.5 two words\n", None, "found 7"),
    ],
)
def test_reader_errors_name_file_and_line(tmp_path: Path, text: str, fmt: str | None, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("1 Q0 d0 0 9.0 t\n" + text)
    with pytest.raises(InputError) as caught:
        read_run(path, fmt)
    assert str(caught.value).startswith(f"{path}, line 2: ")
    assert message in str(caught.value)


def test_reader_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="run file not found"):
        read_run(tmp_path / "nope.txt")


# ---------------------------------------------------------------------------- validation


def q0_lines(n: int, qid: str = "1", tag: str = "t") -> list[str]:
    return [f"{qid} Q0 d{i} {i} {100 - i} {tag}" for i in range(1, n + 1)]


def image_lines(qid: str = "1", start: int = 0) -> list[str]:
    return [
        f"{qid} {stance} {image_id(start + s * 10 + i)} {i + 1} {10 - i} t"
        for s, stance in enumerate(("PRO", "CON"))
        for i in range(10)
    ]


def pair_lines(n: int = 100, qid: str = "1") -> list[str]:
    return [f"{qid} PRO {pair_id(i)} {i + 1} {1000 - i} t" for i in range(n)]


def stance_lines(n: int = 3) -> list[str]:
    labels = ["FIRST", "SECOND", "NEUTRAL", "NO", "Q0"]
    return [f"1 {labels[i % 5]} clueweb12-0000wb-00-00000___{i} {i + 1} {50 - i} t" for i in range(n)]


def replace(lines: list[str], index: int, text: str) -> list[str]:
    return lines[:index] + [text] + lines[index + 1 :]


# (format, lines, expected topics or None, (line, severity, message part))
CASES = [
    ("column count", RunFormat.Q0, replace(q0_lines(3), 1, "1 Q0 d2 2 98"), None, (2, "error", "expected 6 columns")),
    ("rank not a number", RunFormat.Q0, replace(q0_lines(3), 2, "1 Q0 d3 x 97 t"), None,
     (3, "error", "rank 'x' is not an integer")),
    ("score not a number", RunFormat.Q0, replace(q0_lines(3), 2, "1 Q0 d3 3 - t"), None,
     (3, "error", "score '-' is not a finite number")),
    ("negative rank", RunFormat.Q0, ["1 Q0 d1 -1 5 t"], None, (1, "error", "rank -1 is negative")),
    ("bad column2 q0", RunFormat.Q0, replace(q0_lines(3), 1, "1 FIRST d2 2 98 t"), None,
     (2, "error", "'FIRST' is not allowed in a Q0 run")),
    ("bad column2 stance", RunFormat.STANCE, replace(stance_lines(), 0, "1 PRO clueweb12-0000wb-00-00000___0 1 50 t"),
     None, (1, "error", "expected FIRST|SECOND|NEUTRAL|NO|Q0")),
    ("bad column2 image", RunFormat.IMAGE, replace(image_lines(), 3, f"1 Q0 {image_id(3)} 4 7 t"), None,
     (4, "error", "expected PRO|CON")),
    ("bad column2 pairs", RunFormat.PAIRS, replace(pair_lines(), 4, f"1 NO {pair_id(4)} 5 996 t"), None,
     (5, "error", "expected PRO|CON|Q0")),
    ("duplicate docid", RunFormat.Q0, q0_lines(3) + ["1 Q0 d2 4 90 t"], None,
     (4, "error", "duplicate docid d2 (first on line 2)")),
    ("image in two stances", RunFormat.IMAGE, replace(image_lines(), 19, f"1 CON {image_id(0)} 10 1 t"), None,
     (20, "error", f"image {image_id(0)} is both PRO (line 1) and CON")),
    ("too many rows", RunFormat.Q0, q0_lines(1001), None,
     (1001, "error", "topic 1 has 1001 rows; at most 1000 allowed")),
    ("too many images", RunFormat.IMAGE, image_lines() + [f"1 PRO {image_id(99)} 11 0 t"], None,
     (21, "error", "topic 1 (PRO) has 11 images; exactly 10")),
    ("too few images", RunFormat.IMAGE, image_lines()[:-1], None, (19, "error", "topic 1 (CON) has 9 images")),
    ("missing stance", RunFormat.IMAGE, image_lines()[:10], None, (1, "error", "topic 1 has no CON images")),
    ("too few pairs", RunFormat.PAIRS, pair_lines(99), None,
     (1, "warning", "topic 1 has 99 rows; Touché asks for at least 100")),
    ("score increases", RunFormat.Q0, replace(q0_lines(4), 2, "1 Q0 d3 3 120 t"), None,
     (3, "error", "score 120.0 at rank 3 is higher than 98.0 at rank 2 (line 2)")),
    ("duplicated rank", RunFormat.Q0, replace(q0_lines(3), 2, "1 Q0 d3 2 97 t"), None,
     (3, "error", "rank 2 already used on line 2")),
    ("ranks from 0", RunFormat.Q0, ["1 Q0 a 0 3 t", "1 Q0 b 1 2 t"], None, (1, "warning", "ranks start at 0, not 1")),
    ("rank gap", RunFormat.Q0, replace(q0_lines(3), 2, "1 Q0 d3 7 97 t"), None,
     (3, "warning", "ranks jump from 2 (line 2) to 7")),
    ("score tie", RunFormat.Q0, replace(q0_lines(3), 2, "1 Q0 d3 3 98 t"), None,
     (3, "warning", "1 tied score(s), first with line 2")),
    ("one document under topics 1 and 001", RunFormat.Q0, ["1 Q0 d1 1 2 t", "001 Q0 d1 1 2 t"], None,
     (2, "error", "duplicate docid d1")),
    ("two tags", RunFormat.Q0, q0_lines(2) + q0_lines(2, qid="2", tag="u"), None,
     (3, "error", "tag 'u' differs from 't' (line 1)")),
    ("quoted tag", RunFormat.STANCE, ['1 NO clueweb12-0000wb-00-00000___1 1 5 "a b"'], None,
     (1, "warning", "quoted and contains whitespace")),
    ("bad image id", RunFormat.IMAGE, replace(image_lines(), 4, "1 PRO IABCDEF0123456789 5 6 t"), None,
     (5, "error", "'IABCDEF0123456789' is not 'I' followed by 16 hex")),
    ("bad pair id", RunFormat.PAIRS, replace(pair_lines(), 6, f"1 CON {SID.format(1)} 7 994 t"), None,
     (7, "error", "is not a sentence pair `sid1,sid2`")),
    ("bad sentence id", RunFormat.PAIRS, replace(pair_lines(), 6, f"1 CON S1-A2__PREMISE__x,{CONC} 7 994 t"), None,
     (7, "error", "sentence id 'S1-A2__PREMISE__x'")),
    ("sentence paired with itself", RunFormat.PAIRS, replace(pair_lines(), 6, f"1 CON {CONC},{CONC} 7 994 t"), None,
     (7, "error", "pairs a sentence with itself")),
    ("pair repeated in reverse", RunFormat.PAIRS,
     replace(pair_lines(), 6, "1 PRO " + ",".join(reversed(pair_id(2).split(","))) + " 7 994 t"), None,
     (7, "error", "duplicate docid")),
    ("missing topic", RunFormat.Q0, q0_lines(2), {"1", "2"}, (None, "error", "topic 2 is missing")),
    ("unexpected topic", RunFormat.Q0, q0_lines(2) + q0_lines(1, qid="9"), {"1"},
     (3, "error", "topic 9 is not an expected topic")),
    ("blank line", RunFormat.Q0, q0_lines(1) + [""] + q0_lines(1, qid="2"), None, (2, "warning", "blank line")),
    ("empty run", RunFormat.Q0, [], None, (None, "error", "the run has no rows")),
]


@pytest.mark.parametrize("fmt, lines, topics, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validator_finds_each_problem_with_its_line(
    tmp_path: Path, fmt: RunFormat, lines: list[str], topics: set[str] | None, expected: tuple
) -> None:
    path = tmp_path / "run.txt"
    path.write_text("".join(line + "\n" for line in lines))
    line, severity, part = expected
    problems = run_file_problems(path, fmt, topics)
    matching = [p for p in problems if part in p.message]
    assert matching, f"no problem mentions {part!r}: {[str(p) for p in problems]}"
    assert (matching[0].line, matching[0].severity.value) == (line, severity)


@pytest.mark.parametrize(
    "fmt, lines",
    [
        (RunFormat.Q0, q0_lines(1000)),
        (RunFormat.IMAGE, image_lines() + image_lines("2", start=100)),
        (RunFormat.PAIRS, pair_lines(100)),
        (RunFormat.STANCE, stance_lines(10)),
    ],
)
def test_validator_accepts_clean_runs_of_every_format(tmp_path: Path, fmt: RunFormat, lines: list[str]) -> None:
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    assert run_file_problems(path, fmt) == []
    assert run_file_warnings(path, fmt.value) == []
    assert detect_format(path) is fmt


def test_validator_reports_problems_in_line_order_and_check_run_raises(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 1 t\n1 Q0 a 2 2 t\n1 Q0 b\n")
    problems = run_file_problems(path, RunFormat.Q0, {"1", "2"})
    lines = [p.line for p in problems]
    assert lines == sorted(lines, key=lambda n: (n is not None, n or 0))
    assert problems[0] == Problem(None, "topic 2 is missing (no rows)")
    assert str(problems[1]).startswith("line 2: error: ")
    with pytest.raises(InputError, match=r"run\.txt: topic 2 is missing \(no rows\) \(and 3 more error\(s\)\)"):
        run_file_warnings(path, RunFormat.Q0, {"1", "2"})


def test_severity_compares_equal_to_its_name() -> None:
    assert Severity.ERROR == "error" and Severity.WARNING == "warning"


def test_format_names_parse() -> None:
    assert RunFormat.parse("STANCE") is RunFormat.STANCE
    assert RunFormat["IMAGE"] is RunFormat.IMAGE
    with pytest.raises(InputError, match="unknown run format 'trec'"):
        RunFormat.parse("trec")


def test_natural_key_orders_topics_numerically() -> None:
    assert sorted(["10", "9", "100", "a2", "a10"], key=natural_key) == ["9", "10", "100", "a2", "a10"]


# ----------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    "line, fmt",
    [
        ("1 Q0 S21dc5a14-A8b896cb0 1 3.0 t", RunFormat.Q0),
        ("1 Q0 clueweb12-0001wb-05-12311 1 3.0 t", RunFormat.Q0),
        ("1 Q0 clueweb12-0001wb-05-12311___4 1 3.0 t", RunFormat.STANCE),
        ("1 NEUTRAL clueweb12-0001wb-05-12311___4 1 3.0 t", RunFormat.STANCE),
        (f"1 PRO {pair_id(1)} 1 3.0 t", RunFormat.PAIRS),
        (f"1 Q0 {pair_id(1)} 1 3.0 t", RunFormat.PAIRS),
        (f"1 CON {image_id(5)} 1 3.0 t", RunFormat.IMAGE),
    ],
)
def test_detect_format(tmp_path: Path, line: str, fmt: RunFormat) -> None:
    path = tmp_path / "run.txt"
    path.write_text(line + "\n")
    assert detect_format(path) is fmt


def test_detect_format_rejects_empty_and_unknown(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("\n")
    with pytest.raises(InputError, match="no rows"):
        detect_format(path)
    path.write_text("1 MAYBE d 1 1 t\n")
    with pytest.raises(InputError, match="second column holds"):
        detect_format(path)


OFFICIAL_FORMATS = {"task1-2021": RunFormat.Q0, "task2-2022": RunFormat.STANCE, "image-2022": RunFormat.IMAGE}


def test_official_runs_are_detected_and_have_no_errors() -> None:
    shared = require_shared()
    checked = 0
    for folder, fmt in OFFICIAL_FORMATS.items():
        for path in sorted((shared / "runs" / folder).glob("*.txt")):
            assert detect_format(path) is fmt, path
            errors = [str(p) for p in run_file_problems(path, fmt) if p.is_error]
            assert errors == [], path
            checked += 1
    assert checked == 26  # 3 Task 1 2021, 16 Task 2 2022, 7 image 2022 runs


def test_official_zero_based_run_gets_a_warning_per_topic() -> None:
    path = require_shared() / "runs" / "task1-2021" / "ElrondSimpleRun.txt"
    problems = run_file_problems(path, RunFormat.Q0)
    starts = [p for p in problems if "ranks start at 0" in p.message]
    assert len(starts) == 50 and all(p.severity is Severity.WARNING for p in starts)


# --------------------------------------------------------------------------- huge ids and cut-offs
def test_a_topic_id_of_thousands_of_digits_is_an_id_not_a_traceback(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text(f"{'1' * 5000} Q0 d 1 1.0 t\n")
    for args in (["validate", str(run)], ["evaluate", str(run), str(RELEVANCE)]):
        code, text = cli(*args)
        assert code in (0, 1) and "Traceback" not in text and "internal error" not in text


# --------------------------------------------------------------------------- run files
def test_a_run_of_pro_con_and_q0_rows_is_a_pairs_run(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 PRO a 1 3.0 t\n1 CON b 2 2.0 t\n1 Q0 c 3 1.0 t\n")
    assert detect_format(path) is RunFormat.PAIRS


def test_score_increases_are_counted_and_a_second_gap_is_not_repeated(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 4 1.0 t\n1 Q0 d 6 3.0 t\n")
    problems = run_file_problems(path, "q0")
    increases = [p.message for p in problems if "must not increase" in p.message]
    assert len(increases) == 1 and "(2 places in this topic)" in increases[0]
    assert len([p for p in problems if p.kind == "gap in the ranks"]) == 1


def problems_of(text: str, fmt: RunFormat = RunFormat.Q0, topics=None):
    return problems_and_rows(enumerate(text.splitlines(keepends=True), start=1), fmt, topics)[0]


def errors_of(text: str, fmt: RunFormat = RunFormat.Q0, topics=None) -> list[str]:
    return [str(p) for p in problems_of(text, fmt, topics) if p.is_error]


def image_run(pro: int, con: int = 10) -> str:
    """One topic with ``pro`` PRO and ``con`` CON images, ranked 1.. within each stance."""
    lines = [f"1 PRO {image_id(i)} {i + 1} {100 - i}.0 t\n" for i in range(pro)]
    lines += [f"1 CON {image_id(1000 + i)} {i + 1} {100 - i}.0 t\n" for i in range(con)]
    return "".join(lines)


# --------------------------------------------------------------------------- topics
@settings(max_examples=40, derandomize=True, deadline=None)
@given(st.text(alphabet="abcxyz-_.", min_size=1, max_size=8))
def test_a_topic_id_that_is_no_number_is_kept_as_written(qid):
    """Only ids of ASCII digits are numbers (``007`` is 7); any other id is the topic it names."""
    assert canonical_topic(qid) == qid


def test_topics_named_by_words_are_distinct_topics():
    """Two topics named by words hold the same document without it being a duplicate, and they
    are the expected topics they name."""
    run = "topic-a Q0 doc 1 2.0 t\ntopic-b Q0 doc 1 2.0 t\n"
    assert errors_of(run, topics=["topic-a", "topic-b"]) == []


# --------------------------------------------------------------------------- ranks and tags
def test_a_rank_in_ascii_digits_that_is_not_whole_is_not_told_about_other_digits():
    """The note on digits 0-9 is for numbers written in other scripts (``١``), not for ``1.5``."""
    assert errors_of("1 Q0 a 1.5 2.0 t\n") == ["line 1: error: rank '1.5' is not an integer"]
    assert errors_of("1 Q0 a \u0661 2.0 t\n") == \
        ["line 1: error: rank '\u0661' is not an integer in the digits 0-9 (trec_eval reads no others)"]


def test_a_rank_of_more_than_18_digits_is_refused_and_quoted_by_its_head():
    """Ranks are 64-bit integers wherever they are read: 19 digits are refused (leading zeros do
    not count); a very long one is quoted by its first 30 characters."""
    assert errors_of("1 Q0 a 0000000000000000000001 2.0 t\n") == []
    assert errors_of("1 Q0 a " + "1" * 19 + " 2.0 t\n") == \
        [f"line 1: error: rank {'1' * 19} has more than 18 digits; no run holds so many rows"]
    assert errors_of("1 Q0 a " + "7" * 50 + " 2.0 t\n") == \
        [f"line 1: error: rank {'7' * 30}… has more than 18 digits; no run holds so many rows"]


def test_an_empty_quoted_tag_is_refused():
    """A tag written ``""`` names no run: an error, where a quoted tag with spaces only warns."""
    assert errors_of('1 Q0 a 1 2.0 ""\n') == ["line 1: error: the tag is empty"]
    assert errors_of('1 Q0 a 1 2.0 "my run"\n') == []


def test_each_further_tag_is_reported_once_where_it_first_appears():
    """A run has one tag: a second tag is an error on its first line only, however many rows
    carry it."""
    run = "1 Q0 a 1 4.0 first\n1 Q0 b 2 3.0 second\n1 Q0 c 3 2.0 second\n1 Q0 d 4 1.0 second\n"
    assert errors_of(run) == ["line 2: error: tag 'second' differs from 'first' (line 1); a run has one tag"]


# --------------------------------------------------------------------------- duplicates
PAIR = "S1a-A2b__PREMISE__3,S4c-A5d__CONC__1"


def test_a_sentence_pair_and_its_reversal_are_one_item_other_ids_are_not_merged():
    """``a,b`` and ``b,a`` are one pair (a duplicate); ids of three sentences are each malformed,
    and two of them in different orders are not called duplicates of each other."""
    first, second = PAIR.split(",")
    run = f"1 PRO {PAIR} 1 2.0 t\n1 PRO {second},{first} 2 1.0 t\n"
    assert [e for e in errors_of(run, RunFormat.PAIRS) if "duplicate" in e] == \
        [f"line 2: error: topic 1: duplicate docid {second},{first} (first on line 1)"]
    run = "1 PRO x,y,z 1 2.0 t\n1 PRO z,y,x 2 1.0 t\n"
    assert errors_of(run, RunFormat.PAIRS) == [
        "line 1: error: docid 'x,y,z' is not a sentence pair `sid1,sid2`",
        "line 2: error: docid 'z,y,x' is not a sentence pair `sid1,sid2`"]


@pytest.mark.parametrize("fmt, column2", [(RunFormat.STANCE, ("FIRST", "SECOND")), (RunFormat.Q0, ("Q0", "Q0")),
                                          (RunFormat.PAIRS, ("PRO", "CON"))])
def test_a_document_twice_in_a_topic_is_a_duplicate_whatever_its_stances(fmt, column2):
    """Only an image run speaks of an image with two stances; in every other format a document
    ranked twice in a topic is a duplicate docid."""
    doc = PAIR if fmt is RunFormat.PAIRS else "doc-a"
    run = f"1 {column2[0]} {doc} 1 2.0 t\n1 {column2[1]} {doc} 2 1.0 t\n"
    assert [e for e in errors_of(run, fmt) if "topic 1" in e] == \
        [f"line 2: error: topic 1: duplicate docid {doc} (first on line 1)"]


def test_an_image_twice_in_one_stance_is_a_duplicate_and_in_both_stances_one_stance_too_many():
    run = image_run(10).replace(image_id(1), image_id(0))  # PRO rank 2 repeats PRO rank 1's image
    assert f"line 2: error: topic 1: duplicate docid {image_id(0)} (first on line 1)" in errors_of(run, RunFormat.IMAGE)
    run = image_run(10).replace(image_id(1000), image_id(0))  # CON rank 1 is PRO rank 1's image
    assert (f"line 11: error: topic 1: image {image_id(0)} is both PRO (line 1) and CON; an image may have one "
            "stance per topic") in errors_of(run, RunFormat.IMAGE)


# --------------------------------------------------------------------------- where problems are reported
def test_too_many_images_are_reported_at_the_first_image_beyond_ten():
    """An image topic and stance holds exactly 10: the error points at the 11th row of it (too
    few: at its last row)."""
    assert errors_of(image_run(12), RunFormat.IMAGE) == \
        ["line 11: error: topic 1 (PRO) has 12 images; exactly 10 per topic and stance expected"]
    assert errors_of(image_run(9), RunFormat.IMAGE) == \
        ["line 9: error: topic 1 (PRO) has 9 images; exactly 10 per topic and stance expected"]


def test_a_single_score_increase_is_reported_without_a_count():
    """The count of places is told only when there is more than one."""
    assert errors_of("1 Q0 a 1 1.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 0.5 t\n") == [
        "line 2: error: topic 1: score 2.0 at rank 2 is higher than 1.0 at rank 1 (line 1); scores must not "
        "increase with rank (trec_eval orders by score, Touché by rank)"]


def test_tied_scores_are_reported_at_the_first_tie():
    """The warning counts the ties of a topic and points at the first, not the last rows."""
    run = "1 Q0 a 1 3.0 t\n1 Q0 b 2 3.0 t\n1 Q0 c 3 2.0 t\n1 Q0 d 4 1.0 t\n1 Q0 e 5 1.0 t\n"
    ties = [p for p in problems_of(run) if p.kind == "tied score(s)"]
    assert [(p.line, p.message) for p in ties] == [
        (2, "topic 1: 2 tied score(s), first with line 1; trec_eval breaks ties by docid, not by the rank column")]


@pytest.mark.parametrize("lines, message", [
    ("1 Q0 a 1 x t\n", "score 'x' is not a finite number"),
    ("1 Q0 a 1 x t\n1 Q0 b y 1.0 t\n", "score 'x' is not a finite number (and 1 more error(s))"),
    ("1 Q0 a 1 x t\n1 Q0 b y 1.0 t\n1 Q1 c 3 1.0 t\n", "score 'x' is not a finite number (and 2 more error(s))"),
])
def test_a_refused_run_names_its_first_error_and_counts_the_others(tmp_path, lines, message):
    path = tmp_path / "run.txt"
    path.write_text(lines)
    with pytest.raises(InputError) as raised:
        run_file_warnings(path, "q0")
    assert raised.value.message == message and raised.value.where == "line 1"


# --------------------------------------------------------------------------- format detection
def test_the_format_is_guessed_from_the_first_2000_rows(tmp_path):
    """A big run's format is told from its head (2000 rows unless asked otherwise): a pair id in
    row 2001 does not make a Q0 run a PAIRS run."""
    path = tmp_path / "run.txt"
    rows = [f"1 Q0 doc-{i} {i + 1} {3000 - i}.0 t\n" for i in range(2000)]
    path.write_text("".join(rows) + f"1 Q0 {PAIR} 2001 1.0 t\n")
    assert detect_format(path) is RunFormat.Q0
    assert detect_format(path, sample=2001) is RunFormat.PAIRS


def test_a_byte_order_mark_does_not_drop_the_first_row_of_a_run_or_qrels(tmp_path):
    """A BOM once made the first row's topic '\\ufeff1': validate said valid, nDCG 0.869 not 1.000."""
    from touche.retrieval.evaluation.measures import evaluate
    from touche.retrieval.formats.gate import read_run
    from touche.retrieval.formats.runfile import RunFormat, run_file_problems

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_bytes("\ufeff1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n".encode("utf-8"))
    qrels.write_bytes("\ufeff1 0 a 2\n1 0 b 1\n2 0 c 2\n".encode("utf-8"))
    assert read_run(run)[0].qid == "1"
    assert [p for p in run_file_problems(run, RunFormat.Q0) if p.is_error] == []
    assert evaluate(run, qrels, ["touche.nDCG@5"])["touche.nDCG@5"] == 1.0


def test_a_nul_or_line_separator_in_an_id_is_an_error_naming_the_line(tmp_path):
    from touche.retrieval.formats.runfile import RunFormat, run_file_problems

    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a\x00b 1 2.0 t\n1 Q0 c\u2028d 2 1.0 t\n", encoding="utf-8")
    errors = [p for p in run_file_problems(run, RunFormat.Q0) if p.is_error]
    assert [p.line for p in errors] == [1, 2]
    assert "U+0000" in errors[0].message  # (U+2028 splits the line's columns: a column-count error)
