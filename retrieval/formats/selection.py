"""A selection of topics by number: the topics a command keeps (``--topics-only 51,55,57-60``) or
leaves out (``--topics-except``, a held-out test set), as a sweep's set spells it (``topics_only:
[52, 67]``), read in one place for every command, the Python API, PyTerrier and sweeps.

One rule, whoever applies it (``TopicSelection.checked_against``): a topic named on its own is
one the topics hold (or, without a topics file, the runs and qrels): one they lack is a typo or
another year's topic, and an error; a range (``1-53``) takes the topics listed within it and is
an error only when it takes none. The message names what was given and what exists.

A selection applies the same way to what a command reads: the topics it searches, the run rows it
scores and the judgements it scores them with, so a mean is over the kept topics only.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from touche.errors import ToucheError
from touche.retrieval.formats.runfile import canonical_topic, natural_key

KINDS = ("only", "except")
MAX_RANGE = 100_000  # topics in one range: far past any topic set, and a typo's 1-1000000000 is said
_PART = re.compile(r"\s*([0-9]{1,9})\s*(?:-\s*([0-9]{1,9})\s*)?")


@dataclass(frozen=True)
class TopicSelection:
    """``singles``: the topics named one by one (each must exist); ``ranges``: ``(low, high)`` of
    each range given (it takes the topics within it that exist). ``where`` is how the user gave it
    (``--topics-only``, ``topics_except``), ``spec`` the text given, both for messages."""
    kind: Literal["only", "except"]
    singles: frozenset[str]  # canonical topic ids (``051`` is 51)
    ranges: tuple[tuple[int, int], ...] = ()
    where: str = ""
    spec: str = ""
    # set by checked_against: the rule was applied against what exists (a later scorer need not)
    checked: bool = field(default=False, compare=False)

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
        singles: set[str] = set()
        ranges: list[tuple[int, int]] = []
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
            repeated = {str(n) for n in _repeated(low, high, singles, ranges)}
            if repeated:
                raise ToucheError(f"{where}: topic(s) {compact(repeated)} given twice")
            if match[2] is None:
                singles.add(canonical_topic(str(low)))
            else:
                ranges.append((low, high))
        if not singles and not ranges:
            raise ToucheError(f"{where}: no topic given")
        text = ",".join(re.sub(r"\s+", "", part) for part in parts)
        return cls(kind, frozenset(singles), tuple(ranges), where, text)  # type: ignore[arg-type]

    @classmethod
    def of(cls, only=None, excepted=None, *, names: tuple[str, str] = ("--topics-only", "--topics-except")
           ) -> "TopicSelection | None":
        """The selection a command's two options (or an API call's two arguments) give; None for
        neither; an error for both."""
        if only is not None and excepted is not None:
            raise ToucheError(f"give {names[0]} or {names[1]}, not both")
        if isinstance(only, TopicSelection) or isinstance(excepted, TopicSelection):  # parsed where given
            chosen = only if only is not None else excepted
            if chosen.kind != ("only" if only is not None else "except"):
                raise ValueError(f"a selection of kind {chosen.kind} given as {names[0 if only is not None else 1]}")
            return chosen
        if only is not None:
            return cls.parse(only, "only", where=names[0])
        if excepted is not None:
            return cls.parse(excepted, "except", where=names[1])
        return None

    @classmethod
    def option(cls, kind: str) -> Callable[[str], "TopicSelection"]:
        """An argparse ``type`` for ``--topics-only``/``--topics-except``: the option's text parsed
        here, so a message names the option as the user typed it."""
        def parsed(spec: str) -> TopicSelection:
            try:
                return cls.parse(spec, kind)
            except ToucheError as exc:
                raise argparse.ArgumentTypeError(exc.message.removeprefix(f"--topics-{kind}: ")) from None
        parsed.__name__ = f"--topics-{kind}"
        return parsed

    @property
    def numbers(self) -> frozenset[str]:
        """Every topic number the selection names, its ranges written out."""
        return self.singles | {str(n) for low, high in self.ranges for n in range(low, high + 1)}

    def names(self, topic: str) -> bool:
        """Whether the selection names ``topic`` (on its own or within a range)."""
        topic = canonical_topic(str(topic))
        if topic in self.singles:
            return True
        if not (topic.isascii() and topic.isdigit()) or len(topic) > 9:
            return False
        number = int(topic)
        return any(low <= number <= high for low, high in self.ranges)

    def keeps(self, topic: str) -> bool:
        return self.names(topic) == (self.kind == "only")

    def kept(self, topics: Iterable[str]) -> set[str]:
        return {t for t in topics if self.keeps(t)}

    @property
    def given(self) -> str:
        """The selection as the user gave it: ``--topics-only 51,55,57-60``."""
        return f"{self.where or '--topics-' + self.kind} {self.spec or compact(self.numbers)}"

    def describe(self) -> str:
        """``topics 51, 55, 57-60 only`` or ``all topics but 51, 55, 57-60``."""
        shown = compact(self.numbers)
        return f"topics {shown} only" if self.kind == "only" else f"all topics but {shown}"

    def checked_against(self, known: Iterable[str], what: str) -> "TopicSelection":
        """The selection, checked against the topics that exist (``known``: of a topics file, or of
        the runs and qrels; ``what`` says which): a topic named on its own that they lack, a range
        that takes none of them, or a selection that keeps nothing is an error naming what was
        given and what exists. A range beyond the topics (``1-53`` of topics 1-50) takes those
        within it."""
        known = {canonical_topic(str(t)) for t in known}
        problems = []
        missing = self.singles - known
        if missing:
            problems.append(f"topic(s) {compact(missing)} {'is' if len(missing) == 1 else 'are'} not among them")
        empty = [f"{low}-{high}" for low, high in self.ranges
                 if not any(low <= int(t) <= high for t in known if t.isascii() and t.isdigit() and len(t) <= 9)]
        if empty:
            problems.append(f"the range(s) {', '.join(empty)} take none of them")
        if not problems and not self.kept(known):
            problems.append("it leaves none of them" if self.kind == "except" else "it keeps none of them")
        if problems:
            raise ToucheError(f"{self.given}: {'; '.join(problems)} (the topics of {what}: "
                              f"{compact(known) or 'none'})")
        return dataclasses.replace(self, checked=True)

    def check_against(self, known: Iterable[str], what: str) -> None:
        self.checked_against(known, what)


def _repeated(low: int, high: int, singles: set[str], ranges: list[tuple[int, int]]) -> set[int]:
    """The numbers of ``low-high`` the selection already names (a topic given twice)."""
    out = {int(t) for t in singles if t.isdigit() and low <= int(t) <= high}
    for a, b in ranges:
        if a <= high and low <= b:
            out |= set(range(max(a, low), min(b, high) + 1))
    return out


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
