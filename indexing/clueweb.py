"""ClueWeb12 as distributed: WARC/1.0 ``.warc.gz`` files, document id in ``WARC-TREC-ID``.

Layout: ``ClueWeb12_NN/<segment>/<segment>-<part>.warc.gz`` (any directory depth is accepted;
files are read in sorted relative-path order so document order, and so the index, is
reproducible). Records are parsed with FastWARC and the HTML of each ``response`` record is
turned into clean main text with Resiliparse (encoding detection, DOM parse, main-content
extraction). Both are C++/Cython: a 2-core machine extracts ~500 documents per second per core.

Files are processed in parallel by worker processes, in order, one file per task, so a
worker's memory is bounded by one WARC file. Workers come from a ``forkserver``: the parent may
already hold a running JVM, which must not be forked; they never re-run the caller's script (a
script without a ``__main__`` guard stays safe: ``touche/processes.py``).

A *bad record* is a ``response`` record without a ``WARC-TREC-ID``, with an empty id, with an
id seen before, or whose HTTP payload cannot be parsed. By default it is an InputError naming
the file and the record (``response record #N``, counted from 1 in the file); with
``skip_bad_records`` it is counted and listed in the report. A file that is not a WARC file
(or a truncated gzip stream) is always an error.
"""
from __future__ import annotations

import io
import json
import multiprocessing
import os
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

from fastwarc.stream_io import GzipWriter
from fastwarc.warc import WarcRecord, WarcRecordType

from touche import numbers
from touche.atomic import atomic_open
from touche.budgets import max_record_bytes, read_within, record_too_large
from touche.errors import InputError
from touche.indexing.argsme import ReadReport, SkippedRecord
from touche.indexing.corpora import files_fingerprint
from touche.indexing.files import corpus_files
from touche.processes import callers_script_hidden
from touche.settings import setting

WARC_SUFFIXES = (".warc.gz", ".warc")
# Main-content extraction occasionally keeps only a fragment (a caption, a cookie notice); below
# this share of the page's full text the full text is used instead.
MIN_MAIN_CONTENT_SHARE = 0.15
MIN_MAIN_CONTENT_WORDS = 40
# Index text is cut here: a handful of ClueWeb pages are whole books; their tail adds nothing
# to ranking but slows indexing and re-ranking.
MAX_TEXT_CHARS = 100_000
# Part of the index key: bump it when text extraction changes, so old indexes are not reused.
EXTRACTION_VERSION = 1
_SKIP_HINT = "set corpus.skip_bad_records: true (skip_bad_records=True) to count and skip such records"


@dataclass(frozen=True, slots=True)
class WebDocument:
    """One ClueWeb12 page: id, URL, title and extracted main text."""

    id: str
    url: str
    title: str
    text: str

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @staticmethod
    def from_json(raw: str) -> "WebDocument":
        data = json.loads(raw)
        return WebDocument(data["id"], data.get("url", ""), data.get("title", ""), data.get("text", ""))


def clueweb_files(path: str | os.PathLike) -> list[Path]:
    """The WARC files at ``path``: the file itself or a directory's ``*.warc.gz``/``*.warc`` files
    (recursive, sorted by relative path)."""
    return corpus_files(path, WARC_SUFFIXES, expected="ClueWeb12 WARC files (.warc.gz) or a directory of them",
                        none_in_dir="no ClueWeb12 files: the directory has no *.warc.gz files (expected "
                                    "ClueWeb12_NN/<segment>/<segment>-<part>.warc.gz)")

def html_to_text(html_bytes: bytes, *, main_content: bool = True) -> tuple[str, str]:
    """(title, clean text) of an HTML page given as bytes in any encoding."""
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding
    from resiliparse.parse.html import HTMLTree

    html = bytes_to_str(html_bytes, detect_encoding(html_bytes))  # type: ignore[arg-type]  # an encoding, always
    tree = HTMLTree.parse(html)
    title = " ".join((tree.title or "").split())
    full = extract_plain_text(tree, preserve_formatting=True)
    text = full
    if main_content:
        main = extract_plain_text(tree, preserve_formatting=True, main_content=True)
        words, full_words = len(main.split()), len(full.split())
        if words >= MIN_MAIN_CONTENT_WORDS or words >= MIN_MAIN_CONTENT_SHARE * full_words:
            text = main
    return title, text[:MAX_TEXT_CHARS]


