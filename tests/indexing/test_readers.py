"""Corpus and topics readers: args.me JSON (streamed), typed records, Touché topics XML, stoplists."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.shared import REPO, shared_dir
from touche.errors import InputError
from touche.indexing.argsme import ReadReport, argsme_files, iter_with_progress, read_arguments, total_bytes
from touche.indexing.records import Argument, Premise
from touche.retrieval.formats.topics import Topic, read_topics

SHARED = shared_dir()
TOPICS_DIR = SHARED / "topics"
needs_shared = pytest.mark.skipif(not TOPICS_DIR.is_dir(),
                                  reason=f"Touché shared data not found at {SHARED} (set TOUCHE_SHARED)")


# ---------------------------------------------------------------- fixtures

def argument_json(i: int, **overrides) -> dict:
    record = {
        "id": f"arg{i}-000",
        "conclusion": f"Conclusion {i}",
        "premises": [{"text": f"Premise {i}", "stance": "PRO" if i % 2 else "CON", "annotations": []}],
        "context": {
            "sourceId": f"src{i}",
            "previousArgumentInSourceId": f"arg{i - 1}-000" if i else "",
            "acquisitionTime": "2019-04-18T13:32:05Z",
            "discussionTitle": f"Debate {i}",
            "sourceTitle": f"Page {i}",
            "sourceUrl": f"https://example.org/{i}",
            "nextArgumentInSourceId": f"arg{i + 1}-000",
            "sourceDomain": "example.org",
        },
    }
    record.update(overrides)
    return record


def write_corpus(path: Path, arguments: list, **dump_kwargs) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"arguments": arguments}, **dump_kwargs), encoding="utf-8")
    return path


# ---------------------------------------------------------------- args.me: good records

def test_reads_good_records_with_all_fields(tmp_path):
    corpus = write_corpus(tmp_path / "args-me.json", [argument_json(i) for i in range(3)], indent=2)
    args = list(read_arguments(corpus))
    assert [a.id for a in args] == ["arg0-000", "arg1-000", "arg2-000"]
    a = args[1]
    assert a == Argument(id="arg1-000", conclusion="Conclusion 1", premises=(Premise("Premise 1", "PRO"),),
                         source_id="src1", source_title="Page 1", source_url="https://example.org/1",
                         source_domain="example.org", discussion_title="Debate 1",
                         previous_id="arg0-000", next_id="arg2-000")
    assert args[0].stance == "CON"


def test_context_topic_and_missing_context(tmp_path):
    with_topic = argument_json(1)
    del with_topic["context"]["discussionTitle"]
    with_topic["context"]["topic"] = "Topic title"
    without_context = argument_json(2)
    del without_context["context"]
    no_stance = argument_json(3, premises=[{"text": "only text"}])
    corpus = write_corpus(tmp_path / "c.json", [with_topic, without_context, no_stance])
    a, b, c = read_arguments(corpus)
    assert a.discussion_title == "Topic title" and a.title == "Topic title"
    assert b.source_id == "" and b.title == "" and b.next_id == ""
    assert c.premises == (Premise("only text", ""),) and c.stance == ""


def test_directory_files_are_sorted_and_recursive(tmp_path):
    write_corpus(tmp_path / "b" / "debatewise.json", [argument_json(3)])
    write_corpus(tmp_path / "a.json", [argument_json(1), argument_json(2)])
    (tmp_path / "topics.xml").write_text("<topics/>")  # a TIRA input dir also holds topics.xml
    files = argsme_files(tmp_path)
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["a.json", "b/debatewise.json"]
    report = ReadReport()
    assert [a.id for a in read_arguments(tmp_path, report=report)] == ["arg1-000", "arg2-000", "arg3-000"]
    assert (report.read, report.skipped, report.files) == (3, 0, 2)
    assert total_bytes(tmp_path) == sum(f.stat().st_size for f in files)


def test_directory_without_json_files_is_an_error(tmp_path):
    (tmp_path / "topics.xml").write_text("<topics/>")
    with pytest.raises(InputError) as err:
        argsme_files(tmp_path)
    assert str(tmp_path) in str(err.value) and "*.json" in str(err.value)
    with pytest.raises(InputError, match="no such file"):
        argsme_files(tmp_path / "missing.json")


def test_utf8_bom_is_accepted(tmp_path):
    corpus = tmp_path / "bom.json"
    corpus.write_bytes(b"\xef\xbb\xbf" + json.dumps({"arguments": [argument_json(1)]}).encode())
    assert [a.id for a in read_arguments(corpus)] == ["arg1-000"]


def test_progress_by_bytes(tmp_path):
    corpus = write_corpus(tmp_path / "c.json", [argument_json(i) for i in range(2000)])
    positions = []
    args = list(read_arguments(corpus, on_position=positions.append))
    assert len(args) == 2000
    assert positions and positions == sorted(positions) and positions[-1] == corpus.stat().st_size
    assert len(list(iter_with_progress(corpus, disable=True))) == 2000


# ---------------------------------------------------------------- args.me: bad records

BAD_RECORDS = [
    # (record, id in the message or None, words of the expected message)
    (["not", "an", "object"], None, "expected a JSON object, found an array"),
    ({"conclusion": "c", "premises": []}, None, "missing 'id'"),
    (argument_json(9, id=""), "", "'id' is empty"),
    (argument_json(9, id=42), None, "'id' must be a non-empty string, found a number"),
    (argument_json(9, conclusion=None), "arg9-000", "'conclusion' must be a string, found null"),
    (argument_json(9, conclusion=["x"]), "arg9-000", "'conclusion' must be a string, found an array"),
    (argument_json(9, premises="text"), "arg9-000", "'premises' must be an array of objects with a string 'text', "
                                                    "found a string"),
    ({"id": "arg9-000", "conclusion": "c"}, "arg9-000", "'premises' must be an array of objects with a string 'text', "
                                                        "it is missing"),
    (argument_json(9, premises=["text"]), "arg9-000", "premise #1 must be an object"),
    (argument_json(9, premises=[{"text": "ok"}, {"stance": "PRO"}]), "arg9-000",
     "premise #2: 'text' must be a string, it is missing"),
    (argument_json(9, premises=[{"text": 3}]), "arg9-000", "premise #1: 'text' must be a string, found a number"),
    (argument_json(9, context="x"), "arg9-000", "'context' must be an object"),
]


@pytest.mark.parametrize("record, record_id, expected", BAD_RECORDS)
def test_bad_record_error_names_file_index_id_and_expectation(tmp_path, record, record_id, expected):
    corpus = write_corpus(tmp_path / "args-me.json", [argument_json(1), argument_json(2), record, argument_json(3)])
    reader = read_arguments(corpus)
    assert next(reader).id == "arg1-000" and next(reader).id == "arg2-000"
    with pytest.raises(InputError) as err:
        next(reader)
    message = str(err.value)
    assert message.startswith(f"{corpus}, argument #3 (1-based)")
    assert expected in message
    if record_id is not None:
        assert f"id {record_id!r}" in message
    else:
        assert ", id " not in message
    assert "skip_bad_records" in message
    assert err.value.path == str(corpus)


def test_skip_mode_counts_and_keeps_first_skipped(tmp_path):
    records = [argument_json(0)] + [r for r, _, _ in BAD_RECORDS] + [argument_json(1)]
    corpus = write_corpus(tmp_path / "c.json", records)
    report = ReadReport(keep=3)
    args = list(read_arguments(corpus, skip_bad_records=True, report=report))
    assert [a.id for a in args] == ["arg0-000", "arg1-000"]
    assert report.read == 2 and report.skipped == len(BAD_RECORDS)
    assert [s.index for s in report.first_skipped] == [2, 3, 4]
    first = report.first_skipped[0]
    assert first.file == str(corpus) and first.id is None and "expected a JSON object" in first.reason
    assert report.first_skipped[2].id == ""
    summary = report.summary()
    assert f"{len(BAD_RECORDS)} bad record(s) skipped" in summary and "more" in summary


def test_duplicate_ids_are_bad_records_across_files(tmp_path):
    a = write_corpus(tmp_path / "a.json", [argument_json(1), argument_json(2)])
    b = write_corpus(tmp_path / "b.json", [argument_json(3), argument_json(2, conclusion="again")])
    with pytest.raises(InputError) as err:
        list(read_arguments([a, b]))
    message = str(err.value)
    assert message.startswith(f"{b}, argument #2 (1-based), id 'arg2-000'")
    assert f"duplicate id (first seen in {a}, argument #2)" in message
    report = ReadReport()
    assert [x.conclusion for x in read_arguments([a, b], skip_bad_records=True, report=report)] == \
        ["Conclusion 1", "Conclusion 2", "Conclusion 3"]
    assert report.skipped == 1 and report.first_skipped[0].id == "arg2-000"



def test_a_skipped_argument_is_listed_with_its_id_when_it_has_one(tmp_path):
    corpus = write_corpus(tmp_path / "c.json", [argument_json(0), ["x"], argument_json(9, conclusion=None),
                                                argument_json(1)])
    report = ReadReport()
    assert [a.id for a in read_arguments(corpus, skip_bad_records=True, report=report)] == ["arg0-000", "arg1-000"]
    assert report.summary() == (
        f"2 arguments read from 1 file(s), 2 bad record(s) skipped\n"
        f"  {corpus}, argument #2 (1-based): expected a JSON object, found an array\n"
        f"  {corpus}, argument #3 (1-based), id 'arg9-000': 'conclusion' must be a string, found null")


def test_the_parsers_words_are_quoted_whole_up_to_60_characters(tmp_path):
    """The JSON parser shows up to 30 characters either side of the fault: 60 are quoted as they
    are, a longer line (another parser's) is cut; bytes it could not decode are shown decoded."""
    from touche.indexing.argsme import _parser_message

    corpus = tmp_path / "x.json"
    corpus.write_bytes(b'{"arguments": [{"id": "' + b"a" * 80 + b'" x ' + b"b" * 80 + b"}]}")
    with pytest.raises(InputError) as err:
        list(read_arguments(corpus))
    near = 'a' * 27 + '" x ' + 'b' * 29
    assert len(near) == 60 and f"malformed JSON: lexical error: invalid char in json text near {near!r} (read " \
        in str(err.value)
    corpus.write_bytes(b'{"arguments": [{"id": "\xff"}]}')
    with pytest.raises(InputError) as err:
        list(read_arguments(corpus))
    assert """malformed JSON: lexical error: invalid bytes in UTF8 string near '{"arguments": [{"id": "ÿ"}]}' (read""" \
        in str(err.value)
    assert _parser_message(ValueError("bad.\n" + "c" * 61)) == f"bad near {'c' * 57 + '...'!r}"
    assert _parser_message(ValueError("bad.\n" + "c" * 60 + "\n  (right here) ---^")) == f"bad near {'c' * 60!r}"
    assert _parser_message(ValueError("b'premature EOF'")) == "premature EOF"  # the C parser's bytes repr, unwrapped


def test_without_the_compiled_parser_the_pure_python_one_reads_the_corpus(tmp_path, monkeypatch):
    import ijson

    from touche.indexing import argsme
    real = ijson.get_backend

    def without_c(name):
        if name == "yajl2_c":
            raise ImportError("no compiled yajl2 backend")
        return real(name)
    monkeypatch.setattr(ijson, "get_backend", without_c)
    monkeypatch.setattr(argsme, "BACKEND", argsme._load_backend())
    corpus = write_corpus(tmp_path / "c.json", [argument_json(1), argument_json(2)])
    assert [a.conclusion for a in read_arguments(corpus)] == ["Conclusion 1", "Conclusion 2"]
    corpus.write_text('{"arguments": [{"id": "a"} {"id": "b"}]}')
    with pytest.raises(InputError, match=r"c.json, after argument #1 \(1-based\), id 'a': malformed JSON"):
        list(read_arguments(corpus, skip_bad_records=True))


def test_truncated_file_is_an_error_after_the_last_complete_argument(tmp_path):
    corpus = tmp_path / "args-me.json"
    full = json.dumps({"arguments": [argument_json(1), argument_json(2), argument_json(3)]})
    corpus.write_text(full[: full.index('"id": "arg3-000"') + 10])
    reader = read_arguments(corpus, skip_bad_records=True)
    assert [next(reader).id, next(reader).id] == ["arg1-000", "arg2-000"]
    with pytest.raises(InputError) as err:
        next(reader)
    message = str(err.value)
    assert message.startswith(f"{corpus}, after argument #2 (1-based), id 'arg2-000': malformed JSON")
    assert "premature EOF" in message
    assert f"of {corpus.stat().st_size:,} bytes" in message
    assert "cannot be skipped" in message


@pytest.mark.parametrize("content, expected", [
    (b"", "the file is empty"),
    (b'{"arguments": [{"id": "a", "conclusion": "c", "premises": []} {"id": "b"}]}', "malformed JSON"),
    (b'{"arguments": [', "before the first argument: malformed JSON"),
    (b'[{"id": "a"}]', 'no top-level "arguments" array'),
    (b'{"args": []}', 'no top-level "arguments" array'),
    (b'{"id": "a", "conclusion": "c", "premises": []}\n{"id": "b"}\n', "malformed JSON"),  # JSON lines
])
def test_malformed_files(tmp_path, content, expected):
    corpus = tmp_path / "x.json"
    corpus.write_bytes(content)
    with pytest.raises(InputError) as err:
        list(read_arguments(corpus, skip_bad_records=True))
    assert str(err.value).startswith(str(corpus))
    assert expected in str(err.value)


def test_empty_arguments_array_is_fine(tmp_path):
    corpus = write_corpus(tmp_path / "c.json", [])
    report = ReadReport()
    assert list(read_arguments(corpus, report=report)) == [] and report.files == 1


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_an_empty_arguments_array_after_other_keys_is_found_with_or_without_a_bom(tmp_path, bom):
    """Telling an empty array from a file without one looks past the top level's other keys (their
    values are no sign of a wrong file) and past a UTF-8 byte order mark."""
    corpus = tmp_path / "c.json"
    corpus.write_bytes(bom + b'{"source": "args.me", "version": [2020, 4], "arguments": []}')
    report = ReadReport()
    assert list(read_arguments(corpus, report=report)) == [] and report.files == 1


# ---------------------------------------------------------------- records

def test_record_properties_and_json_round_trip():
    a = Argument("x1", "We should", (Premise("first", "CON"), Premise("second", "PRO")),
                 source_title="Page", discussion_title="")
    assert a.premises_text == "first\n\nsecond"
    assert a.stance == "CON"
    assert a.title == "Page"
    assert Argument("x2", "c", discussion_title="Debate", source_title="Page").title == "Debate"
    assert Argument("x3", "c").stance == "" and Argument("x3", "c").premises_text == ""
    raw = a.to_json()
    assert " " not in raw.replace("We should", "")  # compact
    assert json.loads(raw)["premises"] == [{"text": "first", "stance": "CON"}, {"text": "second", "stance": "PRO"}]
    assert Argument.from_json(raw) == a
    assert Argument.from_json(raw.encode()) == a


def test_records_are_frozen_and_slotted():
    a = Argument("x", "c")
    with pytest.raises(AttributeError):
        a.id = "y"  # type: ignore[misc]
    assert not hasattr(a, "__dict__") and not hasattr(Premise("t"), "__dict__")


@pytest.mark.parametrize("raw, expected", [
    ("not json", "not valid JSON"),
    ("[]", "expected a JSON object"),
    ('{"conclusion": "c"}', "string 'id'"),
    ('{"id": "a", "premises": [{"stance": "PRO"}]}', "premise #1"),
])
def test_from_json_rejects_other_documents(raw, expected):
    with pytest.raises(InputError, match=expected):
        Argument.from_json(raw)


# ---------------------------------------------------------------- property test

texts = st.text(max_size=200)  # any unicode code point except lone surrogates


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conclusion=texts, premises=st.lists(st.tuples(texts, st.sampled_from(["PRO", "CON", ""])), max_size=4),
       title=texts, ascii_only=st.booleans())
