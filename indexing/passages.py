"""The Touché Task 2 2022 passage collection: JSONL, one ``{"id", "contents", "chatNoirUrl"}`` a line.

Ids are ``<ClueWeb12 id>___<n>`` (868,655 passages in the official file). A path may be the
file, a ``.jsonl.gz`` file, or a directory of them (e.g. a TIRA input directory with
``topics.xml`` beside the collection); lines are numbered from 1 in every message.

A *bad record* is a line that is not a JSON object, lacks a non-empty string ``id`` or a string
``contents``, or repeats an id: an InputError naming file and line by default, or counted and
skipped with ``skip_bad_records``. Blank lines are ignored.
"""
from __future__ import annotations

import gzip
import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from touche.budgets import bounded_lines, max_record_bytes, record_too_large
from touche.errors import InputError
from touche.indexing.argsme import ReadReport, SkippedRecord
from touche.indexing.corpora import files_fingerprint
from touche.indexing.files import corpus_files
from touche.indexing.records import id_problem

PASSAGE_SUFFIXES = (".jsonl", ".jsonl.gz")
_SKIP_HINT = "set corpus.skip_bad_records: true (skip_bad_records=True) to count and skip such records"
_EXPECTED = 'expected {"id": "clueweb12-…___n", "contents": "…", "chatNoirUrl": "…"}'


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    contents: str
    chatnoir_url: str = ""

    def to_json(self) -> str:
        return json.dumps({"id": self.id, "contents": self.contents, "chatNoirUrl": self.chatnoir_url},
                          ensure_ascii=False)

    @staticmethod
    def from_json(raw: str) -> "Passage":
        data = json.loads(raw)
        return Passage(data["id"], data.get("contents", ""), data.get("chatNoirUrl", ""))


def passage_files(path: str | os.PathLike) -> list[Path]:
    return corpus_files(path, PASSAGE_SUFFIXES, expected="the Touché 2022 passages JSONL (.jsonl or .jsonl.gz)",
                        none_in_dir="no passage files: the directory has no *.jsonl files (expected the Touché "
                                    "2022 passage collection)")

def _to_passage(line: str) -> Passage:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno}); {_EXPECTED}") from None
    except RecursionError:  # json's C scanner gives up on very deep nesting
        raise ValueError(f"not valid JSON (nested too deeply); {_EXPECTED}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, found {type(data).__name__}; {_EXPECTED}")
    pid = data.get("id")
    if not isinstance(pid, str) or not pid.strip():
        raise ValueError(f"'id' must be a non-empty string, found {pid!r}; {_EXPECTED}")
    problem = id_problem(pid)
    if problem:
        raise ValueError(problem)
    contents = data.get("contents")
    if not isinstance(contents, str):
        raise ValueError(f"'contents' must be a string, found {type(contents).__name__}; {_EXPECTED}")
    url = data.get("chatNoirUrl", "")
    return Passage(pid.strip(), contents, url if isinstance(url, str) else "")


def read_passages(files: list[Path], *, skip_bad_records: bool = False,
                  report: ReadReport | None = None) -> Iterator[Passage]:
    report = report if report is not None else ReadReport()
    seen: dict[str, tuple[str, int]] = {}
    limit = max_record_bytes()
    for path in files:
        report.files += 1
        opener = gzip.open if path.name.endswith(".gz") else open
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                for number, (line, whole) in enumerate(bounded_lines(f, limit), 1):
                    if whole and not line.strip():
                        continue
                    try:
                        if not whole:  # read no further than the budget: a 1 GB line is not held
                            raise ValueError(record_too_large(f"more than {limit:,} characters", "line"))
                        passage = _to_passage(line)
                        if passage.id in seen:
                            first = seen[passage.id]
                            raise ValueError(f"duplicate id {passage.id!r} (first at {first[0]}, line {first[1]}); "
                                             "expected every id once")
                    except ValueError as bad:
                        if not skip_bad_records:
                            raise InputError(f"{bad}; {_SKIP_HINT}", path=path, where=f"line {number}") from None
                        report.add_skipped(SkippedRecord(str(path), number, None, str(bad), f"line {number}"))
                        continue
                    seen[passage.id] = (path.name, number)
                    report.read += 1
                    yield passage
        except (UnicodeDecodeError, EOFError, gzip.BadGzipFile, zlib.error) as exc:  # zlib: corrupt deflate data
            raise InputError(f"cannot decode the file ({exc}); expected UTF-8 JSONL, optionally gzip-compressed",
                             path=path) from None


@dataclass
class PassageSource:
    path: Path
    skip_bad_records: bool = False
    name: str = "passages"
    report: ReadReport = field(default_factory=lambda: ReadReport(unit="passage"))
    fields: tuple[str, ...] = ("contents",)
    cheap_field: str = "contents"

    @staticmethod
    def display_raw(raw: str) -> str:
        return Passage.from_json(raw).contents

    def __post_init__(self):
        self.files = passage_files(self.path)

    def fingerprint(self) -> str:
        return files_fingerprint(self.files)

    def describe(self) -> dict:
        return {"format": "passages", "path": str(Path(self.path).resolve()),
                "files": [f.name for f in self.files], "fingerprint": self.fingerprint()}

    def records(self) -> Iterator[Passage]:
        return read_passages(self.files, skip_bad_records=self.skip_bad_records, report=self.report)

    def documents(self, fields: list[str]) -> Iterator[tuple[str, list[str], str]]:
        for passage in self.records():
            yield passage.id, [passage.contents for _ in fields], passage.to_json()
