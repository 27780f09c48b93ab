"""args.me split into sentences (Touché Task 1 2022): records, the 2022 CSV reader, our own
splitting of the 2020 JSON, and the corpus source for ``corpus.format: argsme-sentences``.

The 2022 corpus is one CSV with args.me's columns (``id, conclusion, premises, context,
sentences``), ``premises``/``context`` holding Python literals and ``sentences`` a Python list
of ``{"sent_id": "<argid>__PREMISE__n" | "<argid>__CONC__1", "sent_text": ...}``. Two rules
of that corpus shape this module:

* very short conclusions were left out of the sentence list, yet ``<argid>__CONC__1`` is still
  a valid answer: an argument whose list has no conclusion sentence gets one made from its
  conclusion (``Sentence.listed`` is False for it);
* duplicate sentences are expected (arguments of one debate share its title as conclusion). The
  records keep every id, so every id stays resolvable; deduplication by text happens in the
  pair pipeline (``text_key`` is the identity it uses).

The 2020-04-01 JSON (a file or a directory, read by ``indexing.argsme``) is accepted too and
split with ``stemming.sentences`` (offline Punkt): the conclusion becomes ``__CONC__1``,
the premises' sentences ``__PREMISE__1..n`` in order.

One source, two index levels. ``SentenceSource.documents(fields)`` yields *arguments* (fields
``contents``, ``conclusion``, ``premises``, ``title``; the stored raw JSON carries the argument
with its sentences) unless the field ``sentence`` is asked for, in which case it yields one
document per sentence id (the stored raw JSON carries the argument id, role and position).
Both levels are ordinary indexes of ``indexing.builder`` whose keys differ by their fields.
"""
from __future__ import annotations

import ast
import csv
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from touche.atomic import atomic_open
from touche.budgets import MAX_LITERAL_VALUES, OverBudget, bounded_lines, max_record_bytes, record_too_large
from touche.errors import ConfigError, InputError
from touche.indexing.argsme import ReadReport, SkippedRecord, argsme_files, read_arguments
from touche.indexing.corpora import argument_fields, files_fingerprint
from touche.indexing.records import Argument, Premise
from touche.stemming.sentences import default_splitter, model_fingerprint

__all__ = ["Sentence", "SentencedArgument", "SentenceSource", "parse_sentence_id", "text_key",
           "read_sentence_csv", "split_argument", "write_sentence_csv",
           "ARGUMENT_FIELDS", "SENTENCE_FIELDS", "CSV_COLUMNS"]

CONCLUSION, PREMISE = "conclusion", "premise"
ARGUMENT_FIELDS = ("contents", "conclusion", "premises", "title")
SENTENCE_FIELDS = ("sentence",)
CSV_COLUMNS = ("id", "conclusion", "premises", "context", "sentences")
_REQUIRED_COLUMNS = ("id", "conclusion", "sentences")
_SENTENCE_ID = re.compile(r"(?P<argument>.+)__(?P<kind>PREMISE|CONC)__(?P<position>\d+)")
_KEY_NOISE = re.compile(r"[\W_]+")
_SKIP_HINT = "set corpus.skip_bad_records: true to count and skip such records"
# args.me context keys ↔ Argument fields (the CSV writer rebuilds args.me's context object).
_CONTEXT_KEYS = (("sourceId", "source_id"), ("sourceTitle", "source_title"), ("sourceUrl", "source_url"),
                 ("sourceDomain", "source_domain"), ("discussionTitle", "discussion_title"),
                 ("previousArgumentInSourceId", "previous_id"), ("nextArgumentInSourceId", "next_id"))


# ---------------------------------------------------------------- records
def parse_sentence_id(sentence_id: str) -> tuple[str, str, int]:
    """``<argid>__PREMISE__3`` → (argid, "premise", 3); ValueError if it is no sentence id."""
    match = _SENTENCE_ID.fullmatch(sentence_id)
    if match is None:
        raise ValueError(
            f"{sentence_id!r} is not a sentence id '<argument id>__PREMISE__n' or '<argument id>__CONC__n'"
        )
    role = CONCLUSION if match["kind"] == "CONC" else PREMISE
    return match["argument"], role, int(match["position"])