def test_unicode_round_trips_through_file_reader_and_json(tmp_path_factory, conclusion, premises, title, ascii_only):
    record = {"id": "arg-ü-1", "conclusion": conclusion,
              "premises": [{"text": t, "stance": s, "annotations": []} for t, s in premises],
              "context": {"discussionTitle": title, "sourceId": "s"}}
    corpus = tmp_path_factory.mktemp("prop") / "c.json"
    corpus.write_bytes(json.dumps({"arguments": [record]}, ensure_ascii=ascii_only).encode("utf-8"))
    (argument,) = read_arguments(corpus)
    assert argument.conclusion == conclusion
    assert [(p.text, p.stance) for p in argument.premises] == premises
    assert argument.discussion_title == title
    assert argument.premises_text == "\n\n".join(t for t, _ in premises)
    assert Argument.from_json(argument.to_json()) == argument


# ---------------------------------------------------------------- topics: official files

EXPECTED_TOPICS = {
    "task1-2020.xml": 49, "task1-2021.xml": 50, "task1-2022.xml": 50,
    "task2-2020.xml": 50, "task2-2021.xml": 50, "task2-2022.xml": 50, "image-2023.xml": 50,
}


@needs_shared
def test_every_shared_topics_file_is_read():
    files = sorted(TOPICS_DIR.glob("*.xml"))
    assert files, f"no topics XML in {TOPICS_DIR}"
    for f in files:
        topics = read_topics(f)
        assert len(topics) == EXPECTED_TOPICS.get(f.name, 50), f.name
        assert len({t.number for t in topics}) == len(topics)
        for t in topics:
            assert t.number.isdigit() and t.title and t.title == " ".join(t.title.split())
            assert "\n" not in t.description and "\n" not in t.narrative


