"""Image retrieval: the collection reader (on the real 50-image sample and on DOMs of our own),
OCR and its cache, near-duplicate collapse, stance and argumentativeness, the 10-per-stance
selection, and valid runs end to end (demo collection, TIRA layout, 2022 topics on the sample)."""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.shared import REPO, require_shared
from touche.errors import InputError, ToucheError
from touche.indexing import images as reader
from touche.indexing import ocr
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runfile import RunFormat, run_file_problems
from touche.retrieval.formats.topics import Topic
from touche.retrieval.tasks.image.handlers import (
    Candidate,
    ImageFeatures,
    _Scorer,
    collapse_duplicates,
    hamming,
    select,
    stance_score,
    topic_rows,
)
from touche.specs.image import ImageSpec, StanceSpec

DEMO = REPO / "demo" / "images"
SUITE = REPO / "configs" / "image" / "suite.yaml"
VARIANTS = ["1-contents-sentiment", "2-fields-cues", "3-topic-cues", "4-crawl-prior", "5-fusion"]


def sample_dir() -> Path:
    return require_shared() / "corpora" / "image-2022-sample"


# ---------------------------------------------------------------------------- the reader on the real sample
def test_reader_reads_every_image_of_the_sample():
    source = reader.ImageSource(sample_dir())
    records = {r.id: r for r in source.records()}
    assert len(records) == 50 and source.report.skipped == 0
    assert all(len(r.phash) == 64 and r.image_file.name == "image.webp" and r.pages for r in records.values())
    # rankings.jsonl: which query of which topic found the image, at which rank
    social = records["I0538673fe011264e"]
    assert [(k.topic, k.query, k.rank) for k in social.rankings] == [
        ("34", "Are social networking sites good for our society?", 36)]
    # an og:image preview (XPath into <head>): the page's own summary describes it
    fields = reader.image_fields(social)
    assert "The Role of Social Media in Societal Change" in fields["near_text"]
    assert fields["page_title"].startswith("(PDF) The Role of Social Media")
    # <picture><source><img>: libxml2 nests the img inside <source>; the XPath walk recovers it
    felons = reader.image_fields(records["I46fc855a162cbd98"])
    assert felons["alt_text"] == "Most Americans think ex-convicts, upon release, should be allowed to vote."
    assert "54 percent of Americans" in felons["near_text"]
    # words of the URLs, ids left out
    assert "Pros And Cons of Lowering The Voting Age" in reader.image_fields(records["Ia73d445074b4df3d"])["url_text"]


def test_every_xpath_of_the_sample_resolves_to_the_image():
    resolved = 0
    for folder in reader.image_dirs(reader.collection_root(sample_dir())):
        url = (folder / "image-url.txt").read_text().strip()
        for snapshot in folder.glob("pages/*/snapshot"):
            tree = reader.parse_dom(snapshot / "dom.html")
            for xpath in filter(None, (snapshot / "image-xpath.txt").read_text().split("\n")):
                element = reader.resolve_xpath(tree, xpath)
                assert element is not None and element.tag in ("img", "meta"), xpath
                # the element carries the image's URL (src, data-src, srcset or og:image content)
                name = url.rsplit("/", 1)[-1][:20]
                assert any(name in str(v) for v in element.attrib.values()), (folder.name, xpath)
                resolved += 1
    assert resolved == 60


