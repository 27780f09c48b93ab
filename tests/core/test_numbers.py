"""Numbers in text a user gives are written in the digits 0-9 (touche/numbers.py), wherever they are
read: environment settings, command-line options, YAML's explicit tags, measure cut-offs."""
from __future__ import annotations

import argparse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.shared import cli, demo_run
from touche import numbers
from touche.cli import build_parser, main
from touche.errors import EnvironmentProblem, ToucheError
from touche.retrieval.evaluation.registry import parse_measure
from touche.settings import SETTINGS, setting
from touche.yamlfiles import load_yaml

# every script's digits that Python's int() reads: Arabic-Indic, Devanagari, fullwidth, Thai, Bengali
OTHER_ZEROS = (0x660, 0x966, 0xFF10, 0xE50, 0x9E6)


def _in_other_digits(text: str, zero: int) -> str:
    return "".join(chr(zero + int(c)) if c.isascii() and c.isdigit() else c for c in text)


@given(st.text(alphabet=st.characters(categories=["Nd"]), min_size=1, max_size=12), st.sampled_from(["", "+", "-"]))
def test_a_number_is_read_only_in_the_digits_0_to_9(digits, sign):
    text = sign + digits
    if digits.isascii():
        assert numbers.whole(text) == int(text) and numbers.decimal(text) == float(text)
    else:
        with pytest.raises(ValueError, match="digits 0-9"):
            numbers.whole(text)
        with pytest.raises(ValueError, match="digits 0-9"):
            numbers.decimal(text)


@pytest.mark.parametrize("text", ["1_000", "0x10", "inf", "nan", "1e", ".", "", "\u20035", "5\u00a0", "1 2"])
def test_what_python_reads_as_a_number_and_a_user_did_not_write_as_one_is_refused(text):
    for read in (numbers.whole, numbers.decimal):
        with pytest.raises(ValueError):
            read(text)


@pytest.mark.parametrize("text,value", [(" 30\n", 30), ("\t+7", 7), ("-0", 0), ("0004", 4)])
def test_ascii_blanks_and_a_sign_are_allowed(text, value):
    assert numbers.whole(text) == value and numbers.decimal(text) == float(value)


SAMPLES = ["3", "30", "2g", "1500m", "1", "600", "0.5"]


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_no_setting_reads_other_digits_as_the_number_they_look_like(monkeypatch, name):
    """For every setting and every value of it written in 0-9: the same value in another script's
    digits is refused, or (a path, a word) read as what it is, never as that number.
    ``TOUCHE_PIPE_WAIT=٣`` waited 3 s."""
    for sample in SAMPLES:
        monkeypatch.setenv(name, sample)
        try:
            ascii_value = setting(name)
        except EnvironmentProblem:
            continue
        for zero in OTHER_ZEROS:
            monkeypatch.setenv(name, _in_other_digits(sample, zero))
            try:
                other = setting(name)
            except EnvironmentProblem as refused:
                assert name in str(refused)
                continue
            assert other != ascii_value, (name, sample, zero)


def _actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)
        else:
            yield action


def test_no_command_line_option_reads_numbers_with_int_or_float():
    """argparse's ``type=int`` reads ``--depth ٥`` as 5: every numeric option goes through numbers.py."""
    loose = [action.option_strings for action in _actions(build_parser()) if action.type in (int, float)]
    assert loose == []


@pytest.mark.parametrize("argv", [["evaluate", "r.txt", "q.txt", "--depth", "\u0665"],
                                  ["compare", "a.txt", "b.txt", "q.txt", "--resamples", "１０"],
                                  ["explore", "a.txt", "--rbo-p", "0.\u0669"]])
def test_an_option_in_other_digits_is_a_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and "digits 0-9" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["x: !!float \u0661", "x: !!float 1_0", "x: !!int \u0663", "x: !!float \uff11.5"])
def test_yaml_explicit_number_tags_take_the_digits_0_to_9_only(text):
    import yaml
    with pytest.raises(yaml.YAMLError):
        load_yaml(text)
    assert load_yaml("x: !!float 1.5") == {"x": 1.5} and load_yaml("x: !!int 7") == {"x": 7}


@pytest.mark.parametrize("name", ["touche.nDCG@\u0665", "trec.nDCG@1_000", "trec.P@0x10", "image.on_topic_P@１０",
                                  "trec.IPrec@0.\u0665"])
def test_a_measure_cut_off_in_other_digits_is_refused(name):
    with pytest.raises(ToucheError):
        parse_measure(name)


# --------------------------------------------------------------------------- YAML 1.2
def test_zero_padded_numbers_are_decimal_and_clock_times_are_text():
    from touche.config import load_yaml
    data = load_yaml("topics_except: [010, 020, 030]\nat: 12:30\nflag: yes\nhex: 0x1f\noctal: 0o17\n")
    assert data == {"topics_except": [10, 20, 30], "at": "12:30", "flag": "yes", "hex": 31, "octal": 15}


# --------------------------------------------------------------------------- digits, ids, invisible tags
def test_digits_other_than_0_to_9_are_no_number(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 \u0661.5 t\n")
    code, text = cli("validate", str(run))
    assert code == 1 and "score '\u0661.5' is not a finite number in the digits 0-9" in text
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a \u0662\n")
    code, text = cli("evaluate", str(demo_run(tmp_path / "r.txt")), str(qrels))
    assert code == 2 and "\u0662" in text