def text_key(text: str) -> str:
    """What makes two sentences duplicates: the same words, ignoring case, spacing and punctuation."""
    return _KEY_NOISE.sub(" ", text.casefold()).strip()


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of an argument, with where it sits in it."""

    id: str
    text: str
    argument_id: str
    role: str  # "conclusion" | "premise"
    position: int  # the n of the id
    listed: bool = True  # False: a conclusion the corpus left out of its sentence list

    @classmethod
    def from_id(cls, sentence_id: str, text: str, listed: bool = True) -> "Sentence":
        argument_id, role, position = parse_sentence_id(sentence_id)
        return cls(sentence_id, text, argument_id, role, position, listed)

    def to_json(self) -> str:
        return json.dumps({"id": self.id, "argument": self.argument_id, "role": self.role,
                           "position": self.position, "text": self.text}, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class SentencedArgument:
    """An args.me argument with its sentences (conclusion first, then premises in order)."""

    argument: Argument
    sentences: tuple[Sentence, ...]

    @property
    def id(self) -> str:
        return self.argument.id

    @property
    def stance(self) -> str:
        return self.argument.stance

    def to_json(self) -> str:
        record = self.argument.to_dict()
        record["sentences"] = [{"id": s.id, "text": s.text, **({} if s.listed else {"listed": False})}
                               for s in self.sentences]
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes) -> "SentencedArgument":
        """Parse what ``to_json`` wrote (the raw document stored in the argument-level index)."""
        argument = Argument.from_json(raw)
        record = json.loads(raw)
        items = record.get("sentences")
        if not isinstance(items, list):
            raise InputError("stored argument has no 'sentences' list (was the index built from an "
                             "argsme-sentences corpus?)", where=f"stored argument {argument.id!r}")
        sentences = []
        for item in items:
            try:
                sentences.append(Sentence.from_id(item["id"], item["text"], item.get("listed", True)))
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"malformed stored sentence {item!r}: {exc}",
                                 where=f"stored argument {argument.id!r}") from None
        return cls(argument, tuple(sentences))


# ---------------------------------------------------------------- splitting the 2020 JSON
def split_argument(argument: Argument, splitter=None) -> SentencedArgument:
    """Our own sentence list for a 2020-04-01 argument: ``__CONC__1`` then ``__PREMISE__1..n``."""
    if splitter is None:
        splitter = default_splitter()
    sentences: list[Sentence] = []
    conclusion = " ".join(argument.conclusion.split())
    if conclusion:
        sentences.append(Sentence(f"{argument.id}__CONC__1", conclusion, argument.id, CONCLUSION, 1))
    position = 0
    for premise in argument.premises:
        for text in splitter.iter_split(premise.text):
            position += 1
            sentences.append(Sentence(f"{argument.id}__PREMISE__{position}", text, argument.id, PREMISE, position))
    return SentencedArgument(argument, tuple(sentences))


# ---------------------------------------------------------------- reading the 2022 CSV
class _BadRecord(Exception):
    def __init__(self, reason: str, record_id: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.record_id = record_id


class _RowBudget:
    """The lines of a CSV file as the csv module takes them, counted since the last row ended: a
    row (a line, or a quoted cell spanning many) beyond the record budget raises OverBudget, and
    no line is read past the budget either (``bounded_lines``)."""

    def __init__(self, handle, limit: int):
        self.lines = bounded_lines(handle, limit)
        self.limit = limit
        self.size = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line, whole = next(self.lines)
        self.size += len(line)
        if not whole or self.size > self.limit:
            raise OverBudget(self.size)
        return line

    def row_done(self) -> None:
        self.size = 0


def _literal(text: str, column: str, expected: type, record_id: str) -> Any:
    """A Python-literal column (``ast.literal_eval``: literals only, never code)."""
    if not text.strip():
        return expected()
    values = text.count(",") + text.count(":")  # ast holds each value as an object of ~100 bytes
    if values > MAX_LITERAL_VALUES:
        raise _BadRecord(f"'{column}' holds more than {MAX_LITERAL_VALUES:,} values (counted by its separators); "
                         "no argument has so many", record_id)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        raise _BadRecord(f"'{column}' is not a Python literal {expected.__name__} (starts {text[:40]!r})",
                         record_id) from None
    if not isinstance(value, expected):
        raise _BadRecord(f"'{column}' must be a Python {expected.__name__}, found {type(value).__name__}", record_id)
    return value


def _row_to_record(row: dict[str, str | None], seen: set[str]) -> SentencedArgument:
    rid = (row.get("id") or "").strip()
    if not rid:
        raise _BadRecord("'id' is empty (expected an args.me argument id such as 'S71152e5e-A66163a57')")
    if rid in seen:
        raise _BadRecord("duplicate argument id (expected every id once)", rid)
    conclusion = " ".join((row.get("conclusion") or "").split())
    premises = []
    for j, item in enumerate(_literal(row.get("premises") or "", "premises", list, rid), 1):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise _BadRecord(f"premise #{j} must be a dict with a string 'text'", rid)
        stance = item.get("stance")
        premises.append(Premise(item["text"], stance.strip().upper() if isinstance(stance, str) else ""))
    context = _literal(row.get("context") or "", "context", dict, rid)
    metadata = {name: str(context.get(key) or "") for key, name in _CONTEXT_KEYS}
    metadata["discussion_title"] = metadata["discussion_title"] or str(context.get("topic") or "")
    sentences = _row_sentences(row.get("sentences") or "", rid)
    if not premises:  # only the sentence column: rebuild the premise text for the argument level
        text = " ".join(s.text for s in sentences if s.role == PREMISE)
        premises = [Premise(text, "")] if text else []
    argument = Argument(rid, conclusion, tuple(premises), **metadata)
    if conclusion and not any(s.role == CONCLUSION for s in sentences):
        # The __CONC__1 rule: short conclusions are missing from the list but still valid answers.
        sentences.insert(0, Sentence(f"{rid}__CONC__1", conclusion, rid, CONCLUSION, 1, listed=False))
    seen.add(rid)
    return SentencedArgument(argument, tuple(sentences))


def _row_sentences(text: str, rid: str) -> list[Sentence]:
    items = _literal(text, "sentences", list, rid)
    sentences: list[Sentence] = []
    ids: set[str] = set()
    for j, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("sent_id"), str) \
                or not isinstance(item.get("sent_text"), str):
            raise _BadRecord(f"sentence #{j} must be a dict with string 'sent_id' and 'sent_text'", rid)
        sid = item["sent_id"].strip()
        try:
            sentence = Sentence.from_id(sid, " ".join(item["sent_text"].split()))
        except ValueError as exc:
            raise _BadRecord(f"sentence #{j}: {exc}", rid) from None
        if sentence.argument_id != rid:
            raise _BadRecord(
                f"sentence #{j}: id {sid!r} belongs to argument {sentence.argument_id!r}, not to this one", rid
            )
        if sid in ids:
            raise _BadRecord(f"sentence #{j}: duplicate sentence id {sid!r}", rid)
        ids.add(sid)
        sentences.append(sentence)
    # Conclusion first, then premises in the order of the list (their ids number them).
    return [s for s in sentences if s.role == CONCLUSION] + [s for s in sentences if s.role == PREMISE]


def read_sentence_csv(files: Iterable[Path], *, skip_bad_records: bool = False,
                      report: ReadReport | None = None) -> Iterator[SentencedArgument]:
    """Stream the arguments of 2022 sentence CSV files (csv module, Python literals via ast)."""
    limit = max_record_bytes()
    csv.field_size_limit(limit)  # premises of debate posts exceed csv's 128 KiB default; a record's budget holds them
    report = report if report is not None else ReadReport()
    seen: set[str] = set()
    for path in files:
        report.files += 1
        try:
            handle = open(path, encoding="utf-8-sig", newline="")
        except OSError as exc:
            raise InputError(f"cannot read the file: {exc.strerror or exc}", path=path) from None
        with handle:
            lines = _RowBudget(handle, limit)
            reader = csv.DictReader(lines)
            try:
                header = reader.fieldnames
            except (csv.Error, UnicodeDecodeError, OverBudget) as exc:
                why = record_too_large(f"more than {exc.size:,} characters", "header") if isinstance(exc, OverBudget) \
                    else exc
                raise InputError(f"not a readable CSV header: {why}", path=path, where="line 1") from None
            missing = [c for c in _REQUIRED_COLUMNS if c not in (header or [])]
            if missing:
                raise InputError(
                    f"missing column(s) {', '.join(missing)}; expected the args.me 2022 sentence CSV "
                    f"with columns {', '.join(CSV_COLUMNS)} (found {', '.join(header or []) or 'nothing'})",
                    path=path,
                    where="line 1",
                )
            index = 0
            while True:
                lines.row_done()
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except (csv.Error, UnicodeDecodeError) as exc:
                    raise InputError(f"malformed CSV: {exc}; the file is truncated or corrupt (cannot be skipped)",
                                     path=path, where=f"line {reader.line_num}") from None
                except OverBudget as exc:
                    raise InputError(f"{record_too_large(f'more than {exc.size:,} characters', 'row')}; the CSV "
                                     "reader cannot go past it (cannot be skipped)", path=path,
                                     where=f"line {reader.line_num + 1}, argument #{index + 1} (1-based)") from None
                index += 1
                try:
                    if None in row:  # more cells than header columns
                        raise _BadRecord(f"{len(header or ()) + len(row[None])} cells for {len(header or ())} columns",
                                         (row.get("id") or None))
                    record = _row_to_record(row, seen)
                except _BadRecord as bad:
                    where = f"line {reader.line_num}, argument #{index} (1-based)" + (
                        f", id {bad.record_id!r}" if bad.record_id else "")
                    if not skip_bad_records:
                        raise InputError(f"{bad.reason}; {_SKIP_HINT}", path=path, where=where) from None
                    report.add_skipped(SkippedRecord(str(path), index, bad.record_id, bad.reason))
                    continue
                report.read += 1
                yield record


# ---------------------------------------------------------------- writing the 2022 CSV
def write_sentence_csv(records: Iterable[SentencedArgument], path: str | os.PathLike[str], *,
                       omit_conclusions_below: int = 0) -> int:
    """Write arguments in the 2022 CSV format (atomically); returns the number written.

    ``omit_conclusions_below``: leave conclusions with fewer words than this out of the
    sentence list, as the organisers did with very short ones.
    """
    count = 0
    with atomic_open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for record in records:
            a = record.argument
            premises = [{"text": p.text, "stance": p.stance, "annotations": []} for p in a.premises]
            context = {key: getattr(a, name) for key, name in _CONTEXT_KEYS}
            sentences = [{"sent_id": s.id, "sent_text": s.text} for s in record.sentences
                         if not (s.role == CONCLUSION and len(s.text.split()) < omit_conclusions_below)]
            writer.writerow([a.id, a.conclusion, repr(premises), repr(context), repr(sentences)])
            count += 1
    return count


# ---------------------------------------------------------------- the corpus source
def sentence_corpus_files(path: str | os.PathLike[str]) -> tuple[str, list[Path]]:
    """("csv" | "json", files): a CSV or JSON file, or a directory holding CSV files (the TIRA
    input: the sentence CSV beside topics.xml) or, failing that, args.me JSON files."""
    p = Path(path)
    if p.is_file():
        if p.suffix.lower() == ".csv":
            return "csv", [p]
        if p.suffix.lower() == ".json":
            return "json", [p]
        raise InputError("expected the args.me 2022 sentence CSV (*.csv) or args.me 2020 JSON (*.json)", path=p)
    if p.is_dir():
        csvs = sorted((f for f in p.rglob("*.csv") if f.is_file()), key=lambda f: f.relative_to(p).as_posix())
        if csvs:
            return "csv", csvs
        if any(p.rglob("*.json")):
            return "json", argsme_files(p)
        raise InputError("no sentence corpus here: expected the args.me 2022 sentence CSV (*.csv) "
                         "or args.me 2020 JSON files (*.json)", path=p)
    raise InputError(
        "no such file or directory (expected the args.me 2022 sentence CSV or a directory with it)", path=p
    )


@dataclass
class SentenceSource:
    """``corpus.format: argsme-sentences``: arguments with their sentences, at two index levels."""

    path: Path
    skip_bad_records: bool = False
    name: str = "argsme-sentences"
    report: ReadReport = field(default_factory=ReadReport)
    fields: tuple[str, ...] = ARGUMENT_FIELDS + SENTENCE_FIELDS
    cheap_field: str = "sentence"  # ids are sentence ids: a judged pair is two of them

    def __post_init__(self):
        self.kind, self.files = sentence_corpus_files(self.path)

    def fingerprint(self) -> str:
        if self.kind == "json":  # our own splitting: a new Punkt model means new sentences
            return files_fingerprint(self.files) + model_fingerprint()[:8]
        return files_fingerprint(self.files)

    def describe(self) -> dict:
        return {"format": self.name, "input": self.kind, "path": str(Path(self.path).resolve()),
                "files": [f.name for f in self.files], "fingerprint": self.fingerprint()}

    def records(self) -> Iterator[SentencedArgument]:
        if self.kind == "csv":
            return read_sentence_csv(self.files, skip_bad_records=self.skip_bad_records, report=self.report)
        return (split_argument(a) for a in
                read_arguments(self.files, skip_bad_records=self.skip_bad_records, report=self.report))

    def texts(self, docids: set[str], *, progress: bool = False) -> dict[str, str]:
        """Sentences by id, and a pair ``s1,s2`` as its two sentences, one per line."""
        pairs = {d: d.split(",") for d in docids if "," in d}
        wanted = {s for parts in pairs.values() for s in parts} | (set(docids) - set(pairs))
        sentences: dict[str, str] = {}
        for docid, values, _ in self.documents([self.cheap_field]):
            if docid in wanted:
                sentences[docid] = values[0]
                if len(sentences) == len(wanted):
                    break
        found = {d: sentences[d] for d in docids if d in sentences}
        for pair, parts in pairs.items():
            if all(s in sentences for s in parts):
                found[pair] = "\n".join(sentences[s] for s in parts)
        return found

    def holds(self, docids: Iterable[str]) -> set[str]:
        """The judged units (``sid1,sid2`` pairs, or single sentences) whose sentences all are here."""
        sentences = {docid for docid, _, _ in self.documents([self.cheap_field])}
        return {d for d in docids if all(s in sentences for s in d.split(","))}

    def documents(self, fields: list[str]) -> Iterator[tuple[str, list[str], str]]:
        sentence_level = [f for f in fields if f in SENTENCE_FIELDS]
        if sentence_level and len(sentence_level) != len(fields):
            raise ConfigError(f"index.fields mixes sentence-level ({', '.join(SENTENCE_FIELDS)}) and argument-level "
                              f"fields ({', '.join(f for f in fields if f not in SENTENCE_FIELDS)}); an index holds "
                              "either arguments or sentences")
        if sentence_level:
            for record in self.records():
                for sentence in record.sentences:
                    yield sentence.id, [sentence.text], sentence.to_json()
        else:
            for record in self.records():
                values = argument_fields(record.argument)
                yield record.id, [values[f] for f in fields], record.to_json()

