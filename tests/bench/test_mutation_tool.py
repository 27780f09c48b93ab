"""The mutation run's own guarantees (bench/mutation): which mistakes it makes, that a survivor's
key names the same mistake across edits elsewhere, that the run reports and fails on a listed
equivalent that no longer names a mutant of today's module (a stale entry would hide a new
survivor; the suite never reads the lists against the source, so an edit that keeps behaviour
turns no test red), and that a module listed has its fallback tests."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from bench.mutation import results as mutation_results
from bench.mutation.copied import module_path
from bench.mutation.modules import MODULES, fallback_tests
from bench.mutation.results import equivalents
from bench.mutation.sites import mutants_of, mutated

ROOT = Path(__file__).resolve().parents[2]

SMALL = textwrap.dedent('''\
    """A docstring holds no site."""
    LIMIT = 3


    def clipped(x: int, y: int = 2) -> int:
        if x > LIMIT and y:
            return x + y + 1
        total = x
        return total
    ''')


def _small(tmp_path: Path, source: str = SMALL):
    path = tmp_path / "small.py"
    path.write_text(source, encoding="utf-8")
    return mutants_of("small", path)[1]


def test_every_kind_of_mistake_is_made_where_it_can_be(tmp_path):
    """A module-level constant and the docstring hold none; a default is made at import (no scope:
    it runs in a copy of the checkout), the rest inside its function (run forked)."""
    changes = sorted((m.line, m.change, m.scope) for m in _small(tmp_path))
    assert changes == [
        (5, "2 → 3", None),
        (6, "> → >=", "clipped"), (6, "and → or", "clipped"), (6, "condition → not condition", "clipped"),
        (7, "+ → -", "clipped"), (7, "+ → -", "clipped"), (7, "1 → 2", "clipped"),
        (7, "return … → return None", "clipped"),
        (8, "statement deleted", "clipped"), (9, "return … → return None", "clipped")]


def test_a_default_is_judged_by_the_tests_that_call_its_function(tmp_path):
    """A default argument's value is made at import, but only a call reads it: its mutant's lines
    reach to the function's end, so the tests executing the body are the ones run."""
    default = next(m for m in _small(tmp_path) if m.change == "2 → 3")
    assert list(default.lines) == [5, 6, 7, 8, 9]
    inside = next(m for m in _small(tmp_path) if m.change == "1 → 2")
    assert list(inside.lines) == [7]


def test_a_mutant_is_the_module_with_exactly_its_change(tmp_path):
    mutants = _small(tmp_path)
    flip = next(m for m in mutants if m.change == "> → >=")
    namespace: dict = {}
    exec(compile(mutated(SMALL, flip), "small", "exec"), namespace)
    assert namespace["clipped"](3, 2) == 6  # 3 > 3 is false in the original: returns 3
    exec(compile(SMALL, "small", "exec"), original := {})
    assert original["clipped"](3, 2) == 3


def test_a_key_survives_edits_elsewhere_and_twins_on_a_line_are_told_apart(tmp_path):
    before = {m.key: m.change for m in _small(tmp_path)}
    edited = SMALL.replace("LIMIT = 3", "LIMIT = 3\nOTHER = 4\n\n\ndef unrelated():\n    return 5\n")
    after = {m.key: m.change for m in _small(tmp_path, edited)}
    assert set(before) <= set(after)
    twins = [k for k, change in before.items() if change == "+ → -"]
    assert len(twins) == 2 and len(set(twins)) == 2 and any(k.endswith("#1") for k in twins)


def test_every_equivalents_file_is_of_a_listed_module_and_says_why():
    known = equivalents()
    assert {key.split(":", 1)[0] for key in known} <= set(MODULES)
    assert all(why.strip() for why in known.values())


def test_an_equivalent_whose_line_was_edited_fails_the_run_not_the_suite(tmp_path, monkeypatch, capsys):
    """The run judges the lists against today's source: an edited line leaves its key naming no
    mutant, which the run says at once and in its report, and exits 1 for."""
    from bench.mutation import __main__ as tool
    from bench.mutation.lines import LineMap
    from bench.mutation.results import stale_equivalents
    path = tmp_path / "small.py"
    [total] = [m for m in _small(tmp_path) if m.source_line == "    total = x"]
    known = {total.key: "why", "other:0123456789ab": "another module's"}
    monkeypatch.setattr(tool, "module_path", lambda module, *_: path)
    monkeypatch.setattr(tool, "line_map", lambda *_, **__: (LineMap(), 0.0))  # no test runs any line
    monkeypatch.setattr(tool, "test_files", lambda: [])
    monkeypatch.setattr(tool, "fallback_tests", lambda module, root: ())
    monkeypatch.setattr(tool, "equivalents", lambda modules: known)
    said = []

    def run():
        said.clear()
        return tool.run(["small"], parallel=1, sample=None, seed=1, fresh=True, say=said.append)

    assert run()["report"]["small"].stale == [] and not any("no longer name" in s for s in said)
    path.write_text(SMALL.replace("LIMIT = 3", "LIMIT = 4"), encoding="utf-8")
    assert stale_equivalents("small", mutants_of("small", path)[1], known) == []  # an edit elsewhere keeps it
    path.write_text(SMALL.replace("total = x", "total = int(x)"), encoding="utf-8")
    outcome = run()
    assert outcome["report"]["small"].stale == [total.key]
    assert "small: 1 listed equivalent(s) no longer name a mutant (see the report)" in said
    assert tool.print_report(outcome, None, 1, 1.0) is False
    assert f"stale equivalent   [{total.key}]" in capsys.readouterr().out


