"""Writing run files: rows (from a ranking or an API frame) ranked, validated against the run
format (runfile.py) and written atomically — the one run-file writer."""
from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from touche.atomic import atomic_open, check_writable
from touche.bounds import is_number, score_problem
from touche.errors import InputError
from touche.guard import OutputFolder
from touche.retrieval.formats.runfile import (
    CONTROL,
    WHITESPACE,
    Problem,
    RowsInput,
    RunFormat,
    RunRow,
    natural_key,
    problems_and_rows,
    raise_on_errors,
)

TIE_ORDERS = ("docid", "given")  # how equal scores are ordered in a written run

def _normalise_rows(rows: RowsInput, fmt: RunFormat, path: Path) -> list[tuple[str, Any, Any, Any]]:
    """(qid, column2, docid, score) for either accepted input shape."""
    default = fmt.default_column2
    out: list[tuple[str, Any, Any, Any]] = []  # as given: checked next
    if isinstance(rows, Mapping):
        for qid, entries in rows.items():
            for entry in entries:
                if len(entry) not in (2, 3):
                    raise InputError(
                        f"topic {qid}: expected (docid, score) or (docid, score, column2), "
                        f"got {entry!r}",
                        path=str(path),
                    )
                column2 = entry[2] if len(entry) == 3 else default
                out.append((str(qid), column2, entry[0], entry[1]))
    else:
        for record in rows:
            column2 = getattr(record, "column2", None) or default
            out.append((str(record.qid), column2, record.docid, record.score))

    checked: list[tuple[str, str, str, float]] = []
    for qid, column2, docid, score in out:
        where = f"topic {qid}"
        for name, value in (("topic id", qid), ("docid", docid)):
            if not isinstance(value, str) or not value or WHITESPACE.search(value):
                raise InputError(f"{name} {value!r} must be a non-empty string without whitespace",
                                 path=str(path), where=where)
        if column2 is None:
            raise InputError(
                f"docid {docid}: an {fmt.name} run needs the stance "
                f"({'|'.join(fmt.column2_values)}) for every row",
                path=str(path),
                where=where,
            )
        if column2 not in fmt.column2_values:
            raise InputError(
                f"docid {docid}: second column {column2!r} is not allowed in a {fmt.name} run; "
                f"expected {'|'.join(fmt.column2_values)}",
                path=str(path),
                where=where,
            )
        if not is_number(score):  # a bool or a text is no score: the file of them would be refused
            raise InputError(f"docid {docid}: score {score!r} is not a number",
                             path=str(path), where=where)
        try:
            value = float(score)
        except OverflowError:  # an integer of hundreds of digits
            shown = f"{str(score)[:20]}… ({len(str(score))} digits)"
            raise InputError(f"docid {docid}: {score_problem(math.inf, shown)}", path=str(path), where=where) from None
        except ValueError:  # Decimal('sNaN'): no float at all
            raise InputError(f"docid {docid}: score {score!r} is not finite", path=str(path), where=where) from None
        if not math.isfinite(value):
            raise InputError(f"docid {docid}: score {value!r} is not finite",
                             path=str(path), where=where)
        if problem := score_problem(value):
            raise InputError(f"docid {docid}: {problem}", path=str(path), where=where)
        checked.append((qid, column2, docid, value))
    return checked


def untied(scores: Iterable[float]) -> list[float]:
    """Scores in rank order made strictly decreasing as every evaluator reads them: each becomes
    the 32-bit float trec_eval reads (its scores are C floats), written as the shortest decimal of
    it, and one not below its predecessor (a tie, or two scores one float apart) steps one 32-bit
    float below it. trec_eval (ties by document id, descending), Touché 2021's evaluator (by score)
    and Touché 2022's (by rank) then read one order, the ranks'. The order is kept; a score moves by
    at most the steps its ties need."""
    out: list[float] = []
    previous = None
    for score in scores:
        value = np.float32(score)
        if previous is not None and not value < previous:
            value = np.nextafter(previous, np.float32(-np.inf), dtype=np.float32)
        out.append(float(str(value)))  # the shortest decimal that is this float32: short in the file
        previous = value
    return out


