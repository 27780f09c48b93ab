"""Environment settings (touche/settings.py): each declared once with its parser; the Java heap's
floor of exactly 256 MiB in every unit; a choice variable (``TOUCHE_INDEX_HANDOVER``,
``TOUCHE_PROGRESS``) accepts its words, spaces around them trimmed, and refuses any other with the
variable named; a path setting refuses a NUL byte; ``is_set`` treats a blank value as unset; a bad
value is named with exit 3."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.shared import REPO
from touche.errors import EnvironmentProblem
from touche.settings import _choice, is_set, setting


@pytest.mark.parametrize("heap", ["256m", "262144k", "268435456", "1g", " 2G ", "1t"])
def test_a_heap_of_at_least_256_mib_is_accepted_in_any_unit(monkeypatch, heap):
    monkeypatch.setenv("TOUCHE_JVM_HEAP", heap)
    assert setting("TOUCHE_JVM_HEAP") == heap.strip()


@pytest.mark.parametrize("heap", ["255m", "262143k", "268435455", "1m", "4096", "100k"])
def test_a_heap_below_256_mib_is_refused_naming_the_variable(monkeypatch, heap):
    """256 MiB = 262,144 KiB = 268,435,456 bytes: one unit below is too small to start Lucene."""
    monkeypatch.setenv("TOUCHE_JVM_HEAP", heap)
    with pytest.raises(EnvironmentProblem, match=rf"TOUCHE_JVM_HEAP='{heap}' is not valid: expected a Java heap size "
                                                 "of at least 256m"):
        setting("TOUCHE_JVM_HEAP")


@pytest.mark.parametrize(("name", "words"), [("TOUCHE_INDEX_HANDOVER", ["packed", "strings"]),
                                             ("TOUCHE_PROGRESS", ["auto", "bar", "lines", "off"])])
def test_a_choice_variable_gives_the_word_chosen_without_spaces(monkeypatch, name, words):
    for word in words:
        monkeypatch.setenv(name, f" {word}\n")
        assert setting(name) == word


@pytest.mark.parametrize(("text", "taken"), [("fast", "fast"), (" slow\t", "slow"), ("\nfast \n", "fast"),
                                             ("Fast", None), ("fas", None), ("fast slow", None), ("faster", None),
                                             ("", None), ("-", None)])
def test_a_choice_parser_takes_exactly_its_words_trimmed_and_refuses_the_rest(text, taken):
    """The parser every choice variable is declared with: a value is one of the words (spaces
    around it do not count), returned bare; anything else is a ValueError (said as the variable's
    error by ``setting``)."""
    parse = _choice("fast", "slow")
    if taken is None:
        with pytest.raises(ValueError):
            parse(text)
    else:
        assert parse(text) == taken


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("TOUCHE_INDEX_HANDOVER", "pack", "packed or strings"),
    ("TOUCHE_INDEX_HANDOVER", "packed strings", "packed or strings"),
    ("TOUCHE_PROGRESS", "Bar", "auto, bar, lines or off"),
    ("TOUCHE_PROGRESS", "on", "auto, bar, lines or off")])
def test_a_choice_variable_refuses_any_other_word(monkeypatch, name, value, expected):
    monkeypatch.setenv(name, value)
    with pytest.raises(EnvironmentProblem, match=rf"{name}='{value}' is not valid: expected {expected}"):
        setting(name)


def test_a_blank_variable_counts_as_unset(monkeypatch):
    """What the JVM check relies on: a heap the user set is tried first; one left blank is the
    default, as ``setting`` reads it."""
    monkeypatch.delenv("TOUCHE_JVM_HEAP", raising=False)
    assert is_set("TOUCHE_JVM_HEAP") is False
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "  \t")
    assert is_set("TOUCHE_JVM_HEAP") is False and setting("TOUCHE_JVM_HEAP") == "2g"
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "3g")
    assert is_set("TOUCHE_JVM_HEAP") is True


@pytest.mark.parametrize(("name", "value"), [("TOUCHE_WORKERS", "0"), ("TOUCHE_INDEX_LOCK_TIMEOUT", "-1"),
                                             ("TOUCHE_PROGRESS", "loud")])
def test_every_setting_is_checked_before_any_work_even_one_the_command_never_reads(monkeypatch, tmp_path, capsys, name,
                                                                                     value):
    """``touche validate`` reads none of these, yet a bad one is named first (exit 3), before the
    missing run file is: a typo in the environment is said at once, not hours into a sweep."""
    from touche.cli import main
    monkeypatch.setenv(name, value)
    assert main(["validate", str(tmp_path / "missing.txt")]) == 3
    err = capsys.readouterr().err
    assert f"{name}={value!r}" in err and "missing.txt" not in err


# --------------------------------------------------------------------------- environment
@pytest.mark.parametrize("variable, value", [("TOUCHE_JVM_GC", "garbage"), ("TOUCHE_JVM_GC", "-XX:+UseBogusGC"),
                                             ("TOUCHE_JVM_GC", "-XX:+UseEpsilonGC"),
                                             ("TOUCHE_JVM_GC", "-XX:+UseSerialGC -XX:+UseG1GC"),
                                             ("TOUCHE_JVM_HEAP", "abc"), ("TOUCHE_JVM_HEAP", "1m"),
                                             ("TOUCHE_INDEX_LOCK_TIMEOUT", "-1"), ("TOUCHE_WORKERS", "0")])
def test_a_bad_environment_setting_is_named_with_exit_3(variable, value):
    env = {**os.environ, variable: value}
    done = subprocess.run([sys.executable, "-m", "touche", "analyze", "-c",
                           str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"), "x"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 3 and f"{variable}={value!r}" in done.stderr and "Traceback" not in done.stderr


# --------------------------------------------------------------------------- settings
@pytest.mark.parametrize("text, size", [("2g", 2 * 2**30), ("1500m", 1500 * 2**20), ("256M", 256 * 2**20),
                                        ("300000k", 300000 * 2**10), ("1t", 2**40)])
def test_a_valid_heap_setting_is_parsed_to_its_size(monkeypatch, text, size):
    from touche.settings import heap_bytes, setting
    monkeypatch.setenv("TOUCHE_JVM_HEAP", text)
    assert setting("TOUCHE_JVM_HEAP") == text and heap_bytes(text) == size


def test_a_heap_below_256m_or_unset_is_refused_or_defaulted(monkeypatch):
    from touche.settings import setting
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "255m")
    with pytest.raises(EnvironmentProblem, match="TOUCHE_JVM_HEAP"):
        setting("TOUCHE_JVM_HEAP")
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "  ")
    assert setting("TOUCHE_JVM_HEAP") == "2g"


# --------------------------------------------------------------------------- every setting's valid values
@pytest.mark.parametrize("name, text, value", [
    ("TOUCHE_JVM_GC", "parallel", ("-XX:+UseParallelGC",)), ("TOUCHE_JVM_GC", "-XX:+UseZGC", ("-XX:+UseZGC",)),
    ("TOUCHE_JVM_GC", "G1", ("-XX:+UseG1GC",)), ("TOUCHE_WORKERS", "1", 1), ("TOUCHE_WORKERS", " 3 ", 3),
    ("TOUCHE_INDEX_LOCK_TIMEOUT", "0", 0.0), ("TOUCHE_INDEX_LOCK_TIMEOUT", "2.5", 2.5),
    ("TOUCHE_OCR", "off", False), ("TOUCHE_OCR", " Yes ", True), ("TOUCHE_INDEX_HANDOVER", " strings", "strings"),
    ("TOUCHE_INDEX_ROOT", "/tmp/x y", __import__("pathlib").Path("/tmp/x y")),
])
def test_every_setting_parses_its_valid_values(monkeypatch, name, text, value):
    from touche.settings import setting
    monkeypatch.setenv(name, text)
    assert setting(name) == value


@pytest.mark.parametrize("name, text", [("TOUCHE_JVM_GC", "epsilon"), ("TOUCHE_JVM_GC", "serial g1"),
                                        ("TOUCHE_WORKERS", "0"), ("TOUCHE_INDEX_LOCK_TIMEOUT", "-1"),
                                        ("TOUCHE_INDEX_LOCK_TIMEOUT", "inf"), ("TOUCHE_OCR", "maybe"),
                                        ("TOUCHE_INDEX_HANDOVER", "zip")])
def test_every_setting_refuses_what_it_does_not_take(monkeypatch, name, text):
    from touche.settings import setting
    monkeypatch.setenv(name, text)
    with pytest.raises(EnvironmentProblem, match=name):
        setting(name)


def test_a_path_setting_refuses_a_nul_byte():  # the environment itself cannot hold one
    from touche.settings import parse_path
    with pytest.raises(ValueError, match="NUL"):
        parse_path("a\0b")