def test_an_equivalent_of_another_module_or_broken_yaml_is_refused_with_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation_results, "EQUIVALENT_FOLDER", tmp_path)
    (tmp_path / "touche.atomic.yaml").write_text(yaml.safe_dump(
        {"equivalent": [{"key": "touche.guard:0123456789ab", "why": "x"}]}), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"touche\.atomic\.yaml: touche\.guard:0123456789ab is not a mutant"):
        equivalents()
    (tmp_path / "touche.atomic.yaml").write_text("equivalent:\n- key: a: b: c\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"touche\.atomic\.yaml: not valid YAML"):
        equivalents()
    with pytest.raises(SystemExit, match=r"touche\.atomic\.yaml: not valid YAML"):
        equivalents(["touche.atomic"])
    # another module's file being edited does not stop a run of this one
    (tmp_path / "touche.guard.yaml").write_text(yaml.safe_dump(
        {"equivalent": [{"key": "touche.guard:0123456789ab", "why": "a reason"}]}), encoding="utf-8")
    assert equivalents(["touche.guard"]) == {"touche.guard:0123456789ab": "a reason"}


def test_every_listed_module_and_its_fallback_tests_exist():
    for module, listed in MODULES.items():
        assert module_path(module).is_file(), module
        assert listed.why
        for test in listed.tests:
            assert (ROOT / test.split("::", 1)[0]).is_file(), f"{module}: {test}"


def test_a_module_level_site_runs_the_test_files_that_import_its_module():
    """A constant at module level (settings' heap floor) runs in a copy against the module's
    listed files and every test file importing it, in any folder of tests/: the tests written for it."""
    assert "tests/core/test_settings.py" in fallback_tests("touche.settings", ROOT)
    assert "tests/core/test_settings.py" not in fallback_tests("touche.bounds", ROOT)



def test_the_report_counts_equivalents_apart_and_names_a_listed_one_that_was_killed(tmp_path, capsys):
    from bench.mutation.__main__ import print_report
    from bench.mutation.results import ModuleResult
    mutants = _small(tmp_path)
    entry = ModuleResult("small", sites=len(mutants), killed=len(mutants) - 2)
    entry.equivalent.append((mutants[0], "why"))
    entry.survived.append(mutants[1])
    entry.listed_but_killed.append((mutants[2], "killed"))
    good = print_report({"report": {"small": entry}, "seconds": 1.0, "measuring": 0.0, "cached": 0},
                        None, 1, 1.0)
    shown = capsys.readouterr().out
    assert not good  # 8 killed of 10 sites less 1 equivalent: 88.9 %, under the 90 % target
    assert "| `small` | 10 | 8 | 1 | 0 | 1 | 88.9% |" in shown
    assert f"listed equivalent, yet killed: line {mutants[2].line}" in shown
    entry.killed += 1
    entry.survived.clear()
    assert print_report({"report": {"small": entry}, "seconds": 1.0, "measuring": 0.0, "cached": 0}, None, 1, 1.0)


CLOSURES = textwrap.dedent('''\
    def scaled(k):
        def by(x):
            return x * k
        return by


    TABLE = {"double": scaled(2)}
    ''')


def test_a_mutant_inside_a_closure_made_at_import_reaches_the_closure(tmp_path, monkeypatch):
    """A table of closures built as the module loads keeps its own code objects: a mutant of the
    nested function must reach them, or it 'survives' without ever running (the run explorer's
    Jaccard@k measures did, until the swap covered nested functions)."""
    import importlib
    import sys

    from bench.mutation.forked import swap_in
    path = tmp_path / "closures_under_test.py"
    path.write_text(CLOSURES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("closures_under_test")
    try:
        source, mutants = mutants_of("closures_under_test", path)
        [times] = [m for m in mutants if m.change == "* → /"]
        assert times.scope == "scaled" and module.TABLE["double"](3) == 6
        assert swap_in(times, source) == 1
        assert module.TABLE["double"](3) == 1.5  # the closure made at import runs the mutant
        assert module.scaled(4)(2) == 0.5  # and one made after the swap
    finally:
        sys.modules.pop("closures_under_test", None)