def _ranked(
    rows: list[tuple[str, str, str, float]], fmt: RunFormat, limit: int, path: Path, ties: str = "docid",
    untie: bool = False,
) -> Iterator[tuple[str, str, str, int, float]]:
    """(qid, column2, docid, rank, score) in file order: what a written run holds. Equal scores
    are ordered by document id, or (``ties="given"``) kept in the order they were given;
    ``untie``: then made strictly decreasing (``untied``)."""
    if ties not in TIE_ORDERS:
        raise ValueError(f"ties must be one of {', '.join(TIE_ORDERS)}, not {ties!r}")
    groups: dict[tuple[str, ...], list[tuple[str, str, str, float]]] = defaultdict(list)
    seen: dict[tuple[str, str], str] = {}
    for row in rows:
        qid, column2, docid, _ = row
        if (qid, docid) in seen:
            raise InputError(
                f"docid {docid} given twice for topic {qid}"
                + (f" ({seen[qid, docid]} and {column2})" if fmt is RunFormat.IMAGE else ""),
                path=str(path),
                where=f"topic {qid}",
            )
        seen[qid, docid] = column2
        groups[fmt.group_key(qid, column2)].append(row)

    order = {value: index for index, value in enumerate(fmt.column2_values)}

    def group_order(key: tuple[str, ...]) -> tuple[Any, ...]:
        return (natural_key(key[0]), *(order[k] for k in key[1:]))

    for key in sorted(groups, key=group_order):
        if ties == "given":  # a stable sort keeps the given order among equal scores
            ranked = sorted(groups[key], key=lambda r: -r[3])[:limit]
        else:
            ranked = sorted(groups[key], key=lambda r: (-r[3], r[2]))[:limit]
        scores = untied(r[3] for r in ranked) if untie else [r[3] for r in ranked]
        for rank, ((qid, column2, docid, _), score) in enumerate(zip(ranked, scores), start=1):
            yield qid, column2, docid, rank, score


def _format_lines(
    rows: list[tuple[str, str, str, float]], fmt: RunFormat, tag: str, limit: int, path: Path, ties: str,
    untie: bool = False,
) -> list[str]:
    # repr() is the shortest text that reads back as the same float: order is kept.
    return [f"{qid} {column2} {docid} {rank} {score!r} {tag}\n"
            for qid, column2, docid, rank, score in _ranked(rows, fmt, limit, path, ties, untie)]


def ranked_rows(rows: RowsInput, fmt: RunFormat | str, tag: str = "run",
                max_per_topic: int | None = None, where: str = "in-memory run", ties: str = "docid",
                untie: bool = False) -> list[RunRow]:
    """The rows ``write_run`` would write (same order, ranks, cut and checks), without a file:
    in-memory runs are scored exactly as their submitted file would be."""
    fmt = RunFormat.parse(fmt)
    limit = fmt.max_per_group if max_per_topic is None else max_per_topic
    path = Path(where)
    return [RunRow(qid, column2, docid, rank, score, tag)
            for qid, column2, docid, rank, score in _ranked(_normalise_rows(rows, fmt, path), fmt, limit, path,
                                                             ties, untie)]


@dataclass(frozen=True)
class WrittenRun:
    """A run file as the writer wrote it: its text is kept, so whatever needs the run again (run.txt
    beside a variant's file, the evaluation after the run) takes it from here, never by reading
    back a pipe, a device or a file the writer did not make. The gate reads it as a run."""
    path: Path
    text: bytes
    fmt: RunFormat
    warnings: tuple[Problem, ...] = ()

    @property
    def label(self) -> str:
        return str(self.path)


