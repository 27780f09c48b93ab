"""Reading Touché relevance judgments (qrels) in every format the tasks used.

* graded: ``qid 0 docid label`` with integer labels, -2 (spam/non-argument) included; the
  uncorrected Task 1 2020 file writes them as ``4.0``. Task 1 2022's sentence-pair qrels are
  the same with ``sid1,sid2`` as the docid.
* stance (Task 2 2022): ``qid 0 docid FIRST|SECOND|NEUTRAL|NO``.
* image (2022): ``topic ONTOPIC|PRO|CON imageid 0|1``, three lines per judged image.

A (qid, docid) judged twice with the same label is accepted; with different labels it is an
error, as is a malformed line. Errors name the file and the line.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Union

from touche.retrieval.formats.runfile import COMPARATIVE_STANCES
from touche.errors import InputError

__all__ = [
    "QrelsKind",
    "Qrels",
    "GradedQrels",
    "StanceQrels",
    "ImageQrels",
    "STANCE_LABELS",
    "IMAGE_ASPECTS",
    "detect_qrels_kind",
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

_NUMBER = re.compile(r"[+-]?\d+(?:\.\d*)?")
_SENTENCE_PAIR = re.compile(
    r"S[0-9a-f]+-A[0-9a-f]+__(?:PREMISE__\d+|CONC__\d+),S[0-9a-f]+-A[0-9a-f]+__(?:PREMISE__\d+|CONC__\d+)"
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


BEIR_HEADER = ["query-id", "corpus-id", "score"]


def _fields(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, four fields) of every non-blank line. BEIR's qrels (``qrels/test.tsv``: a
    ``query-id corpus-id score`` header, then three columns) are read as ``qid 0 docid label``."""
    beir = False
    try:
        with open(path, encoding="utf-8-sig") as handle:  # a byte-order mark is not part of the first topic id
            for number, text in enumerate(handle, start=1):
                fields = text.split()
                if not fields:
                    continue
                if number == 1 and fields == BEIR_HEADER:
                    beir = True
                    continue
                if beir and len(fields) == 3:
                    fields = [fields[0], "0", fields[1], fields[2]]
                if len(fields) != 4:
                    raise InputError(
                        f"expected 4 columns `qid 0 docid label`, found {len(fields)}",
                        path=str(path),
                        where=f"line {number}",
                    )
                yield number, fields
    except FileNotFoundError:
        raise InputError("qrels file not found", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise InputError(f"qrels file is not UTF-8 text ({error.reason})", path=str(path)) from None


def detect_qrels_kind(path: str | os.PathLike[str]) -> QrelsKind:
    """IMAGE if the second column is ONTOPIC/PRO/CON, STANCE for stance labels, else GRADED."""
    path = Path(path)
    for number, (_, column2, _, label) in _fields(path):
        if column2 in IMAGE_ASPECTS:
            return QrelsKind.IMAGE
        if label in STANCE_LABELS:
            return QrelsKind.STANCE
        if _NUMBER.fullmatch(label):
            return QrelsKind.GRADED
        raise InputError(
            f"cannot tell the qrels format from label {label!r}: expected an integer, "
            f"{'|'.join(STANCE_LABELS)}, or an image qrels line `topic ONTOPIC|PRO|CON image 0|1`",
            path=str(path),
            where=f"line {number}",
        )
    raise InputError("qrels file has no judgments", path=str(path))


def _store(
    table: dict[str, dict[str, object]],
    first_line: dict[tuple[str, str], int],
    qid: str,
    docid: str,
    label: object,
    number: int,
    path: Path,
) -> None:
    previous = table.setdefault(qid, {}).get(docid)
    if previous is not None and previous != label:
        raise InputError(
            f"topic {qid}, {docid}: label {label!r} contradicts {previous!r} on line "
            f"{first_line[qid, docid]}",
            path=str(path),
            where=f"line {number}",
        )
    table[qid][docid] = label
    first_line.setdefault((qid, docid), number)


def _non_empty(table: dict, path: Path) -> None:
    if not table:
        raise InputError("qrels file has no judgments", path=str(path))


def read_graded_qrels(path: str | os.PathLike[str], *, pair_ids: bool = False) -> GradedQrels:
    """``qid 0 docid label`` -> {qid: {docid: label}}; labels kept as written (-2 stays -2).

    ``pair_ids``: require Task 1 2022 sentence-pair docids ``sid1,sid2``.
    """
    path = Path(path)
    table: dict[str, dict[str, object]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for number, (qid, _, docid, label_text) in _fields(path):
        where = f"line {number}"
        # math.isfinite first: a label of 400 digits reads as float inf, which int() cannot take
        if not _NUMBER.fullmatch(label_text) or not math.isfinite(float(label_text)) \
                or float(label_text) != int(float(label_text)):
            raise InputError(
                f"relevance label {label_text!r} is not an integer (e.g. -2, 0, 1, 2)",
                path=str(path),
                where=where,
            )
        if pair_ids and not _SENTENCE_PAIR.fullmatch(docid):
            raise InputError(
                f"docid {docid!r} is not a sentence pair `S…-A…__PREMISE__n,S…-A…__CONC__1`",
                path=str(path),
                where=where,
            )
        _store(table, first_line, qid, docid, int(float(label_text)), number, path)
    _non_empty(table, path)
    return table  # type: ignore[return-value]


def read_stance_qrels(path: str | os.PathLike[str]) -> StanceQrels:
    """``qid 0 docid FIRST|SECOND|NEUTRAL|NO`` -> {qid: {docid: label}}."""
    path = Path(path)
    table: dict[str, dict[str, object]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for number, (qid, _, docid, label) in _fields(path):
        if label not in STANCE_LABELS:
            raise InputError(
                f"stance label {label!r} is not one of {'|'.join(STANCE_LABELS)}",
                path=str(path),
                where=f"line {number}",
            )
        _store(table, first_line, qid, docid, label, number, path)
    _non_empty(table, path)
    return table  # type: ignore[return-value]


def read_image_qrels(path: str | os.PathLike[str]) -> ImageQrels:
    """``topic ONTOPIC|PRO|CON image 0|1`` -> {topic: {image: {aspect: 0|1}}}.

    An aspect not judged for an image is absent from its dict (evaluation counts it as 0).
    """
    path = Path(path)
    table: ImageQrels = {}
    first_line: dict[tuple[str, str, str], int] = {}
    for number, (topic, aspect, image, label) in _fields(path):
        where = f"line {number}"
        if aspect not in IMAGE_ASPECTS:
            raise InputError(
                f"second column {aspect!r} is not one of {'|'.join(IMAGE_ASPECTS)}",
                path=str(path),
                where=where,
            )
        if label not in ("0", "1"):
            raise InputError(f"image label {label!r} is not 0 or 1", path=str(path), where=where)
        aspects = table.setdefault(topic, {}).setdefault(image, {})
        if aspect in aspects and aspects[aspect] != int(label):
            raise InputError(
                f"topic {topic}, {image} {aspect}: label {label} contradicts "
                f"{aspects[aspect]} on line {first_line[topic, image, aspect]}",
                path=str(path),
                where=where,
            )
        aspects[aspect] = int(label)
        first_line.setdefault((topic, image, aspect), number)
    _non_empty(table, path)
    return table


def read_qrels(path: str | os.PathLike[str], kind: QrelsKind | str | None = None) -> Qrels:
    """Read qrels of any kind (detected from the file unless given)."""
    if kind is None:
        kind = detect_qrels_kind(path)
    elif isinstance(kind, str):
        try:
            kind = QrelsKind(kind.lower())
        except ValueError:
            known = ", ".join(k.value for k in QrelsKind)
            raise InputError(f"unknown qrels kind {kind!r}; expected one of {known}") from None
    readers = {
        QrelsKind.GRADED: read_graded_qrels,
        QrelsKind.STANCE: read_stance_qrels,
        QrelsKind.IMAGE: read_image_qrels,
    }
    return Qrels(kind, readers[kind](path), str(path))
