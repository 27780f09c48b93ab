"""Reader of the Touché image collection (2022/2023) in its official layout, and its index fields.

Layout (``images/`` may be the given path itself or a folder inside it, e.g. a TIRA input
directory that also holds ``topics.xml``)::

    images/I<2 hex>/<image id>/image.webp (or image.png)
                              /image-url.txt        where the image was found
                              /image-phash.txt      64-bit perceptual hash, as 0/1 characters
                              /pages/<page id>/page-url.txt
                                              /rankings.jsonl   {"query", "topic", "rank"} per line
                                              /snapshot/dom.html, text.txt, image-xpath.txt

``image-xpath.txt`` holds one XPath per line (``/HTML[1]/BODY[1]/…/IMG[1]``, upper-case tags,
positions among same-tag siblings) locating the image in ``dom.html``; an image used as the
page's preview points at a ``<meta property="og:image">`` in the head.

Per image the reader gives: the pages' text, their titles, the text *near* the image in the
DOM, its alt/title/caption text, the queries it was ranked for, words of its URLs and (through
``indexing.ocr``) the text inside it. A record without an image file, or with a malformed
phash or rankings line, is a bad record: an InputError naming the file, or counted and skipped
with ``skip_bad_records``. Missing page files (no snapshot, no rankings) are not errors: the
crawl has such pages, and their fields are simply empty.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote, urlsplit

from lxml import etree, html

from touche.budgets import max_record_bytes, read_within, record_too_large
from touche.errors import InputError
from touche.indexing import ocr
from touche.indexing.argsme import ReadReport

__all__ = ["ImageRecord", "ImagePage", "CrawlRanking", "ImageSource", "collection_root",
           "image_dirs", "image_dir", "read_image", "image_fields", "near_text", "resolve_xpath", "FIELDS"]

IMAGE_ID = re.compile(r"I[0-9a-f]{16}")
IMAGE_FILES = ("image.webp", "image.png", "image.jpg", "image.jpeg", "image.gif")
# Characters of DOM text kept on each side of the image: about two short paragraphs, the
# reach of a caption or the sentences that introduce a figure.
NEAR_CHARS = 600
# Page text beyond this is cut (some crawled pages are whole books); the index does not need it.
MAX_PAGE_CHARS = 100_000
_SKIPPED_TEXT_TAGS = frozenset({"script", "style", "template", "svg", "head", "title"})
_BLOCK_TAGS = frozenset({"p", "div", "br", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "figure",
                         "figcaption", "section", "article", "header", "footer", "blockquote", "ul", "ol", "table",
                         "dd", "dt", "pre", "main", "aside", "nav", "form", "hr"})
_UTF8_PARSER = html.HTMLParser(encoding="utf-8")
_STEP = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)(?:\[(\d+)\])?$")
_WORD_IN_URL = re.compile(r"[A-Za-z]{2,}")
_URL_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+")

# The text fields an image offers to the index; contents is all of them (page text last).
FIELDS = ("contents", "page_title", "near_text", "alt_text", "ocr_text", "queries", "url_text", "page_text")


# ---------------------------------------------------------------------------- records
@dataclass(frozen=True, slots=True)
class CrawlRanking:
    """One line of rankings.jsonl: the image was at ``rank`` for ``query`` (topic ``topic``)."""

    topic: str
    query: str
    rank: int


@dataclass(frozen=True, slots=True)
class ImagePage:
    id: str
    url: str = ""
    title: str = ""
    text: str = ""         # the page's text (snapshot/text.txt)
    near_text: str = ""    # DOM text around the image
    alt_text: str = ""     # alt/title attributes, figure caption, aria description
    rankings: tuple[CrawlRanking, ...] = ()


@dataclass(frozen=True, slots=True)
class ImageRecord:
    id: str
    directory: Path
    image_file: Path
    url: str = ""
    phash: str = ""
    pages: tuple[ImagePage, ...] = ()

    @property
    def rankings(self) -> tuple[CrawlRanking, ...]:
        return tuple(r for page in self.pages for r in page.rankings)

    @property
    def queries(self) -> list[str]:
        """Distinct queries the image was ranked for, first seen first."""
        return list(dict.fromkeys(r.query for r in self.rankings if r.query))


@dataclass(frozen=True, slots=True)
class SkippedImage:
    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


# ---------------------------------------------------------------------------- layout
def collection_root(path: str | Path) -> Path:
    """The ``images/`` folder: the path itself or its ``images`` child."""
    p = Path(path)
    if not p.is_dir():
        raise InputError("image collection not found (expected a directory holding images/I??/<image id>/)", path=p)
    if (p / "images").is_dir():
        return p / "images"
    if any(_is_bucket(child) for child in p.iterdir()):
        return p
    raise InputError("not an image collection: no images/ folder and no I<2 hex>/<image id>/ folders "
                     "(Touché image collection layout)", path=p)


def _is_bucket(path: Path) -> bool:
    return path.is_dir() and len(path.name) == 3 and path.name[0] == "I"


def image_dirs(root: Path) -> list[Path]:
    """Every image folder, sorted by image id (the bucket folder is the id's first 3 characters)."""
    found = [d for bucket in root.iterdir() if _is_bucket(bucket) for d in bucket.iterdir() if d.is_dir()]
    return sorted(found, key=lambda d: d.name)


def image_dir(root: Path, image_id: str) -> Path:
    return root / image_id[:3] / image_id


def _read_text(path: Path, limit: int | None = None) -> str:
    """A page's or image's text file; ``limit``: its first characters only (a page's text), else
    the whole file within the record budget (an InputError naming it beyond)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            if limit:
                return handle.read(limit)
            budget = max_record_bytes()
            text = read_within(handle, budget)
    except FileNotFoundError:
        return ""
    if len(text) > budget:
        raise InputError(record_too_large(f"more than {budget:,} characters", "file"), path=path)
    return text


def _read_bytes(path: Path) -> bytes:
    """A file (a page's DOM) within the record budget; an InputError naming it beyond."""
    budget = max_record_bytes()
    with open(path, "rb") as handle:
        data = read_within(handle, budget)
    if len(data) > budget:
        raise InputError(record_too_large(f"more than {budget:,} bytes", "file"), path=path)
    return data


def _read_rankings(path: Path) -> tuple[CrawlRanking, ...]:
    rankings = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:  # its own "line 1 … (char n)" would count within this line only
            raise InputError(f'not valid JSON ({exc.msg} at column {exc.colno}); expected a JSON object with '
                             '"topic", "query", "rank"', path=path, where=f"line {number}") from None
        except RecursionError:
            raise InputError("not valid JSON (nested too deeply)", path=path, where=f"line {number}") from None
        try:
            rankings.append(CrawlRanking(str(data["topic"]), str(data.get("query", "")), int(data.get("rank", 0))))
        except (ValueError, KeyError, TypeError, OverflowError, AttributeError) as exc:  # rank inf, not an object
            raise InputError(f'expected a JSON object with "topic", "query", "rank" ({exc.__class__.__name__}: {exc})',
                             path=path, where=f"line {number}") from None
    return tuple(rankings)


def read_image(directory: Path) -> ImageRecord:
    """One image folder → ImageRecord; InputError (naming the file) when it is not a valid record."""
    image_id = directory.name
    if not IMAGE_ID.fullmatch(image_id):
        raise InputError("image folder name is not an image id ('I' + 16 hex digits)", path=directory)
    image_file = next((directory / name for name in IMAGE_FILES if (directory / name).is_file()), None)
    if image_file is None:
        raise InputError(f"no image file (expected one of {', '.join(IMAGE_FILES)})", path=directory)
    phash = _read_text(directory / "image-phash.txt").strip()
    if phash and not re.fullmatch(r"[01]{16,256}", phash):
        raise InputError(f"phash {phash[:40]!r} is not a string of 0/1 bits", path=directory / "image-phash.txt")
    url = _read_text(directory / "image-url.txt").strip()
    pages_dir = directory / "pages"
    pages = tuple(read_page(p, url) for p in sorted(pages_dir.iterdir()) if p.is_dir()) if pages_dir.is_dir() else ()
    return ImageRecord(image_id, directory, image_file, url, phash, pages)


def read_page(page_dir: Path, image_url: str = "") -> ImagePage:
    snapshot = page_dir / "snapshot"
    xpaths = [x.strip() for x in _read_text(snapshot / "image-xpath.txt").splitlines() if x.strip()]
    title = near = alt = ""
    dom_file = snapshot / "dom.html"
    if dom_file.is_file():
        tree = parse_dom(dom_file)
        if tree is not None:
            title = _collapse(" ".join(tree.xpath("//title//text()")))
            near, alt = image_context(tree, xpaths, image_url)
    return ImagePage(page_dir.name, _read_text(page_dir / "page-url.txt").strip(), title,
                     _read_text(snapshot / "text.txt", MAX_PAGE_CHARS), near, alt,
                     _read_rankings(page_dir / "rankings.jsonl"))


# ---------------------------------------------------------------------------- the DOM
def parse_dom(path: Path) -> etree._ElementTree | None:
    data = _read_bytes(path)
    if not data.strip():
        return None
    try:
        # The snapshots are the browser's serialisation, UTF-8 whatever the page declared.
        return html.document_fromstring(data, parser=_UTF8_PARSER).getroottree()
    except (etree.ParserError, ValueError):
        return None


def resolve_xpath(tree: etree._ElementTree, xpath: str) -> etree._Element | None:
    """The element an image-xpath.txt line names, or None.

    The XPaths were computed in a browser's DOM; libxml2 (lxml) parses some markup into a
    different tree — notably it does not treat ``<source>`` as empty, so the ``<img>`` after a
    ``<source>`` in a ``<picture>`` becomes the source's child. A plain ``tree.xpath()`` then
    finds nothing, so the path is walked step by step and, where a step is missing, the
    element is looked for among the descendants of the last element found (same tag, same
    position).
    """
    steps = [s for s in xpath.strip().split("/") if s]
    if not steps:
        return None
    node: etree._Element | None = tree.getroot()
    parsed = []
    for step in steps:
        match = _STEP.match(step)
        if not match:
            return None
        parsed.append((match.group(1).lower(), int(match.group(2) or 1)))
    tag, position = parsed[0]
    if node is None or node.tag != tag:
        return None
    for tag, position in parsed[1:]:
        same_tag = [child for child in node if child.tag == tag]
        if len(same_tag) >= position:
            node = same_tag[position - 1]
            continue
        below = [d for d in node.iterdescendants(tag)]
        if len(below) < position:
            return None
        node = below[position - 1]
    return node


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _find_by_url(tree: etree._ElementTree, image_url: str) -> etree._Element | None:
    """Fallback when no XPath resolves: the first <img> whose attributes hold the image URL's
    file name (src, data-src, srcset …)."""
    name = urlsplit(image_url).path.rsplit("/", 1)[-1]
    if len(name) < 5:
        return None
    for img in tree.getroot().iter("img"):
        if any(name in unquote(str(value)) or name in str(value) for value in img.attrib.values()):
            return img
    return None


def image_context(tree: etree._ElementTree, xpaths: list[str], image_url: str = "") -> tuple[str, str]:
    """(near text, alt text) of the image in one page's DOM."""
    elements = [e for e in (resolve_xpath(tree, x) for x in xpaths) if e is not None]
    if not elements and image_url:
        found = _find_by_url(tree, image_url)
        elements = [found] if found is not None else []
    near: list[str] = []
    alt: list[str] = []
    for element in elements:
        if _in_head(element):
            # A preview image (og:image, twitter:image): the page's own summary describes it.
            near.append(_meta_summary(tree))
            alt.append(_meta_content(tree, ("og:image:alt", "twitter:image:alt")))
        else:
            near.append(near_text(tree, element))
            alt.append(_alt_text(tree, element))
    return _join_unique(near), _join_unique(alt)


def _join_unique(parts: list[str]) -> str:
    return "\n".join(dict.fromkeys(p for p in parts if p))


def _in_head(element: etree._Element) -> bool:
    return any(a.tag == "head" for a in element.iterancestors()) or element.tag == "meta"


def _meta_content(tree: etree._ElementTree, names: tuple[str, ...]) -> str:
    values = []
    for meta in tree.getroot().iter("meta"):
        key = (meta.get("property") or meta.get("name") or "").lower()
        if key in names and meta.get("content"):
            values.append(_collapse(meta.get("content")))
    return " ".join(dict.fromkeys(values))


def _meta_summary(tree: etree._ElementTree) -> str:
    return " ".join(p for p in (_meta_content(tree, ("og:title", "twitter:title")),
                                _meta_content(tree, ("description", "og:description", "twitter:description"))) if p)


def _alt_text(tree: etree._ElementTree, element: etree._Element) -> str:
    """The image's own words: alt and title attributes, aria label and description, and the
    caption of the figure it sits in."""
    parts = [element.get("alt", ""), element.get("title", ""), element.get("aria-label", "")]
    described = element.get("aria-describedby")
    if described:
        for ident in described.split():
            try:
                target = tree.getroot().get_element_by_id(ident, None)
            except ValueError:  # lxml refuses ids with control characters: no such element
                continue
            if target is not None:
                parts.append(target.text_content())
    for ancestor in element.iterancestors():
        if ancestor.tag == "figure":
            parts.extend(c.text_content() for c in ancestor.iter("figcaption"))
            break
        if ancestor.tag == "a" and ancestor.get("title"):
            parts.append(ancestor.get("title"))
    return _join_unique([_collapse(p) for p in parts])


def near_text(tree: etree._ElementTree, element: etree._Element, chars: int = NEAR_CHARS) -> str:
    """The DOM text within ``chars`` characters before and after ``element``, in reading order.

    Text nodes are visited in document order (an element's text, its children, its tail);
    scripts, styles and the head are skipped; block elements separate words. The image's own
    subtree (e.g. the text of a ``<noscript>`` copy) counts as "after".
    """
    before: list[str] = []
    after: list[str] = []
    sink = before
    collected_after = 0
    skipping = 0  # depth inside elements whose text is not page text

    def add(text: str) -> None:
        nonlocal collected_after
        sink.append(text)
        if sink is after:
            collected_after += len(text)

    for event, node in etree.iterwalk(tree.getroot(), events=("start", "end")):
        tag = node.tag if isinstance(node.tag, str) else None  # None: comments, processing instructions
        if event == "start":
            if node is element:
                sink = after
            if tag in _SKIPPED_TEXT_TAGS:
                skipping += 1
            if tag in _BLOCK_TAGS:
                add("\n")
            if tag and node.text and not skipping:
                add(node.text)
        else:
            if tag in _SKIPPED_TEXT_TAGS:
                skipping -= 1
            if tag in _BLOCK_TAGS:
                add("\n")
            if node.tail and not skipping:
                add(node.tail)
            if collected_after > 4 * chars:  # enough: the rest of a long page is never needed
                break
    head = _collapse_lines("".join(before))[-chars:]
    tail = _collapse_lines("".join(after))[:chars]
    # Cut at word boundaries so no half words reach the index.
    if len(head) == chars and (cut := re.search(r"\s", head)):
        head = head[cut.end():]
    if len(tail) == chars and (cuts := list(re.finditer(r"\s", tail))):
        tail = tail[: cuts[-1].start()]
    return (head + "\n" + tail).strip()


def _collapse_lines(text: str) -> str:
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


# ---------------------------------------------------------------------------- fields
def url_words(url: str) -> str:
    """Words in a URL's path (file names such as Pros-And-Cons-of-Lowering-The-Voting-Age.png
    say much about an image); hosts, numbers and hex ids are left out."""
    path = unquote(urlsplit(url).path)
    path = re.sub(r"\.(?:png|jpe?g|gif|webp|svg|html?|php|aspx?)$", "", path, flags=re.IGNORECASE)
    # Word-like tokens only: ids such as "kSwyCasuT" or "GWrX" mix cases at random.
    words = [w for w in _WORD_IN_URL.findall(path) if _URL_WORD.fullmatch(w)]
    return " ".join(words)


def image_fields(record: ImageRecord, ocr_text: str = "") -> dict[str, str]:
    pages = record.pages
    values = {
        "page_title": "\n".join(dict.fromkeys(p.title for p in pages if p.title)),
        "near_text": "\n".join(dict.fromkeys(p.near_text for p in pages if p.near_text)),
        "alt_text": "\n".join(dict.fromkeys(p.alt_text for p in pages if p.alt_text)),
        "ocr_text": ocr_text,
        "queries": "\n".join(record.queries),
        "url_text": " ".join(dict.fromkeys(w for w in [url_words(record.url),
                                                       *(url_words(p.url) for p in pages)] if w)),
        "page_text": "\n\n".join(p.text for p in pages if p.text),
    }
    values["contents"] = "\n".join(values[f] for f in FIELDS[1:] if values[f])
    return values


def raw_json(record: ImageRecord, values: dict[str, str], root: Path) -> str:
    """What the index stores per image for re-ranking and the contact sheet (no page text)."""
    return json.dumps({
        "id": record.id,
        "path": record.image_file.relative_to(root).as_posix(),
        "url": record.url,
        "phash": record.phash,
        "pages": [{"id": p.id, "url": p.url, "title": p.title} for p in record.pages],
        "rankings": [{"topic": r.topic, "query": r.query, "rank": r.rank} for r in record.rankings],
        **{f: values[f] for f in ("page_title", "near_text", "alt_text", "ocr_text", "url_text")},
    }, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------- the corpus source
@dataclass
class ImageSource:
    """corpus.format ``images``: one document per image, id = image id."""

    path: Path
    skip_bad_records: bool = False
    name: str = "images"
    report: ReadReport = field(default_factory=lambda: ReadReport(unit="image"))
    fields: tuple[str, ...] = FIELDS
    cheap_field: str = "page_title"  # no OCR
    ocr_cache: Path | None = None  # default: indexing.ocr.default_cache_dir()

    def __post_init__(self):
        self.root = collection_root(self.path)
        self.dirs = image_dirs(self.root)
        if not self.dirs:
            raise InputError("the image collection has no image folders", path=self.root)

    def fingerprint(self) -> str:
        """Names, sizes and modification times of every file, plus the OCR engine (an index
        built without OCR is rebuilt once Tesseract is there)."""
        h = hashlib.sha256()
        for directory in self.dirs:
            for f in sorted(directory.rglob("*")):
                if f.is_file():
                    st = f.stat()
                    h.update(f"{f.relative_to(self.root).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        engine = ocr.engine()
        h.update(f"ocr:{engine.key if engine else 'none'}".encode())
        return h.hexdigest()[:16]

    def describe(self) -> dict:
        engine = ocr.engine()
        return {"format": "images", "path": str(self.root.resolve()), "images": len(self.dirs),
                "ocr": engine.version if engine else None, "fingerprint": self.fingerprint()}

    def records(self) -> Iterator[ImageRecord]:
        for directory in self.dirs:
            try:
                record = read_image(directory)
            except InputError as exc:
                if not self.skip_bad_records:
                    raise InputError(f"{exc.message}; set corpus.skip_bad_records: true to count and skip such records",
                                     path=exc.path, where=exc.where) from None
                self.report.add_skipped(SkippedImage(str(directory), str(exc)))
                continue
            self.report.read += 1
            yield record

    def documents(self, fields: list[str]) -> Iterator[tuple[str, list[str], str]]:
        # OCR is the slow part: run it only when an indexed field contains its text.
        needs_ocr = "ocr_text" in fields or "contents" in fields
        pairs = ((record, record.image_file) for record in self.records())
        recognised = ocr.ocr_texts(pairs, cache_dir=self.ocr_cache) if needs_ocr else ((r, "") for r, _ in pairs)
        for record, text in recognised:
            values = image_fields(record, text)
            yield record.id, [values[f] for f in fields], raw_json(record, values, self.root)
