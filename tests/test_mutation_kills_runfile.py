"""What the mutation run (python -m bench.mutation, docs/testing.md) found the run-file
validator's own tests not to notice, written as behaviour a user relies on: topics named by words,
ranks too long or not whole, an empty quoted tag, which rows are duplicates, where a tie, a score
increase, a second tag or an image too many is reported, how many further errors a refusal counts,
and how many rows the format is guessed from."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from touche.errors import InputError
from touche.retrieval.formats.runfile import (
    RunFormat,
    canonical_topic,
    detect_format,
    problems_and_rows,
    run_file_warnings,
)


def problems_of(text: str, fmt: RunFormat = RunFormat.Q0, topics=None):
    return problems_and_rows(enumerate(text.splitlines(keepends=True), start=1), fmt, topics)[0]


def errors_of(text: str, fmt: RunFormat = RunFormat.Q0, topics=None) -> list[str]:
    return [str(p) for p in problems_of(text, fmt, topics) if p.is_error]


def image_id(i: int) -> str:
    return f"I{i:016x}"


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
