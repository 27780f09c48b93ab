"""What the mutation run (python -m bench.mutation, docs/testing.md) found the qrels reader's own
tests not to notice, written as behaviour a user relies on: what judgements given as lines (a
frame's rows) are called in errors, how a label of many digits is read and refused, and how a long
label is quoted in the message."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from touche.errors import InputError
from touche.retrieval.formats.qrels import _whole_number, read_graded_qrels, read_stance_qrels


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
