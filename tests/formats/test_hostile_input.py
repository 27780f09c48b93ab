"""Every reader's contract on hostile input: each corpus, topics, qrels, run and config reader, fed
random and hostile input (unicode, control characters, huge fields, ids with spaces, truncated
files, wrong types), either parses or raises a ToucheError whose message names the file — never
another exception type, never a hang (property tests).

The example-based tests (test_readers, test_runfile, test_task2, test_pairs, test_images) pin
the exact messages of known bad inputs; these tests only assert the contract for inputs nobody
thought of. Every corpus family has one such test (checked at the end).
"""
from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import signal
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from touche.config import CORPUS_FORMATS
from touche.errors import ConfigError, InputError, ToucheError

HANG_SECONDS = 10  # no single input may take longer than this (a reader stuck in a loop fails)
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Hang(Exception):
    """Not a ToucheError on purpose: a reader that hangs fails the test."""


@contextlib.contextmanager
def no_hang(seconds: float = HANG_SECONDS) -> Iterator[None]:
    fired = []

    def alarm(signum, frame):
        fired.append(True)  # the exception may land in a gc callback and be swallowed: remember it
        raise Hang(f"reader still busy after {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if fired:
        raise Hang(f"reader took more than {seconds} s")


def parses_or_names(named: Path, read: Callable[[], object], errors: tuple[type[ToucheError], ...] = (InputError,)):
    """Run ``read``: success, or one of ``errors`` whose message contains ``named``."""
    with no_hang():
        try:
            return read()
        except errors as exc:
            assert exc.path, f"error names no file: {exc}"
            # A variant's error may name the file its ``extends`` points at (e.g. "/": a directory).
            assert str(named) in str(exc) or isinstance(exc, ConfigError), f"error does not name {named}: {exc}"
            return None


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    # A fresh directory per example (hypothesis cannot use the function-scoped tmp_path).
    with tempfile.TemporaryDirectory(prefix="touche-adv-") as name:
        yield Path(name)


# ------------------------------------------------------------------------- strategies
HOSTILE_CHARS = ["\x00", "\x1b", "\r", "\n", "\t", "\u2028", "\u200b", "\ufeff", "\ud7ff", "\U0001f600",
                 "é", "ß", "\u0301", " ", '"', "'", "\\", ",", "<", ">", "&", "{", "}", "[", "]", "#", ":"]
# Any code point but lone surrogates (not encodable in UTF-8), weighted towards the hostile ones.
texts = st.text(st.one_of(st.sampled_from(HOSTILE_CHARS), st.characters(blacklist_categories=("Cs",))),
                max_size=40)
huge_texts = st.builds(lambda c, n: c * n, st.sampled_from(["a", "é", "\x00", " ", "9"]),
                       st.integers(100_000, 150_000))
field_texts = st.one_of(texts, texts, texts, huge_texts)
ids = st.one_of(texts, st.from_regex(r"[A-Za-z0-9]{1,8}( [A-Za-z0-9]{1,4})?", fullmatch=True))
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), texts,
                         st.just(10 ** 400), st.just(1e308))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)), max_leaves=12)
deep_json = st.integers(1_000, 20_000).map(lambda n: "[" * n + "]" * n)
raw_bytes = st.binary(max_size=400)


def truncate(data: bytes, cut: float) -> bytes:
    return data[: int(len(data) * cut)]


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


def utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# ------------------------------------------------------------------------- args.me JSON
argument_like = st.fixed_dictionaries(
    {"id": st.one_of(ids, json_values)},
    optional={"conclusion": st.one_of(field_texts, json_values),
              "premises": st.one_of(st.lists(st.fixed_dictionaries(
                  {"text": st.one_of(field_texts, json_values)}, optional={"stance": json_values}), max_size=3),
                  json_values),
              "context": st.one_of(st.dictionaries(st.sampled_from(["sourceId", "discussionTitle", "topic",
                                                                    "sourceUrl"]), json_values), json_values)})


@st.composite
def argsme_files(draw) -> bytes:
    kind = draw(st.sampled_from(["records", "records", "truncated", "raw", "deep", "top"]))
    if kind == "raw":
        return draw(raw_bytes)
    if kind == "deep":
        return ('{"arguments": ' + draw(deep_json) + "}").encode()
    if kind == "top":
        return utf8(dumps(draw(json_values)))
    items = draw(st.lists(st.one_of(argument_like, json_values), max_size=5))
    data = utf8(dumps({"arguments": items}))
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return truncate(data, draw(st.floats(0, 1))) if kind == "truncated" else data


