"""An HTML contact sheet of an image run: per topic and stance, the 10 images as thumbnails
with their scores and the text that earned them.

A run of images is judged by looking at it. The sheet shows, for every topic of the run, a PRO
row and a CON row; each card has the thumbnail, rank and score, the stance and
argumentativeness the formulas of ``retrieval/tasks/image/handlers.py`` give the image (with the spec given,
default ``ImageSpec()``), and its texts — alt text, text inside the image (OCR, from the cache:
the sheet never runs OCR), text near it in the page, crawl queries — with the topic's terms
and the pro/con cue words marked.

The file is self-contained (thumbnails are inlined as JPEG data URIs), so it can be copied
off a TIRA output directory and opened anywhere. It is written atomically.

``python -m touche.retrieval.experiments.contact_sheet RUN COLLECTION OUT.html [--topics topics.xml]``
"""
from __future__ import annotations

import base64
import html
import io
import os
import re
from collections import defaultdict
from pathlib import Path

from touche.atomic import write_text
from touche.errors import InputError
from touche.indexing import ocr
from touche.indexing.images import collection_root, image_dir, image_fields, read_image
from touche.progress import progress_bar
from touche.retrieval.formats.gate import load_topics, read_run
from touche.retrieval.formats.runfile import ARGUMENT_STANCES, RunFormat, RunRow, canonical_topic, natural_key
from touche.retrieval.formats.topics import Topic
from touche.retrieval.tasks.image import ImageFeatures, argumentativeness, stance_score, term_key, topic_terms
from touche.specs.image import ImageSpec

__all__ = ["write_contact_sheet", "render_contact_sheet", "thumbnail", "thumbnail_data_uri", "highlight", "snippet"]

THUMBNAIL_PIXELS = 180
SNIPPET_CHARS = 220
_WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")

STYLE = """
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 16px; background: #f4f4f2; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; }
.meta { color: #666; font-size: 12px; margin-bottom: 12px; }
section.topic { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 10px 12px; margin-bottom: 16px; }
section.topic h2 { font-size: 16px; margin: 0 0 8px; }
.stance { display: flex; align-items: flex-start; gap: 8px; margin-bottom: 10px; }
.label { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: bold; color: #fff; padding: 8px 4px;
         border-radius: 4px; min-height: 120px; text-align: center; }
.PRO .label { background: #1b7f3b; }
.CON .label { background: #b3261e; }
.cards { display: grid; grid-template-columns: repeat(5, 220px); gap: 8px; }
.card { border: 1px solid #ccc; border-radius: 4px; padding: 6px; font-size: 11px; background: #fcfcfb;
        overflow-wrap: anywhere; }
.card .thumb { display: block; margin: 0 auto 4px; border: 1px solid #eee; background-size: contain; background-repeat: no-repeat; }
.card .missing { height: 100px; background: #eee; color: #888; display: flex; align-items: center;
                 justify-content: center; }
.score { font-weight: bold; }
.tier0 { opacity: 0.55; }
.why { color: #444; margin-top: 3px; }
.field { color: #888; font-variant: small-caps; }
mark.term { background: #ffe58a; }
mark.pro { background: #c8efcf; }
mark.con { background: #f7c9c5; }
"""  # noqa: E501 (a CSS rule a line: the page's bytes, not Python)


def thumbnail(image_path: Path, pixels: int = THUMBNAIL_PIXELS) -> tuple[str, int, int] | None:
    """A JPEG thumbnail as a data: URI with its width and height, or None when the file cannot
    be decoded."""
    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(image_path) as image:
            image.thumbnail((pixels, pixels))
            buffer = io.BytesIO()
            image.convert("RGB").save(buffer, "JPEG", quality=75)
            width, height = image.size
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), width, height


def thumbnail_data_uri(image_path: Path, pixels: int = THUMBNAIL_PIXELS) -> str | None:
    found = thumbnail(image_path, pixels)
    return found[0] if found else None


def highlight(text: str, terms: frozenset[str], pro: frozenset[str], con: frozenset[str]) -> str:
    """HTML-escaped text with topic terms and cue words marked."""
    if not _mentions(text, terms | pro | con):
        return html.escape(text)  # nothing to mark (a quick test: marks need their term in the text)
    out: list[str] = []
    last = 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower()
        is_term = len(lower) > 2 and term_key(lower) in terms
        css = "pro" if lower in pro else "con" if lower in con else "term" if is_term else None
        if css:
            out.append(html.escape(text[last:match.start()]))
            out.append(f'<mark class="{css}">{html.escape(word)}</mark>')
            last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _mentions(text: str, keys: frozenset[str]) -> bool:
    """Whether any key occurs in the lowered text: a word whose key is one contains it, so
    without one no word can match (the explorer cuts 50,000 snippets from texts that mostly
    do not name the topic)."""
    lowered = text.lower()
    return any(key in lowered for key in keys)