@needs_shared
def test_task1_2020_lacks_topic_25_and_has_descriptions():
    topics = read_topics(TOPICS_DIR / "task1-2020.xml")
    numbers = [int(t.number) for t in topics]
    assert "25" not in {t.number for t in topics} and numbers == sorted(set(range(1, 51)) - {25})
    assert topics[0] == Topic("1", "Should teachers get tenure?", topics[0].description, topics[0].narrative)
    assert topics[0].description.startswith("A user has heard that some countries do give teachers tenure")
    assert topics[0].narrative.startswith("Highly relevant arguments make a clear statement")
    assert all(t.objects == () for t in topics)


@needs_shared
def test_task2_2022_objects():
    topics = read_topics(TOPICS_DIR / "task2-2022.xml")
    assert all(len(t.objects) == 2 and all(t.objects) for t in topics)
    first = topics[0]
    assert (first.number, first.title, first.objects) == ("2", "Which is better, a laptop or a desktop?",
                                                           ("laptop", "desktop"))
    assert {"Canon", "Nikon"} <= {o for t in topics for o in t.objects}


@needs_shared
def test_titles_only_topics_2021():
    topics = read_topics(TOPICS_DIR / "task1-2021.xml")
    assert [t.number for t in topics] == [str(n) for n in range(51, 101)]
    assert all(t.description == "" and t.narrative == "" for t in topics)


