"""A selection of topics by number: the topics a command keeps (``--topics-only 51,55,57-60``) or
leaves out (``--topics-except``, a held-out test set), as a sweep's set spells it (``topics_only:
[52, 67]``), read in one place for every command, the Python API and sweeps.

A selection applies the same way to what a command reads: the topics it searches, the run rows it
scores and the judgements it scores them with, so a mean is over the kept topics only.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from touche.errors import ToucheError
from touche.retrieval.formats.runfile import canonical_topic, natural_key

KINDS = ("only", "except")
MAX_RANGE = 100_000  # topics in one range: far past any topic set, and a typo's 1-1000000000 is said
_PART = re.compile(r"\s*([0-9]{1,9})\s*(?:-\s*([0-9]{1,9})\s*)?")


@dataclass(frozen=True)
class TopicSelection:
    kind: Literal["only", "except"]
    numbers: frozenset[str]  # canonical topic ids (``051`` is 51)

    @classmethod
    def parse(cls, spec: str | int | Iterable[int | str], kind: str = "only", *, where: str | None = None
              ) -> "TopicSelection":
        """``"51,55,57-60"``, a number, or a list of numbers and such texts; ToucheError naming
        ``where`` (the option or key) for anything else."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        where = where or f"--topics-{kind}"
        if isinstance(spec, bool):
            raise ToucheError(f"{where}: {spec!r} is no topic number")
        parts: list[str] = []
        for item in ([spec] if isinstance(spec, (str, int)) else list(spec)):
            if isinstance(item, bool) or not isinstance(item, (str, int)):
                raise ToucheError(f"{where}: {item!r} is no topic number")
            parts.extend(str(item).split(","))
        numbers: set[str] = set()
        for part in parts:
            match = _PART.fullmatch(part)
            if match is None:
                raise ToucheError(f"{where}: {part.strip()!r} is neither a topic number nor a range a-b "
                                  "(e.g. 51,55,57-60)")
            low = int(match[1])
            high = int(match[2]) if match[2] is not None else low
            if high < low:
                raise ToucheError(f"{where}: the range {part.strip()} runs backwards (write {high}-{low})")
            if high - low >= MAX_RANGE:
                raise ToucheError(f"{where}: the range {part.strip()} holds {high - low + 1:,} topics; at most "
                                  f"{MAX_RANGE:,} in one range")
            found = {canonical_topic(str(n)) for n in range(low, high + 1)}
            repeated = numbers & found
            if repeated:
                raise ToucheError(f"{where}: topic(s) {compact(repeated)} given twice")
            numbers |= found
        if not numbers:
            raise ToucheError(f"{where}: no topic given")
        return cls(kind, frozenset(numbers))  # type: ignore[arg-type]

    @classmethod
    def of(cls, only=None, excepted=None, *, names: tuple[str, str] = ("--topics-only", "--topics-except")
           ) -> "TopicSelection | None":
        """The selection a command's two options (or an API call's two arguments) give; None for
        neither; an error for both."""
        if only is not None and excepted is not None:
            raise ToucheError(f"give {names[0]} or {names[1]}, not both")
        if only is not None:
            return cls.parse(only, "only", where=names[0])
        if excepted is not None:
            return cls.parse(excepted, "except", where=names[1])
        return None

    def keeps(self, topic: str) -> bool:
        return (canonical_topic(str(topic)) in self.numbers) == (self.kind == "only")

    def kept(self, topics: Iterable[str]) -> set[str]:
        return {t for t in topics if self.keeps(t)}

    def describe(self) -> str:
        """``topics 51, 55, 57-60 only`` or ``all topics but 51, 55, 57-60``."""
        shown = compact(self.numbers)
        return f"topics {shown} only" if self.kind == "only" else f"all topics but {shown}"

    def check_against(self, known: Iterable[str], what: str) -> None:
        """A topic the selection names that ``what`` (a topics file, the runs) lacks is a typo, or
        the topics of another year: said, not silently matched to nothing; keeping nothing too."""
        known = {canonical_topic(str(t)) for t in known}
        missing = self.numbers - known
        if missing:
            raise ToucheError(f"--topics-{self.kind} names topic(s) {compact(missing)}, not among the topics of {what} "
                              f"({compact(known) or 'none'})")
        if not self.kept(known):
            raise ToucheError(f"--topics-{self.kind} {compact(self.numbers)} leaves no topic of {what}")


def compact(topics: Iterable[str]) -> str:
    """Topic ids as a person writes them: numbers in order, runs of three or more as ranges
    (``51, 55, 57-60``); other ids after them."""
    ids = sorted({str(t) for t in topics}, key=natural_key)
    numbers = [int(t) for t in ids if t.isascii() and t.isdigit()]
    others = [t for t in ids if not (t.isascii() and t.isdigit())]
    out: list[str] = []
    start = previous = None
    for n in numbers + [None]:
        if n is not None and previous is not None and n == previous + 1:
            previous = n
            continue
        if start is not None and previous is not None:  # both set together
            out.append(f"{start}-{previous}" if previous - start >= 2 else
                       f"{start}, {previous}" if previous != start else str(start))
        start = previous = n
    return ", ".join(out + others)
