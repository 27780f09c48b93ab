"""ChatNoir as the first stage over the whole ClueWeb12 (733M pages: beyond one machine).

ChatNoir (Elasticsearch over ClueWeb12, run by the Touché organisers) answers each topic's
comparative query; its hits are fetched from ChatNoir's cache and written as a small ClueWeb12
corpus (WARC/1.0, ``WARC-TREC-ID``) that our Lucene analyzers index and our re-rankers re-rank
like any local corpus:

    touche chatnoir -c configs/task2/3-rerank.yaml -t topics.xml -o fetched/
    touche run -c configs/task2/3-rerank.yaml -i fetched/ -t topics.xml -o run.txt

The request and response formats are those of the ``chatnoir-api`` package (its pydantic models
``Request`` and ``SearchResponse`` serialise and validate every exchange). Its transport is not
used: it retries neither timeouts nor dropped connections, has no base URL to point at another
server, and its back-off turns negative below one second. Retries are urllib3's ``Retry``
(timeouts, dropped connections, 429 and 5xx, ``Retry-After`` honoured) mounted on a requests
session, with the back-off of the config; a test server on loopback speaks ChatNoir's format.

The API key comes from one place: the environment variable ``CHATNOIR_API_KEY``, or the file
named by ``CHATNOIR_API_KEY_FILE`` (a secret mounted into a container). It goes only to
``base_url`` over https, whose host must be in ``allowed_hosts``, and it is masked (``***``) in
every message, also when a reply echoes it. It is never written anywhere.
"""
from __future__ import annotations

import html
import os
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Callable
from urllib.parse import urljoin

import requests
from chatnoir_api.model import index_id
from chatnoir_api.v1.model import Request, SearchResponse
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from touche.atomic import atomic_directory, write_text
from touche.errors import ConfigError, ToucheError
from touche.indexing.clueweb import write_warc
from touche.retrieval.tasks.task2.objects import comparative_query
from touche.specs.task2 import ChatNoirSpec, Task2Spec

RETRIED_STATUS = (429, 500, 502, 503, 504)


class ChatNoirError(ToucheError):
    """ChatNoir refused or failed a request (after the retries allowed)."""


@dataclass(frozen=True)
class ChatNoirHit:
    trec_id: str
    uuid: str
    score: float
    title: str
    url: str


KEY_VARIABLE = "CHATNOIR_API_KEY"
KEY_FILE_VARIABLE = "CHATNOIR_API_KEY_FILE"


def api_key() -> str:
    """The key from $CHATNOIR_API_KEY, else from the file named by $CHATNOIR_API_KEY_FILE."""
    key = os.environ.get(KEY_VARIABLE, "")
    if not key.strip() and os.environ.get(KEY_FILE_VARIABLE):
        path = Path(os.environ[KEY_FILE_VARIABLE])
        try:
            key = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read the ChatNoir API key file ({exc.strerror})", path=path) from None
    if not key.strip():
        raise ConfigError(f"no ChatNoir API key: set the environment variable {KEY_VARIABLE} "
                          f"(or {KEY_FILE_VARIABLE} to a file holding it)")
    return key.strip()


class _Retry(Retry):
    """urllib3's Retry with the config's back-off (``backoff`` doubled per retry, capped at
    ``max_backoff``, never shorter than ``Retry-After``) and an injectable sleep (tests)."""

    first_wait: float = 1.0
    max_wait: float = 60.0
    sleeper: Callable[[float], None] = staticmethod(time.sleep)

    def new(self, **kw):
        retry = super().new(**kw)
        retry.first_wait, retry.max_wait, retry.sleeper = self.first_wait, self.max_wait, self.sleeper
        return retry

    def sleep(self, response=None) -> None:
        delay = self.first_wait * (2 ** max(len(self.history) - 1, 0))
        retry_after = response.headers.get("Retry-After") if response is not None else None
        if retry_after:
            delay = max(delay, _retry_after(retry_after))
        self.sleeper(min(delay, self.max_wait))