# ---------------------------------------------------------------- topics: own fixtures

def write_topics(tmp_path: Path, text: str, name: str = "topics.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_topics_whitespace_unknown_tags_and_directory(tmp_path):
    path = write_topics(tmp_path, """<?xml version="1.0" encoding="UTF-8"?>
<topics>
  <!-- a comment -->
  <topic>
    <number> 7 </number>
    <title>
      Is   <em>nuclear</em>
      energy good?
    </title>
    <objects> nuclear energy ,  coal, </objects>
    <description>Some
       description.</description>
    <extra>ignored</extra>
  </topic>
  <topic><number>8</number><title>Café ‘Ü’?</title></topic>
</topics>
""")
    assert read_topics(tmp_path) == read_topics(path) == [
        Topic("7", "Is nuclear energy good?", "Some description.", "", ("nuclear energy", "coal")),
        Topic("8", "Café ‘Ü’?"),
    ]


@pytest.mark.parametrize("text, where, expected", [
    ("", "line 1", "malformed XML: the file is empty"),
    ("<topics>\n<topic><number>1</number>\n<title>a</topic>\n</topics>", "line 3", "malformed XML"),
    ("<topics><topic><number>1</number><title>R&D</title></topic></topics>", "line 1", "malformed XML"),
    ("<topics>\n</topics>", "line 1", "no <topic> elements"),
    ("<queries><topic><number>1</number><title>a</title></topic></queries>", "line 1",
     "the root element is <queries>, expected <topics>"),
    ("<topics>\n<topic>\n<number>1</number>\n</topic>\n</topics>", "line 2, topic 1", "the topic has no <title>"),
    ("<topics>\n<topic><number>1</number><title> \n </title></topic>\n</topics>", "line 2, topic 1",
     "the topic's <title> is empty"),
    ("<topics>\n<topic><title>a</title></topic>\n</topics>", "line 2, topic #1", "the topic has no <number>"),
    ("<topics>\n<topic><number></number><title>a</title></topic>\n</topics>", "line 2, topic #1",
     "<number> is empty"),
    ("<topics>\n<topic><number>1</number><title>a</title></topic>\n<topic><number>1</number><title>b</title>"
     "</topic>\n</topics>", "line 3, topic 1", "duplicate topic number 1 (first at line 2)"),
    ("<topics>\n<topic><number>1</number><title>a</title><title>b</title></topic>\n</topics>",
     "line 2, topic 1", "more than one <title>"),
    ("<topics>\n<query><number>1</number><title>a</title></query>\n</topics>", "line 2, topic #1",
     "unexpected element <query>"),
])
def test_bad_topics_files(tmp_path, text, where, expected):
    path = write_topics(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_topics(path)
    assert str(err.value).startswith(f"{path}, {where}"), str(err.value)
    assert expected in str(err.value)


def test_missing_topics_file(tmp_path):
    with pytest.raises(InputError, match="no such topics file"):
        read_topics(tmp_path / "nope.xml")
    with pytest.raises(InputError, match="no such topics file"):
        read_topics(tmp_path)  # a directory without topics.xml


# ---------------------------------------------------------------- stoplists

STOPLISTS = REPO / "stemming" / "stoplists"


@pytest.mark.parametrize("name, lines, distinct", [("smart.txt", 571, 570), ("terrier.txt", 733, 733)])
def test_stoplists_word_counts(name, lines, distinct):
    text = (STOPLISTS / name).read_text(encoding="utf-8")
    assert text.startswith("#")  # provenance header
    words = [w for w in text.splitlines() if w and not w.startswith("#")]
    assert len(words) == lines and len(set(words)) == distinct
    assert all(w == w.strip().lower() and " " not in w for w in words)


@pytest.mark.parametrize("text", ["Grüße — naïve “quotes” \u2028 \x00 \\ \"", "a lone \ud83d surrogate"])
def test_the_raw_record_is_the_standard_librarys_compact_json(text):
    """orjson writes the raw records (speed); they must be what json.dumps wrote before, and a
    lone surrogate orjson refuses still gives a record."""
    import json

    from touche.indexing.records import Argument, Premise
    argument = Argument("S1-A1", text, (Premise(text, "PRO"),), discussion_title=text)
    assert argument.to_json() == json.dumps(argument.to_dict(), ensure_ascii=False, separators=(",", ":"))
    assert Argument.from_json(argument.to_json()) == argument


def test_corpus_ids_with_line_breaks_are_bad_records_that_can_be_skipped(tmp_path):
    """Ids with \\n, \\r or U+2028 once crashed the search; now the reader rejects them by record
    and --skip-bad-records skips them."""
    import json

    import pytest

    from touche.errors import InputError
    from touche.indexing.argsme import read_arguments
    from touche.indexing.passages import PassageSource

    args = tmp_path / "args.json"
    good = {"id": "S1-A1", "conclusion": "c", "premises": [{"text": "t", "stance": "PRO"}]}
    args.write_text(json.dumps({"arguments": [good] + [dict(good, id=f"S1-A2{c}x") for c in ("\n", "\r", "\u2028")]}))
    with pytest.raises(InputError, match=r"argument #2 .*U\+000A"):
        list(read_arguments(args))
    assert [a.id for a in read_arguments(args, skip_bad_records=True)] == ["S1-A1"]
    passages = tmp_path / "p.jsonl"
    passages.write_text(
        json.dumps({"id": "p1", "contents": "x"}) + "\n" + json.dumps({"id": "p\u20282", "contents": "y"}) + "\n"
    )
    with pytest.raises(InputError, match=r"line 2.*U\+2028"):
        list(PassageSource(passages).records())


def argument_with_id(arg_id: str, text: str = "school uniforms help") -> dict:
    return {"id": arg_id, "conclusion": text, "premises": [{"text": text, "stance": "PRO"}], "context": {}}


def test_a_corpus_id_holding_a_lone_surrogate_is_a_bad_record(tmp_path):
    from touche.errors import InputError
    from touche.indexing.corpora import open_corpus
    corpus = write_corpus(tmp_path / "args.json", [argument_with_id("Sa-A1"), argument_with_id("S\ud800x-A1")])
    with pytest.raises(InputError, match="lone surrogate escape such as"):
        list(open_corpus("argsme", corpus).documents(["contents"]))
    source = open_corpus("argsme", corpus, skip_bad_records=True)
    assert [d for d, _, _ in source.documents(["contents"])] == ["Sa-A1"] and source.report.skipped == 1
    passages = tmp_path / "passages.jsonl"  # read by the json module: the surrogate itself arrives
    passages.write_text(json.dumps({"id": "clueweb12-\ud800___1", "contents": "x", "chatNoirUrl": "u"}) + "\n")
    with pytest.raises(InputError, match="lone surrogate U\\+D800"):
        list(open_corpus("passages", passages).documents(["contents"]))
