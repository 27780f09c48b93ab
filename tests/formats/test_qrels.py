"""The qrels reader (retrieval/formats/qrels.py): labels under ``1`` and ``01`` merged and made to
agree, a byte-order mark or NUL inside a file, labels beyond what trec_eval holds and at their
bounds, BEIR's header, the kind read from a name, a file parsed once per version, and what
judgements given as lines are called in errors (a long label quoted as written)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import RELEVANCE, cli, demo_run
from tests.tables import table_value
from touche.errors import InputError
from touche.retrieval.formats.gate import load_qrels
from touche.retrieval.formats.qrels import QrelsKind, _whole_number, parse_kind, read_graded_qrels, read_stance_qrels


# --------------------------------------------------------------------------- where an error points
def test_judgements_given_as_lines_are_called_a_qrels_frame_unless_named():
    """Lines (a frame's rows) have no file: an error names them "qrels frame" and the row, or the
    label the caller gave."""
    with pytest.raises(InputError) as raised:
        read_stance_qrels([(1, "1 0 doc-a MAYBE\n")])
    assert raised.value.path == "qrels frame" and raised.value.where == "row 1"
    assert str(raised.value).startswith("qrels frame, row 1: stance label 'MAYBE' is not one of")
    with pytest.raises(InputError) as raised:
        read_graded_qrels([(1, "1 0 doc-a 1\n"), (2, "1 0 doc-b x\n")], label="qrels frame 'mine'")
    assert raised.value.path == "qrels frame 'mine'" and raised.value.where == "row 2"


# --------------------------------------------------------------------------- labels of many digits
@pytest.mark.parametrize("sign", ["", "+", "-"])
def test_a_label_of_thousands_of_digits_is_refused_as_out_of_range_not_as_unreadable(sign):
    """5,000 digits (beyond what int() reads) are still a whole number, far outside the label
    range on its own side: the error says so and quotes the label's head and length."""
    label = sign + "9" * 5000
    with pytest.raises(InputError, match=re.escape(f"label {label[:20]}… ({len(label)} characters) lies outside "
                                                   "-1000…1000")) as raised:
        read_graded_qrels([(1, f"1 0 doc-a {label}\n")])
    assert raised.value.where == "row 1"


whole_numbers = st.integers(min_value=-(10 ** 30) + 1, max_value=10 ** 30 - 1)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(whole_numbers, st.integers(0, 3), st.integers(0, 3), st.booleans())
def test_a_label_of_up_to_30_digits_is_read_exactly_however_it_is_written(value, zeros, fraction, plus):
    """``_whole_number`` reads a label exactly as written (``007``, ``+2``, ``4.00``): a label of 30
    digits is that number, not a float near it nor a stand-in."""
    sign = "-" if value < 0 else "+" if plus else ""
    text = f"{sign}{'0' * zeros}{abs(value)}" + ("." + "0" * (fraction - 1) if fraction else "")
    assert _whole_number(text) == value


@settings(max_examples=40, derandomize=True, deadline=None)
@given(st.integers(31, 6000), st.sampled_from(["", "+", "-"]), st.sampled_from(["1", "9", "5"]))
def test_a_label_too_long_to_read_exactly_stays_far_out_of_range_on_its_own_side(digits, sign, lead):
    """Beyond 30 digits a label stands for a number at least 10^30 from zero with the label's sign:
    a negative one is never taken for a large positive one."""
    value = _whole_number(sign + lead + "0" * (digits - 1))
    assert value is not None and abs(value) >= 10 ** 30
    assert (value < 0) == (sign == "-")


def test_a_label_is_quoted_whole_up_to_30_characters_and_by_its_head_beyond():
    """The refusal of a label out of range quotes it as written while it is short (30 characters),
    a longer one by its first 20 characters and its length."""
    thirty = "1" + "0" * 29
    with pytest.raises(InputError) as raised:
        read_graded_qrels([(1, f"1 0 doc-a {thirty}\n")])
    assert f"label {thirty} lies outside" in str(raised.value)
    thirty_one = "1" + "0" * 30
    with pytest.raises(InputError) as raised:
        read_graded_qrels([(1, f"1 0 doc-a {thirty_one}\n")])
    assert f"label {thirty_one[:20]}… (31 characters) lies outside" in str(raised.value)


def _score(text: str) -> float:
    return table_value(text, "touche.nDCG@5")


# --------------------------------------------------------------------------- qrels
def test_qrels_under_1_and_01_merge_and_must_agree(tmp_path):
    run = demo_run(tmp_path / "run.txt")
    qrels = tmp_path / "q.txt"
    lines = RELEVANCE.read_text().splitlines(keepends=True)
    qrels.write_text("".join(("0" + line) if line.startswith("1 ") and i % 2 else line for i, line in enumerate(lines)))
    code, text = cli("evaluate", str(run), str(qrels), "--measures", "touche.nDCG@5")
    assert code == 0 and _score(text) == pytest.approx(_score(cli("evaluate", str(run), str(RELEVANCE), "--measures",
                                                                    "touche.nDCG@5")[1]))
    doc = lines[0].split()[2]
    qrels.write_text(f"1 0 {doc} 2\n01 0 {doc} 0\n")
    code, text = cli("evaluate", str(run), str(qrels))
    assert code == 2 and f"{qrels}, line 2: topic 01, {doc}: label 0 contradicts 2 on line 1" in text


@pytest.mark.parametrize("inside, message", [("\ufeff", "'\\ufeff1' holds a byte-order mark (U+FEFF)"),
                                             ("\x00", "'b\\x00' holds the control character U+0000")])
def test_a_bom_or_nul_inside_qrels_is_a_located_error(tmp_path, inside, message):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n" + inside + "1 0 b 2\n" if inside == "\ufeff" else "1 0 a 1\n1 0 b" + inside + " 2\n")
    code, text = cli("evaluate", str(demo_run(tmp_path / "run.txt")), str(qrels))
    assert code == 2 and f"{qrels}, line 2: {message}" in text


# --------------------------------------------------------------------------- numbers trec_eval cannot hold
@pytest.mark.parametrize("label", ["3000000000", "2147483648", "100000000000000000000", "-1001", "1001"])
def test_a_label_beyond_what_trec_eval_holds_is_refused_with_its_line(tmp_path, label):
    qrels = tmp_path / "qrels.txt"
    lines = RELEVANCE.read_text().splitlines()
    lines[3] = " ".join(lines[3].split()[:3] + [label])
    qrels.write_text("\n".join(lines) + "\n")
    run = demo_run(tmp_path / "run.txt")
    code, text = cli("evaluate", str(run), str(qrels))
    assert code == 2 and f"{qrels}, line 4: label {label} lies outside -1000…1000" in text


def test_the_label_range_holds_at_its_bounds(tmp_path):
    from touche.retrieval.formats.gate import load_qrels
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a -1000\n1 0 b 1000\n1 0 c 5\n")
    assert load_qrels(qrels).judgments == {"1": {"a": -1000, "b": 1000, "c": 5}}


def test_a_long_label_is_quoted_as_written(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 999999999999999999999\n")
    code, text = cli("evaluate", str(demo_run(tmp_path / "r.txt")), str(qrels))
    assert code == 2 and "label 999999999999999999999 lies outside" in text


def test_a_qrels_file_is_parsed_once_per_version(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 1\n")
    first = load_qrels(path)
    assert load_qrels(path) is first
    path.write_text("1 0 a 1\n1 0 b 2\n")
    assert load_qrels(path) is not first and load_qrels(path).judgments == {"1": {"a": 1, "b": 2}}


# --------------------------------------------------------------------------- qrels
def test_beirs_qrels_with_their_header_read_as_three_columns(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n1\tdoc-a\t2\n1\tdoc-b\t0\n")
    assert read_graded_qrels(path) == {"1": {"doc-a": 2, "doc-b": 0}}
    path.write_text("1\tdoc-a\t2\n")  # three columns without the header are not BEIR's
    with pytest.raises(InputError, match="expected 4 columns"):
        read_graded_qrels(path)


def test_a_byte_order_mark_inside_a_qrels_file_says_two_files_were_joined(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 1\n\ufeff1 0 b 2\n", encoding="utf-8")
    with pytest.raises(InputError, match="byte-order mark .* two qrels files concatenated") as raised:
        read_graded_qrels(path)
    assert raised.value.where == "line 2"
    path.write_text("1 0 a\x01 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="control character U\\+0001"):
        read_graded_qrels(path)


def test_a_contradicting_label_says_how_the_topic_was_first_written(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("01 0 a 1\n1 0 a 2\n")
    with pytest.raises(InputError, match=r"contradicts 1 on line 1 \(written 01 there\)"):
        read_graded_qrels(path)
    path.write_text("1 0 a 1\n1 0 a 2\n")
    with pytest.raises(InputError) as raised:
        read_graded_qrels(path)
    assert "written" not in str(raised.value)


def test_a_qrels_kind_is_read_from_its_name_or_taken_as_given():
    assert parse_kind(QrelsKind.STANCE) is QrelsKind.STANCE
    assert parse_kind("STANCE") is QrelsKind.STANCE and parse_kind("graded") is QrelsKind.GRADED
    with pytest.raises(InputError):
        parse_kind("relevance-ish")
