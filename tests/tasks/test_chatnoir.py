"""ChatNoir first stage against a small HTTP server on loopback that speaks ChatNoir's API:
POST /api/v1/_search (JSON request → meta + results) and GET /cache (the page), with its errors
(401 bad key, 429 rate limit, 5xx) and slow answers (timeouts, retried)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from touche.errors import ConfigError
from touche.retrieval.formats.topics import Topic
from touche.retrieval.tasks.task2.chatnoir import ChatNoirClient, ChatNoirError, api_key, fetch_corpus
from touche.specs.task2 import ChatNoirSpec, Task2Spec

GOOD_KEY = "test-key-not-secret"
PAGES = {
    f"clueweb12-0000wb-00-0000{i}": (
        f"00000000-0000-0000-0000-00000000000{i}", f"Laptop or desktop, part {i}",
        f"<html><head><title>Laptop vs desktop {i}</title></head><body><p>A laptop is better than a desktop "
        f"for travel, page {i}. A desktop is cheaper and faster than a laptop.</p></body></html>")
    for i in range(1, 6)
}


class FakeChatNoir(BaseHTTPRequestHandler):
    """Behaviour is set per test through the server's attributes."""

    def log_message(self, *args):  # keep test output clean
        pass

    def _json(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 429:
            self.send_header("Retry-After", "0")
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and went away
            pass

    def do_POST(self):
        server = self.server
        server.calls.append("search")
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server.requests.append(request)
        if server.failures:
            kind = server.failures.pop(0)
            if kind == "slow":
                threading.Event().wait(0.6)  # longer than the client's timeout
            elif kind in (429, 500, 503):
                return self._json(kind, {"error": {"code": kind}})
            elif kind == "echo":  # a misbehaving server that repeats the request, key and all
                return self._json(400, {"error": {"code": 400, "request": request}})
        if request["apikey"] != GOOD_KEY:
            return self._json(401, {"error": {"code": 401, "message": "Invalid API key"}})
        ids = sorted(PAGES)
        start, size = request["from"], request["size"]
        results = [{
            "score": 10.0 - rank, "uuid": PAGES[i][0], "index": "cw12", "trec_id": i,
            "target_hostname": "example.org", "target_uri": f"http://example.org/{i}", "page_rank": None,
            "spam_rank": 80, "title": PAGES[i][1], "snippet": "a <em>laptop</em> is better",
            "explanation": None, "warc_id": None, "cache_uri": f"/cache?uuid={PAGES[i][0]}&index=cw12",
            "crawl_date": None, "content_type": "text/html", "lang": "en"}
            for rank, i in enumerate(ids[start:start + size], start)]
        self._json(200, {"meta": {"indices": ["cw12"], "query_time": 3, "total_results": len(ids),
                                  "search_method": "default"}, "results": results})

    def do_GET(self):
        self.server.calls.append("cache")
        uuid = self.path.split("uuid=")[1].split("&")[0]
        page = next(p for p in PAGES.values() if p[0] == uuid)
        body = page[2].encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeChatNoir)
    httpd.calls, httpd.requests, httpd.failures = [], [], []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _spec(server, **changes) -> ChatNoirSpec:
    values = {"base_url": f"http://127.0.0.1:{server.server_address[1]}/", "size": 3, "page_size": 2,
              "timeout": 0.3, "retries": 2, "backoff": 0.0}
    values.update(changes)
    return ChatNoirSpec(**values)


def test_search_pages_through_results_in_chatnoirs_request_format(server):
    client = ChatNoirClient(_spec(server), GOOD_KEY)
    hits = client.search("laptop desktop")
    assert [h.trec_id for h in hits] == sorted(PAGES)[:3]
    assert hits[0].score > hits[1].score and hits[0].title == "Laptop or desktop, part 1"
    # two pages of 2 + 1, with ChatNoir's field names ("from", index id "cw12")
    assert [(r["from"], r["size"]) for r in server.requests] == [(0, 2), (2, 1)]
    assert server.requests[0]["index"] == ["cw12"] and server.requests[0]["query"] == "laptop desktop"