@dataclass
class FileResult:
    """What a worker sends back for one WARC file."""

    documents: list[WebDocument] = field(default_factory=list)
    bad: list[tuple[int, str | None, str]] = field(default_factory=list)  # (record #, id, reason)
    error: str | None = None  # the file itself is unreadable


def read_warc_file(path: str, main_content: bool = True) -> FileResult:
    """All ``response`` records of one WARC file (runs in a worker process)."""
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    result = FileResult()
    budget = max_record_bytes()
    try:
        with open(path, "rb") as stream:
            number = 0
            # parse_http=False: the whole block is read and its length checked against the
            # record's Content-Length, which is how a truncated file shows (FastWARC would
            # otherwise hand over the cut-off page as if it were complete). quirks_mode=False: a
            # record whose header or length is off is an error naming the file; quirks mode would
            # guess, e.g. take a too-long Content-Length's bytes from the next record and lose it.
            for record in ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=False,
                                          quirks_mode=False):
                number += 1
                trec_id = (record.headers.get("WARC-TREC-ID") or "").strip()
                if not trec_id:
                    reason = ("missing WARC-TREC-ID header" if record.headers.get("WARC-TREC-ID") is None
                              else "empty WARC-TREC-ID header")
                    result.bad.append((number, None, reason + " (expected the ClueWeb12 document id)"))
                    continue
                declared = (record.headers.get("Content-Length") or "").strip()
                if numbers.is_whole(declared) and int(declared) > budget:  # never read: its reader skips it
                    result.bad.append((number, trec_id, record_too_large(int(declared), "response record")))
                    continue
                block = read_within(record.reader, budget)
                if not numbers.is_whole(declared) or len(block) < int(declared):
                    result.error = (f"truncated: response record #{number} ({trec_id}) has {len(block)} of "
                                    f"{declared or 'an unknown number of'} bytes; the file is cut off or corrupt")
                    break
                try:
                    body = http_payload(block)
                    title, text = html_to_text(body, main_content=main_content)
                except Exception as exc:  # a parser failure on one page must not stop a corpus
                    result.bad.append((number, trec_id, f"cannot extract text from the HTTP payload: {exc}"))
                    continue
                url = record.headers.get("WARC-Target-URI") or ""
                result.documents.append(WebDocument(trec_id, url, title, text))
            if number == 0 and not _looks_like_warc(path):
                result.error = "not a WARC file (no WARC/1.0 record found)"
    except OSError as exc:
        # FastWARC reports malformed records as OSError without an errno
        where = f" after response record #{number}" if number else ""
        result.error = (f"cannot read the file{where}: {exc.strerror}" if exc.errno is not None
                        else f"not a WARC file or a corrupt one{where} ({exc})")
    return result


def http_payload(block: bytes) -> bytes:
    """The payload of a WARC response block: what follows the HTTP status line and headers."""
    if block.startswith(b"HTTP/"):
        for separator in (b"\r\n\r\n", b"\n\n"):
            head, found, payload = block.partition(separator)
            if found:
                return payload
        return b""
    return block


def _looks_like_warc(path: str) -> bool:
    import gzip
    import zlib

    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            return f.read(8).startswith(b"WARC/")
    except (OSError, EOFError, zlib.error):  # zlib.error: a gzip member whose deflate data is corrupt
        return False


def document_fields(doc: WebDocument) -> dict[str, str]:
    """Task 2 fields: contents = title + main text (what ChatNoir's BM25 baseline searches)."""
    return {"contents": f"{doc.title}\n\n{doc.text}" if doc.title else doc.text, "title": doc.title, "body": doc.text}


def default_workers() -> int:
    return setting("TOUCHE_WORKERS") or max(1, min(4, os.cpu_count() or 1))


