"""The results file: one JSON line per finished run of a point on a set, appended and fsync'd.

A rerun skips every run whose key is there and whose run file exists; a line torn by a crash
is ignored (that run is done again) and dropped from the file by the next sweep that holds the
lock, so the warning is given once, not on every later call.
"""
from __future__ import annotations

import json
import logging
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from touche.guard import OutputFolder

log = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"


@dataclass
class Record:
    key: str
    point: int
    overrides: dict[str, Any]
    measures: dict[str, float]
    run: str  # relative to the output directory
    seconds: float
    index: str = ""
    per_topic: dict[str, dict[str, float]] = field(default_factory=dict)  # measure → topic → value
    qrels: str = ""  # fingerprint of the qrels the measures were computed with
    set: str = ""  # the development set (sets:) the point ran on

    def to_json(self) -> str:
        data = {**self.__dict__, "measures": {k: _json_number(v) for k, v in self.measures.items()}}
        return json.dumps(data, sort_keys=False)

    @classmethod
    def from_json(cls, data: dict) -> "Record":
        data = dict(data)
        data["measures"] = {k: (math.nan if v is None else float(v)) for k, v in data["measures"].items()}
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _json_number(value: float) -> float | None:
    return None if isinstance(value, float) and math.isnan(value) else value


@dataclass
class StoredRecords:
    by_key: dict[str, Record]
    torn: int  # lines that are no complete record


def load_records(path: Path, *, warn: bool = True) -> StoredRecords:
    """Finished runs by key (the last line of a key wins) and the number of torn lines."""
    records: dict[str, Record] = {}
    torn = 0
    if not path.is_file():
        return StoredRecords(records, 0)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = Record.from_json(json.loads(line))
            except (json.JSONDecodeError, TypeError, KeyError, ValueError, AttributeError):
                torn += 1
                if warn:
                    log.warning("warning: %s, line %d: not a complete result record (interrupted write?); "
                                "that point will be run again", path, number)
                continue
            records[record.key] = record
    return StoredRecords(records, torn)


def read_records(path: Path) -> dict[str, Record]:
    """Finished runs by key. Torn or foreign lines are skipped with a warning."""
    return load_records(path).by_key


def compact(folder: OutputFolder, stored: StoredRecords) -> None:
    """Rewrite the file without its torn lines and superseded records (the caller holds the
    sweep's lock): written to a temporary file, then renamed."""
    if not stored.torn:
        return
    folder.write_text(RESULTS_FILE, "".join(record.to_json() + "\n" for record in stored.by_key.values()))


def append_record(folder: OutputFolder, record: Record) -> None:
    """One O_APPEND write of a whole line, then fsync: a crash leaves at most one torn last line."""
    data = (record.to_json() + "\n").encode("utf-8")
    path = folder.path / RESULTS_FILE
    # A torn line from an earlier crash must not swallow this record: start on a fresh line.
    if folder.ours(RESULTS_FILE) and path.stat().st_size and not _ends_with_newline(path):
        data = b"\n" + data
    folder.append(RESULTS_FILE, data)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
