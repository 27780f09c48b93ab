"""Reading Touché relevance judgments (qrels) in every format the tasks used.

* graded: ``qid 0 docid label`` with integer labels, -2 (spam/non-argument) included; the
  uncorrected Task 1 2020 file writes them as ``4.0``. Task 1 2022's sentence-pair qrels are
  the same with ``sid1,sid2`` as the docid.
* stance (Task 2 2022): ``qid 0 docid FIRST|SECOND|NEUTRAL|NO``.
* image (2022): ``topic ONTOPIC|PRO|CON imageid 0|1``, three lines per judged image.

Topic ids are canonical as the run gate makes them (``01`` is topic 1): judgments written under
``1`` and ``01`` merge. A (qid, docid) judged twice with the same label is accepted; with
different labels it is an error, as is a malformed line, a control character in a field (NUL) or a
byte-order mark inside the file (two files concatenated). Errors name the file and the line (a
frame's row). Commands read qrels through ``gate.load_qrels`` (files and DataFrames alike).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Union

from touche import sources
from touche.bounds import label_problem
from touche.errors import InputError
from touche.retrieval.formats.runfile import COMPARATIVE_STANCES, CONTROL, canonical_topic

__all__ = [
    "QrelsKind",
    "Qrels",
    "GradedQrels",
    "StanceQrels",
    "ImageQrels",
    "STANCE_LABELS",
    "IMAGE_ASPECTS",
    "detect_qrels_kind",
    "check_named_kind",
    "NAMED_KINDS",
    "read_qrels",
    "read_graded_qrels",
    "read_stance_qrels",
    "read_image_qrels",
]

STANCE_LABELS = COMPARATIVE_STANCES  # stance qrels use the run format's vocabulary
IMAGE_ASPECTS = ("ONTOPIC", "PRO", "CON")

GradedQrels = dict[str, dict[str, int]]
StanceQrels = dict[str, dict[str, str]]
ImageQrels = dict[str, dict[str, dict[str, int]]]  # topic -> image -> {ONTOPIC/PRO/CON: 0|1}

_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?")  # ASCII digits only: float("١") is 1.0 in Python
_SENTENCE_PAIR = re.compile(
    r"S[0-9a-f]+-A[0-9a-f]+__(?:PREMISE__[0-9]+|CONC__[0-9]+),S[0-9a-f]+-A[0-9a-f]+__(?:PREMISE__[0-9]+|CONC__[0-9]+)"
)


class QrelsKind(Enum):
    GRADED = "graded"
    STANCE = "stance"
    IMAGE = "image"


@dataclass(frozen=True)
class Qrels:
    kind: QrelsKind
    judgments: Union[GradedQrels, StanceQrels, ImageQrels]
    path: str

    def topics(self) -> set[str]:
        return set(self.judgments)

    def restricted(self, keeps) -> "Qrels":
        """The judgements of the topics ``keeps(topic)`` keeps (a topic selection's)."""
        kept: Any = {t: docs for t, docs in self.judgments.items() if keeps(t)}  # of the one kind self holds
        return Qrels(self.kind, kept, self.path)

    def digest(self) -> str:
        """The judgements by content: the same (topic, document, label) triples in any order,
        spacing or topic spelling (``01`` is 1) give the same 16 hex digits. A suite names the
        judgements it was tuned on by it (``tuned_on``)."""
        triples = sorted(f"{topic}\t{doc}\t{json.dumps(label, sort_keys=True)}"
                         for topic, docs in self.judgments.items() for doc, label in docs.items())
        return hashlib.sha256("\n".join([self.kind.value, *triples]).encode("utf-8")).hexdigest()[:16]


BEIR_HEADER = ["query-id", "corpus-id", "score"]
Lines = Iterable[tuple[int, str]]


def file_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a qrels file; a byte-order mark at its start is not part of the
    first topic id (one further inside is refused by ``_fields``)."""
    try:
        with sources.open_text(path, what="qrels file") as handle:  # a pipe: read once per command
            yield from enumerate(handle, start=1)
    except FileNotFoundError:
        raise InputError("qrels file not found", path=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a qrels file", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise InputError(f"qrels file is not UTF-8 text ({error.reason})", path=str(path)) from None


def _fields(lines: Lines, path: str, unit: str = "line") -> Iterator[tuple[int, list[str]]]:
    """(line number, four fields) of every non-blank line. BEIR's qrels (``qrels/test.tsv``: a
    ``query-id corpus-id score`` header, then three columns) are read as ``qid 0 docid label``.
    A control character (NUL …) or a byte-order mark inside a field is refused: run ids holding
    one are refused too, and a mark inside the file means two files were concatenated."""
    beir = False
    for number, text in lines:
        fields = text.split()
        if not fields:
            continue
        if number == 1 and fields == BEIR_HEADER:
            beir = True
            continue
        if beir and len(fields) == 3:
            fields = [fields[0], "0", fields[1], fields[2]]
        if len(fields) != 4:
            raise InputError(f"expected 4 columns `qid 0 docid label`, found {len(fields)}", path=path,
                             where=f"{unit} {number}")
        bad = CONTROL.search(text)
        if bad:
            found = bad.group()
            # U+2028 and U+2029 are whitespace to str.split(): then the line, not a field, holds it
            holder = repr(next((f for f in fields if found in f), text.rstrip("\r\n")))
            if found == "\ufeff":
                message = f"{holder} holds a byte-order mark (U+FEFF): two qrels files concatenated? Remove it"
            else:
                message = f"{holder} holds the control character U+{ord(found):04X}"
            raise InputError(message, path=path, where=f"{unit} {number}")
        yield number, fields


def _source(path_or_lines, label: str | None) -> tuple[Lines, str, str]:
    """(lines, the label errors name, the unit a line is called): a file's lines, or lines a
    frame was turned into (``gate.load_qrels``: its rows, numbered from 1)."""
    if isinstance(path_or_lines, (str, os.PathLike)):
        return file_lines(Path(path_or_lines)), str(path_or_lines), "line"
    return path_or_lines, label or "qrels frame", "row"


# What a qrels name promises (``stance=FILE``, ``{"quality": …}``, a suite's or sweep's ``qrels:``
# keys): a file of another kind under it is a mix-up, refused, not scored as what it holds
# (stance= given relevance judgements once scored "stance:touche.nDCG@5"). Other names promise nothing.
NAMED_KINDS: dict[str, tuple[QrelsKind, ...]] = {
    "relevance": (QrelsKind.GRADED, QrelsKind.IMAGE),  # image judgements say on-topic: their relevance
    "quality": (QrelsKind.GRADED,),
    "stance": (QrelsKind.STANCE,),
    "image": (QrelsKind.IMAGE,),
}
_KIND_WORDS = {QrelsKind.GRADED: "graded labels (relevance or quality)",
               QrelsKind.STANCE: f"stance labels ({', '.join(STANCE_LABELS)})",
               QrelsKind.IMAGE: "image judgements (ONTOPIC, PRO, CON)"}


def check_named_kind(name: str | None, qrels: Qrels) -> None:
    """Refuse qrels given under a name that promises another kind of judgement (``NAMED_KINDS``)."""
    expected = NAMED_KINDS.get(name or "")
    if expected is None or qrels.kind in expected:
        return
    raise InputError(f"these qrels are given as {name} judgements ({name}=…) but hold no "
                     f"{' or '.join(_KIND_WORDS[k] for k in expected)}: they hold {_KIND_WORDS[qrels.kind]}; "
                     f"give them under the name of what they judge", path=qrels.path)


def detect_qrels_kind(path: str | os.PathLike[str] | Lines, *, label: str | None = None) -> QrelsKind:
    """IMAGE if the second column is ONTOPIC/PRO/CON, STANCE for stance labels, else GRADED."""
    lines, where, unit = _source(path, label)
    for number, (_, column2, _, value) in _fields(lines, where, unit):
        if column2 in IMAGE_ASPECTS:
            return QrelsKind.IMAGE
        if value in STANCE_LABELS:
            return QrelsKind.STANCE
        if _NUMBER.fullmatch(value):
            return QrelsKind.GRADED
        raise InputError(
            f"cannot tell the qrels format from label {value!r}: expected an integer, "
            f"{'|'.join(STANCE_LABELS)}, or an image qrels line `topic ONTOPIC|PRO|CON image 0|1`",
            path=where, where=f"{unit} {number}")
    raise InputError("qrels file has no judgments", path=where)


class _Table:
    """{topic: {key: label}} under canonical topic ids (``1`` and ``01`` are one topic: their
    judgments merge, and a document labelled twice must agree), remembering where each came from."""

    def __init__(self, where: str, unit: str):
        self.where, self.unit = where, unit
        self.judgments: dict[str, dict] = {}
        self.first: dict[tuple, tuple[int, str]] = {}

    def store(self, qid: str, key: tuple, label: object, number: int, describe: str) -> None:
        topic = canonical_topic(qid)
        docs = self.judgments.setdefault(topic, {})
        previous = _lookup(docs, key)
        if previous is not None and previous != label:
            first_number, first_qid = self.first[(topic, *key)]
            as_written = f" (written {first_qid} there)" if first_qid != qid else ""
            raise InputError(f"topic {qid}, {describe}: label {label!r} contradicts {previous!r} on "
                             f"{self.unit} {first_number}{as_written}", path=self.where,
                             where=f"{self.unit} {number}")
        _assign(docs, key, label)
        self.first.setdefault((topic, *key), (number, qid))

    def done(self) -> dict:
        if not self.judgments:
            raise InputError("qrels file has no judgments", path=self.where)
        return self.judgments


def _lookup(docs: dict, key: tuple):
    for part in key:
        if not isinstance(docs, dict) or part not in docs:
            return None
        docs = docs[part]
    return docs


def _assign(docs: dict, key: tuple, label: object) -> None:
    for part in key[:-1]:
        docs = docs.setdefault(part, {})
    docs[key[-1]] = label


def _whole_number(text: str) -> int | None:
    """A label as written (``2``, ``-2``, ``1.0``), exactly: ``999999999999999999999`` stays itself,
    not the float 1e21 it once was quoted as; None for anything else (``1.5``, ``١``, 400 digits of
    a fraction)."""
    if not _NUMBER.fullmatch(text):
        return None
    whole, _, fraction = text.partition(".")
    if fraction.strip("0"):
        return None
    if len(whole.lstrip("+-0")) > 30:  # far out of range, and int() takes at most 4,300 digits
        return -(10 ** 31) if whole.startswith("-") else 10 ** 31
    return int(whole)


def read_graded_qrels(path: str | os.PathLike[str] | Lines, *, pair_ids: bool = False,
                      label: str | None = None) -> GradedQrels:
    """``qid 0 docid label`` -> {qid: {docid: label}}; labels kept as written (-2 stays -2),
    topic ids canonical (``01`` is topic 1).

    ``pair_ids``: require Task 1 2022 sentence-pair docids ``sid1,sid2``.
    """
    lines, where, unit = _source(path, label)
    table = _Table(where, unit)
    for number, (qid, _, docid, label_text) in _fields(lines, where, unit):
        here = f"{unit} {number}"
        value = _whole_number(label_text)
        if value is None:
            raise InputError(f"relevance label {label_text!r} is not an integer (e.g. -2, 0, 1, 2)", path=where,
                             where=here)
        if problem := label_problem(value, label_text if len(label_text) <= 30 else
                                    f"{label_text[:20]}… ({len(label_text)} characters)"):
            raise InputError(problem, path=where, where=here)
        if pair_ids and not _SENTENCE_PAIR.fullmatch(docid):
            raise InputError(f"docid {docid!r} is not a sentence pair `S…-A…__PREMISE__n,S…-A…__CONC__1`",
                             path=where, where=here)
        table.store(qid, (docid,), value, number, docid)
    return table.done()


def read_stance_qrels(path: str | os.PathLike[str] | Lines, *, label: str | None = None) -> StanceQrels:
    """``qid 0 docid FIRST|SECOND|NEUTRAL|NO`` -> {qid: {docid: label}} (topic ids canonical)."""
    lines, where, unit = _source(path, label)
    table = _Table(where, unit)
    for number, (qid, _, docid, value) in _fields(lines, where, unit):
        if value not in STANCE_LABELS:
            raise InputError(f"stance label {value!r} is not one of {'|'.join(STANCE_LABELS)}", path=where,
                             where=f"{unit} {number}")
        table.store(qid, (docid,), value, number, docid)
    return table.done()


def read_image_qrels(path: str | os.PathLike[str] | Lines, *, label: str | None = None) -> ImageQrels:
    """``topic ONTOPIC|PRO|CON image 0|1`` -> {topic: {image: {aspect: 0|1}}} (topic ids canonical).

    An aspect not judged for an image is absent from its dict (evaluation counts it as 0).
    """
    lines, where, unit = _source(path, label)
    table = _Table(where, unit)
    for number, (topic, aspect, image, value) in _fields(lines, where, unit):
        here = f"{unit} {number}"
        if aspect not in IMAGE_ASPECTS:
            raise InputError(f"second column {aspect!r} is not one of {'|'.join(IMAGE_ASPECTS)}", path=where,
                             where=here)
        if value not in ("0", "1"):
            raise InputError(f"image label {value!r} is not 0 or 1", path=where, where=here)
        table.store(topic, (image, aspect), int(value), number, f"{image} {aspect}")
    return table.done()


READERS: dict[QrelsKind, Callable[..., Any]] = {
    QrelsKind.GRADED: read_graded_qrels, QrelsKind.STANCE: read_stance_qrels, QrelsKind.IMAGE: read_image_qrels}


def parse_kind(kind: QrelsKind | str) -> QrelsKind:
    if isinstance(kind, QrelsKind):
        return kind
    try:
        return QrelsKind(str(kind).lower())
    except ValueError:
        known = ", ".join(k.value for k in QrelsKind)
        raise InputError(f"unknown qrels kind {kind!r}; expected one of {known}") from None


def read_qrels(path: str | os.PathLike[str], kind: QrelsKind | str | None = None) -> Qrels:
    """Read qrels of any kind (detected from the file unless given); ``gate.load_qrels`` is how
    commands read them (files cached, frames too)."""
    kind = detect_qrels_kind(path) if kind is None else parse_kind(kind)
    return Qrels(kind, READERS[kind](path), str(path))