@dataclass
class ClueWebSource:
    path: Path
    skip_bad_records: bool = False
    workers: int = field(default_factory=default_workers)
    main_content: bool = True
    name: str = "clueweb12"
    report: ReadReport = field(default_factory=lambda: ReadReport(unit="page"))
    fields: tuple[str, ...] = ("contents", "title", "body")
    cheap_field: str = "title"

    @staticmethod
    def display_raw(raw: str) -> str:
        return document_fields(WebDocument.from_json(raw))["contents"]

    def __post_init__(self):
        self.files = clueweb_files(self.path)

    def fingerprint(self) -> str:
        return f"{files_fingerprint(self.files)}-x{EXTRACTION_VERSION}" + ("-main" if self.main_content else "-full")

    def describe(self) -> dict:
        return {"format": "clueweb12", "path": str(Path(self.path).resolve()), "files": len(self.files),
                "main_content": self.main_content, "fingerprint": self.fingerprint()}

    def _results(self) -> Iterator[tuple[Path, FileResult]]:
        names = [str(f) for f in self.files]
        if self.workers <= 1 or len(names) < 4:
            for name in names:
                yield Path(name), read_warc_file(name, self.main_content)
            return
        # The workers import this module when they unpickle their task, never the caller's script
        # (touche/processes.py): every worker is started here, none later (no maxtasksperchild).
        with callers_script_hidden():
            pool = multiprocessing.get_context("forkserver").Pool(self.workers)
        with pool:
            args = [(name, self.main_content) for name in names]
            # imap keeps file order: the index is the same whatever the number of workers.
            for name, result in zip(names, pool.imap(_read_star, args, chunksize=8)):
                yield Path(name), result

    def records(self) -> Iterator[WebDocument]:
        seen: dict[str, str] = {}
        for path, result in self._results():
            self.report.files += 1
            if result.error:
                raise InputError(result.error + " (expected WARC/1.0 records, gzip-compressed as ClueWeb12 "
                                 "distributes them)", path=path)
            bad = list(result.bad)
            for doc in result.documents:
                if doc.id in seen:
                    bad.append((0, doc.id, f"duplicate WARC-TREC-ID (first seen in {seen[doc.id]}); "
                                           "expected every id once"))
                    continue
                seen[doc.id] = path.name
                self.report.read += 1
                yield doc
            for number, record_id, reason in bad:
                where = f"response record #{number} (1-based)" if number else f"record {record_id}"
                if not self.skip_bad_records:
                    raise InputError(f"{reason}; {_SKIP_HINT}", path=path, where=where)
                self.report.add_skipped(SkippedRecord(str(path), number, record_id if number else None, reason, where))

    def documents(self, fields: list[str]) -> Iterator[tuple[str, list[str], str]]:
        for doc in self.records():
            values = document_fields(doc)
            yield doc.id, [values[f] for f in fields], doc.to_json()


def _read_star(args: tuple[str, bool]) -> FileResult:
    return read_warc_file(*args)


# --------------------------------------------------------------------------- writing
def warc_record(trec_id: str, url: str, html: bytes, date: str = "2012-02-10T00:00:00Z") -> bytes:
    """One gzip-compressed WARC/1.0 response record as ClueWeb12 stores pages (HTTP header +
    HTML), each record its own gzip member so that readers can seek between records. Written
    by FastWARC (the library that reads them too); WARC/1.0 as in ClueWeb12."""
    record = WarcRecord()
    record.init_headers(record_type=WarcRecordType.response,
                        record_urn=f"uuid:{uuid.uuid5(uuid.NAMESPACE_URL, trec_id)}".encode())
    record.headers.status_line = "WARC/1.0"
    record.headers["WARC-TREC-ID"] = trec_id
    record.headers["WARC-Date"] = date
    record.headers["WARC-Target-URI"] = url
    record.headers["Content-Type"] = "application/http; msgtype=response"
    record.set_bytes_content(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                             + f"Content-Length: {len(html)}\r\n\r\n".encode() + html)
    buffer = io.BytesIO()
    member = GzipWriter(buffer)
    record.write(member)
    member.close()
    return buffer.getvalue()


def write_warc(path: Path, pages: Iterator[tuple[str, str, bytes]] | list[tuple[str, str, bytes]]) -> int:
    """Write ``(trec_id, url, html)`` pages as a ``.warc.gz`` file (atomically)."""
    count = 0
    with atomic_open(path, "wb") as out:
        for trec_id, url, html in pages:
            out.write(warc_record(trec_id, url, html))
            count += 1
    return count
