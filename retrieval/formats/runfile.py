"""Reading and validating Touché run files (every task's format: ``runformat.py``).

A run line is ``qid column2 docid rank score tag``, whitespace separated; what ``column2`` and
``docid`` may hold and how many rows a topic may have depends on the run format
(``retrieval/formats/runformat.py``). For IMAGE runs ranks count within a topic *and stance*
(1-10 for PRO, 1-10 for CON); for the other formats within a topic.

Validation problems have a severity:

* **error** - the run breaks a rule of the task or is read differently by different
  evaluators: bad column count, non-numeric or negative rank, non-numeric or non-finite score,
  column2 not allowed by the format, malformed image/sentence-pair id, duplicate docid in a
  topic (for images: in either stance), too many rows for a topic, an image topic/stance
  without exactly 10 rows, duplicated rank, a score higher than the one ranked above it
  (trec_eval orders by score, Touché's evaluator by rank: they would disagree), more than one
  tag, a missing or unexpected topic (when the expected topics are given), an empty file.
* **warning** - legal but worth a look: ranks starting at 0 or another number than 1, gaps in
  ranks, tied scores (trec_eval breaks ties by docid, not by the rank column), fewer than 100
  pairs for a PAIRS topic, a quoted tag containing whitespace, a pair of two identical
  sentences, blank lines.
"""
from __future__ import annotations

import math
import os
import re
import unicodedata
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

from touche import numbers, sources
from touche.bounds import score_problem
from touche.errors import InputError
from touche.retrieval.formats.runformat import (
    ARGUMENT_STANCES,
    COMPARATIVE_STANCES,
    IMAGE_ID,
    PASSAGE_ID,
    SENTENCE_ID,
    RunFormat,
)

__all__ = [
    "RunFormat",
    "RunRow",
    "Problem",
    "Severity",
    "problems_and_rows",
    "run_file_problems",
    "run_file_warnings",
    "detect_format",
    "natural_key",
    "ARGUMENT_STANCES",
    "COMPARATIVE_STANCES",
    "IMAGE_ID",
    "PASSAGE_ID",
    "SENTENCE_ID",
]

_INT = numbers.WHOLE  # ASCII digits only, as trec_eval reads them: int("١") is 1 in Python
MAX_RANK_DIGITS = 18  # ranks are 64-bit integers in every table that reads them
# a score as the validator reads it (and float() converts it)
SCORE = numbers.DECIMAL
WHITESPACE = re.compile(r"\s")


@dataclass(frozen=True)
class RunRow:
    qid: str
    column2: str
    docid: str
    rank: int
    score: float
    tag: str


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    line: int | None  # 1-based; None for problems of the whole file (e.g. a missing topic)
    message: str
    severity: Severity = Severity.ERROR
    kind: str = ""  # what a summary counts it as ("rank gap"); the message when empty

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.severity.value}: {self.message}"


class RunRowLike(Protocol):  # read-only members: a frozen RunRow is one
    @property
    def qid(self) -> str: ...
    @property
    def docid(self) -> str: ...
    @property
    def score(self) -> float: ...


RowsInput = Mapping[Any, Sequence[Sequence[Any]]] | Iterable[RunRowLike]


def canonical_topic(qid: str) -> str:
    """A topic id as a number where it is one: ``001``, ``01`` and ``1`` are topic 1 (Touché's
    topics are numbered; a run padded with zeros once scored nothing without a word). Every
    gate reads topics so (runs, qrels), and so does the validator when it looks for duplicates.
    ASCII digits only, and by text, not ``int()``: an id of 5,000 digits is an id, not
    CPython's ValueError, and other scripts' digits are not Touché's numbering."""
    qid = str(qid)
    if qid.isascii() and qid.isdigit():
        return qid.lstrip("0") or "0"
    return qid


def natural_key(text: str) -> tuple[tuple, ...]:
    """Sort key putting ``"2"`` before ``"10"`` and ``"a2"`` before ``"a10"``; numbers compared by
    their digits, not ``int()`` (an id of 5,000 digits sorts, it is no ValueError)."""
    return tuple((0, len(n), n) if p.isascii() and (n := p.lstrip("0") or "0").isdigit() else (1, p)
                 for p in re.split(r"([0-9]+)", text) if p)


