"""Corpus sources: one per corpus family, each turning typed records into indexable fields.

A source knows its files (for the index key), streams its records, and maps each record to the
text fields the index holds. New corpus families (ClueWeb12, passages, images) add a source
here; the builder and searcher stay the same.
"""
from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Protocol

from touche import registry
from touche.errors import ConfigError, InputError
from touche.guard import LinkFolder
from touche.indexing.argsme import ReadReport, argsme_files, read_arguments
from touche.indexing.beir import corpus_file as beir_corpus_file
from touche.indexing.beir import read_corpus as read_beir_corpus
from touche.indexing.records import Argument
from touche.progress import progress_bar


class CorpusSource(Protocol):
    name: str
    fields: tuple[str, ...]  # the text fields this family offers to the index

    @property
    def report(self) -> ReadReport: ...

    def fingerprint(self) -> str: ...
    def describe(self) -> dict: ...
    def documents(self, fields: list[str]) -> Iterator[tuple[str, list[str], str]]: ...


def files_fingerprint(files: list[Path]) -> str:
    """Names, sizes and modification times: cheap, and changes whenever a file is replaced."""
    h = hashlib.sha256()
    for f in files:
        st = f.stat()
        h.update(f"{f.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def argument_fields(argument: Argument) -> dict[str, str]:
    """Task 1 fields: contents is what Anserini's args.me baselines index (conclusion + premises)."""
    premises = argument.premises_text
    return {
        "contents": f"{argument.conclusion}\n\n{premises}" if argument.conclusion else premises,
        "conclusion": argument.conclusion,
        "premises": premises,
        "title": argument.title,
    }


@dataclass
class ArgsMeSource:
    path: Path
    skip_bad_records: bool = False
    name: str = "argsme"
    report: ReadReport = field(default_factory=ReadReport)
    fields: tuple[str, ...] = ("contents", "conclusion", "premises", "title")
    cheap_field: str = "conclusion"  # what listing the ids reads (the shortest text)

    @staticmethod
    def display_text(values: list[str], raw: str) -> str:
        """What a person reads of an argument: its conclusion, then its premises."""
        return ArgsMeSource.display_raw(raw)

    @staticmethod
    def display_raw(raw: str) -> str:
        """The display text from the raw record an index stores (document_texts' index path)."""
        argument = Argument.from_json(raw)
        return f"{argument.conclusion}\n{argument.premises_text}"

    def __post_init__(self):
        # args.me as BEIR distributes it (corpus.jsonl), or the args.me JSON files
        beir = beir_corpus_file(self.path)
        self.beir = beir is not None
        self.files = [beir] if beir is not None else argsme_files(self.path)

    def fingerprint(self) -> str:
        return files_fingerprint(self.files)

    def describe(self) -> dict:
        return {"format": "argsme" + ("-beir" if self.beir else ""), "path": str(Path(self.path).resolve()),
                "files": [f.name for f in self.files], "fingerprint": self.fingerprint()}

    def records(self, part: tuple[int, int] | None = None, on_position=None) -> Iterator[Argument]:
        if self.beir:
            return read_beir_corpus(self.files[0], skip_bad_records=self.skip_bad_records,
                                    report=self.report, part=part)
        return read_arguments(self.files, skip_bad_records=self.skip_bad_records, report=self.report, part=part,
                              on_position=on_position)

    def total_bytes(self) -> int | None:
        """The bytes ``documents(on_position=…)`` reports progress against (args.me JSON; None for
        BEIR's JSONL, read without positions)."""
        return None if self.beir else sum(f.stat().st_size for f in self.files)

    def documents(self, fields: list[str], part: tuple[int, int] | None = None, on_position=None
                  ) -> Iterator[tuple[str, list[str], str]]:
        for argument in self.records(part, on_position):
            values = argument_fields(argument)
            yield argument.id, [values[f] for f in fields], argument.to_json()

    def documents_part(self, fields: list[str], k: int, n: int) -> Iterator[tuple[str, list[str], str]]:
        """Shard k of n (every n-th argument from the k-th), skipped right after JSON parsing."""
        return self.documents(fields, part=(k, n))


SOURCES = registry.CORPUS_FAMILIES  # corpus.format → its declaration, the reader by "module:class" (touche/registry.py)


def source_class(fmt: str):
    return registry.load(SOURCES, fmt, "corpus.format")


def open_corpus(fmt: str, path: str | Path | None, *, skip_bad_records: bool = False) -> CorpusSource:
    if path is None:
        raise ConfigError("no corpus given: pass -i/--input or set corpus.path")
    return source_class(fmt)(Path(path), skip_bad_records=skip_bad_records)


def corpus_ids(source: CorpusSource) -> set[str]:
    """Every document id of the corpus, read through the family's cheapest field (no OCR for
    images; the sentences of a sentence corpus)."""
    return {docid for docid, _, _ in source.documents([getattr(source, "cheap_field", source.fields[0])])}


def held_documents(source: CorpusSource, docids: Iterable[str]) -> set[str]:
    """Which of ``docids`` the corpus holds (a family whose judged unit is not one document,
    e.g. sentence pairs, says how by ``holds``)."""
    holds = getattr(source, "holds", None)
    if holds is not None:
        return holds(docids)
    ids = corpus_ids(source)
    return {d for d in docids if d in ids}


def document_texts(source: CorpusSource, docids: set[str], *, progress: bool = False,
                   stored: Callable[[list[str]], dict[str, str | None]] | None = None) -> dict[str, str]:
    """The display texts of ``docids`` (ir_datasets' ``docs_store().get_many``). ``stored``: the
    raw records an index of the whole corpus holds, by id: read there when the family turns a
    raw record into its text (``display_raw``), and an id the index lacks is not in the corpus.
    Otherwise a family may say how (``texts``: sentence pairs), or one streaming pass over its
    ``display_field`` stops once every wanted id is found, each text made by ``display_text``."""
    display_raw = getattr(source, "display_raw", None)
    if stored is not None and display_raw is not None:
        return {docid: display_raw(raw) for docid, raw in stored(sorted(docids)).items() if raw is not None}
    special = getattr(source, "texts", None)
    if special is not None:
        return special(docids, progress=progress)

    field_name = getattr(source, "display_field", "contents" if "contents" in source.fields else source.fields[0])
    display = getattr(source, "display_text", lambda values, raw: values[0])
    found: dict[str, str] = {}
    with progress_bar(
        desc=f"reading {Path(getattr(source, 'path', '')).name} for {len(docids)} documents",
        unit=" docs",
        disable=not progress,
        mininterval=1.0,
    ) as bar:
        for docid, values, raw in source.documents([field_name]):
            bar.update(1)
            if docid in docids:
                found[docid] = display(values, raw)
                if len(found) == len(docids):
                    break
    return found


def first_document(source: CorpusSource) -> str | None:
    """The first document's id (None for an empty corpus): reading it checks, in a moment, that
    the files are of this family before hours of work depend on it."""
    for docid, _, _ in source.documents([getattr(source, "cheap_field", source.fields[0])]):
        return docid
    return None


def check_corpus_files(files: Mapping[str, Path], fmt: str) -> None:
    """The input gate of a corpus given as a list of files (a sweep set's ``corpus: [a, b]``, linked
    into a folder under the names given): each file is of the family (its first record) and is read
    when the folder is (``args.JSON`` was linked and never read: the reader of a folder takes
    ``*.json``), before anything runs. The folder is tried as the family reads it, in a scratch one."""
    if not files:
        raise InputError("the corpus list is empty: name at least one corpus file")
    for file in files.values():
        first_document(open_corpus(fmt, file))
    with tempfile.TemporaryDirectory(prefix="touche-corpus-list-") as scratch:
        LinkFolder(scratch, "scratch corpus folder").sync({name: Path(file) for name, file in files.items()})
        try:
            listed = getattr(open_corpus(fmt, scratch), "files", None)
        except InputError:
            listed = []  # the folder reader finds none of them
        if listed is None:
            return  # a family that reads folders of its own kind (images) lists no files
        read = {Path(f).name for f in listed}
        for name, file in files.items():
            if name not in read:
                raise InputError(f"listed in a corpus of corpus.format {fmt}, but its reader would not read it from "
                                 "the corpus folder (its name ends otherwise than the files it reads): rename it",
                                 path=file)


def check_fields(source: CorpusSource, fields: tuple[str, ...] | list[str]) -> None:
    unknown = [f for f in fields if f not in source.fields]
    if unknown:
        raise ConfigError(f"index.fields: {', '.join(unknown)} not offered by the {source.name} corpus "
                          f"(valid: {', '.join(source.fields)})")
