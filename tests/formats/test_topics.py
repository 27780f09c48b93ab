"""The topics reader (retrieval/formats/topics.py) as a user relies on it: a topics XML file that
tries to make the parser read a local file, fetch a URL or blow up entities is read safely or
refused; a malformed file is located at its line and column once; BEIR's queries.jsonl and a
queries frame's records are read under the topics file's rules with errors at their line or row;
topics_xml writes Touché's layout and reads back unchanged."""
from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.shared import cli
from touche.errors import InputError
from touche.retrieval.formats.topics import Topic, read_topics, topics_from_records, topics_xml

FAST = settings(max_examples=20, deadline=None, derandomize=True)


def write(tmp_path: Path, text: str, name: str = "topics.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def every_text(topics: list[Topic]) -> str:
    return " ".join(" ".join((t.number, t.title, t.description, t.narrative, *t.objects)) for t in topics)


# --------------------------------------------------------------------------- hardened XML parsing
def test_an_external_file_entity_never_brings_the_files_content_into_a_topic(tmp_path):
    """XXE: an entity declared as SYSTEM "file:///…/secret.txt" and used in the title must not
    put the secret into any topic (the reference stays unresolved)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-42", encoding="utf-8")
    path = write(tmp_path, f'<?xml version="1.0"?>\n<!DOCTYPE topics [<!ENTITY s SYSTEM "{secret.as_uri()}">]>\n'
                           "<topics><topic><number>1</number><title>Is &s; safe?</title>"
                           "<description>&s;</description><narrative>&s;</narrative><objects>&s;, b</objects>"
                           "</topic></topics>")
    topics = read_topics(path)
    assert [t.number for t in topics] == ["1"]
    assert "TOP-SECRET-42" not in every_text(topics)


def test_a_billion_laughs_file_is_refused_as_malformed_xml(tmp_path):
    """Nested entities that would expand to gigabytes are refused as malformed XML, not read
    into (empty or huge) topics."""
    levels = ['<!ENTITY l0 "lol">'] + [f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)]
    path = write(tmp_path, f"<!DOCTYPE topics [{''.join(levels)}]>\n"
                           "<topics><topic><number>1</number><title>&l9;</title></topic></topics>")
    with pytest.raises(InputError, match="malformed XML"):
        read_topics(path)


def test_a_parameter_entity_is_not_expanded_into_the_topics(tmp_path):
    """A parameter entity that would declare a general entity from a local file is not loaded:
    the file's content never reaches a topic."""
    secret = tmp_path / "defs.dtd"
    secret.write_text('<!ENTITY x "PARAM-SECRET">', encoding="utf-8")
    path = write(tmp_path, f'<!DOCTYPE topics [<!ENTITY % p SYSTEM "{secret.as_uri()}"> %p;]>\n'
                           "<topics><topic><number>1</number><title>a &x; b</title></topic></topics>")
    try:
        topics = read_topics(path)
    except InputError as refused:  # refusing is as safe as not expanding
        assert "PARAM-SECRET" not in str(refused)
    else:
        assert "PARAM-SECRET" not in every_text(topics)


def test_an_absurdly_deep_tree_is_refused_and_a_normal_nesting_read(tmp_path):
    """huge_tree stays off: 300 nested elements inside a title are refused as malformed XML,
    200 are read (their text is the title)."""
    def nested(depth):
        return ("<topics><topic><number>1</number><title>" + "<b>" * depth + "deep" + "</b>" * depth
                + "</title></topic></topics>")
    assert read_topics(write(tmp_path, nested(200))) == [Topic("1", "deep")]
    with pytest.raises(InputError, match="malformed XML"):
        read_topics(write(tmp_path, nested(300)))


@pytest.fixture
def http_server():
    """A loopback HTTP server that records every request (it serves a DTD defining &x;)."""
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            requests.append(self.path)
            body = b'<!ENTITY x "FETCHED">'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()
    server.server_close()
    thread.join()


def test_a_dtd_or_entity_at_a_url_is_never_fetched_and_the_topics_read(tmp_path, http_server):
    """A topics file naming an external DTD, an external entity and an external parameter entity
    at URLs reads its topics without trying any of them: no request reaches the server."""
    url, requests = http_server
    path = write(tmp_path, f'<!DOCTYPE topics SYSTEM "{url}/topics.dtd" [<!ENTITY e SYSTEM "{url}/e.txt">'
                           f'<!ENTITY % p SYSTEM "{url}/p.dtd"> %p;]>\n'
                           "<topics>\n<topic><number>3</number><title>Is &e; &x; fetched?</title></topic>\n</topics>")
    topics = read_topics(path)
    assert [t.number for t in topics] == ["3"] and "FETCHED" not in every_text(topics)
    assert requests == []


# --------------------------------------------------------------------------- malformed XML: where
def test_malformed_xml_is_located_at_line_and_column_once(tmp_path):
    """The tag mismatch on line 3 is reported as "line 3, column 17" (just after "</topic>" of
    "<title>a</topic>", counted by hand) in the location, and the parser's own copy of the
    location is not repeated in the message."""
    path = write(tmp_path, "<topics>\n<topic><number>1</number>\n<title>a</topic>\n</topics>")
    with pytest.raises(InputError) as refused:
        read_topics(path)
    text = str(refused.value)
    assert text.startswith(f"{path}, line 3, column 17: malformed XML: "), text
    assert text.count("column") == 1 and "<string>" not in text, text
    assert text.endswith("(expected <topics><topic>...</topic>...</topics>)"), text


# --------------------------------------------------------------------------- BEIR queries.jsonl
def beir(tmp_path: Path, *lines) -> Path:
    return write(tmp_path, "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n",
                 "queries.jsonl")


def test_beir_queries_take_description_and_narrative_from_their_metadata(tmp_path):
    path = beir(tmp_path, {"_id": "1", "text": " Is  it\tgood? ", "metadata": {"description": "D1", "narrative": "N1"}},
                "", {"_id": 2, "text": "Second", "metadata": "not an object"}, {"_id": "3", "text": "Third"})
    assert read_topics(path) == [Topic("1", "Is it good?", "D1", "N1"), Topic("2", "Second"), Topic("3", "Third")]


@pytest.mark.parametrize("bad", ['[1, 2]', '"a string"', '{"_id": "2"}', '{"_id": "2", "text": 5}',
                                 '{"_id": "2", "text": "  "}'])
def test_a_beir_line_without_a_text_is_refused_at_its_line(tmp_path, bad):
    """Blank lines count: the bad record on the file's third line is "line 3"."""
    path = beir(tmp_path, {"_id": "1", "text": "fine"}, "", bad)
    with pytest.raises(InputError, match='expected a JSON object with a non-empty "text"') as refused:
        read_topics(path)
    assert refused.value.where == "line 3"


def test_a_beir_line_that_is_not_json_is_refused_at_its_line(tmp_path):
    path = beir(tmp_path, "{not json")
    with pytest.raises(InputError, match="not valid JSON") as refused:
        read_topics(path)
    assert refused.value.where == "line 1"


def test_beir_query_ids_equal_as_numbers_are_refused_with_the_first_line(tmp_path):
    path = beir(tmp_path, {"_id": "1", "text": "a"}, {"_id": "2", "text": "b"}, {"_id": "01", "text": "c"})
    with pytest.raises(InputError, match=r"query 01 again \(first at line 1\)") as refused:
        read_topics(path)
    assert refused.value.where == "line 3"


# --------------------------------------------------------------------------- records (queries frames)
@FAST
@given(number=st.integers(1, 999_999_999))
@example(number=7)
def test_a_topic_number_pandas_made_a_float_is_read_as_the_whole_number(number):
    """A qid column with gaps becomes float in pandas: 7.0 is topic "7"."""
    assert topics_from_records([{"qid": float(number), "query": "q"}]) == [Topic(str(number), "q")]
    assert topics_from_records([{"qid": f"{number}.0", "query": "q"}])[0].number == str(number)


def test_a_non_ascii_digit_id_is_refused_quoting_it_as_written():
    """Only ASCII digits make a topic number; the refusal quotes the id as given, ".0" included."""
    with pytest.raises(InputError, match="topic id '1\u0667.0' is not a positive whole number"):
        topics_from_records([{"qid": "1\u0667.0", "query": "q"}])
    with pytest.raises(InputError, match="topic id '7.5' is not a positive whole number"):
        topics_from_records([{"qid": 7.5, "query": "q"}])


def test_a_bad_record_is_refused_at_its_row_counting_from_one():
    records = [{"qid": "1", "query": "a"}, {"qid": "x", "query": "b"}]
    with pytest.raises(InputError) as refused:
        topics_from_records(records, label="my frame")
    assert refused.value.where == "row 2" and str(refused.value).startswith("my frame, row 2: topic id 'x'")
    with pytest.raises(InputError, match=r"topic 01 again \(first in row 1\)"):
        topics_from_records([{"qid": "1", "query": "a"}, {"qid": "01", "query": "b"}])


@pytest.mark.parametrize("title", [float("nan"), None, 3, "   "])
def test_a_record_without_a_text_title_or_query_is_refused(title):
    """A frame's missing title is NaN (a float): refused with the message, not a crash."""
    with pytest.raises(InputError, match="the topic has no query") as refused:
        topics_from_records([{"qid": "1", "query": "ok"}, {"qid": "2", "title": title}])
    assert refused.value.where == "row 2"


@pytest.mark.parametrize("objects, expected", [
    (" laptop ,  desktop  computer,", ("laptop", "desktop computer")),
    (["laptop", " desktop "], ("laptop", "desktop")),
    (float("nan"), ()),
])
def test_a_records_objects_are_read_as_in_a_topics_file(objects, expected):
    """"a, b" is split at commas like <objects> in topics.xml; a list is taken as it is."""
    topics = topics_from_records([{"number": 2, "title": "Which is better?", "objects": objects}])
    assert topics == [Topic("2", "Which is better?", objects=expected)]


# --------------------------------------------------------------------------- topics_xml
def test_topics_xml_writes_touches_layout_and_leaves_out_empty_fields():
    """One element per line, indented as Touché's files; a title-only topic has only <number>
    and <title> (as the 2021 topics)."""
    text = topics_xml([Topic("1", "Is it?"), Topic("2", "Q & A", "D", "N", ("a", "b"))])
    assert text == ("<topics>\n"
                    "  <topic>\n"
                    "    <number>1</number>\n"
                    "    <title>Is it?</title>\n"
                    "  </topic>\n"
                    "  <topic>\n"
                    "    <number>2</number>\n"
                    "    <title>Q &amp; A</title>\n"
                    "    <description>D</description>\n"
                    "    <narrative>N</narrative>\n"
                    "    <objects>a,b</objects>\n"
                    "  </topic>\n"
                    "</topics>\n")


words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cn")), max_size=12) \
    .map(lambda s: " ".join(s.replace(",", " ").split()))


@FAST
@given(topics=st.lists(st.builds(Topic, number=st.just(""), title=words.filter(bool), description=words,
                                 narrative=words, objects=st.lists(words.filter(bool), max_size=3).map(tuple)),
                       min_size=1, max_size=4))
def test_topics_xml_reads_back_unchanged(tmp_path_factory, topics):
    """For any topics (whitespace-collapsed texts, objects without commas), read_topics of
    topics_xml gives them back, empty descriptions and narratives included."""
    topics = [Topic(str(i), t.title, t.description, t.narrative, t.objects) for i, t in enumerate(topics, 1)]
    path = tmp_path_factory.mktemp("xml") / "topics.xml"
    path.write_text(topics_xml(topics), encoding="utf-8")
    assert read_topics(path) == topics


def test_malformed_topics_in_the_input_directory(tmp_path, fixture_corpus):
    tira = tmp_path / "in"
    tira.mkdir()
    (tira / "args.json").write_text((fixture_corpus / "args-fixture.json").read_text())
    (tira / "topics.xml").write_text("<topics>\n<topic><number>1</number><title>Unclosed</topic>\n</topics>\n")
    code, text = cli("run-all", "-i", str(tira), "-o", str(tmp_path / "out"))
    assert code == 2 and str(tira / "topics.xml") in text and "line 2" in text


def test_topic_numbers_must_be_whole_numbers_and_distinct_as_numbers(tmp_path):
    import pytest

    from touche.errors import InputError
    from touche.retrieval.formats.topics import read_topics

    for number, message in [("abc", "'abc' is not a positive whole number"), ("-5", "'-5' is not a positive"),
                            ("1.5", "'1.5' is not a positive")]:
        topics = tmp_path / f"t{number}.xml"
        topics.write_text(f"<topics><topic><number>{number}</number><title>T?</title></topic></topics>")
        with pytest.raises(InputError, match=message):
            read_topics(topics)
    twins = tmp_path / "twins.xml"
    twins.write_text("<topics>\n<topic><number>1</number><title>A?</title></topic>\n"
                     "<topic><number>01</number><title>B?</title></topic>\n</topics>")
    with pytest.raises(InputError, match="topic number 01 is topic 1 again"):
        read_topics(twins)
