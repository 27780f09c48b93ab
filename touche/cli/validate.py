"""``touche validate``: check run files line by line against a Touché run format."""
from __future__ import annotations

from touche.api.checks import validate
from touche.cli.common import add_command
from touche.guard import Files
from touche.retrieval.formats.verdicts import status_of

PRINTING = {"verbose"}  # how much of each verdict is shown


def add_parser(sub) -> None:
    p = add_command(sub, "validate", run,
                    "touche validate runs/bm25.txt --format q0")
    p.add_argument("runs", nargs="+")
    p.add_argument("--format", help="q0 | pairs | stance | image (default: detected)")
    p.add_argument("--verbose", action="store_true", help="every problem, one 'file:line: severity: message' line each "
                                                          "(default: a summary per file and its first errors)")


def run(args) -> int:
    verdicts = validate(args.runs, args.format)
    for verdict in verdicts:  # every file's verdict: one unreadable file does not hide the others'
        print("\n".join(verdict.lines(args.verbose)))
    return status_of(verdicts)


def files(args) -> Files:
    return Files.of(reads=[("run", r) for r in args.runs])
