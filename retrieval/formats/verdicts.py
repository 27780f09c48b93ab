"""``touche validate`` as a function: each run file's verdict (its format, every problem, or why it
could not be read as a run), and the lines a person reads: compiler-style ``file:line: severity:
message``, then a summary per file."""
from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from touche import sources
from touche.errors import ToucheError
from touche.retrieval.formats.runfile import Problem, RunFormat, detect_format, run_file_problems

SHOWN_ERRORS = 3  # errors a summary shows (every problem with verbose)


@dataclass
class Verdict:
    """One run file checked: its format and problems, or the error that kept it from being read."""
    path: str
    format: RunFormat | None = None
    problems: list[Problem] = field(default_factory=list)
    unreadable: ToucheError | None = None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.is_error]

    @property
    def status(self) -> int:
        """0 valid; 1 errors (or unreadable as a run); 2 no file at all."""
        if self.unreadable is not None:
            return 2 if not sources.exists(self.path) else 1
        return 1 if self.errors else 0

    def lines(self, verbose: bool = False) -> list[str]:
        """What a person reads: the problems (the first errors, or with ``verbose`` every problem),
        then the summary."""
        if self.unreadable is not None:
            exc = self.unreadable
            where = exc.where.removeprefix("line ") + ":" if exc.where else ""
            return [f"{self.path}:{where} error: {exc.message}",
                    f"{self.path}: not checked: it cannot be read as a run"]
        shown = self.problems if verbose else self.errors[:SHOWN_ERRORS]
        out = [f"{self.path}:{f'{p.line}:' if p.line is not None else ''} {p.severity.value}: {p.message}"
               for p in shown]
        verdict = "valid" if not self.errors else f"{len(self.errors)} error(s)"
        summary = f"{self.path}: {verdict} as {self.format.name if self.format else '?'} run"
        if self.warnings:
            kinds = Counter(_kind(p) for p in self.warnings)
            summary += (f", {len(self.warnings)} warning(s) ("
                        + "; ".join(f"{n} × {k}" for k, n in kinds.most_common(3)) + ")")
        if not verbose and (len(self.errors) > SHOWN_ERRORS or self.warnings):
            summary += "; --verbose lists every one"
        return out + [summary]


def validate_runs(runs: Iterable[str | os.PathLike[str]], format: RunFormat | str | None = None) -> list[Verdict]:
    """Every file's verdict (one unreadable file does not hide the others'); ``format``: q0, pairs,
    stance or image (default: detected per file)."""
    fmt = RunFormat.parse(format) if format else None
    verdicts = []
    for path in runs:
        try:
            found = fmt or detect_format(path)
            verdicts.append(Verdict(str(path), found, run_file_problems(path, found)))
        except ToucheError as exc:
            verdicts.append(Verdict(str(path), unreadable=exc))
    return verdicts


def status_of(verdicts: Iterable[Verdict]) -> int:
    """The exit status of a validation: the worst file's."""
    return max((v.status for v in verdicts), default=0)


def _kind(problem: Problem) -> str:
    """A warning's kind: what the validator calls it (``Problem.kind``), else its message without
    the topic, numbers and the explanation after ';'."""
    if problem.kind:
        return problem.kind
    message = re.sub(r"^topic \S+: ", "", problem.message).split(";", 1)[0].split(",", 1)[0]
    return " ".join(w for w in message.split() if not any(c.isdigit() for c in w))