# --------------------------------------------------------------------------------- parsing


def _split_line(text: str) -> tuple[list[str], bool]:
    """Fields of a run line; the tag may be a double-quoted string holding spaces.

    Returns the fields and whether the tag was quoted. Some official runs quote their tag
    (``"Colbert edinburg"``) and the organisers' pandas-based reader accepted that.
    """
    parts = text.split(None, 5)
    if len(parts) < 6:
        return parts, False
    tag = parts[5].strip()
    if len(tag) >= 2 and tag[0] == tag[-1] == '"' and '"' not in tag[1:-1]:
        return parts[:5] + [tag[1:-1]], True
    return parts[:5] + tag.split(), False


# NUL and other control characters (and a stray byte-order mark) in an id break every tool that
# reads the run after us.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u2028\u2029\ufeff]")


def _ascii_note(text: str) -> str:
    """What a number written in other digits (Arabic-Indic ١, fullwidth １) is told: Python reads
    them, trec_eval does not."""
    return " in the digits 0-9 (trec_eval reads no others)" if any(c.isdigit() and not c.isascii() for c in text) \
        else ""


def _parse_line(
    text: str, line: int, fmt: RunFormat | None
) -> tuple[RunRow | None, list[Problem]]:
    """Parse one non-blank line: the row (None if unusable) and its per-line problems."""
    fields, quoted = _split_line(text)
    if len(fields) != 6:
        expected = fmt.description if fmt else "qid column2 docid rank score tag"
        return None, [Problem(line, f"expected 6 columns `{expected}`, found {len(fields)}")]
    qid, column2, docid, rank_text, score_text, tag = fields
    problems: list[Problem] = []
    if CONTROL.search(text):  # rare: then find the field that holds it
        for name, value in (("topic id", qid), ("document id", docid), ("tag", tag)):
            bad = CONTROL.search(value)
            if bad:
                problems.append(Problem(line, f"{name} {value!r} contains the control character "
                                              f"U+{ord(bad.group()):04X}"))
    if not text.isascii():  # a format character (U+202E reverses what follows, U+200B shows as nothing)
        for name, value in (("topic id", qid), ("document id", docid), ("tag", tag)):
            hidden = next((c for c in value if unicodedata.category(c) == "Cf"), None)
            if hidden is not None:
                problems.append(Problem(line, f"{name} {value!r} contains the invisible format character "
                                              f"U+{ord(hidden):04X} ({unicodedata.name(hidden, 'unnamed')}): it reads "
                                              "differently than it compares", Severity.WARNING,
                                        "invisible character in an id or tag"))
    if not _INT.fullmatch(rank_text):
        problems.append(Problem(line, f"rank {rank_text!r} is not an integer{_ascii_note(rank_text)}"))
    elif len(rank_text.lstrip("+-").lstrip("0")) > MAX_RANK_DIGITS:  # beyond a 64-bit integer (and int()'s 4,300)
        problems.append(Problem(line, f"rank {rank_text[:30]}{'…' if len(rank_text) > 30 else ''} has more than "
                                      f"{MAX_RANK_DIGITS} digits; no run holds so many rows"))
    if not SCORE.fullmatch(score_text):
        problems.append(Problem(line, f"score {score_text!r} is not a finite number{_ascii_note(score_text)}"))
    elif problem := score_problem(float(score_text)):
        problems.append(Problem(line, problem))
    if fmt is not None and column2 not in fmt.column2_values:
        problems.append(
            Problem(
                line,
                f"second column {column2!r} is not allowed in a {fmt.name} run; "
                f"expected {'|'.join(fmt.column2_values)}",
            )
        )
    if quoted:
        if not tag.strip():
            problems.append(Problem(line, "the tag is empty"))
        elif WHITESPACE.search(tag):
            problems.append(
                Problem(
                    line,
                    f"tag {tag!r} is quoted and contains whitespace; trec_eval and most tools "
                    "expect a tag without spaces",
                    Severity.WARNING, "quoted tag with whitespace",
                )
            )
    if any(p.is_error for p in problems):
        return None, problems
    return RunRow(qid, column2, docid, int(rank_text), float(score_text), tag), problems


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        # utf-8-sig: a byte-order mark (Windows editors write one) is not part of the first qid;
        # read as plain UTF-8 it made the first row's topic unknown, silently.
        with sources.open_text(path, what="run file") as handle:  # a pipe: read once per command
            for number, text in enumerate(handle, start=1):
                yield number, text
    except FileNotFoundError:
        raise InputError("run file not found", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise InputError(f"run file is not UTF-8 text ({error.reason})", path=str(path)) from None


# ------------------------------------------------------------------------------ validation


def _id_problems(row: RunRow, line: int, fmt: RunFormat) -> list[Problem]:
    if fmt is RunFormat.IMAGE and not IMAGE_ID.fullmatch(row.docid):
        return [Problem(line, f"image id {row.docid!r} is not 'I' followed by 16 hex digits")]
    if fmt is RunFormat.PAIRS:
        sids = row.docid.split(",")
        if len(sids) != 2:
            return [
                Problem(line, f"docid {row.docid!r} is not a sentence pair `sid1,sid2`")
            ]
        bad = [sid for sid in sids if not SENTENCE_ID.fullmatch(sid)]
        if bad:
            return [
                Problem(
                    line,
                    f"sentence id {bad[0]!r} is not like 'S…-A…__PREMISE__n' or 'S…-A…__CONC__1'",
                )
            ]
        if sids[0] == sids[1]:
            return [Problem(line, f"pair {row.docid!r} pairs a sentence with itself")]
    return []


def same_item_key(docid: str, fmt: RunFormat) -> str:
    """What makes two rows the same item: for sentence pairs, "a,b" and "b,a" are one pair."""
    if fmt is RunFormat.PAIRS and "," in docid:
        return ",".join(sorted(docid.split(",", 1)))
    return docid


def _topic_label(key: tuple[str, ...]) -> str:
    return f"topic {key[0]}" + (f" ({key[1]})" if len(key) > 1 else "")


def _group_problems(key: tuple[str, ...], entries: list[tuple[int, RunRow]]) -> list[Problem]:
    """Rank and score order within one ranked group (a topic, or a topic and stance)."""
    problems: list[Problem] = []
    label = _topic_label(key)
    ordered = sorted(entries, key=lambda e: (e[1].rank, e[0]))
    first_line, first = ordered[0]
    if first.rank != 1:
        problems.append(
            Problem(
                first_line,
                f"{label}: ranks start at {first.rank}, not 1 (Touché's evaluator counts "
                "positions from the first rank; trec_eval ignores ranks)",
                Severity.WARNING, "ranks not starting at 1",
            )
        )
    gap_reported = False
    increases: list[tuple[int, RunRow, int, RunRow]] = []
    ties: list[tuple[int, int]] = []
    for (line_a, a), (line_b, b) in zip(ordered, ordered[1:]):
        if b.rank == a.rank:
            problems.append(
                Problem(line_b, f"{label}: rank {b.rank} already used on line {line_a}")
            )
        elif b.rank != a.rank + 1 and not gap_reported:
            gap_reported = True
            problems.append(
                Problem(
                    line_b,
                    f"{label}: ranks jump from {a.rank} (line {line_a}) to {b.rank}",
                    Severity.WARNING, "gap in the ranks",
                )
            )
        if b.score > a.score:
            increases.append((line_a, a, line_b, b))
        elif b.score == a.score:
            ties.append((line_a, line_b))
    if increases:
        line_a, a, line_b, b = increases[0]
        more = f" ({len(increases)} places in this topic)" if len(increases) > 1 else ""
        problems.append(
            Problem(
                line_b,
                f"{label}: score {b.score!r} at rank {b.rank} is higher than {a.score!r} at rank "
                f"{a.rank} (line {line_a}){more}; scores must not increase with rank "
                "(trec_eval orders by score, Touché by rank)",
            )
        )
    if ties:
        line_a, line_b = ties[0]
        problems.append(
            Problem(
                line_b,
                f"{label}: {len(ties)} tied score(s), first with line {line_a}; trec_eval breaks "
                "ties by docid, not by the rank column",
                Severity.WARNING, "tied score(s)",
            )
        )
    return problems


def problems_and_rows(
    lines: Iterable[tuple[int, str]],
    fmt: RunFormat,
    topics: Collection[str] | None,
) -> tuple[list[Problem], list[RunRow]]:
    """(every problem, ordered by line; the rows parsed on the way): one pass over the file
    serves both the check and the scorer."""
    problems: list[Problem] = []
    rows: list[tuple[int, RunRow]] = []
    refused: set[str] = set()  # topics with a line refused: their rank sequence has a hole of our making
    for number, text in lines:
        if not text.strip():
            problems.append(Problem(number, "blank line", Severity.WARNING, "blank line"))
            continue
        row, line_problems = _parse_line(text, number, fmt)
        problems.extend(line_problems)
        if row is None:
            refused.add(canonical_topic(text.split(None, 1)[0]))
            continue
        if row.rank < 0:
            problems.append(Problem(number, f"rank {row.rank} is negative"))
        if not math.isfinite(row.score):
            problems.append(Problem(number, f"score {row.score!r} is not finite"))
        problems.extend(_id_problems(row, number, fmt))
        rows.append((number, row))

    if not rows:
        if not any(p.is_error for p in problems):
            problems.append(Problem(None, "the run has no rows"))
        return _sorted(problems), []

    # One tag per run: report each further tag once, where it first appears.
    first_tag_line, first_row = rows[0]
    seen_tags = {first_row.tag}
    for number, row in rows:
        if row.tag not in seen_tags:
            seen_tags.add(row.tag)
            problems.append(
                Problem(
                    number,
                    f"tag {row.tag!r} differs from {first_row.tag!r} (line {first_tag_line}); "
                    "a run has one tag",
                )
            )

    # grouped by the topic the scorers read (001 and 1 are one topic: a document under both
    # was scored twice in it), the ids as written kept for the expected-topics check
    by_topic: dict[str, list[tuple[int, RunRow]]] = defaultdict(list)
    as_written: dict[str, list[tuple[int, RunRow]]] = defaultdict(list)
    groups: dict[tuple[str, ...], list[tuple[int, RunRow]]] = defaultdict(list)
    for number, row in rows:
        topic = canonical_topic(row.qid)
        by_topic[topic].append((number, row))
        as_written[row.qid].append((number, row))
        groups[fmt.group_key(topic, row.column2)].append((number, row))

    for qid, entries in by_topic.items():
        seen: dict[str, tuple[int, RunRow]] = {}
        for number, row in entries:
            key = same_item_key(row.docid, fmt)
            if key in seen:
                first_line, first = seen[key]
                if fmt is RunFormat.IMAGE and first.column2 != row.column2:
                    message = (
                        f"topic {qid}: image {row.docid} is both {first.column2} (line "
                        f"{first_line}) and {row.column2}; an image may have one stance per topic"
                    )
                else:
                    message = f"topic {qid}: duplicate docid {row.docid} (first on line {first_line})"
                problems.append(Problem(number, message))
            else:
                seen[key] = (number, row)

    maximum, minimum = fmt.max_per_group, fmt.min_per_group
    for group, entries in groups.items():
        label = _topic_label(group)
        count = len(entries)
        if fmt is RunFormat.IMAGE and count != maximum:
            problems.append(
                Problem(
                    entries[min(count, maximum + 1) - 1][0],
                    f"{label} has {count} images; exactly {maximum} per topic and stance expected",
                )
            )
        elif count > maximum:
            problems.append(
                Problem(entries[maximum][0], f"{label} has {count} rows; at most {maximum} allowed")
            )
        elif count < minimum:
            problems.append(
                Problem(
                    entries[0][0],
                    f"{label} has {count} rows; Touché asks for at least {minimum}",
                    Severity.WARNING, f"fewer than {minimum} rows in a topic",
                )
            )
        problems.extend(p for p in _group_problems(group, entries)
                        if not (group[0] in refused and p.kind in ("ranks not starting at 1", "gap in the ranks")))

    if fmt is RunFormat.IMAGE:
        for qid, entries in by_topic.items():
            stances = {row.column2 for _, row in entries}
            for stance in fmt.column2_values:
                if stance not in stances:
                    problems.append(
                        Problem(
                            entries[0][0],
                            f"topic {qid} has no {stance} images; exactly {maximum} per topic "
                            "and stance expected",
                        )
                    )

    if topics is not None:
        expected = {str(t) for t in topics}
        for qid, entries in as_written.items():
            if qid not in expected:
                problems.append(Problem(entries[0][0], f"topic {qid} is not an expected topic"))
        for qid in sorted(expected - as_written.keys(), key=natural_key):
            problems.append(Problem(None, f"topic {qid} is missing (no rows)"))

    return _sorted(problems), [row for _, row in rows]


def _sorted(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.line is not None, p.line or 0))