def test_a_collections_fingerprint_follows_its_files_and_the_ocr_engine(tmp_path, monkeypatch):
    folder = _copy_image(tmp_path)
    monkeypatch.setattr(reader.ocr, "engine", lambda: None)
    source = reader.ImageSource(tmp_path)
    plain = source.fingerprint()
    assert len(plain) == 16 and int(plain, 16) >= 0 and reader.ImageSource(tmp_path).fingerprint() == plain
    assert source.describe() == {"format": "images", "path": str((tmp_path / "images").resolve()), "images": 1,
                                 "ocr": None, "fingerprint": plain}
    monkeypatch.setattr(reader.ocr, "engine", lambda: reader.ocr.OcrEngine("tesseract", "tesseract 5.3.0"))
    with_ocr = source.describe()
    assert with_ocr["ocr"] == "tesseract 5.3.0" and len(with_ocr["fingerprint"]) == 16
    assert with_ocr["fingerprint"] != plain  # an index built without OCR is built again once it is there
    (folder / "image-url.txt").write_text("https://x.example/changed.png\n")
    assert source.fingerprint() not in (plain, with_ocr["fingerprint"])


def _copy_image(tmp_path: Path, name: str = "I0123456789abcdef") -> Path:
    source = next(reader.image_dirs(reader.collection_root(DEMO)).__iter__())
    target = tmp_path / "images" / name[:3] / name
    shutil.copytree(source, target)
    return target


def test_bad_records_are_errors_naming_the_file_or_are_counted(tmp_path):
    folder = _copy_image(tmp_path)
    (folder / "image.png").unlink()
    with pytest.raises(InputError, match="no image file") as error:
        list(reader.ImageSource(tmp_path).records())
    assert "I0123456789abcdef" in str(error.value) and "skip_bad_records" in str(error.value)
    source = reader.ImageSource(tmp_path, skip_bad_records=True)
    assert list(source.records()) == [] and (source.report.skipped, source.report.read) == (1, 0)
    good = _copy_image(tmp_path, "Ifedcba9876543210")
    source = reader.ImageSource(tmp_path, skip_bad_records=True)
    assert [r.id for r in source.records()] == ["Ifedcba9876543210"] and (source.report.skipped,
                                                                           source.report.read) == (1, 1)
    rankings = next(good.glob("pages/*/rankings.jsonl"))
    rankings.write_text('{"query": "q", "topic": "1", "rank": 1}\nnot json\n')
    with pytest.raises(InputError, match="line 2"):
        reader.read_image(good)
    with pytest.raises(InputError, match="not an image collection"):
        reader.collection_root(tmp_path / "images" / "I01")


# ---------------------------------------------------------------------------- OCR
def test_tsv_parsing_keeps_confident_words_in_lines():
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
           "5\t1\t1\t1\t1\t1\t0\t0\t9\t9\t96.1\tVOTER\n5\t1\t1\t1\t1\t2\t0\t0\t9\t9\t93.0\tTURNOUT\n"
           "4\t1\t1\t1\t1\t0\t0\t0\t9\t9\t-1\t\n5\t1\t2\t1\t1\t1\t0\t0\t9\t9\t17.4\tSat\n"
           "5\t1\t3\t1\t1\t1\t0\t0\t9\t9\t91.0\t—\n5\t1\t4\t1\t1\t1\t0\t0\t9\t9\t80.0\t70%\n")
    lines = ocr.parse_tsv(tsv)
    assert lines == [[("VOTER", 96.1), ("TURNOUT", 93.0)], [("Sat", 17.4)], [("—", 91.0)], [("70%", 80.0)]]
    assert ocr.lines_text(lines) == "VOTER TURNOUT\n70%"
    assert ocr.lines_text(lines, min_confidence=0) == "VOTER TURNOUT\nSat\n70%"


@pytest.fixture
def fresh_ocr(monkeypatch):
    ocr._warned.clear()
    return monkeypatch


def test_the_ocr_engine_follows_its_setting_within_one_process(fresh_ocr, tmp_path):
    """TOUCHE_OCR=off in one part of a process (a test, a notebook cell) must not switch OCR off
    for the rest of it: the engine was once remembered, and a later image index had no ocr_text."""
    fresh_ocr.setenv("TOUCHE_OCR", "off")
    assert ocr.engine() is None
    fresh_ocr.delenv("TOUCHE_OCR")
    fake = tmp_path / "tesseract"
    fake.write_text("#!/bin/sh\necho 'tesseract 9.9.9-fake'\n")
    fake.chmod(0o755)
    fresh_ocr.setenv("PATH", str(tmp_path))
    found = ocr.engine()
    assert found is not None and (found.executable, found.version) == (str(fake), "tesseract 9.9.9-fake")
    fresh_ocr.setenv("TOUCHE_OCR", "off")
    assert ocr.engine() is None


