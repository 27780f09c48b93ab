"""``touche validate``: check run files line by line against a Touché run format."""
from __future__ import annotations

import re
from collections import Counter

from touche import sources
from touche.cli.common import add_command
from touche.errors import ToucheError
from touche.guard import Files
from touche.retrieval.formats.runfile import RunFormat, detect_format, validate_run

SHOWN_ERRORS = 3


def add_parser(sub) -> None:
    p = add_command(sub, "validate", run,
                    "touche validate runs/bm25.txt --format q0")
    p.add_argument("runs", nargs="+")
    p.add_argument("--format", help="q0 | pairs | stance | image (default: detected)")
    p.add_argument("--verbose", action="store_true", help="every problem, one 'file:line: severity: message' line each "
                                                          "(default: a summary per file and its first errors)")


def run(args) -> int:
    status = 0
    for path in args.runs:  # every file gets its verdict: one unreadable file does not hide the others'
        try:
            fmt = RunFormat.parse(args.format) if args.format else detect_format(path)
            problems = validate_run(path, fmt)
        except ToucheError as exc:
            print(f"{path}:{exc.where.removeprefix('line ') + ':' if exc.where else ''} error: {exc.message}")
            print(f"{path}: not checked: it cannot be read as a run")
            status = 2 if not sources.exists(path) else max(status, 1)
            continue
        errors = [p for p in problems if p.is_error]
        warnings = [p for p in problems if not p.is_error]
        shown = problems if args.verbose else errors[:SHOWN_ERRORS]
        for p in shown:  # compiler-style "file:line: severity: message", one per line
            print(f"{path}:{f'{p.line}:' if p.line is not None else ''} {p.severity.value}: {p.message}")
        verdict = "valid" if not errors else f"{len(errors)} error(s)"
        summary = f"{path}: {verdict} as {fmt.name} run"
        if warnings:
            kinds = Counter(_kind(p) for p in warnings)
            summary += (
                f", {len(warnings)} warning(s) (" + "; ".join(f"{n} × {k}" for k, n in kinds.most_common(3)) + ")"
            )
        if not args.verbose and (len(errors) > SHOWN_ERRORS or warnings):
            summary += "; --verbose lists every one"
        print(summary)
        status = max(status, 1 if errors else 0)
    return status


def _kind(problem) -> str:
    """A warning's kind: what the validator calls it (``Problem.kind``), else its message without
    the topic, numbers and the explanation after ';'."""
    if problem.kind:
        return problem.kind
    message = re.sub(r"^topic \S+: ", "", problem.message).split(";", 1)[0].split(",", 1)[0]
    return " ".join(w for w in message.split() if not any(c.isdigit() for c in w))


def files(args) -> Files:
    return Files.of(reads=[("run", r) for r in args.runs])