def snippet(text: str, terms: frozenset[str], chars: int = SNIPPET_CHARS) -> str:
    """Up to ``chars`` characters of one line of text, starting near the first topic term."""
    if not _mentions(text, terms):  # no term to start near: the beginning, without flattening it all
        head, more = _flat_prefix(text, chars)
        return head + " …" if more else head
    flat = " ".join(text.split())
    if len(flat) <= chars:
        return flat
    start = 0
    for match in _WORD.finditer(flat):
        if term_key(match.group(0).lower()) in terms:
            start = max(0, match.start() - chars // 4)
            break
    piece = flat[start:start + chars]
    return ("… " if start else "") + piece + " …"


def _flat_prefix(text: str, chars: int) -> tuple[str, bool]:
    """The first ``chars`` characters of ``" ".join(text.split())`` and whether more follow, from
    a prefix of the text (a page cuts 50,000 snippets; flattening whole documents was most of it)."""
    window = 4 * chars + 64
    while window < len(text):
        head = text[:window]
        cut = max(head.rfind(c) for c in " \n\t\r")  # the word that straddles the window is left out
        flat = " ".join(head[:cut].split()) if cut > 0 else ""
        if len(flat) > chars:
            return flat[:chars], True
        window *= 4
    flat = " ".join(text.split())
    return flat[:chars], len(flat) > chars


class ImageRecords:
    """Image records of the collection, read on demand (a run names at most 20 per topic)."""

    def __init__(self, collection_path: Path):
        self.root = collection_root(collection_path)
        self.cache: dict[str, ImageFeatures | None] = {}
        self.files: dict[str, Path] = {}
        self.thumbnails: dict[str, tuple[str, int, int] | None] = {}

    def encode_thumbnails(self, image_ids: list[str], progress: bool) -> str:
        """Each image's thumbnail once, as CSS rules the cards name (``.t-<id>``)."""
        rules = []
        for image_id in progress_bar(list(dict.fromkeys(image_ids)), desc="thumbnails", unit="image",
                                     disable=not progress):
            if self.get(image_id) is None:
                continue
            found = self.thumbnails[image_id] = thumbnail(self.files[image_id])
            if found:
                uri, width, height = found
                rules.append(
                    f'.t-{image_id} {{ background-image: url("{uri}"); width: {width}px; height: {height}px; }}'
                )
        return "\n".join(rules)

    def get(self, image_id: str) -> ImageFeatures | None:
        if image_id not in self.cache:
            folder = image_dir(self.root, image_id)
            try:
                record = read_image(folder)
            except InputError:
                self.cache[image_id] = None
                return None
            text = ocr.cached_text(record.image_file)  # None without OCR: it asks for the engine itself
            values = image_fields(record, text or "")
            raw_rankings = tuple((r.topic, r.rank) for r in record.rankings)
            self.cache[image_id] = ImageFeatures(image_id, record.phash, values, raw_rankings,
                                                 record.image_file.relative_to(self.root).as_posix())
            self.files[image_id] = record.image_file
        return self.cache[image_id]


def _card(row: RunRow, features: ImageFeatures | None, images: ImageRecords, topic: Topic | None, spec: ImageSpec,
          tiered: bool) -> str:
    # Our runs' scores carry the selection tier (retrieval/tasks/image/handlers.py: 2 + s preferred side,
    # 1 + s filled from the hits, s filled from the collection); other runs' scores do not.
    tier = min(2, int(row.score)) if tiered else 2
    head = (f'<div class="score">#{row.rank} · {html.escape(row.docid)}</div>'
            f'<div>score {row.score:.3f}{" · filled" if tier < 2 else ""}</div>')
    if features is None:
        return (f'<div class="card tier{tier}"><div class="missing">not in the collection</div>{head}</div>')
    # the picture is a CSS class holding the thumbnail, encoded once per sheet (render_contact_sheet):
    # an image shown for 20 topics and both stances was once encoded 40 times
    picture = (f'<div class="thumb t-{row.docid}" role="img" aria-label="{html.escape(row.docid)}"></div>'
               if images.thumbnails.get(row.docid) else '<div class="missing">image cannot be decoded</div>')
    title = topic.title if topic else ""
    terms = topic_terms(title)
    evidence = stance_score(features, title, spec.stance)
    argument = argumentativeness(features, spec.argumentative)
    pro, con = frozenset(spec.stance.pro_cues), frozenset(spec.stance.con_cues)
    why = [f'stance {evidence.score:+.2f} (sentiment {evidence.sentiment:+.2f}'
           f'{", flipped" if evidence.flipped else ""}; cues +{len(evidence.pro_cues)}/−{len(evidence.con_cues)})'
           f' · argumentative {argument:.2f}']
    queries = "; ".join(dict.fromkeys(q for q in features.texts.get("queries", "").split("\n") if q))
    for label, text in (("alt", features.texts.get("alt_text", "")), ("ocr", features.texts.get("ocr_text", "")),
                        ("near", features.texts.get("near_text", "")), ("queries", queries)):
        if text.strip():
            why.append(f'<span class="field">{label}</span> '
                       + highlight(snippet(text, terms), terms, pro, con))
    body = "".join(f'<div class="why">{line}</div>' for line in why)
    return f'<div class="card tier{tier}">{picture}{head}{body}</div>'


def render_contact_sheet(rows: list[RunRow], images: ImageRecords, topics: dict[str, Topic], spec: ImageSpec,
                         title: str, progress: bool = False) -> str:
    thumbnails = images.encode_thumbnails([r.docid for r in rows], progress)
    by_topic: dict[str, dict[str, list[RunRow]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_topic[row.qid][row.column2].append(row)
    tiered = all(0 <= r.score < 3 for r in rows)
    sections = []
    for qid in sorted(by_topic, key=natural_key):
        topic = topics.get(qid)
        heading = f"Topic {html.escape(qid)}" + (f": {html.escape(topic.title)}" if topic else "")
        stances = []
        for stance in ARGUMENT_STANCES:
            ranked = sorted(by_topic[qid].get(stance, []), key=lambda r: (r.rank, -r.score))
            cards = "".join(_card(r, images.get(r.docid), images, topic, spec, tiered) for r in ranked)
            stances.append(f'<div class="stance {stance}"><div class="label">{stance}</div>'
                           f'<div class="cards">{cards}</div></div>')
        sections.append(f'<section class="topic" id="topic-{html.escape(qid)}"><h2>{heading}</h2>'
                        + "".join(stances) + "</section>")
    tags = sorted({r.tag for r in rows})
    engine = ocr.engine()
    meta = (f"run tag {html.escape(', '.join(tags))} · {len(by_topic)} topics · {len(rows)} images · "
            f"OCR {'from the cache of ' + html.escape(engine.version) if engine else 'unavailable'} · "
            "marked: <mark class='term'>topic terms</mark> <mark class='pro'>pro cues</mark> "
            "<mark class='con'>con cues</mark> · faded cards were filled in from unretrieved images")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}{thumbnails}\n</style></head><body><h1>{html.escape(title)}</h1><div class='meta'>{meta}</div>"
        + "\n".join(sections)
        + "</body></html>\n"
    )


def _find_topics(collection_path: Path, topics_path: Path | None) -> dict[str, Topic]:
    candidates = [topics_path] if topics_path else [Path(collection_path) / "topics.xml"]
    for path in candidates:
        if path is not None and Path(path).is_file():
            return {canonical_topic(t.number): t for t in load_topics(path)}
    if topics_path:
        raise InputError("topics file not found", path=topics_path)
    return {}


def write_contact_sheet(run_path: str | os.PathLike, collection_path: str | os.PathLike, out_html: str | os.PathLike,
                        *, topics_path: str | os.PathLike | None = None, spec: ImageSpec | None = None,
                        topics: list[str] | None = None, progress: bool = False) -> Path:
    """Write the contact sheet of an image run; returns ``out_html``.

    ``topics_path``: the topics file (titles, and the topic terms and stance flip the evidence
    needs); default ``<collection>/topics.xml`` when there is one. ``topics``: show only these
    topic numbers. ``spec``: the variant's ``image:`` settings for the evidence shown.
    """
    run_path, out_html = Path(run_path), Path(out_html)
    # the gate checks every id is 'I' + 16 hex digits: a folder name of the collection ('../x' would
    # embed files from outside it)
    rows = read_run(run_path, RunFormat.IMAGE)
    if topics is not None:
        wanted = {canonical_topic(str(t)) for t in topics}
        rows = [r for r in rows if r.qid in wanted]
    if not rows:
        raise InputError("no image rows to show" + (" for the requested topics" if topics is not None else ""),
                         path=run_path)
    images = ImageRecords(Path(collection_path))
    text = render_contact_sheet(rows, images, _find_topics(Path(collection_path),
                                                           Path(topics_path) if topics_path else None),
                                spec or ImageSpec(), f"Contact sheet · {run_path.name}", progress)
    return write_text(out_html, text)
