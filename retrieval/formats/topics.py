"""Reader (and writer) of the Touché topics XML format (all tasks and years).

``<topics><topic><number>…</number><title>…</title>[<objects>a, b</objects>]
[<description>…</description>][<narrative>…</narrative>]</topic>…</topics>``

Task 1 2020–2022, Task 2 2020–2022 (2022 with ``<objects>``) and the image task share it.
Unknown tags inside a ``<topic>`` are ignored; the root must be ``<topics>`` and its element
children ``<topic>``. Text is whitespace-collapsed. Errors name the file and the line.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from touche import sources
from touche.errors import InputError

__all__ = ["Topic", "read_topics", "topics_xml", "topics_from_records"]


@dataclass(frozen=True, slots=True)
class Topic:
    number: str
    title: str
    description: str = ""
    narrative: str = ""
    objects: tuple[str, ...] = ()


_NUMBER = re.compile(r"[0-9]{1,9}")


def _number_problem(text: str) -> str:
    """Why a topic number is refused: too long for one, or not a whole number at all."""
    if text.isdecimal() and text.isascii():
        return f"has {len(text)} digits; topic numbers have at most 9"
    return "is not a positive whole number"


def _text(element: etree._Element | None) -> str:
    """All text inside the element (nested markup included), whitespace collapsed."""
    if element is None:
        return ""
    return " ".join("".join(element.itertext()).split())


def _single(topic: etree._Element, tag: str, path: Path, where: str) -> etree._Element | None:
    found = [child for child in topic if child.tag == tag]
    if len(found) > 1:
        raise InputError(f"more than one <{tag}> (lines {', '.join(str(e.sourceline) for e in found)}); "
                         f"expected one per topic", path=path, where=where)
    return found[0] if found else None


def read_topics(path: str | os.PathLike) -> list[Topic]:
    """The topics of a Touché topics XML file (or of ``topics.xml`` in a TIRA input directory),
    or of BEIR's ``queries.jsonl``, in file order."""
    p = Path(path)
    if p.is_dir():
        p = p / "topics.xml"
    if p.suffix in (".jsonl", ".json"):  # BEIR's queries.jsonl (ir_datasets keeps a copy as queries.json)
        return read_beir_queries(p)
    try:
        data = sources.read_bytes(p, "topics file")  # a pipe: read once per command
    except FileNotFoundError:
        raise InputError("no such topics file (expected a Touché topics XML file)", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read the topics file: {exc.strerror or exc}", path=p) from None

    parser = etree.XMLParser(recover=False, resolve_entities=False, no_network=True, remove_comments=True,
                             remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (exc.lineno, None)
        where = f"line {line}" + (f", column {column}" if column else "")
        message = re.sub(r",? line \d+, column \d+$", "", (exc.msg or str(exc)).strip())
        if not data.strip():
            message = "the file is empty"
        raise InputError(f"malformed XML: {message} (expected <topics><topic>...</topic>...</topics>)",
                         path=p, where=where) from None

    if root.tag != "topics":
        raise InputError(f"the root element is <{root.tag}>, expected <topics>", path=p,
                         where=f"line {root.sourceline}")

    topics: list[Topic] = []
    first_line: dict[str, int] = {}
    for position, element in enumerate((e for e in root if isinstance(e.tag, str)), 1):
        where = f"line {element.sourceline}, topic #{position}"
        if element.tag != "topic":
            raise InputError(f"unexpected element <{element.tag}> in <topics>; expected <topic>", path=p,
                             where=where)
        number_el = _single(element, "number", p, where)
        number = _text(number_el)
        if not number:
            raise InputError("the topic has no <number>" if number_el is None else "the topic's <number> is empty",
                             path=p, where=where)
        if not _NUMBER.fullmatch(number):
            raise InputError(f"topic number {number!r} {_number_problem(number)} (Touché numbers topics 1, 2, …)",
                             path=p, where=where)
        if number not in first_line and str(int(number)) in first_line:
            twin = str(int(number))
            raise InputError(f"topic number {number} is topic {twin} again (first at line {first_line[twin]}); "
                             "run files and qrels would not tell them apart", path=p, where=where)
        where = f"line {element.sourceline}, topic {number}"
        title_el = _single(element, "title", p, where)
        if title_el is None:
            raise InputError("the topic has no <title>", path=p, where=where)
        title = _text(title_el)
        if not title:
            raise InputError("the topic's <title> is empty", path=p, where=where)
        if number in first_line:
            raise InputError(f"duplicate topic number {number} (first at line {first_line[number]})",
                             path=p, where=where)
        first_line[number] = first_line[str(int(number))] = element.sourceline
        objects_el = _single(element, "objects", p, where)
        objects = tuple(o for o in (" ".join(part.split()) for part in _text(objects_el).split(",")) if o)
        topics.append(Topic(
            number=number,
            title=title,
            description=_text(_single(element, "description", p, where)),
            narrative=_text(_single(element, "narrative", p, where)),
            objects=objects,
        ))
    if not topics:
        raise InputError("no <topic> elements in <topics>", path=p, where=f"line {root.sourceline}")
    return topics


def read_beir_queries(path: Path) -> list[Topic]:
    """BEIR's ``queries.jsonl`` (``{"_id", "text", "metadata": {"description", "narrative"}}`` a
    line) as topics, under the same rules as topics.xml: whole, distinct topic numbers."""
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    try:
        lines = sources.read_bytes(path, "queries file").decode("utf-8-sig").splitlines()
    except FileNotFoundError:
        raise InputError("no such queries file", path=path) from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno}); expected "
                             '{"_id", "text", "metadata"}', path=path, where=where) from None
        if not isinstance(data, dict) or not isinstance(data.get("text"), str) or not data["text"].strip():
            raise InputError('expected a JSON object with a non-empty "text"', path=path, where=where)
        qid = str(data.get("_id", "")).strip()
        if not _NUMBER.fullmatch(qid):
            raise InputError(f"query id {qid!r} {_number_problem(qid)}", path=path, where=where)
        if str(int(qid)) in seen:
            raise InputError(f"query {qid} again (first at line {seen[str(int(qid))]})", path=path, where=where)
        seen[str(int(qid))] = number
        meta = data.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        topics.append(Topic(qid, " ".join(data["text"].split()), str(meta.get("description", "")),
                            str(meta.get("narrative", ""))))
    if not topics:
        raise InputError("no queries in the file", path=path)
    return topics


