"""Streaming reader of the args.me corpus, 2020-04-01 JSON format (Touché Task 1 2020/2021).

A corpus file is one JSON object ``{"arguments": [ ... ]}`` of several GB, so it is streamed
with ijson (``arguments.item``, the C backend when available). Each argument has ``id``,
``conclusion``, ``premises`` (``[{text, stance, annotations}]``) and ``context`` (``sourceId``,
``sourceTitle``, ``sourceUrl``, ``sourceDomain``, ``discussionTitle`` or ``topic``,
``previousArgumentInSourceId``, ``nextArgumentInSourceId``, ...).

Arguments are numbered from 1 within their file in every message ("argument #1" is the first
element of the file's ``arguments`` array).

A record that is not a valid argument (not an object, missing/empty/non-string ``id``,
``conclusion`` not a string, ``premises`` not a list of objects with a string ``text``,
``context`` not an object, or an id seen before) is a *bad record*: an InputError by default,
or counted in a ``ReadReport`` and skipped with ``skip_bad_records=True``. Malformed or
truncated JSON is always an InputError: the parser cannot resynchronise after it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import ijson
from ijson.utils import sendable_list

from touche.budgets import MAX_NESTING, CountedReader, OverBudget, max_record_bytes, record_too_large
from touche.errors import InputError
from touche.indexing.files import corpus_files
from touche.indexing.records import Argument, Premise, id_problem
from touche.indexing.records import json_type as _json_type
from touche.progress import progress_bar

__all__ = ["ReadReport", "SkippedRecord", "argsme_files", "read_arguments", "iter_with_progress",
           "total_bytes", "BACKEND"]


def _load_backend():
    try:
        return ijson.get_backend("yajl2_c")
    except Exception:  # no compiled backend on this platform: ijson's pure-Python one (the ijson module's
        return ijson.get_backend("python")  # own names lack the coroutines _arguments drives)


BACKEND = _load_backend()
_UTF8_BOM = b"\xef\xbb\xbf"
_PROGRESS_EVERY = 1024  # arguments between two progress callbacks
_FILE_STRIDE = 1 << 40  # a first occurrence (file number, index) as file * stride + index
_SKIP_HINT = "pass --skip-bad-records (or set corpus.skip_bad_records: true) to count and skip such records"


@dataclass(frozen=True, slots=True)
class SkippedRecord:
    """A bad record that was skipped: its file, 1-based index in that file, id (if known), reason,
    and where it is when the record is no args.me argument (``line 3`` of a passage file): the
    words its error would have said."""

    file: str
    index: int
    id: str | None
    reason: str
    where: str = ""

    def __str__(self) -> str:
        ident = f", id {self.id!r}" if self.id is not None else ""
        return f"{self.file}, {self.where or f'argument #{self.index} (1-based)'}{ident}: {self.reason}"


@dataclass
class ReadReport:
    """Counts of one read: arguments yielded, bad records skipped (the first ``keep`` kept)."""

    read: int = 0
    skipped: int = 0
    files: int = 0
    keep: int = 20
    first_skipped: list[object] = field(default_factory=list)  # SkippedRecord or another family's (shown by str)
    unit: str = "argument"  # what a record is, for the summary (other corpus families reuse this)

    def add_skipped(self, record: object) -> None:
        self.skipped += 1
        if len(self.first_skipped) < self.keep:
            self.first_skipped.append(record)

    def summary(self) -> str:
        source = f" from {self.files} file(s)" if self.files else ""
        lines = [f"{self.read} {self.unit}s read{source}, {self.skipped} bad record(s) skipped"]
        lines += [f"  {r}" for r in self.first_skipped]
        if self.skipped > len(self.first_skipped):
            lines.append(f"  ... and {self.skipped - len(self.first_skipped)} more")
        return "\n".join(lines)


class _BadRecord(Exception):
    def __init__(self, reason: str, record_id: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.record_id = record_id


def argsme_files(path: str | os.PathLike) -> list[Path]:
    """The corpus files at ``path``: the file itself, or a directory's ``*.json`` files (recursive,
    sorted by relative path) — e.g. a TIRA input directory with the corpus files and topics.xml."""
    return corpus_files(path, (".json",), check_file_suffix=False,
                        expected="an args.me JSON file or a directory of them",
                        none_in_dir="no args.me corpus files: the directory has no *.json files "
                                    "(expected the args.me 2020-04-01 JSON files, e.g. args-me.json)")

def _expand(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in paths:
        files.extend(argsme_files(p))
    return files


def total_bytes(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> int:
    """Total size of the corpus files (for a progress bar by bytes)."""
    return sum(f.stat().st_size for f in _expand(paths))




def _context_value(context: dict, key: str) -> str:
    value = context.get(key)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return str(value)
    return ""


def _to_argument(raw: Any) -> Argument:
    """One ``arguments`` element → Argument, or _BadRecord saying what was expected."""
    if not isinstance(raw, dict):
        raise _BadRecord(f"expected a JSON object, found {_json_type(raw)}")
    if "id" not in raw:
        raise _BadRecord("missing 'id' (expected a non-empty string)")
    rid = raw["id"]
    if not isinstance(rid, str):
        raise _BadRecord(f"'id' must be a non-empty string, found {_json_type(rid)}")
    if not rid.strip():
        raise _BadRecord("'id' is empty (expected a non-empty string)", rid)
    problem = id_problem(rid)
    if problem:
        raise _BadRecord(problem, rid)
    if "?" in rid:
        # ijson's C parser reads a lone surrogate escape (\ud800) as "?": the run would name an
        # id the corpus does not hold. No args.me id holds "?" (they are S<hex>-A<hex>).
        raise _BadRecord(f"the id {rid!r} holds '?', which is how the JSON parser reads a lone surrogate "
                         "escape such as \\ud800 (or a literal '?'); args.me ids are S<hex>-A<hex>", rid)
    conclusion = raw.get("conclusion")
    if not isinstance(conclusion, str):
        found = "it is missing" if "conclusion" not in raw else f"found {_json_type(conclusion)}"
        raise _BadRecord(f"'conclusion' must be a string, {found}", rid)
    raw_premises = raw.get("premises")
    if not isinstance(raw_premises, list):
        found = "it is missing" if "premises" not in raw else f"found {_json_type(raw_premises)}"
        raise _BadRecord(f"'premises' must be an array of objects with a string 'text', {found}", rid)
    premises = []
    for j, p in enumerate(raw_premises, 1):
        if not isinstance(p, dict):
            raise _BadRecord(f"premise #{j} must be an object with a string 'text', found {_json_type(p)}", rid)
        text = p.get("text")
        if not isinstance(text, str):
            found = "it is missing" if "text" not in p else f"found {_json_type(text)}"
            raise _BadRecord(f"premise #{j}: 'text' must be a string, {found}", rid)
        stance = p.get("stance")
        premises.append(Premise(text, stance.strip().upper() if isinstance(stance, str) else ""))
    context = raw.get("context")
    if context is None:
        context = {}
    elif not isinstance(context, dict):
        raise _BadRecord(f"'context' must be an object, found {_json_type(context)}", rid)
    return Argument(
        id=rid,
        conclusion=conclusion,
        premises=tuple(premises),
        source_id=_context_value(context, "sourceId"),
        source_title=_context_value(context, "sourceTitle"),
        source_url=_context_value(context, "sourceUrl"),
        source_domain=_context_value(context, "sourceDomain"),
        discussion_title=_context_value(context, "discussionTitle") or _context_value(context, "topic"),
        previous_id=_context_value(context, "previousArgumentInSourceId"),
        next_id=_context_value(context, "nextArgumentInSourceId"),
    )


def _where(index: int, record_id: str | None) -> str:
    return f"argument #{index} (1-based)" + (f", id {record_id!r}" if record_id is not None else "")


def _parser_message(exc: BaseException) -> str:
    """ijson's message, first line plus the text it points at, on one line."""
    text = str(exc)
    if text.startswith(("b'", 'b"')):  # the C backend sometimes reports bytes' repr
        text = text[2:-1].encode("latin-1", "backslashreplace").decode("unicode_escape", "replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return type(exc).__name__
    message = lines[0].rstrip(".")
    if len(lines) > 1 and "(right here)" not in lines[1]:
        near = lines[1] if len(lines[1]) <= 60 else lines[1][:57] + "..."
        message += f" near {near!r}"
    return message


class _TooDeep(Exception):
    pass


def _arguments(counted: CountedReader) -> Iterator[Any]:
    """The elements of the top-level ``arguments`` array, as ijson's ``items`` builds them, within
    the budgets: each event is counted for its depth before ijson's parser sees it (its prefixes
    grow with the square of the depth: 100,000 nested arrays in 200 KB took 23 GB), and the bytes
    of one element are counted by ``counted``, whose budget restarts at each element's end."""
    found = sendable_list()
    build = BACKEND.parse_basecoro(BACKEND.items_basecoro(found, "arguments.item"))
    depth = 0
    for event, value in BACKEND.basic_parse(counted):
        if event == "start_map" or event == "start_array":
            depth += 1
            if depth > MAX_NESTING:
                raise _TooDeep()
        elif event == "end_map" or event == "end_array":
            depth -= 1
        build.send((event, value))
        if found:
            counted.boundary()
            yield from found
            del found[:]


def _has_arguments_array(path: Path) -> bool:
    with open(path, "rb") as f:
        if f.read(3) != _UTF8_BOM:
            f.seek(0)
        for prefix, event, _ in BACKEND.parse(f):
            if prefix == "arguments" and event == "start_array":
                return True
            if prefix == "" and event not in ("start_map", "map_key", "end_map"):
                return False  # the top level is not an object
    return False


def read_arguments(paths: str | os.PathLike | Iterable[str | os.PathLike], *, skip_bad_records: bool = False,
                   report: ReadReport | None = None,
                   on_position: Callable[[int], None] | None = None,
                   part: tuple[int, int] | None = None) -> Iterator[Argument]:
    """Stream the arguments of args.me corpus files (a file, a directory, or a list of them).

    Bad records raise InputError (file, ``argument #N`` counted from 1, the id if known, what
    was expected) unless ``skip_bad_records``, in which case they are counted in ``report``.
    Malformed/truncated JSON always raises InputError. ``on_position(bytes_done)`` is called now
    and then with the number of bytes read so far over all files (for a progress bar).

    ``part=(k, n)`` yields only every n-th element of the stream from the k-th (0-based, over
    all files): a shard's share. The other elements are JSON-parsed (the parser must pass them)
    but neither checked nor converted — their own shard does that — so duplicate ids across
    shards go undetected.
    """
    files = _expand(paths)
    position = -1  # of the element over all files, for ``part``
    report = report if report is not None else ReadReport()
    # id -> where it first occurred: file number and index as one int (a tuple per id held 72 MiB
    # at the end of the 387,740-argument corpus, an int 52 MiB)
    seen: dict[str, int] = {}
    done_bytes = 0
    for file_no, path in enumerate(files):
        report.files += 1
        try:
            size = path.stat().st_size
            f = open(path, "rb")
        except OSError as exc:
            raise InputError(f"cannot read the file: {exc.strerror or exc}", path=path) from None
        with f:
            if size == 0:
                raise InputError("the file is empty (expected args.me JSON: {\"arguments\": [...]})", path=path)
            if f.read(3) != _UTF8_BOM:
                f.seek(0)
            counted = CountedReader(f, max_record_bytes())
            items = _arguments(counted)
            index = 0
            last_id: str | None = None
            while True:
                try:
                    raw = next(items)
                except StopIteration:
                    break
                except (ijson.JSONError, UnicodeDecodeError) as exc:
                    where = f"after {_where(index, last_id)}" if index else "before the first argument"
                    raise InputError(
                        f"malformed JSON: {_parser_message(exc)} (read {counted.tell():,} of {size:,} bytes when the "
                        "parser stopped); the file is truncated or corrupt. This cannot be skipped with "
                        "skip_bad_records: re-download or re-extract the file",
                        path=path, where=where) from None
                except (OverBudget, _TooDeep) as exc:
                    where = f"argument #{index + 1} (1-based)" + (f", after id {last_id!r}" if last_id else "")
                    what = (record_too_large(f"more than {exc.size:,} bytes", "argument") if isinstance(exc, OverBudget)
                            else f"the argument nests arrays and objects more than {MAX_NESTING} deep (args.me "
                                 "nests four); refused before it is built")
                    raise InputError(f"{what}. The parser cannot go past it, so this cannot be skipped with "
                                     "skip_bad_records", path=path, where=where) from None
                index += 1
                position += 1
                if part is not None and position % part[1] != part[0]:
                    continue
                try:
                    argument = _to_argument(raw)
                    first = seen.get(argument.id)
                    if first is not None:
                        first_file, first_index = divmod(first, _FILE_STRIDE)
                        other = "this file" if first_file == file_no else str(files[first_file])
                        raise _BadRecord(f"duplicate id (first seen in {other}, argument #{first_index}); "
                                         "expected every id once", argument.id)
                    seen[argument.id] = file_no * _FILE_STRIDE + index
                except _BadRecord as bad:
                    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
                        last_id = raw["id"]
                    if not skip_bad_records:
                        raise InputError(f"{bad.reason}; {_SKIP_HINT}", path=path,
                                         where=_where(index, bad.record_id)) from None
                    report.add_skipped(SkippedRecord(str(path), index, bad.record_id, bad.reason))
                    continue
                last_id = argument.id
                report.read += 1
                if on_position is not None and index % _PROGRESS_EVERY == 0:
                    on_position(done_bytes + counted.tell())
                yield argument
            if index == 0 and not _has_arguments_array(path):
                raise InputError("no top-level \"arguments\" array (expected args.me 2020-04-01 JSON: "
                                 "{\"arguments\": [{\"id\": ..., \"conclusion\": ..., \"premises\": [...]}, ...]})",
                                 path=path)
        done_bytes += size
        if on_position is not None:
            on_position(done_bytes)


def iter_with_progress(paths: str | os.PathLike | Iterable[str | os.PathLike], *, desc: str = "reading args.me",
                       disable: bool = False, **kwargs: Any) -> Iterator[Argument]:
    """``read_arguments`` with a tqdm bar counting bytes read (no counting pass over the files)."""

    files = _expand(paths)
    bar = progress_bar(total=total_bytes(files), unit="B", unit_scale=True, unit_divisor=1024, desc=desc,
               disable=disable, mininterval=1.0)

    def update(done: int) -> None:
        bar.update(done - bar.n)

    try:
        yield from read_arguments(files, on_position=update, **kwargs)
    finally:
        bar.close()
