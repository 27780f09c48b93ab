"""Typed corpus records (frozen, slotted dataclasses in the style of ir_datasets).

An ``Argument`` is one args.me argument: a conclusion, its premises and where it comes from.
``Argument.to_json()`` is the compact JSON kept as the stored ``raw`` document of the index;
``Argument.from_json()`` reads it back (the re-rankers and the run writer use it).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from touche.errors import InputError

__all__ = ["Premise", "Argument"]


@dataclass(frozen=True, slots=True)
class Premise:
    """One premise of an argument; ``stance`` is "PRO", "CON", or "" when the corpus gives none."""

    text: str
    stance: str = ""


# The context fields, in the order of ``Argument``'s fields (used by to_json/from_json).
_CONTEXT_FIELDS = ("source_id", "source_title", "source_url", "source_domain",
                   "discussion_title", "previous_id", "next_id")


@dataclass(frozen=True, slots=True)
class Argument:
    """One args.me argument (2020-04-01 format); absent context fields are ""."""

    id: str
    conclusion: str
    premises: tuple[Premise, ...] = ()
    source_id: str = ""
    source_title: str = ""
    source_url: str = ""
    source_domain: str = ""
    discussion_title: str = ""
    previous_id: str = ""
    next_id: str = ""

    @property
    def premises_text(self) -> str:
        """The premises' texts, joined by a blank line."""
        return "\n\n".join(p.text for p in self.premises)

    @property
    def stance(self) -> str:
        """The first premise's stance ("PRO"/"CON"), or "" when there is none."""
        return self.premises[0].stance if self.premises else ""

    @property
    def title(self) -> str:
        """The debate's title: the discussion title, else the source page's title."""
        return self.discussion_title or self.source_title

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": self.id,
            "conclusion": self.conclusion,
            "premises": [{"text": p.text, "stance": p.stance} for p in self.premises],
        }
        for name in _CONTEXT_FIELDS:
            record[name] = getattr(self, name)
        return record

    def to_json(self) -> str:
        """Compact JSON of the whole record (UTF-8 text, no extra whitespace).

        orjson writes what ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``
        writes, 5x faster: the raw record of every argument is written once per index build
        (a tenth of our Python time on args.me). A lone surrogate (a broken escape in the
        corpus) it refuses; the standard library writes that record."""
        record = self.to_dict()
        try:
            return orjson.dumps(record).decode()
        except TypeError:
            return json.dumps(record, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, record: Any) -> "Argument":
        """The inverse of ``to_dict``; raises InputError when the dict is not such a record."""
        where = "stored argument"
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, found {json_type(record)}", where=where)
        if not isinstance(record.get("id"), str):
            raise InputError("expected a string 'id'", where=where)
        where = f"stored argument {record['id']!r}"
        conclusion = record.get("conclusion", "")
        if not isinstance(conclusion, str):
            raise InputError("expected 'conclusion' to be a string", where=where)
        raw_premises = record.get("premises", [])
        if not isinstance(raw_premises, list):
            raise InputError("expected 'premises' to be a list", where=where)
        premises = []
        for i, p in enumerate(raw_premises):
            if not isinstance(p, dict) or not isinstance(p.get("text"), str) \
                    or not isinstance(p.get("stance", ""), str):
                raise InputError(f"premise #{i + 1} (1-based): expected an object with a string 'text' "
                                 "and an optional string 'stance'", where=where)
            premises.append(Premise(p["text"], p.get("stance", "")))
        context = {}
        for name in _CONTEXT_FIELDS:
            value = record.get(name, "")
            if not isinstance(value, str):
                raise InputError(f"expected '{name}' to be a string", where=where)
            context[name] = value
        return cls(record["id"], conclusion, tuple(premises), **context)

    @classmethod
    def from_json(cls, raw: str | bytes) -> "Argument":
        """Parse what ``to_json`` wrote; raises InputError on anything else."""
        try:
            record = json.loads(raw)
        except ValueError as exc:
            raise InputError(f"stored document is not valid JSON: {exc}", where="stored argument") from None
        return cls.from_dict(record)


def json_type(value: Any) -> str:
    """How a JSON value's type reads in an error message (\"a string\", \"null\", …)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)) or type(value).__name__ == "Decimal":
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# Characters a document id cannot hold: whitespace splits the run-file line it will be written on,
# control characters and line/paragraph separators break every reader after us (our searcher's
# hit list too), and a lone surrogate (a broken \ud800 escape) is no character at all: UTF-8
# cannot carry it, so the run would name an id ("S?x-A1") that is not in the corpus.
_BAD_ID_CHARACTER = re.compile("[\\s\x00-\x1f\x7f\u2028\u2029\ufeff\ud800-\udfff]")


def id_problem(value: str) -> str | None:
    """Why ``value`` cannot be a document id (None when it can): the reason names the character."""
    bad = _BAD_ID_CHARACTER.search(value)
    if bad is None:
        return None
    kind = "a lone surrogate " if "\ud800" <= bad.group() <= "\udfff" else ""
    return (f"the id {value!r} contains {kind}U+{ord(bad.group()):04X}; ids are written into run files (UTF-8) "
            "and must hold no whitespace, control characters or lone surrogates")