def topics_from_records(records: Iterable[dict], label: str = "queries frame") -> list[Topic]:
    """Topics from records (a PyTerrier queries frame's rows: ``qid`` and ``query``, or Touché's
    ``title``; optionally ``description``, ``narrative``, ``objects`` as "a, b" or a list), under
    the rules of a topics file: whole topic numbers, distinct as numbers, a non-empty title.
    Where both are given, ``query`` is the title: it is what PyTerrier searches, so a rewrite
    upstream (``pt.apply.query``, which keeps the old text in ``query_0``) is what is searched."""
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    for row, record in enumerate(records, start=1):
        where = f"row {row}"
        qid = str(record.get("qid", record.get("number", ""))).strip()
        # pandas made an int column with gaps float
        if qid.endswith(".0") and qid[:-2].isascii() and qid[:-2].isdigit():
            qid = qid[:-2]
        if not _NUMBER.fullmatch(qid):
            raise InputError(f"topic id {qid!r} {_number_problem(qid)} (Touché numbers topics 1, 2, …)",
                             path=label, where=where)
        if str(int(qid)) in seen:
            raise InputError(f"topic {qid} again (first in row {seen[str(int(qid))]})", path=label, where=where)
        seen[str(int(qid))] = row
        title = record.get("query") if isinstance(record.get("query"), str) and record["query"].strip() \
            else record.get("title")
        if not isinstance(title, str) or not title.strip():
            raise InputError("the topic has no query (a non-empty 'query' or 'title' column)", path=label,
                             where=where)
        objects = record.get("objects")
        objects = () if not isinstance(objects, (str, list, tuple)) else objects
        if isinstance(objects, str):
            objects = objects.split(",")
        text = {key: " ".join(value.split()) if isinstance(value := record.get(key), str) else ""
                for key in ("description", "narrative")}  # a frame's missing value is NaN, not text
        topics.append(Topic(qid, " ".join(title.split()), text["description"], text["narrative"],
                            tuple(o for o in (" ".join(str(part).split()) for part in objects) if o)))
    if not topics:
        raise InputError("no topics", path=label)
    return topics


def topics_xml(topics: Iterable[Topic]) -> str:
    """Topics as a Touché topics XML file (what ``read_topics`` reads back unchanged)."""
    root = etree.Element("topics")
    for topic in topics:
        element = etree.SubElement(root, "topic")
        for tag, text in (("number", topic.number), ("title", topic.title), ("description", topic.description),
                          ("narrative", topic.narrative), ("objects", ",".join(topic.objects))):
            if text or tag in ("number", "title"):
                etree.SubElement(element, tag).text = text
    return etree.tostring(root, encoding="unicode", pretty_print=True)