@FAST
@given(data=argsme_files(), skip=st.booleans())
def test_argsme_reader(data, skip):
    from touche.indexing.argsme import read_arguments

    with workdir() as tmp:
        path = tmp / "args-me.json"
        path.write_bytes(data)
        parses_or_names(path, lambda: list(read_arguments(path, skip_bad_records=skip)))


# ------------------------------------------------------------------------- passages JSONL
passage_like = st.fixed_dictionaries({"id": st.one_of(ids, json_values)},
                                     optional={"contents": st.one_of(field_texts, json_values),
                                               "chatNoirUrl": json_values})


@st.composite
def passage_lines(draw) -> bytes:
    lines = draw(st.lists(st.one_of(passage_like.map(dumps), json_values.map(dumps), texts, deep_json),
                          max_size=5))
    data = utf8("\n".join(lines))
    if draw(st.integers(0, 5)) == 0:
        data += draw(raw_bytes)
    return data


@FAST
@given(data=passage_lines(), compress=st.sampled_from(["plain", "gzip", "cut-gzip"]), skip=st.booleans())
def test_passage_source(data, compress, skip):
    from touche.indexing.passages import PassageSource

    with workdir() as tmp:
        path = tmp / ("passages.jsonl" if compress == "plain" else "passages.jsonl.gz")
        if compress != "plain":
            data = gzip.compress(data, mtime=0)
            if compress == "cut-gzip":
                data = data[: max(1, len(data) // 2)]
        path.write_bytes(data)
        parses_or_names(path, lambda: list(PassageSource(path, skip_bad_records=skip).documents(["contents"])))


# ------------------------------------------------------------------------- ClueWeb12 WARC
html_bodies = st.one_of(texts.map(utf8), raw_bytes, st.just(b"<html><head><title>t</title></head><body>"
                                                            + b"<p>word </p>" * 50 + b"</body></html>"),
                        huge_texts.map(lambda t: b"<p>" + utf8(t) + b"</p>"))


@st.composite
def warc_files(draw) -> bytes:
    from touche.indexing.clueweb import warc_record

    parts: list[bytes] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["page", "page", "no-id", "raw-member", "broken-gzip", "raw-bytes",
                                     "bad-length"]))
        if kind == "page":
            parts.append(warc_record(draw(ids), draw(texts), draw(html_bodies)))
        elif kind == "no-id":
            body = draw(html_bodies)
            parts.append(gzip.compress(b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: "
                                       + str(len(body)).encode() + b"\r\n\r\n" + body + b"\r\n\r\n", mtime=0))
        elif kind == "raw-member":
            parts.append(gzip.compress(draw(raw_bytes), mtime=0))
        elif kind == "broken-gzip":
            member = warc_record(draw(ids), "http://x", draw(html_bodies))
            parts.append(truncate(member, draw(st.floats(0, 0.99))))
        elif kind == "raw-bytes":
            parts.append(draw(raw_bytes))
        else:  # Content-Length disagrees with the block
            body = draw(html_bodies)
            length = draw(st.sampled_from([b"-1", b"abc", b"99999999999999999999", b"", b"0",
                                           str(len(body) + 10).encode()]))
            parts.append(gzip.compress(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: clueweb12-x\r\n"
                                       b"Content-Length: " + length + b"\r\n\r\n" + body, mtime=0))
    return b"".join(parts)


@SLOW
@given(data=warc_files(), skip=st.booleans())
# found by hypothesis: an empty gzip member, then one whose deflate data is corrupt (zlib.error)
@example(data=b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03eO\xdbj\xc30\x0c}\x0f\xe4\x1f\xfc\x03^\xe4\xac\x99;\xf7\x02#\x1d\xacl\xb0\x112\n{sb\xe5\x02\xad\x13\x1c\x05\xba\xbf\x9fS\x12\x06\x1b\xd2\x83.\xe7\x1c\x1d\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x0bw\x0cr\xd67\xd43\xe0\xe5\n\x07\xb2tC*\x0bR\xad\x14\x8aR\x8b\x0b\xf2\xf3\x8aSy\xb9\x9c\xf3\xf3JR\xf3Jt}R\xf3\xd2K2\xac\x14\x80\xea \x10\x00\xa9\xe1\x1b\xd98\x00\x00\x00', skip=False)  # noqa: E501
def test_clueweb_source(data, skip):
    from touche.indexing.clueweb import ClueWebSource

    with workdir() as tmp:
        path = tmp / "0000tw-00.warc.gz"
        path.write_bytes(data)
        source = ClueWebSource(path, skip_bad_records=skip, workers=1)
        parses_or_names(path, lambda: list(source.documents(["contents", "title", "body"])))