def test_bad_key_is_a_clear_error_without_retries(server):
    client = ChatNoirClient(_spec(server), "wrong-key")
    with pytest.raises(ChatNoirError, match="rejected the API key"):
        client.search("laptop")
    assert server.calls == ["search"]


def test_rate_limit_and_server_errors_are_retried_with_backoff(server):
    waits = []
    server.failures = [429, 503]
    client = ChatNoirClient(_spec(server, backoff=0.5, max_backoff=0.75), GOOD_KEY, sleep=waits.append)
    assert len(client.search("laptop", size=2)) == 2
    assert waits == [0.5, 0.75]  # doubled, capped at max_backoff
    assert server.calls == ["search"] * 3


def test_timeouts_are_retried_then_reported(server):
    server.failures = ["slow"]
    client = ChatNoirClient(_spec(server), GOOD_KEY)
    assert len(client.search("laptop", size=1)) == 1  # the slow answer timed out, the retry succeeded
    server.failures = ["slow", "slow", "slow"]
    with pytest.raises(ChatNoirError, match=r"no answer within 0.3 s; gave up after 3 attempts"):
        client.search("laptop", size=1)


def test_api_key_comes_from_one_variable_or_its_file_never_a_default(monkeypatch, tmp_path):
    monkeypatch.delenv("CHATNOIR_API_KEY", raising=False)
    monkeypatch.delenv("CHATNOIR_API_KEY_FILE", raising=False)
    with pytest.raises(ConfigError, match="CHATNOIR_API_KEY"):
        api_key()
    secret = tmp_path / "key"
    secret.write_text("from-file\n")
    monkeypatch.setenv("CHATNOIR_API_KEY_FILE", str(secret))
    assert api_key() == "from-file"
    monkeypatch.setenv("CHATNOIR_API_KEY", " abc ")
    assert api_key() == "abc"


@pytest.mark.parametrize("url, message", [
    ("http://chatnoir.eu/", "must use https"),
    ("https://evil.example.org/", "not in allowed_hosts"),
])
def test_the_key_goes_only_to_allowed_hosts_over_https(url, message):
    with pytest.raises(ValueError, match=message):
        ChatNoirSpec(base_url=url)
    assert ChatNoirSpec(base_url="https://chatnoir.eu").base_url == "https://chatnoir.eu/"
    assert ChatNoirSpec(base_url="https://mirror.example.org/", allowed_hosts=("mirror.example.org",))


def test_the_config_holds_no_key_setting():
    with pytest.raises(ValueError, match="api_key"):
        ChatNoirSpec(api_key="secret")


def test_a_reply_that_echoes_the_key_is_masked(server):
    server.failures = ["echo"]
    client = ChatNoirClient(_spec(server), GOOD_KEY)
    with pytest.raises(ChatNoirError) as error:
        client.search("laptop", size=1)
    assert GOOD_KEY not in str(error.value) and "***" in str(error.value)


def test_fetch_corpus_writes_a_clueweb_corpus_our_reader_indexes(server, tmp_path):
    from touche.indexing.clueweb import ClueWebSource

    client = ChatNoirClient(_spec(server), GOOD_KEY)
    topics = [Topic("2", "Which is better, a laptop or a desktop?"), Topic("3", "Laptop or notebook?")]
    out = fetch_corpus(topics, Task2Spec(), tmp_path / "fetched", client)
    ranking = (out / "chatnoir-ranking.tsv").read_text().splitlines()
    assert len(ranking) == 6 and ranking[0].startswith("2\tclueweb12-0000wb-00-00001\t1\t")
    assert server.calls.count("cache") == 3  # pages hit by both topics are fetched once
    docs = {doc.id: doc for doc in ClueWebSource(out, workers=1).records()}
    assert sorted(docs) == sorted(PAGES)[:3]
    assert "better than a desktop" in docs["clueweb12-0000wb-00-00001"].text
    assert not list(tmp_path.glob(".fetched.tmp-*"))
    with pytest.raises(Exception, match="not empty"):
        fetch_corpus(topics, Task2Spec(), out, client)
