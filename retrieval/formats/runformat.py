"""The run formats of Touché's tasks. A run line is ``qid column2 docid rank score tag``,
whitespace separated; what ``column2`` and ``docid`` may hold, and how many rows a topic may
have, depends on the format:

========  ==========================================  =================================
format    column2                                     rows per topic
========  ==========================================  =================================
Q0        ``Q0``  (Task 1/2 2020-21)                  at most 1000
PAIRS     ``PRO|CON|Q0``, docid ``sid1,sid2``         100-1000 pairs (Task 1 2022)
STANCE    ``FIRST|SECOND|NEUTRAL|NO|Q0``              at most 1000 (Task 2 2022)
IMAGE     ``PRO|CON``, docid ``I`` + 16 hex digits    exactly 10 per topic and stance
========  ==========================================  =================================

For IMAGE runs ranks count within a topic *and stance* (1-10 for PRO, 1-10 for CON); for the
other formats within a topic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from touche.errors import InputError

IMAGE_ID = re.compile(r"I[0-9a-f]{16}")
SENTENCE_ID = re.compile(r"S[0-9a-f]+-A[0-9a-f]+__(?:PREMISE__[0-9]+|CONC__[0-9]+)")
PASSAGE_ID = re.compile(r"clueweb12-\S+___[0-9]+")


@dataclass(frozen=True)
class _FormatSpec:
    column2: tuple[str, ...]
    max_per_group: int
    min_per_group: int  # below this: a warning (PAIRS) or an error (IMAGE, where min == max)
    description: str


class RunFormat(Enum):
    Q0 = "q0"
    PAIRS = "pairs"
    STANCE = "stance"
    IMAGE = "image"

    @classmethod
    def parse(cls, name: str | RunFormat) -> RunFormat:
        """``"stance"``, ``"STANCE"`` or a RunFormat -> RunFormat (for the CLI and configs)."""
        if isinstance(name, RunFormat):
            return name
        try:
            return cls(name.strip().lower())
        except ValueError:
            known = ", ".join(f.value for f in cls)
            raise InputError(f"unknown run format {name!r}; expected one of {known}") from None

    @property
    def column2_values(self) -> tuple[str, ...]:
        return _SPECS[self].column2

    @property
    def max_per_group(self) -> int:
        """Most rows per topic (per topic and stance for IMAGE)."""
        return _SPECS[self].max_per_group

    @property
    def min_per_group(self) -> int:
        return _SPECS[self].min_per_group

    @property
    def description(self) -> str:
        return _SPECS[self].description

    @property
    def default_column2(self) -> str | None:
        return None if self is RunFormat.IMAGE else "Q0"

    def group_key(self, qid: str, column2: str) -> tuple[str, ...]:
        """Rows sharing this key are ranked together."""
        return (qid, column2) if self is RunFormat.IMAGE else (qid,)


# The stance vocabularies of the run formats: the one source every task's stance code uses.
ARGUMENT_STANCES = ("PRO", "CON")                             # Task 1 2022 pairs, images
COMPARATIVE_STANCES = ("FIRST", "SECOND", "NEUTRAL", "NO")    # Task 2 2022 passages, toward the first object

_SPECS: dict[RunFormat, _FormatSpec] = {
    RunFormat.Q0: _FormatSpec(("Q0",), 1000, 0, "qid Q0 docid rank score tag"),
    RunFormat.PAIRS: _FormatSpec(
        (*ARGUMENT_STANCES, "Q0"), 1000, 100, "qid PRO|CON|Q0 sid1,sid2 rank score tag"
    ),
    RunFormat.STANCE: _FormatSpec(
        (*COMPARATIVE_STANCES, "Q0"),
        1000,
        0,
        "qid FIRST|SECOND|NEUTRAL|NO|Q0 passageid rank score tag",
    ),
    RunFormat.IMAGE: _FormatSpec(ARGUMENT_STANCES, 10, 10, "topic PRO|CON imageid rank score tag"),
}