# ------------------------------------------------------------------------- 2022 sentence CSV
python_literals = st.one_of(json_values.map(repr), st.lists(st.fixed_dictionaries(
    {"sent_id": st.one_of(st.builds(lambda a, k, n: f"{a}__{k}__{n}", ids, st.sampled_from(["PREMISE", "CONC", "X"]),
                                    st.integers(-2, 10 ** 30)), json_values),
     "sent_text": st.one_of(field_texts, json_values)}), max_size=3).map(repr),
    texts, st.integers(1_000, 100_000).map(lambda n: "[" * n + "]" * n), st.just("__import__('os')"))


@st.composite
def sentence_csvs(draw) -> bytes:
    if draw(st.integers(0, 6)) == 0:
        return draw(raw_bytes)
    header = draw(st.one_of(st.just(["id", "conclusion", "premises", "context", "sentences"]),
                            st.lists(st.sampled_from(["id", "conclusion", "premises", "context", "sentences", "x"]),
                                     max_size=6)))
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(header)
    for _ in range(draw(st.integers(0, 4))):
        writer.writerow([draw(st.one_of(ids, field_texts, python_literals)) for _ in range(draw(st.integers(0, 7)))])
    data = utf8(out.getvalue())
    if draw(st.booleans()):
        data = truncate(data, draw(st.floats(0, 1)))
    if draw(st.integers(0, 5)) == 0:
        data += b'\n"unterminated' + draw(raw_bytes)
    return data


@FAST
@given(data=sentence_csvs(), skip=st.booleans(), level=st.sampled_from([["sentence"], ["contents", "title"]]))
def test_sentence_source(data, skip, level):
    from touche.indexing.sentences import SentenceSource

    with workdir() as tmp:
        path = tmp / "sentences.csv"
        path.write_bytes(data)
        parses_or_names(path, lambda: list(SentenceSource(path, skip_bad_records=skip).documents(level)))


# ------------------------------------------------------------------------- image collection
hex16 = st.from_regex(r"[0-9a-f]{16}", fullmatch=True)
xpaths = st.one_of(st.just("/HTML[1]/BODY[1]/IMG[1]"), st.just("/HTML[1]/HEAD[1]/META[1]"), texts,
                   st.from_regex(r"(/[A-Za-z]{1,4}\[\d{1,25}\]){1,5}", fullmatch=True))
doms = st.one_of(raw_bytes, texts.map(utf8), st.builds(
    lambda alt, body, fig: (f'<html><head><title>{body}</title><meta property="og:image" content="{alt}"></head>'
                            f'<body><figure><img alt="{alt}" aria-describedby="{alt}" src="x/pic.png">'
                            f"<figcaption>{fig}</figcaption></figure><p>{body}</p></body></html>").encode(
        "utf-8", "surrogatepass"), texts, field_texts, texts),
    st.integers(1_000, 50_000).map(lambda n: b"<div>" * n))
ranking_lines = st.one_of(st.fixed_dictionaries({}, optional={"topic": json_values, "query": json_values,
                                                              "rank": json_values}).map(dumps),
                          json_values.map(dumps), texts, st.just('{"topic": 1, "rank": 1e999}'), deep_json)


@st.composite
def image_collections(draw, root: Path) -> None:
    for _ in range(draw(st.integers(1, 3))):
        image_id = draw(st.one_of(hex16.map(lambda h: "I" + h), st.just("Ixyz"), st.just("I00")))
        folder = root / "images" / image_id[:3] / image_id
        folder.mkdir(parents=True, exist_ok=True)
        if draw(st.integers(0, 4)):
            (folder / draw(st.sampled_from(["image.webp", "image.png"]))).write_bytes(draw(raw_bytes))
        for name, content in (("image-phash.txt", st.one_of(texts, st.from_regex(r"[01]{0,300}", fullmatch=True))),
                              ("image-url.txt", texts)):
            if draw(st.booleans()):
                (folder / name).write_bytes(utf8(draw(content)))
        for _ in range(draw(st.integers(0, 2))):
            page = folder / "pages" / ("P" + draw(hex16))
            (page / "snapshot").mkdir(parents=True, exist_ok=True)
            if draw(st.booleans()):
                (page / "page-url.txt").write_bytes(utf8(draw(texts)))
            if draw(st.booleans()):
                (page / "rankings.jsonl").write_bytes(utf8("\n".join(draw(st.lists(ranking_lines, max_size=3)))))
            if draw(st.booleans()):
                (page / "snapshot" / "dom.html").write_bytes(draw(doms))
            if draw(st.booleans()):
                (page / "snapshot" / "image-xpath.txt").write_bytes(utf8("\n".join(draw(st.lists(xpaths, max_size=3)))))
            if draw(st.booleans()):
                (page / "snapshot" / "text.txt").write_bytes(draw(st.one_of(raw_bytes, field_texts.map(utf8))))


