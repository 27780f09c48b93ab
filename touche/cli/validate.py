"""``touche validate``: check run files line by line against a Touché run format."""
from __future__ import annotations

from retrieval.formats.runfile import RunFormat, detect_format, validate_run
from touche.cli.common import add_command


def add_parser(sub) -> None:
    p = add_command(sub, "validate", run, "check run files against a Touché run format, line by line",
                    "touche validate runs/bm25.txt --format q0")
    p.add_argument("runs", nargs="+")
    p.add_argument("--format", help="q0 | pairs | stance | image (default: detected)")


def run(args) -> int:
    status = 0
    for path in args.runs:
        fmt = RunFormat.parse(args.format) if args.format else detect_format(path)
        problems = validate_run(path, fmt)
        for p in problems:  # compiler-style "file:line: severity: message", one per line
            print(f"{path}:{p.line if p.line is not None else ''}: {p.severity.value}: {p.message}")
        errors = sum(p.is_error for p in problems)
        warnings = len(problems) - errors
        verdict = "valid" if not errors else f"{errors} error(s)"
        print(f"{path}: {verdict} as {fmt.name} run" + (f", {warnings} warning(s)" if warnings else ""))
        status = status or (1 if errors else 0)
    return status
