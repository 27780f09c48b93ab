"""args.me in the BEIR layout (``beir/webis-touche2020``, as BEIR and ir_datasets distribute it):
a folder with ``corpus.jsonl`` (``{"_id", "title", "text"}`` a line), ``queries.jsonl``
(``{"_id", "text", "metadata": {"description", "narrative"}}``) and ``qrels/test.tsv``.

A BEIR argument becomes an args.me ``Argument``: the title is the conclusion, the text the one
premise, so every Task 1 variant runs on it unchanged. A BEIR folder is recognised by its
``corpus.jsonl`` beside ``queries.jsonl`` (not taken for Task 2's passage JSONL).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from touche.budgets import bounded_lines, max_record_bytes, record_too_large
from touche.errors import InputError
from touche.indexing.argsme import ReadReport, SkippedRecord
from touche.indexing.records import Argument, Premise, id_problem

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
QRELS_FILE = Path("qrels") / "test.tsv"


def is_beir_folder(path: Path) -> bool:
    path = Path(path)
    return path.is_dir() and (path / CORPUS_FILE).is_file() and (path / QUERIES_FILE).is_file()


def corpus_file(path: Path) -> Path | None:
    """The BEIR corpus file ``path`` stands for (the folder's corpus.jsonl, or the file itself)."""
    path = Path(path)
    if is_beir_folder(path) or (path.is_dir() and (path / CORPUS_FILE).is_file()):
        return path / CORPUS_FILE
    if path.is_file() and path.name.endswith(".jsonl"):
        return path
    return None


def _argument(line: str) -> Argument:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:  # json's C scanner gives up on very deep nesting
        raise ValueError("not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object {{\"_id\", \"title\", \"text\"}}, found {type(data).__name__}")
    rid, title, text = data.get("_id"), data.get("title", ""), data.get("text")
    if not isinstance(rid, str) or not rid.strip():
        raise ValueError(f"'_id' must be a non-empty string, found {rid!r}")
    problem = id_problem(rid)
    if problem:
        raise ValueError(problem)
    if not isinstance(text, str) or not isinstance(title, str):
        raise ValueError("'title' and 'text' must be strings")
    return Argument(rid, title, (Premise(text, ""),))


def read_corpus(path: Path, *, skip_bad_records: bool = False, report: ReadReport | None = None,
                part: tuple[int, int] | None = None) -> Iterator[Argument]:
    """The arguments of a BEIR corpus.jsonl; a bad line names the file and line (or is skipped)."""
    report = report if report is not None else ReadReport()
    report.files += 1
    limit = max_record_bytes()
    with open(path, encoding="utf-8-sig") as handle:
        index = -1
        for number, (line, whole) in enumerate(bounded_lines(handle, limit), start=1):
            if whole and not line.strip():
                continue
            index += 1
            if part is not None and index % part[1] != part[0]:
                continue
            try:
                if not whole:  # read no further than the budget: a 1 GB line is not held
                    raise ValueError(record_too_large(f"more than {limit:,} characters", "line"))
                argument = _argument(line)
            except ValueError as exc:
                if not skip_bad_records:
                    raise InputError(f"{exc}; set corpus.skip_bad_records: true to count and skip such records",
                                     path=path, where=f"line {number}") from None
                report.add_skipped(SkippedRecord(str(path), number, None, str(exc), f"line {number}"))
                continue
            report.read += 1
            yield argument