# OCR is left out: it needs Tesseract and is tested in test_images; every other field is read.
IMAGE_FIELDS = ["page_title", "near_text", "alt_text", "queries", "url_text", "page_text"]


@SLOW
@given(data=st.data(), skip=st.booleans())
def test_image_source(data, skip):
    from touche.indexing.images import ImageSource

    with workdir() as tmp:
        data.draw(image_collections(tmp))

        def read():
            source = ImageSource(tmp, skip_bad_records=skip, ocr_cache=tmp / "ocr")
            return list(source.documents(IMAGE_FIELDS))

        parses_or_names(tmp, read)


# ------------------------------------------------------------------------- topics XML
topic_parts = st.one_of(
    st.builds(lambda tag, text: f"<{tag}>{text}</{tag}>", st.sampled_from(["number", "title", "description",
                                                                          "narrative", "objects", "x"]),
              st.one_of(texts, huge_texts)),
    texts, st.sampled_from(["<topic>", "</topic>", "<!-- c -->", "<![CDATA[x]]>", "&amp;", "&bogus;",
                            '<!DOCTYPE t [<!ENTITY e "x">]>', "<?pi x?>", "<number/>"]))


@st.composite
def topics_files(draw) -> bytes:
    if draw(st.integers(0, 6)) == 0:
        return draw(raw_bytes)
    topics = "".join(f"<topic>{''.join(draw(st.lists(topic_parts, max_size=5)))}</topic>"
                     for _ in range(draw(st.integers(0, 3))))
    root = draw(st.sampled_from(["topics", "topics", "topic", "Topics"]))
    data = utf8(f'<?xml version="1.0" encoding="UTF-8"?><{root}>{topics}</{root}>')
    return truncate(data, draw(st.floats(0, 1))) if draw(st.booleans()) else data


@FAST
@given(data=topics_files())
def test_topics_reader(data):
    from touche.retrieval.formats.topics import read_topics

    with workdir() as tmp:
        path = tmp / "topics.xml"
        path.write_bytes(data)
        parses_or_names(path, lambda: read_topics(path))


# ------------------------------------------------------------------------- qrels
qrels_tokens = st.one_of(st.sampled_from(["0", "1", "2", "-2", "4.0", "Q0", "FIRST", "NO", "ONTOPIC", "PRO", "CON",
                                          "1e5", "NaN", "inf", "9" * 400, "9" * 5000, "1." + "0" * 400,
                                          "S1-A2__PREMISE__1,S1-A2__CONC__1"]),
                         st.from_regex(r"[+-]?\d{1,500}(\.\d{0,5})?", fullmatch=True),
                         texts.filter(lambda t: t.strip() and not any(c.isspace() for c in t)))
column_noise = texts.filter(lambda t: t.strip() and not any(c.isspace() for c in t))
# One strategy per column, so that every column meets its hostile values often.
qrels_lines = st.one_of(st.tuples(st.one_of(st.sampled_from(["1", "2"]), column_noise),
                                  st.sampled_from(["0", "Q0", "ONTOPIC", "PRO", "CON", "x"]),
                                  st.one_of(st.sampled_from(["d", "I0123456789abcdef"]), qrels_tokens), qrels_tokens)
                        .map(" ".join),
                        st.lists(qrels_tokens, max_size=6).map("\t".join), texts)


@FAST
@given(lines=st.lists(qrels_lines, max_size=6), kind=st.sampled_from([None, "graded", "stance", "image"]),
       tail=st.one_of(st.just(b""), raw_bytes))
def test_qrels_reader(lines, kind, tail):
    from touche.retrieval.formats.qrels import read_graded_qrels, read_qrels

    with workdir() as tmp:
        path = tmp / "qrels.txt"
        path.write_bytes(utf8("\n".join(lines)) + tail)
        parses_or_names(path, lambda: read_qrels(path, kind))
        parses_or_names(path, lambda: read_graded_qrels(path, pair_ids=True))