def test_ocr_reads_text_into_a_cache_and_a_rerun_costs_nothing(fresh_ocr, tmp_path):
    if ocr.engine() is None:
        pytest.skip("tesseract not installed (Debian: tesseract-ocr); OCR is optional")
    poster = next(f for f in DEMO.glob("images/*/*/image.png")
                  if (f.parent / "image-url.txt").read_text().strip().endswith("/hw-con-stress.png"))
    stats = ocr.OcrStats()
    first = dict(ocr.ocr_texts([("a", poster), ("b", poster)], cache_dir=tmp_path, stats=stats))
    assert "STRESS FROM" in first["a"] and "HOMEWORK" in first["a"] and first["a"] == first["b"]
    assert len(list(tmp_path.rglob("*.json"))) == 1  # content-addressed: one entry per picture
    stats = ocr.OcrStats()
    fresh_ocr.setattr(ocr.OcrEngine, "run", lambda self, image: pytest.fail("OCR ran again"))
    again = dict(ocr.ocr_texts([("a", poster)], cache_dir=tmp_path, stats=stats))
    assert again == {"a": first["a"]} and (stats.cached, stats.recognised) == (1, 0)
    assert ocr.cached_text(poster, cache_dir=tmp_path) == first["a"]


def test_without_tesseract_ocr_text_is_empty_with_one_warning(fresh_ocr, tmp_path, caplog):
    fresh_ocr.setenv("PATH", str(tmp_path))  # no tesseract on the PATH
    images = [(str(i), DEMO / "topics.xml") for i in range(3)]
    assert dict(ocr.ocr_texts(images, cache_dir=tmp_path)) == {"0": "", "1": "", "2": ""}
    assert dict(ocr.ocr_texts(images, cache_dir=tmp_path)) == {"0": "", "1": "", "2": ""}
    warnings = [r for r in caplog.records if "OCR is unavailable" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelname == "WARNING"


# ---------------------------------------------------------------------------- duplicates, stance, selection
def test_phash_collapse_keeps_the_best_copy():
    a, b = "0" * 64, "0" * 62 + "11"
    assert hamming(a, b) == 2 and hamming(a, "0" * 16) == 64
    kept, dropped = collapse_duplicates([("I1", a), ("I2", b), ("I3", a), ("I4", ""), ("I5", "")])
    assert kept == ["I1", "I2", "I4", "I5"] and dropped == {"I3": "I1"}
    kept, dropped = collapse_duplicates([("I1", a), ("I2", b), ("I3", a)], max_distance=2)
    assert kept == ["I1"] and dropped == {"I2": "I1", "I3": "I1"}


def _features(text: str) -> ImageFeatures:
    return ImageFeatures("I0", "", {"alt_text": text, "ocr_text": "", "near_text": "", "page_title": ""})


def test_stance_sentiment_cues_and_the_flip_for_topics_that_remove_something():
    spec = StanceSpec()
    happy = _features("Zoos protect wonderful endangered animals and inspire children.")
    sad = _features("Animals suffer terribly in cruel cages.")
    keep_title, abolish_title = "Are zoos good for animals?", "Should zoos be abolished?"
    assert stance_score(happy, keep_title, spec).score > 0 > stance_score(sad, keep_title, spec).score
    # arguing for abolition speaks badly of zoos: sentiment flips
    assert stance_score(happy, abolish_title, spec).score < 0 < stance_score(sad, abolish_title, spec).score
    assert stance_score(sad, abolish_title, spec).flipped
    # cue words; with a window only those near a topic term count
    cues = _features("We oppose this. Lots of filler words here to push things apart. Zoos are great.")
    wide = stance_score(cues, keep_title, StanceSpec(sentiment_weight=0))
    near = stance_score(cues, keep_title, StanceSpec(sentiment_weight=0, cue_window=3))
    assert wide.con_cues == ("oppose",) and near.con_cues == () and wide.score < 0 == near.score


def _candidates(n: int, stance_of=lambda i: 0.5 if i % 2 else -0.5, retrieved: int | None = None):
    retrieved = n if retrieved is None else retrieved
    return [Candidate(f"I{i:016x}", relevance=1 - i / (2 * n), argumentative=0.5, stance=stance_of(i),
                      retrieved=i < retrieved) for i in range(n)]


def test_select_gives_ten_per_stance_each_image_once_preferred_first():
    choices = select(_candidates(30), ImageSpec())
    by = {s: [c for c in choices if c.stance == s] for s in ("PRO", "CON")}
    assert [len(by["PRO"]), len(by["CON"])] == [10, 10]
    assert len({c.id for c in choices}) == 20
    assert all(int(c.id[1:], 16) % 2 == 1 for c in by["PRO"]) and all(int(c.id[1:], 16) % 2 == 0 for c in by["CON"])
    assert all(c.tier == 2 for c in choices)
    scores = [c.score for c in by["PRO"]]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 10


def test_select_fills_a_short_side_from_the_hits_then_from_the_collection():
    # all 12 retrieved images lean PRO; 10 more images were never retrieved
    choices = select(_candidates(22, stance_of=lambda i: 0.8, retrieved=12), ImageSpec())
    con = [c for c in choices if c.stance == "CON"]
    assert Counter(c.tier for c in con) == {1: 2, 0: 8}
    assert min(c.score for c in choices if c.tier == 1) > max(c.score for c in choices if c.tier == 0)
    assert min(c.score for c in choices if c.tier == 2) > max(c.score for c in choices if c.tier == 1)
    with pytest.raises(ValueError, match="19 distinct images; 20 are needed"):
        select(_candidates(19), ImageSpec())


class _FakeSearcher:
    """searcher.raw() over records of our own (no JVM)."""

    def __init__(self, phashes: dict[str, str]):
        self.records = {i: json.dumps({"id": i, "phash": h, "alt_text": "",
                                       "rankings": []}) for i, h in phashes.items()}

    def raw(self, ids):
        return {i: self.records.get(i) for i in ids}


def test_topic_rows_collapse_fill_and_the_error_for_a_too_small_collection():
    ids = [f"I{i:016x}" for i in range(24)]
    phashes = {i: format(n, "064b") for n, i in enumerate(ids)}
    phashes[ids[1]] = phashes[ids[0]]  # a near-duplicate among the hits
    scorer = _Scorer(ImageSpec(), _FakeSearcher(phashes))
    topic = Topic("7", "Is anything good?")
    hits = [(i, 10.0 - n) for n, i in enumerate(ids[:5])]
    rows = topic_rows(topic, hits, scorer, lambda: ids)
    assert Counter(s for _, _, s in rows) == {"PRO": 10, "CON": 10}
    assert ids[1] not in {i for i, _, _ in rows}  # collapsed, and not let back in: 23 distinct suffice
    # a collection of 19 pictures cannot give a valid run
    small = _Scorer(ImageSpec(), _FakeSearcher({i: phashes[i] for i in ids[2:21]}))
    with pytest.raises(ToucheError, match="topic 7: 19 distinct images; 20 are needed.*too small"):
        topic_rows(topic, [], small, lambda: ids[2:21])
    # fill: none refuses to use unretrieved images
    strict = _Scorer(ImageSpec(fill="none"), _FakeSearcher(phashes))
    with pytest.raises(ToucheError, match="fill is 'none'"):
        topic_rows(topic, hits, strict, lambda: ids)


def test_image_spec_rejects_unknown_fields_and_keys():
    from pydantic import ValidationError
    with pytest.raises(ValidationError, match="unknown text field"):
        StanceSpec(text_weights={"page_text": 1.0})
    with pytest.raises(ValidationError, match="extra"):
        ImageSpec.model_validate({"candidate": 10})
    with pytest.raises(ValidationError, match="lowercase"):
        StanceSpec(pro_cues=("Yes",))


# ---------------------------------------------------------------------------- end to end (JVM)
@pytest.fixture(scope="module")
def demo_runs(jvm_started, tmp_path_factory, index_root):
    from touche.config import load_variant
    from touche.retrieval.session import Session
    out = tmp_path_factory.mktemp("image-runs")
    session = Session(DEMO, DEMO / "topics.xml", index_root, progress=False)
    try:
        for name in VARIANTS:
            result = session.run(load_variant(SUITE.parent / f"{name}.yaml"))
            session.write(result, out / f"{name}.txt")
    finally:
        session.close()
    return out


def test_demo_variants_write_valid_runs_ten_per_stance_without_duplicates(demo_runs):
    phash = {f.parent.name: f.read_text().strip() for f in DEMO.glob("images/*/*/image-phash.txt")}
    for name in VARIANTS:
        run = demo_runs / f"{name}.txt"
        assert [p for p in run_file_problems(run, RunFormat.IMAGE, topics=["1", "2", "3"]) if p.is_error] == []
        rows = read_run(run, RunFormat.IMAGE)
        assert Counter((r.qid, r.column2) for r in rows) == {(t, s): 10 for t in "123" for s in ("PRO", "CON")}
        for topic in "123":
            listed = [r.docid for r in rows if r.qid == topic]
            assert len(set(listed)) == 20  # an image appears for one stance only
            assert len({phash[i] for i in listed}) == 20  # identical pictures collapsed


def test_demo_runs_find_the_arguing_images(demo_runs):
    from touche.retrieval.evaluation.measures import evaluate
    best = {}
    for name in VARIANTS:
        scores = evaluate(demo_runs / f"{name}.txt", DEMO / "qrels.txt")
        best[name] = scores["image.on_stance_P@10"]
        # 9 or 10 on-topic images per topic exist (one is a copy): most must be found
        assert scores["image.on_topic_P@10"] >= 0.4, (name, scores)
    assert max(best.values()) >= 0.3, best
    assert len(set(best.values())) > 1  # the variants differ


def test_tira_layout_run_all(jvm_started, tmp_path, index_root):
    from touche.retrieval.suite import run_suite
    tira = tmp_path / "input"
    shutil.copytree(DEMO / "images", tira / "images")
    shutil.copy(DEMO / "topics.xml", tira / "topics.xml")
    out = tmp_path / "output"
    assert run_suite(SUITE, tira, out, index_root=index_root, progress=False).run_txt.is_file()
    assert [p for p in run_file_problems(out / "run.txt", RunFormat.IMAGE, topics=["1", "2", "3"]) if p.is_error] == []
    assert (out / "run.txt").read_bytes() == (out / "4-crawl-prior.txt").read_bytes()


def test_sample_collection_gives_valid_runs_for_the_2022_topics(jvm_started, tmp_path, index_root):
    """All 50 topics of 2022 on the 50-image sample: every topic gets its 10 + 10 (filled from the
    collection where the hits are too few). OCR is left out of the fields here to keep the test
    fast; the OCR path is tested on the demo collection."""
    shared = require_shared()
    from touche.config import load_variant
    from touche.retrieval.session import Session
    fields = ["page_title", "near_text", "alt_text", "queries", "url_text", "page_text"]
    loaded = load_variant(SUITE.parent / "2-fields-cues.yaml", {
        "index.fields": fields, "query.field_weights": {f: 1.0 for f in fields}})
    session = Session(sample_dir(), shared / "topics" / "task1-2022.xml", index_root, progress=False)
    try:
        run = session.write(session.run(loaded), tmp_path / "sample.txt")
    finally:
        session.close()
    topics = [str(t) for t in range(1, 51)]
    assert [p for p in run_file_problems(run, RunFormat.IMAGE, topics=topics) if p.is_error] == []
    from touche.retrieval.evaluation.measures import image_precision
    from touche.retrieval.formats.qrels import read_qrels
    precision = image_precision(read_run(run), read_qrels(shared / "qrels" / "image-2022.qrels").judgments,
                                topics=["34", "48"])
    assert precision.on_topic >= 0.4 and precision.on_stance >= 0.2, precision


def test_an_images_fields_and_contents_are_its_texts_in_order(tmp_path):
    pages = (reader.ImagePage("P1", "https://x.example/Voting-Age.html", "Voting at 16", "Page text.", "Near words",
                              "Alt words", (reader.CrawlRanking("1", "voting age", 3),
                                            reader.CrawlRanking("2", "voting age", 9))),
             reader.ImagePage("P2", "", "Voting at 16", "", "", "Other alt", ()))
    record = reader.ImageRecord("I0123456789abcdef", tmp_path, tmp_path / "image.png", "https://x.example/a/Ballot-Box.png",
                                "", pages)
    values = reader.image_fields(record, ocr_text="VOTE")
    assert values == {"page_title": "Voting at 16", "near_text": "Near words", "alt_text": "Alt words\nOther alt",
                      "ocr_text": "VOTE", "queries": "voting age", "url_text": "Ballot Box Voting Age",
                      "page_text": "Page text.",
                      "contents": "Voting at 16\nNear words\nAlt words\nOther alt\nVOTE\nvoting age\nBallot Box Voting "
                                  "Age\nPage text."}


def test_a_broken_jsonl_line_is_named_by_its_line_and_column(tmp_path):
    import pytest

    from touche.errors import InputError
    from touche.indexing.images import _read_rankings

    rankings = tmp_path / "rankings.jsonl"
    rankings.write_text('{"topic": 1, "query": "q", "rank": 1}\n{"topic": 2 "query": "q"}\n')
    with pytest.raises(
        InputError, match=r"rankings.jsonl, line 2: not valid JSON \(Expecting ',' delimiter at column 13\)"
    ):
        _read_rankings(rankings)



def test_an_images_stored_record_holds_its_texts_but_not_the_page_text(tmp_path):
    folder = _copy_image(tmp_path)
    assert reader.collection_root(tmp_path / "images") == tmp_path / "images" == reader.collection_root(tmp_path)
    page = next(folder.glob("pages/*"))
    (page / "rankings.jsonl").write_text('{"topic": 7, "query": "q"}\n')
    record = reader.read_image(folder)
    assert [(r.topic, r.query, r.rank) for r in record.rankings] == [("7", "q", 0)]
    values = reader.image_fields(record, "OCR — «café»")
    raw = reader.raw_json(record, values, tmp_path / "images")
    assert '"ocr_text":"OCR — «café»"' in raw  # stored as UTF-8, as shown, not as \u escapes
    stored = json.loads(raw)
    assert stored["id"] == "I0123456789abcdef" and stored["path"] == f"I01/I0123456789abcdef/{record.image_file.name}"
    assert stored["rankings"] == [{"topic": "7", "query": "q", "rank": 0}] and stored["ocr_text"] == "OCR — «café»"
    assert [p["id"] for p in stored["pages"]] == [p.id for p in record.pages] and "page_text" not in stored
    assert {k: stored[k] for k in ("page_title", "near_text", "alt_text", "url_text")} == \
        {k: values[k] for k in ("page_title", "near_text", "alt_text", "url_text")}