def run_file_problems(
    path: str | os.PathLike[str],
    fmt: RunFormat | str,
    topics: Collection[str] | None = None,
) -> list[Problem]:
    """Every problem of a run file, ordered by line (file-wide problems first).

    ``topics``: the expected topic ids; when given, missing and unexpected topics are errors.
    See the module docstring for which problems are errors and which are warnings.
    """
    return problems_and_rows(numbered_lines(Path(path)), RunFormat.parse(fmt), topics)[0]


def run_file_warnings(
    path: str | os.PathLike[str],
    fmt: RunFormat | str,
    topics: Collection[str] | None = None,
) -> list[Problem]:
    """run_file_problems, raising InputError on the first error; returns the warnings."""
    problems = run_file_problems(path, fmt, topics)
    raise_on_errors(problems, Path(path))
    return [p for p in problems if not p.is_error]


def raise_on_errors(problems: Sequence[Problem], path: Path) -> None:
    errors = [p for p in problems if p.is_error]
    if not errors:
        return
    first = errors[0]
    more = f" (and {len(errors) - 1} more error(s))" if len(errors) > 1 else ""
    where = f"line {first.line}" if first.line is not None else None
    raise InputError(first.message + more, path=str(path), where=where)


def detect_format(path: str | os.PathLike[str], sample: int = 2000) -> RunFormat:
    """Guess a run's format from its first ``sample`` rows.

    IMAGE: PRO/CON with image ids; PAIRS: ``sid1,sid2`` docids; STANCE: FIRST/SECOND/NEUTRAL/NO,
    or Q0 with Task 2 2022 passage ids (``clueweb12-…___n``); otherwise Q0.
    Raises InputError for an empty file or a second column no format allows.
    """
    path = Path(path)
    column2: set[str] = set()
    docids: list[str] = []
    for _, text in numbered_lines(path):
        fields, _ = _split_line(text)
        if len(fields) < 3:
            continue
        column2.add(fields[1])
        docids.append(fields[2])
        if len(docids) >= sample:
            break
    if not docids:
        raise InputError("cannot detect the run format: no rows", path=str(path))
    if column2 <= set(ARGUMENT_STANCES) and all(IMAGE_ID.fullmatch(d) for d in docids):
        return RunFormat.IMAGE
    if any("," in d for d in docids) or any(SENTENCE_ID.fullmatch(d) for d in docids):
        return RunFormat.PAIRS
    if column2 & set(COMPARATIVE_STANCES):
        return RunFormat.STANCE
    if column2 == {"Q0"}:
        return RunFormat.STANCE if all(PASSAGE_ID.fullmatch(d) for d in docids) else RunFormat.Q0
    if column2 <= {"PRO", "CON", "Q0"}:
        return RunFormat.PAIRS
    raise InputError(
        f"cannot detect the run format: second column holds {sorted(column2)}",
        path=str(path),
    )