# ------------------------------------------------------------------------- runs
run_tokens = st.one_of(st.sampled_from(["1", "0", "-1", "Q0", "PRO", "CON", "FIRST", "1.5", "-0.0", "1e999", "nan",
                                        "9" * 5000, "1e-400", "I0123456789abcdef", '"quoted tag"', '""',
                                        "S1-A2__PREMISE__1,S1-A2__CONC__1", "clueweb12-0000tw-00-00000___1"]),
                       st.from_regex(r"[+-]?\d{1,400}(\.\d{0,3})?(e[+-]?\d{1,4})?", fullmatch=True),
                       texts.filter(lambda t: t.strip() and not any(c.isspace() for c in t)))
run_lines = st.one_of(st.tuples(st.one_of(st.sampled_from(["1", "2"]), column_noise),
                                st.sampled_from(["Q0", "PRO", "CON", "FIRST", "NO", "x"]),
                                st.one_of(st.sampled_from(["d", "I0123456789abcdef", "a,b"]), run_tokens),
                                run_tokens, run_tokens, st.one_of(st.just("tag"), run_tokens)).map(" ".join),
                      st.lists(run_tokens, max_size=8).map(" ".join), texts)


@FAST
@given(lines=st.lists(run_lines, max_size=8), fmt=st.sampled_from([None, "q0", "pairs", "stance", "image"]),
       tail=st.one_of(st.just(b""), raw_bytes), topics=st.one_of(st.none(), st.lists(texts, max_size=3)))
def test_run_reader_and_validator(lines, fmt, tail, topics):
    from touche.retrieval.formats.gate import read_run
    from touche.retrieval.formats.runfile import detect_format, run_file_problems, run_file_warnings

    with workdir() as tmp:
        path = tmp / "run.txt"
        path.write_bytes(utf8("\n".join(lines)) + tail)
        parses_or_names(path, lambda: read_run(path, fmt))
        parses_or_names(path, lambda: run_file_problems(path, fmt or "q0", topics))
        parses_or_names(path, lambda: run_file_warnings(path, fmt or "q0", topics))
        parses_or_names(path, lambda: detect_format(path))


# ------------------------------------------------------------------------- variant YAML
VARIANT_KEYS = ["tag", "task", "extends", "corpus", "analyzer", "index", "query", "retrieval", "rerank", "format",
                "stemmer", "fields", "field_weights", "similarity", "name", "k1", "b", "mu", "top_k", "path",
                "skip_bad_records", "stopwords", "task2", "pairs", "image", "description"]
yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), texts,
                         st.sampled_from(["task1", "task2", "bm25", "krovetz", "argsme", "contents", "1e999",
                                          "/", "\x00", "base.yaml", "missing.yaml", "."]))
yaml_values = st.recursive(yaml_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(st.sampled_from(VARIANT_KEYS), texts, st.integers()), inner, max_size=4)),
    max_leaves=15)


@st.composite
def variant_yaml(draw) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(raw_bytes)
    if kind == 1:
        return utf8(draw(texts))
    mapping = draw(st.dictionaries(st.sampled_from(VARIANT_KEYS), yaml_values, max_size=6))
    if kind == 2:
        mapping["extends"] = draw(st.one_of(yaml_scalars, st.sampled_from(["variant.yaml", "../", "/", "\x00x"])))
    text = yaml.safe_dump(mapping, allow_unicode=True)
    return truncate(utf8(text), draw(st.floats(0, 1))) if kind == 3 else utf8(text)


@FAST
@given(data=variant_yaml(), base=st.sampled_from([None, "configs/task1/base.yaml"]))
def test_load_variant(data, base):
    from touche.config import load_variant

    with workdir() as tmp:
        path = tmp / "variant.yaml"
        path.write_bytes(data)
        if base is not None:  # extend a real shipped base, so that random keys merge into a valid tree
            (tmp / "base.yaml").write_bytes((Path(__file__).resolve().parents[2] / base).read_bytes())
        parses_or_names(tmp, lambda: load_variant(path), errors=(ConfigError,))


# ------------------------------------------------------------------------- coverage
# Every corpus family a variant can name is attacked by one property test above.
ATTACKED = {
    "argsme": test_argsme_reader,
    "argsme-sentences": test_sentence_source,
    "clueweb12": test_clueweb_source,
    "passages": test_passage_source,
    "images": test_image_source,
}


def test_every_corpus_family_has_a_property_test():
    """A new corpus family (touche.config.CORPUS_FORMATS) fails here until a reader attack exists."""
    assert set(ATTACKED) == set(CORPUS_FORMATS)
    assert all(hasattr(test, "hypothesis") for test in ATTACKED.values()), "each must be a hypothesis property test"
