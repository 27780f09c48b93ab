"""Task 2: corpus readers (ClueWeb12 WARC, 2022 passages), comparative query understanding,
re-ranking features, stance, and both suites end to end on our demo data."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.shared import REPO, has_shared, require_shared
from touche.errors import ConfigError, InputError
from touche.indexing.clueweb import ClueWebSource, warc_record, write_warc
from touche.indexing.passages import PassageSource, read_passages
from touche.retrieval.formats.topics import Topic
from touche.retrieval.tasks.task2.features import ObjectMatcher, hit_features, reorder, text_features
from touche.retrieval.tasks.task2.objects import (
    ComparedObjects,
    comparative_query,
    comparison,
    extract_aspect,
    extract_objects,
)
from touche.retrieval.tasks.task2.stance.patterns import label_stance
from touche.specs.task2 import ComparativeQuerySpec, FeatureWeights, RerankSpec, StanceSpec


def rerank(ranking, topics, texts, spec, dense=None):
    """The formula over the features of the top hits, as the Task 2 handler applies it."""
    return reorder(ranking, hit_features(ranking, topics, texts, spec, dense), spec)


# ----------------------------------------------------------------- objects, aspect, query
@pytest.mark.parametrize("title, objects", [
    ("Which is better, a laptop or a desktop?", ("laptop", "desktop")),
    ("Is tea healthier than coffee?", ("tea", "coffee")),
    ("Should I buy steel or ceramic knives?", ("steel knives", "ceramic knives")),
    ("Which algorithm is better, quicksort or merge sort?", ("quicksort", "merge sort")),
    ("What is the difference between a crocodile and an alligator?", ("crocodile", "alligator")),
    ("Psoriasis vs Eczema: what is the difference?", ("psoriasis", "eczema")),
    ("Which is healthiest: coffee, green tea or black tea and why?", ("coffee", "green tea", "black tea")),
    ("Should I prefer a Leica camera over Nikon for portraits?", ("leica camera", "nikon")),
    ("Is Obamacare really any better than Medicare?", ("obamacare", "medicare")),
    ("What is better for the environment, a real or a fake Christmas tree?",
     ("real christmas tree", "fake christmas tree")),
    ("Train or plane? Which is the better choice?", ("train", "plane")),
    ("What are the best dish detergents?", ()),
])
def test_objects_are_extracted_from_question_titles(title, objects):
    assert extract_objects(title) == objects


def test_share_head_can_be_switched_off():
    assert extract_objects("Should I buy steel or ceramic knives?", share_head=False) == ("steel", "ceramic knives")


def test_aspect_is_what_the_title_asks_beyond_the_objects():
    title = "What is better for back pain, chiropractic therapy or physical therapy?"
    assert extract_aspect(title, extract_objects(title)) == ("back", "pain")


def test_topic_objects_win_over_the_title_unless_told_otherwise():
    from touche.specs.task2 import ObjectsSpec

    topic = Topic("1", "Which is better, a laptop or a desktop?", objects=("notebook", "tower PC"))
    assert comparison(topic).objects == ("notebook", "tower PC")
    assert comparison(topic, ObjectsSpec(source="title")).objects == ("laptop", "desktop")
    assert comparison(Topic("2", "Laptop or desktop?"), ObjectsSpec(source="topic")).objects == ()


def test_query_repeats_objects_and_cues_by_their_weights():
    topic = Topic("1", "Is Kenya or Tanzania better for a safari?")
    query = comparative_query(topic, ComparativeQuerySpec(title_weight=1, object_weight=2, aspect_weight=1,
                                                          comparative_weight=1, comparative_terms=("pros",)))
    words = query.split()
    assert words.count("kenya") == 3 and words.count("tanzania") == 3  # title once + 2 × object
    assert words.count("safari") == 2 and words.count("pros") == 1
    assert "is" not in words and "better" not in words  # question scaffolding is dropped


# ----------------------------------------------------------------- features and re-ranking
COMPARATIVE = ("A laptop is lighter than a desktop, so it is better for travel. However, a desktop is "
               "cheaper and faster than a laptop with the same price. I would recommend the desktop for gaming.")
MENU = ("Laptop Desktop | Home | Laptop Deals | Desktop Deals | Cheap Laptop | Cheap Desktop | Login | Cart | "
        "Copyright Laptop Desktop Store")
ONE_OBJECT = "My laptop has a nice keyboard and the battery lasts all day. I bought it last year in a shop."
LAPTOP = ComparedObjects(("laptop", "desktop"), ())


def test_features_tell_comparative_prose_from_a_menu():
    spec = RerankSpec()
    prose = text_features(COMPARATIVE, ObjectMatcher(LAPTOP), spec)
    menu = text_features(MENU, ObjectMatcher(LAPTOP), spec)
    single = text_features(ONE_OBJECT, ObjectMatcher(LAPTOP), spec)
    assert prose["objects_all"] == menu["objects_all"] == 1.0 and single["objects_all"] == 0.0
    assert single["object_share"] == 0.5
    assert prose["comparative_objects"] > 0 and prose["cooccurrence"] > 0 and prose["argumentative"] > 0
    assert prose["prose"] == 1.0 and menu["prose"] == 0.0
    assert menu["capitals"] > prose["capitals"] and menu["spam"] > prose["spam"]
    assert all(0.0 <= v <= 1.0 for feats in (prose, menu, single) for v in feats.values())


def test_rerank_moves_comparative_prose_above_a_higher_scored_menu_and_keeps_the_tail_below():
    ranking = {"1": [("menu", 10.0), ("prose", 9.0), ("single", 8.0), ("tail", 7.0)]}
    texts = {"menu": MENU, "prose": COMPARATIVE, "single": ONE_OBJECT, "tail": COMPARATIVE}
    spec = RerankSpec(depth=3, weights=FeatureWeights(retrieval=1.0, comparative_objects=0.3, prose=0.5,
                                                      capitals=-0.2))
    out = rerank(ranking, {"1": LAPTOP}, texts, spec)["1"]
    assert [d for d, _ in out] == ["prose", "single", "menu", "tail"]
    scores = [s for _, s in out]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 4
    # weights all zero but retrieval: the first-stage order is kept
    plain = rerank(ranking, {"1": LAPTOP}, texts, RerankSpec(depth=3))["1"]
    assert [d for d, _ in plain] == ["menu", "prose", "single", "tail"]



def test_dense_feature_enters_the_formula_with_its_weight():
    ranking = {"1": [("a", 10.0), ("b", 9.0), ("c", 8.0)]}
    texts = {d: COMPARATIVE for d in "abc"}  # same text: only retrieval and dense differ
    cosines = {"1": {"a": 0.1, "b": 0.9, "c": 0.5}}
    spec = RerankSpec(depth=3, weights=FeatureWeights(retrieval=1.0, dense=1.0))
    out = rerank(ranking, {"1": LAPTOP}, texts, spec, cosines)["1"]
    # retrieval / best + cosine: a 1.1, b 1.8, c 1.3
    assert [(d, round(s, 6)) for d, s in out] == [("b", 1.8), ("c", 1.3), ("a", 1.1)]
    without = rerank(ranking, {"1": LAPTOP}, texts, RerankSpec(depth=3, weights=FeatureWeights(retrieval=1.0)), cosines)
    assert [d for d, _ in without["1"]] == ["a", "b", "c"]

# ----------------------------------------------------------------- stance
@pytest.mark.parametrize("text, label", [
    ("I tested both for a year. The laptop is much better than the desktop for students who travel, "
     "and I would buy it again.", "FIRST"),
    ("I tested both for a year. The desktop is much better than the laptop for students at home, "
     "and I would buy it again.", "SECOND"),
    ("I tested both for a year. The laptop is not better than the desktop for gaming at all, "
     "believe me on this one.", "SECOND"),
    ("I tested both for a year. The laptop is worse than the desktop for gaming, and the fans are "
     "loud too.", "SECOND"),
    ("The laptop and the desktop differ in size and in price, and which one suits you depends on "
     "where you work.", "NEUTRAL"),
    (ONE_OBJECT, "NO"),
    (MENU, "NO"),
])
def test_stance_toward_the_first_object(text, label):
    assert label_stance(text, LAPTOP, StanceSpec()) == label


def test_stance_method_none_and_topics_without_two_objects_say_no():
    text = "The laptop is much better than the desktop for students who travel, and I would buy it again."
    assert label_stance(text, LAPTOP, StanceSpec(method="none")) == "NO"
    assert label_stance(text, ComparedObjects(("laptop",), ()), StanceSpec()) == "NO"


# ----------------------------------------------------------------- ClueWeb12 WARC reader
def _page(text: str) -> bytes:
    return f"<html><head><title>T</title></head><body><nav>Home | About</nav><p>{text}</p></body></html>".encode()


def _write_corpus(root: Path, files: int = 1, per_file: int = 2) -> list[str]:
    ids = []
    for f in range(files):
        pages = []
        for r in range(per_file):
            trec_id = f"clueweb12-0000wb-{f:02d}-{r:05d}"
            ids.append(trec_id)
            pages.append((trec_id, f"http://example.org/{trec_id}", _page(f"Page {f}/{r}: laptops are better.")))
        write_warc(root / "ClueWeb12_00" / "0000wb" / f"0000wb-{f:02d}.warc.gz", pages)
    return ids


def test_clueweb_reader_extracts_ids_titles_and_main_text(tmp_path):
    ids = _write_corpus(tmp_path, files=2)
    source = ClueWebSource(tmp_path, workers=1)
    docs = list(source.documents(["contents", "title", "body"]))
    assert [d[0] for d in docs] == ids
    doc_id, (contents, title, body), raw = docs[0]
    assert title == "T" and body == "Page 0/0: laptops are better." and contents.startswith("T\n\n")
    assert json.loads(raw)["url"] == f"http://example.org/{doc_id}"
    assert source.report.read == 4 and source.report.files == 2


def test_clueweb_reader_in_parallel_gives_the_same_documents_in_the_same_order(tmp_path):
    _write_corpus(tmp_path, files=5, per_file=2)
    serial = [d[0] for d in ClueWebSource(tmp_path, workers=1).documents(["contents"])]
    parallel = [d[0] for d in ClueWebSource(tmp_path, workers=2).documents(["contents"])]
    assert parallel == serial and len(serial) == 10


@pytest.mark.parametrize("files, workers, pooled", [(4, 2, True), (3, 2, False), (4, 1, False), (4, 0, False)])
def test_a_pool_reads_the_files_only_for_two_workers_and_four_files_or_more(tmp_path, monkeypatch, files, workers,
                                                                           pooled):
    """A pool costs a forkserver and its imports: it pays only from four files on, with two workers."""
    import touche.indexing.clueweb as clueweb
    _write_corpus(tmp_path, files=files, per_file=1)

    class Pooled(Exception):
        pass

    def no_pool(method):
        raise Pooled(method)
    monkeypatch.setattr(clueweb.multiprocessing, "get_context", no_pool)
    source = ClueWebSource(tmp_path, workers=workers)
    if pooled:
        with pytest.raises(Pooled, match="forkserver"):
            list(source.records())
    else:
        assert len(list(source.records())) == files


def _record_without_id() -> bytes:
    record = gzip.decompress(warc_record("clueweb12-x", "http://x", _page("no id")))
    return gzip.compress(record.replace(b"WARC-TREC-ID: clueweb12-x\r\n", b""))


def test_clueweb_bad_records_name_file_and_record_or_are_skipped(tmp_path):
    path = tmp_path / "ClueWeb12_00" / "0000wb" / "0000wb-00.warc.gz"
    path.parent.mkdir(parents=True)
    path.write_bytes(warc_record("clueweb12-0000wb-00-00001", "http://a", _page("fine")) + _record_without_id())
    with pytest.raises(InputError, match=r"0000wb-00.warc.gz, response record #2 \(1-based\): missing WARC-TREC-ID"):
        list(ClueWebSource(tmp_path, workers=1).documents(["contents"]))
    source = ClueWebSource(tmp_path, skip_bad_records=True, workers=1)
    assert [d[0] for d in source.documents(["contents"])] == ["clueweb12-0000wb-00-00001"]
    assert source.report.skipped == 1
    again = tmp_path / "ClueWeb12_00" / "0000wb" / "0000wb-01.warc.gz"
    again.write_bytes(warc_record("clueweb12-0000wb-00-00001", "http://a", _page("twice")))
    source = ClueWebSource(tmp_path, skip_bad_records=True, workers=1)
    assert [d[0] for d in source.documents(["contents"])] == ["clueweb12-0000wb-00-00001"]
    assert source.report.summary() == (
        f"1 pages read from 2 file(s), 2 bad record(s) skipped\n  {path}, response record #2 (1-based): missing "
        "WARC-TREC-ID header (expected the ClueWeb12 document id)\n  "
        f"{again}, record clueweb12-0000wb-00-00001: duplicate WARC-TREC-ID (first seen in 0000wb-00.warc.gz); "
        "expected every id once")


def test_clueweb_rejects_files_that_are_not_warc_and_dirs_without_any(tmp_path):
    (tmp_path / "x.warc.gz").write_bytes(gzip.compress(b"<html>not a warc</html>"))
    with pytest.raises(InputError, match="not a WARC file"):
        list(ClueWebSource(tmp_path, workers=1).documents(["contents"]))
    cut = tmp_path / "cut"
    write_warc(cut / "a.warc.gz", [(f"clueweb12-0000wb-00-0000{i}", "http://x",
                                    _page("word " * 2000)) for i in range(3)])
    data = (cut / "a.warc.gz").read_bytes()
    (cut / "a.warc.gz").write_bytes(data[:-30])  # inside the last record's compressed body
    with pytest.raises(InputError, match=r"a.warc.gz: truncated: response record #3 \(clueweb12-0000wb-00-00002\)"):
        list(ClueWebSource(cut, workers=1).documents(["contents"]))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no ClueWeb12 files"):
        ClueWebSource(empty)



@pytest.mark.parametrize("main_words, full_words, kept", [
    (40, 1000, "main"), (39, 1000, "full"),  # 40 words of main content are enough, whatever the page holds
    (15, 100, "main"), (14, 100, "full"),    # or 15 % of the page's words
    (0, 0, "main"),                          # an empty page: nothing to prefer
])
def test_main_content_is_kept_from_40_words_or_15_percent_of_the_page(monkeypatch, main_words, full_words, kept):
    from resiliparse.extract import html2text

    from touche.indexing.clueweb import html_to_text
    main, full = " ".join(["m"] * main_words), " ".join(["f"] * full_words)
    monkeypatch.setattr(html2text, "extract_plain_text", lambda tree, main_content=False, **kw: main if main_content
                        else full)
    assert html_to_text(_page("x")) == ("T", main if kept == "main" else full)
    assert html_to_text(_page("x"), main_content=False) == ("T", full)


def test_the_page_text_is_the_full_text_when_main_content_is_off():
    from touche.indexing.clueweb import html_to_text
    html = _page("Laptops are better for students.").replace(b"<nav>", b"<nav><a href=/x>Search</a>")
    title, text = html_to_text(html, main_content=False)
    assert (title, text) == ("T", "SearchHome | About\n\nLaptops are better for students.")
    assert html_to_text(html) == ("T", "Laptops are better for students.")


@pytest.mark.parametrize("over", [0, 1])
def test_a_warc_record_of_exactly_the_budget_is_read_and_one_byte_more_is_a_bad_record(tmp_path, monkeypatch, over):
    monkeypatch.setenv("TOUCHE_MAX_RECORD_MB", "1")
    html = _page("a" * (2**20 - 84 - len(_page("")) + over))  # the HTTP head before it is 84 bytes
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(html)}\r\n\r\n"
    assert len(head) == 84 and len(head) + len(html) == 2**20 + over
    path = tmp_path / "00.warc.gz"
    assert write_warc(path, [("clueweb12-0000wb-00-00001", "http://a", html),
                             ("clueweb12-0000wb-00-00002", "http://b", _page("next"))]) == 2
    source = ClueWebSource(path, workers=1, skip_bad_records=True)
    docs = list(source.records())
    assert [d.id[-1] for d in docs] == (["1", "2"] if not over else ["2"])
    assert (source.report.read, source.report.skipped) == (2 - over, over)
    if over:
        assert str(source.report.first_skipped[0]) == (
            f"{path}, response record #1 (1-based), id 'clueweb12-0000wb-00-00001': the response record holds "
            "1,048,577 bytes, beyond the budget of 1 MB a record (TOUCHE_MAX_RECORD_MB raises it; no real record "
            "comes near)")
    else:
        assert docs[0].text == "a" * 100_000  # read whole, then cut to MAX_TEXT_CHARS as every page is


def test_a_written_warc_record_carries_its_date_id_and_address(tmp_path):
    from fastwarc.warc import ArchiveIterator
    path = tmp_path / "a.warc.gz"
    assert write_warc(path, iter([("clueweb12-0000wb-00-00001", "http://a.example/", _page("x"))])) == 1
    assert write_warc(tmp_path / "none.warc.gz", []) == 0
    with open(path, "rb") as stream:
        (record,) = list(ArchiveIterator(stream))
    assert record.headers["WARC-Date"] == "2012-02-10T00:00:00Z" and record.headers["WARC-TREC-ID"] == \
        "clueweb12-0000wb-00-00001" and record.headers["WARC-Target-URI"] == "http://a.example/"
    dated = gzip.decompress(warc_record("clueweb12-0000wb-00-00002", "http://b", b"", date="2012-03-01T10:00:00Z"))
    assert b"\r\nWARC-Date: 2012-03-01T10:00:00Z\r\n" in dated
    assert dated.startswith(b"WARC/1.0\r\n") and b"\r\nContent-Type: application/http; msgtype=response\r\n" in dated


@pytest.mark.parametrize("content, said", [
    (b"garbage that is no gzip stream", r"not a WARC file or a corrupt one \(Invalid WARC header\)"),
    (gzip.compress(b"WARC/1.0\r\n" * 50)[:10], r"not a WARC file \(no WARC/1.0 record found\)"),  # a gzip head alone
], ids=["garbage", "gzip-head"])  # ids of their own: a gzip stream holds the time it was made
def test_a_file_that_is_no_readable_warc_is_said_to_be_none(tmp_path, content, said):
    (tmp_path / "x.warc.gz").write_bytes(content)
    with pytest.raises(InputError, match=rf"x.warc.gz: {said} \(expected WARC/1.0 records"):
        list(ClueWebSource(tmp_path, workers=1).records())


def test_a_clueweb_index_is_keyed_by_its_files_extraction_and_text_mode(tmp_path):
    """Main content or the full text: two indexes of one corpus, never one reused for the other."""
    from touche.indexing.corpora import files_fingerprint
    _write_corpus(tmp_path, files=1, per_file=1)
    main, full = ClueWebSource(tmp_path, workers=1), ClueWebSource(tmp_path, workers=1, main_content=False)
    assert main.fingerprint() == f"{files_fingerprint(main.files)}-x1-main"
    assert full.fingerprint() == f"{files_fingerprint(main.files)}-x1-full"
    assert main.describe()["main_content"] is True and full.describe()["fingerprint"] == full.fingerprint()


def test_a_record_longer_than_its_content_is_an_error_after_it_not_a_guess_that_loses_the_next(tmp_path):
    """A Content-Length 5 bytes too long: FastWARC's quirks mode would take those bytes from the
    next record and lose it; the reader refuses the file, naming the record it got to."""
    page = b"<html><title>Tea</title><body>" + b"Green tea is healthier than coffee. " * 20 + b"</body></html>"
    first = gzip.decompress(warc_record("clueweb12-0000wb-00-00001", "http://a", page))
    second = gzip.decompress(warc_record("clueweb12-0000wb-00-00002", "http://b", page))
    block = len(first.partition(b"\r\n\r\n")[2]) - len(b"\r\n\r\n")  # the record's content, as declared
    declared = b"Content-Length: %d\r\n" % block
    assert first.count(declared) == 1
    longer = first.replace(declared, b"Content-Length: %d\r\n" % (block + 5))
    (tmp_path / "x.warc.gz").write_bytes(gzip.compress(longer + second))
    with pytest.raises(InputError, match=r"x.warc.gz: not a WARC file or a corrupt one after response record #1 "
                                         r"\(Invalid WARC header\)"):
        list(ClueWebSource(tmp_path, workers=1).records())


def test_a_warc_file_of_no_response_record_is_read_as_empty(tmp_path):
    """ClueWeb12 files open with a warcinfo record: a file holding only such records is a WARC file
    with no page, not a file that is no WARC."""
    from fastwarc.stream_io import GzipWriter
    from fastwarc.warc import WarcRecord, WarcRecordType
    record = WarcRecord()
    record.init_headers(record_type=WarcRecordType.warcinfo)
    record.set_bytes_content(b"software: test\r\n")
    with open(tmp_path / "info.warc.gz", "wb") as stream:
        out = GzipWriter(stream)
        record.write(out)
        out.close()
    source = ClueWebSource(tmp_path, workers=1)
    assert list(source.records()) == [] and (source.report.files, source.report.read) == (1, 0)


def test_a_page_is_stored_as_json_and_shown_as_its_contents():
    from touche.indexing.clueweb import WebDocument, http_payload
    page = WebDocument("clueweb12-0000wb-00-00001", "http://a.example/ü", "Tea — 茶", "Green tea is healthier.")
    raw = page.to_json()
    assert raw == ('{"id": "clueweb12-0000wb-00-00001", "url": "http://a.example/ü", "title": "Tea — 茶", '
                   '"text": "Green tea is healthier."}')
    assert WebDocument.from_json(raw) == page and WebDocument.from_json('{"id": "x"}') == WebDocument("x", "", "", "")
    assert ClueWebSource.display_raw(raw) == "Tea — 茶\n\nGreen tea is healthier."
    assert http_payload(b"HTTP/1.1 200 OK\nA: b\n\n<p>x</p>") == b"<p>x</p>" == http_payload(b"<p>x</p>")
    assert http_payload(b"HTTP/1.1 200 OK\r\nA: b") == b""


@pytest.mark.parametrize("setting, cpus, workers", [(None, 1, 1), (None, None, 1), (None, 3, 3), (None, 8, 4),
                                                    ("2", 8, 2)])
def test_warc_files_are_read_by_one_worker_a_core_up_to_four(monkeypatch, setting, cpus, workers):
    from touche.indexing import clueweb
    if setting is None:
        monkeypatch.delenv("TOUCHE_WORKERS", raising=False)
    else:
        monkeypatch.setenv("TOUCHE_WORKERS", setting)
    monkeypatch.setattr(clueweb.os, "cpu_count", lambda: cpus)
    assert clueweb.default_workers() == workers


# ----------------------------------------------------------------- passage reader
def test_passage_reader_reads_jsonl_and_gz(tmp_path):
    lines = [{"id": "clueweb12-0000wb-00-00001___1", "contents": "Tea is healthier.", "chatNoirUrl": "u"},
             {"id": "clueweb12-0000wb-00-00001___2", "contents": "Coffee is tastier."}]
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress("\n".join(json.dumps(x) for x in lines).encode()))
    docs = list(PassageSource(tmp_path).documents(["contents"]))
    assert [(d[0], d[1]) for d in docs] == [("clueweb12-0000wb-00-00001___1", ["Tea is healthier."]),
                                            ("clueweb12-0000wb-00-00001___2", ["Coffee is tastier."])]
    assert json.loads(docs[0][2])["chatNoirUrl"] == "u"


def test_passage_reader_names_the_bad_line_or_skips_it(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a___1", "contents": "x"}\n\n{"id": "a___2"}\n{"id": "a___1", "contents": "y"}\n')
    with pytest.raises(InputError, match=r"p.jsonl, line 3: 'contents' must be a string"):
        list(PassageSource(path).documents(["contents"]))
    source = PassageSource(path, skip_bad_records=True)
    assert [d[0] for d in source.documents(["contents"])] == ["a___1"]
    assert source.report.skipped == 2 and "duplicate id" in source.report.first_skipped[1].reason



def test_a_passage_is_stored_with_its_text_as_written_and_read_back():
    from touche.indexing.passages import Passage
    passage = Passage("clueweb12-0000wb-00-00001___1", "Tee ist gesünder — 茶 «oui»", "https://c.example/?q=ü")
    raw = passage.to_json()
    assert raw == ('{"id": "clueweb12-0000wb-00-00001___1", "contents": "Tee ist gesünder — 茶 «oui»", '
                   '"chatNoirUrl": "https://c.example/?q=ü"}')  # not \\u00fc: the stored text is the text
    assert Passage.from_json(raw) == passage and PassageSource.display_raw(raw) == "Tee ist gesünder — 茶 «oui»"
    assert Passage.from_json('{"id": "a___1"}') == Passage("a___1", "", "")


@pytest.mark.parametrize("pid, found", [(5, "5"), ("", "''"), (" ", "' '"), (None, "None")])
def test_a_passage_without_a_string_id_is_refused_where_it_is(tmp_path, pid, found):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "a___1", "contents": "x"}\n' + json.dumps({"id": pid, "contents": "y"}) + "\n")
    with pytest.raises(InputError) as err:
        list(PassageSource(path).records())
    assert str(err.value).startswith(f"{path}, line 2: 'id' must be a non-empty string, found {found}; expected")


def test_the_passage_read_report_counts_files_passages_and_skipped_lines(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"id": "a___1", "contents": "x"}\n{"id": "a___2"}\n\n'
                                      '{"id": "a___3", "contents": "z"}\n')
    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(b'{"id": "b___1", "contents": "y"}\n'))
    source = PassageSource(tmp_path, skip_bad_records=True)
    assert [d[0] for d in source.documents(["contents"])] == ["a___1", "a___3", "b___1"]
    report = source.report
    assert (report.files, report.read, report.skipped) == (2, 3, 1)
    assert [p.id for p in read_passages(source.files[1:])] == ["b___1"]  # a read with no report of its own
    assert source.describe() == {"format": "passages", "path": str(tmp_path.resolve()),
                                 "files": ["a.jsonl", "b.jsonl.gz"], "fingerprint": source.fingerprint()}
    assert report.summary() == (f"3 passages read from 2 file(s), 1 bad record(s) skipped\n  {tmp_path / 'a.jsonl'}, "
                                "line 2: 'contents' must be a string, found NoneType; expected "
                                '{"id": "clueweb12-…___n", "contents": "…", "chatNoirUrl": "…"}')


def test_corrupt_gzip_passages_are_named_not_a_zlib_traceback(tmp_path):
    good = gzip.compress(
        b'{"id": "a___1", "contents": "Tea is healthier than coffee because it has less caffeine."}\n' * 20
    )
    corrupt = good[:10] + bytes(b ^ 0x5A for b in good[10:40]) + good[40:]  # the deflate stream garbled
    path = tmp_path / "p.jsonl.gz"
    path.write_bytes(corrupt)
    with pytest.raises(InputError, match=r"p.jsonl.gz: cannot decode the file .*expected UTF-8 JSONL, optionally "
                                         r"gzip-compressed"):
        list(PassageSource(path).documents(["contents"]))


# ----------------------------------------------------------------- configs and suites
def test_task2_section_is_strict_and_shipped_configs_hold_no_api_key():
    from touche.config import load_variant

    with pytest.raises(ConfigError, match="unknown key 'task2.rerank.wieghts'"):
        load_variant(REPO / "configs" / "task2" / "3-rerank.yaml", {"task2.rerank.wieghts": "{}"})
    for path in (REPO / "configs").glob("task2*/*.yaml"):
        assert "api_key:" not in path.read_text(), path


@pytest.mark.parametrize("task, fmt, labels", [
    ("task2", "q0", {"Q0"}),
    ("task2-stance", "stance", {"FIRST", "SECOND", "NEUTRAL", "NO"}),
])
def test_suites_write_five_valid_runs_on_the_demo_data(jvm_started, tmp_path, index_root, task, fmt, labels, capsys):
    from touche.retrieval.formats.gate import read_run
    from touche.retrieval.formats.runfile import RunFormat, run_file_problems
    from touche.retrieval.suite import run_suite

    out = tmp_path / "out"
    assert run_suite(REPO / "configs" / task / "suite.yaml", None, out, index_root=index_root,
                     progress=False).run_txt.is_file()
    runs = sorted(p.name for p in out.glob("*.txt"))
    assert len(runs) == 6 and "run.txt" in runs
    for run in out.glob("*.txt"):
        assert [p for p in run_file_problems(run, RunFormat.parse(fmt)) if p.is_error] == []
        assert {row.column2 for row in read_run(run)} <= labels
    table = (out / "evaluation.md").read_text()
    assert "3-rerank" in table
    rows = read_run(out / "run.txt")
    assert {r.qid for r in rows} == {"1", "2", "3", "4"}
    if task == "task2-stance":
        assert {r.column2 for r in rows} - {"NO"}  # some passages take a side


def test_session_uses_the_comparative_query(jvm_started, tmp_path, index_root):
    from touche.config import load_variant
    from touche.retrieval.session import Session
    from touche.retrieval.tasks.task2.handlers import comparative_queries

    demo = REPO / "demo" / "task2"
    session = Session(demo / "clueweb12", demo / "topics.xml", index_root, progress=False)
    loaded = load_variant(REPO / "configs" / "task2" / "2-comparative-query.yaml")
    queries = comparative_queries(session.task_context(loaded))
    assert queries["2"].split().count("tea") == 2 and "better" in queries["2"].split()


# ----------------------------------------------------------------- the real data, when present
@pytest.mark.skipif(not has_shared(), reason="real Touché data not found (set TOUCHE_SHARED)")
def test_titles_give_the_2022_objects_of_the_same_questions():
    from touche.retrieval.formats.topics import read_topics

    shared = require_shared()
    gold = {
        t.title.lower(): tuple(o.lower() for o in t.objects) for t in read_topics(shared / "topics" / "task2-2022.xml")
    }
    old = read_topics(shared / "topics" / "task2-2020.xml") + read_topics(shared / "topics" / "task2-2021.xml")
    pairs = [(extract_objects(t.title), gold[t.title.lower()]) for t in old if t.title.lower() in gold]
    # "The Simpsons" vs "simpsons", "major in philosophy" vs "philosophy", … may differ
    assert len(pairs) == 49 and sum(found == expected for found, expected in pairs) >= 44


@pytest.mark.skipif(not has_shared(), reason="real Touché data not found (set TOUCHE_SHARED)")
def test_the_passage_sample_reads_completely():
    shared = require_shared()
    source = PassageSource(shared / "corpora" / "task2-2022-passages.sample.jsonl")
    assert sum(1 for _ in source.documents(["contents"])) == 2425 and source.report.skipped == 0


def test_a_missing_dense_model_fails_with_the_variant_and_key_and_writes_no_run(jvm_started, tmp_path, index_root):
    import contextlib
    import io

    from touche.cli import main

    demo = REPO / "demo" / "task2"
    run = tmp_path / "run.txt"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", "-c", str(REPO / "configs" / "task2-stance" / "3-rerank.yaml"),
                     "--set", "task2.rerank.dense.model=models/nowhere", "--index-root", str(index_root),
                     "-i", str(demo / "passages.jsonl"), "-t", str(demo / "topics-passages.xml"), "-o", str(run)])
    assert code == 2
    assert ("3-rerank.yaml, task2.rerank.dense.model: dense model 'models/nowhere' is neither a folder "
            "nor a packaged model") in err.getvalue()
    assert "Traceback" not in err.getvalue() and not run.exists() and list(tmp_path.iterdir()) == []