class ChatNoirClient:
    """Search and cache requests; timeouts, connection errors, 429 and 5xx are retried."""

    def __init__(self, spec: ChatNoirSpec, key: str | None = None, *, sleep: Callable[[float], None] = time.sleep,
                 session: requests.Session | None = None):
        self.spec = spec
        self.key = key if key is not None else api_key()
        retry = _Retry(total=spec.retries, connect=spec.retries, read=spec.retries, status=spec.retries,
                       other=0, allowed_methods=None, status_forcelist=RETRIED_STATUS, raise_on_status=False,
                       respect_retry_after_header=False)  # our sleep() honours Retry-After, capped
        retry.first_wait, retry.max_wait, retry.sleeper = spec.backoff, spec.max_backoff, sleep
        self.http = session or requests.Session()
        adapter = HTTPAdapter(max_retries=retry)
        self.http.mount("http://", adapter)
        self.http.mount("https://", adapter)
        self.requests_sent = 0

    def mask(self, text: str) -> str:
        """``text`` with the API key replaced by ***: replies and errors may echo it."""
        return text.replace(self.key, "***") if self.key else text

    # ------------------------------------------------------------------ transport
    def _request(self, method: str, url: str, **kwargs) -> requests.Response:
        attempts = self.spec.retries + 1
        try:
            response = self.http.request(method, url, timeout=self.spec.timeout, **kwargs)
        except (requests.Timeout, requests.ConnectionError) as exc:
            self.requests_sent += attempts
            timed_out = isinstance(exc, requests.Timeout) or "timed out" in str(exc).lower()
            last = (
                f"no answer within {self.spec.timeout:g} s"
                if timed_out
                else f"connection failed ({type(exc).__name__})"
            )
            raise ChatNoirError(f"{last}; gave up after {attempts} attempts "
                                "(raise task2.chatnoir.retries or .timeout, or try later)", path=url) from None
        retries = getattr(response.raw, "retries", None)
        self.requests_sent += 1 + (len(retries.history) if retries is not None else 0)
        if response.status_code == 401:
            raise ChatNoirError(f"ChatNoir rejected the API key (HTTP 401); check ${KEY_VARIABLE}", path=url)
        if response.status_code == 403:
            raise ChatNoirError("ChatNoir refused access (HTTP 403: key without rights or address blocked)", path=url)
        if response.status_code in RETRIED_STATUS:
            last = "rate limit reached (HTTP 429)" if response.status_code == 429 else \
                f"server error (HTTP {response.status_code})"
            raise ChatNoirError(f"{last}; gave up after {attempts} attempts "
                                "(raise task2.chatnoir.retries or .timeout, or try later)", path=url)
        if not response.ok:
            raise ChatNoirError(f"ChatNoir answered HTTP {response.status_code}: {self.mask(response.text[:300])}",
                                path=url)
        return response

    # ------------------------------------------------------------------ API
    def search_page(self, query: str, start: int, size: int):
        request = Request(apikey=self.key, query=query, index={self.spec.index}, start=start, size=size,
                          explain=False, minimal=False, search_method=self.spec.search_method)
        response = self._request("POST", urljoin(self.spec.base_url, "api/v1/_search"),
                                 data=request.model_dump_json(by_alias=True).encode("utf-8"),
                                 headers={"Accept": "application/json", "Content-Type": "application/json"})
        try:
            return SearchResponse.model_validate_json(response.text)
        except ValueError as exc:
            raise ChatNoirError(f"unexpected search response (not ChatNoir's format): {self.mask(str(exc)[:300])}",
                                path=response.url) from None

    def search(self, query: str, size: int | None = None) -> list[ChatNoirHit]:
        """Up to ``size`` hits, best first, fetched page by page."""
        size = size or self.spec.size
        hits: list[ChatNoirHit] = []
        seen: set[str] = set()
        while len(hits) < size:
            page = self.search_page(query, len(hits), min(self.spec.page_size, size - len(hits)))
            for result in page.results:
                if not result.trec_id or result.trec_id in seen:
                    continue
                seen.add(result.trec_id)
                hits.append(ChatNoirHit(result.trec_id, str(result.uuid), float(result.score),
                                        result.title.text, result.target_uri or ""))
            if len(page.results) == 0 or len(hits) >= page.meta.total_results:
                break
        return hits[:size]

    def cache(self, hit: ChatNoirHit) -> bytes:
        """The page as ChatNoir's cache holds it (HTML, or plain text wrapped into HTML)."""
        params = {"uuid": hit.uuid, "index": index_id(self.spec.index), "raw": "true"}
        if self.spec.fetch == "plain":
            params["plain"] = "true"
        response = self._request("GET", urljoin(self.spec.base_url, "cache"), params=params)
        if self.spec.fetch == "plain":
            paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in response.text.split("\n\n") if p.strip())
            return (f"<html><head><title>{html.escape(hit.title)}</title></head><body>{paragraphs}</body></html>"
                    .encode("utf-8"))
        return response.content


def _retry_after(value: str) -> float:
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return 0.0


def fetch_corpus(topics, spec: Task2Spec, out_dir: Path, client: ChatNoirClient,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Search every topic, fetch every hit once, write ``out_dir`` as a ClueWeb12 corpus:
    ``ClueWeb12_chatnoir/topic-<n>.warc.gz`` plus ``chatnoir-ranking.tsv`` (topic, id, rank,
    score). Written in a temporary directory and renamed into place when complete."""
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ToucheError("the output directory exists and is not empty; choose a new one", path=out_dir)
    with atomic_directory(out_dir) as tmp:
        fetched: set[str] = set()
        ranking_lines = []
        for topic in topics:
            query = comparative_query(topic, spec.query, spec.objects)
            hits = client.search(query)
            pages = []
            for rank, hit in enumerate(hits, 1):
                ranking_lines.append(f"{topic.number}\t{hit.trec_id}\t{rank}\t{hit.score}\n")
                if hit.trec_id in fetched:
                    continue
                fetched.add(hit.trec_id)
                pages.append((hit.trec_id, hit.url, client.cache(hit)))
            if pages:  # a topic whose hits were all fetched before adds no file
                write_warc(tmp / "ClueWeb12_chatnoir" / f"topic-{topic.number}.warc.gz", pages)
            if progress:
                progress(f"topic {topic.number}: {len(hits)} hits, {len(pages)} new pages")
        write_text(tmp / "chatnoir-ranking.tsv", "".join(ranking_lines))
    return out_dir
