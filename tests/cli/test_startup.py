"""The command line answers at once: a command imports what it needs and nothing else.

Checked by what is imported (``sys.modules`` in a fresh interpreter), not by timing: the
start-up benchmark (``python -m bench.startup``) holds the seconds. ``touche --help`` once
loaded scipy, nltk and the stance model (4 s) because every command's module was imported to
build the parser.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from touche import cli

HEAVY = ("scipy", "nltk", "statsmodels", "matplotlib", "jnius", "sklearn")
DEMO = Path(__file__).resolve().parents[2] / "demo"


def _imported_after(code: str) -> set[str]:
    """The heavy packages (and which of ours) a fresh interpreter holds after ``code``."""
    probe = (f"import io, json, sys, contextlib\n{code}\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
             f"{HEAVY!r} or m.startswith('touche.cli.'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _main(argv: list[str]) -> str:
    return ("from touche.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass")


def test_touche_help_imports_no_command_and_nothing_heavy():
    imported = _imported_after(_main(["--help"]))
    assert not {m for m in imported if m.split(".")[0] in HEAVY}
    assert imported == {"touche.cli.common", "touche.cli.commands"}, "touche --help imported command modules"


def test_a_command_imports_its_own_module_only(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1\tQ0\tdoc-a\t1\t2.5\ttag\n1\tQ0\tdoc-b\t2\t1.5\ttag\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 doc-a 2\n1 0 doc-b 0\n")
    for argv, own in ((["validate", str(run)], "touche.cli.validate"),
                      (["evaluate", str(run), str(qrels)], "touche.cli.evaluate")):
        imported = _imported_after(_main(argv))
        assert {m for m in imported if m.split(".")[0] in HEAVY} == set(), argv
        assert imported - {own, "touche.cli.common", "touche.cli.commands"} == set(), argv


@pytest.mark.parametrize("module", ["touche.api", "touche.pyterrier"])
def test_the_python_entry_points_load_statistics_where_first_needed(module):
    assert {m.split(".")[0] for m in _imported_after(f"import {module}")} & set(HEAVY) == set()


def test_the_lazy_parser_knows_what_the_full_one_knows(capsys):
    """A command parsed alone gets exactly the options it has in the full parser, and the top
    level help lists every command with the summary its own help starts with."""
    full = cli.build_parser()
    choices = full._subparsers._group_actions[0].choices
    assert list(choices) == list(cli.COMMANDS)
    for name in cli.COMMANDS:
        alone = cli.build_parser(load=[name])._subparsers._group_actions[0].choices[name]
        assert [a.option_strings or a.dest for a in alone._actions] == \
            [a.option_strings or a.dest for a in choices[name]._actions]
        assert alone.description.startswith(cli.COMMANDS[name])
    assert cli.command_named(["--debug", "validate", "x"]) == "validate"
    assert cli.command_named(["--help"]) is None and cli.command_named(["nonsense", "validate"]) is None
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["nonsense"])
    assert exit_info.value.code == 2 and "invalid choice: 'nonsense'" in capsys.readouterr().err
