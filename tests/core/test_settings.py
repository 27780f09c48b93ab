"""Environment settings (``touche/settings.py``): what the mutation run (``python -m bench.mutation``)
found untested: the Java heap's floor of exactly 256 MiB in every unit; a choice variable
(``TOUCHE_INDEX_HANDOVER``, ``TOUCHE_PROGRESS``) accepts its words, spaces around them trimmed,
and refuses any other with the variable named; ``is_set`` treats a blank value as unset, as
``setting`` does."""
from __future__ import annotations

import pytest

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