def _tag_as_written(tag: Any, path: Path) -> str:
    """The tag column: a word; a tag with spaces (some official runs': ``"Colbert edinburg"``,
    which the reader reads) in double quotes, as those runs wrote it (the validator warns of it)."""
    if not isinstance(tag, str) or not tag.strip() or '"' in tag or WHITESPACE.search(tag.replace(" ", "")) \
            or CONTROL.search(tag):
        raise InputError(f"run tag {tag!r} must be a non-empty word (spaces allowed, written quoted; no quotes, tabs "
                         "or line breaks)", path=str(path))
    return f'"{tag}"' if " " in tag else tag


def render_run(rows: RowsInput, fmt: RunFormat | str, tag: str, max_per_topic: int | None = None,
               topics: Collection[str] | None = None, ties: str = "docid", *,
               where: str | os.PathLike[str] = "run file", untie: bool = False) -> tuple[str, list[Problem]]:
    """The text ``write_run`` writes and the validator's warnings; InputError (naming ``where``)
    when the rows make no valid run."""
    path = Path(where)
    fmt = RunFormat.parse(fmt)
    tag = _tag_as_written(tag, path)
    limit = fmt.max_per_group if max_per_topic is None else max_per_topic
    if limit < 1:
        raise InputError(f"max_per_topic must be at least 1, got {limit}", path=str(path))
    lines = _format_lines(_normalise_rows(rows, fmt, path), fmt, tag, limit, path, ties, untie)
    problems = problems_and_rows(enumerate(lines, start=1), fmt, topics)[0]
    raise_on_errors(problems, path)
    return "".join(lines), [p for p in problems if not p.is_error]


def write_run(
    path: str | os.PathLike[str],
    rows: RowsInput,
    fmt: RunFormat | str,
    tag: str,
    max_per_topic: int | None = None,
    topics: Collection[str] | None = None,
    ties: str = "docid",
    *,
    into: OutputFolder | None = None,
    untie: bool = False,
) -> WrittenRun:
    """Write a valid run file atomically; returns it (its text and the validator's warnings).

    ``rows`` is either ``{qid: [(docid, score[, column2]), ...]}`` or an iterable of records
    with ``qid``, ``docid``, ``score`` and optionally ``column2`` attributes (e.g. RunRow; its
    rank and tag are ignored). ``column2`` defaults to ``Q0`` except for IMAGE runs, which
    need a stance per row.

    Each topic (each topic and stance for IMAGE) is sorted by score, descending, ties broken
    by docid ascending, cut to ``max_per_topic`` (default: the format's maximum, 1000 or 10),
    and ranked 1..n; topics come in natural numeric order. Scores are written unchanged.
    ``ties="given"`` keeps equal scores in the order given instead (a frame ordered by its rank
    column, as an official run file with tied scores is ranked).

    The text is validated (with ``topics`` as the expected topics, if given) before anything is
    written, then written to a temporary file beside ``path`` and renamed over it (a pipe or a
    device is written into): on any error, InputError is raised and ``path`` is left as it was.
    ``into``: the output folder ``path`` lies in, which writes it only where it may (a file it
    made, or nothing yet) and records it. ``untie``: scores made strictly decreasing in rank order
    (``untied``), so that no evaluator orders a topic otherwise: the toolkit's own runs.
    """
    path = Path(path)
    if into is None:
        check_writable(path)  # a folder named like the run: said now, not as a temporary file's error
    elif path.parent != into.path:
        raise ValueError(f"{path} does not lie in {into.path}")
    else:
        into.check_writable(path.name)
    fmt = RunFormat.parse(fmt)
    text, warnings = render_run(rows, fmt, tag, max_per_topic, topics, ties, where=path, untie=untie)
    if into is not None:
        with into.open(path.name, "w", fsync=True) as handle:
            _write_lines(handle, [text])
    else:
        with atomic_open(path, "w", fsync=True) as handle:
            _write_lines(handle, [text])
    return WrittenRun(path, text.encode("utf-8"), fmt, tuple(warnings))


def _write_lines(handle: Any, lines: Iterable[str]) -> None:
    handle.writelines(lines)


# ------------------------------------------------------------------------------- detection


