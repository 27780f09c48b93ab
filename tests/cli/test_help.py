"""The ``touche`` command's help and exit codes: what scripts and users rely on.

Every subcommand (including ones added later: the list comes from the parser) must show its
options, each with a help text, and an example that the parser accepts; the console script is
installed with the package; ``run_all.sh`` is a thin wrapper over ``touche run-all``; exit codes
are the documented ones.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared import REPO
from touche import cli
from touche.errors import EnvironmentProblem, InputError


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


COMMANDS = sorted(_subparsers())


def _help_of(name: str, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        cli.main([name, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_the_commands_the_issue_asks_for_exist():
    assert {"index", "run", "run-all", "evaluate", "validate", "analyze", "datasets"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_help_shows_every_option_with_its_help_and_an_example(name, capsys):
    text = _help_of(name, capsys)
    assert text.startswith(f"usage: touche {name}")
    assert f"example:\n  touche {name} " in text
    for action in _subparsers()[name]._actions:
        assert action.help, f"touche {name}: {action.option_strings or action.dest} has no help text"
        for option in action.option_strings:
            assert option in text


@pytest.mark.parametrize("name", COMMANDS)
def test_the_example_in_the_help_parses(name, capsys):
    """A stale example (renamed option, missing argument) fails here, not in a user's shell."""
    text = _help_of(name, capsys)
    example = text.split("example:\n", 1)[1].splitlines()[0].strip()
    argv = shlex.split(example)[1:]
    args = cli.build_parser().parse_args(argv)
    assert args.command == name


def test_top_level_help_lists_every_command_and_the_exit_codes():
    """Through the installed console script, as a user's shell finds it."""
    script = Path(sys.executable).parent / "touche"
    assert script.is_file(), "the touche console script is not installed (pip install -e .)"
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in COMMANDS:  # argparse puts a long name's help on the next line
        assert re.search(rf"\n    {re.escape(name)}\s", done.stdout), name
    for code in ("0", "1", "2", "3", "4", "130"):
        assert f"\n  {code} " in done.stdout


def test_run_all_sh_is_a_thin_wrapper_over_run_all():
    # The environment exists (this test runs in it): no test-tool installs, just the wrapper.
    env = {**os.environ, "TOUCHE_TEST_TOOLS": "0"}
    done = subprocess.run([str(REPO / "run_all.sh"), "--help"], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: touche run-all")


# ---------------------------------------------------------------- exit codes
def test_exit_code_1_for_an_invalid_run(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 doc-a 1 1.0 tag\n1 Q0 doc-b 2 2.0 tag\n")  # scores increase with the rank
    assert cli.main(["validate", str(run), "--format", "q0"]) == 1
    assert f"{run}:2: error:" in capsys.readouterr().out


def test_exit_code_2_for_bad_input_naming_the_file(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    (tmp_path / "corpus").mkdir()
    assert cli.main(["run", "-c", str(missing), "-i", str(tmp_path / "corpus"), "-t", str(tmp_path / "t.xml"), "-o",
                     str(tmp_path / "r.txt")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {missing}: ")


def test_exit_code_2_for_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["validate", "run.txt", "--no-such-option"])
    assert exit_info.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


@pytest.mark.parametrize("raised, code", [(InputError("bad", path="x.txt"), 2), (EnvironmentProblem("no java"), 3),
                                          (RuntimeError("bug"), 4), (KeyboardInterrupt(), 130)])
def test_exit_codes_of_failures(raised, code, monkeypatch, capsys):
    def fail(args):
        raise raised

    monkeypatch.setattr(cli.validate, "run", fail)
    assert cli.main(["validate", "run.txt"]) == code
    err = capsys.readouterr().err
    assert {2: "error: x.txt: bad", 3: "error: no java", 4: "internal error: RuntimeError: bug",
            130: "interrupted"}[code] in err


def test_validate_summarises_by_default_and_lists_with_verbose(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 d{q}{i} {i} 1.0 t\n" for q in (1, 2, 3) for i in (1, 2)))  # a tie per topic
    assert cli.main(["validate", str(run), "--format", "q0"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"{run}: valid as Q0 run, 3 warning(s) (3 × tied score(s)); --verbose lists every one"]
    assert cli.main(["validate", str(run), "--format", "q0", "--verbose"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 3 + 1


def test_a_set_given_as_two_words_gets_the_commands_usage_and_the_one_word_form(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["run", "-c", "v.yaml", "--set", "k1", "1.2", "-o", "x.txt"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.startswith("usage: touche run ")
    assert "touche run: error: unrecognized arguments: 1.2 (--set takes KEY=VALUE as one word: --set k1=1.2)" in err
