"""First-stage retrieval: all topics searched inside the JVM, one string per topic back.

``Ranking`` (topic id → [(docid, score)], best first) is the value every stage takes and
returns: search, re-ranking and fusion compose like PyTerrier's transformers.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

from touche.indexing.builder import index_paths as lucene_dirs
from touche.stemming import analyzers
from touche import jvm
from touche.config import BM25, AnalyzerSpec, LMDirichlet
from touche.errors import ToucheError

Ranking = dict[str, list[tuple[str, float]]]
_RECORD_SEPARATOR = "\x1e"  # BatchSearcher.RECORD_SEPARATOR
# Lucene refuses a query of more than IndexSearcher.maxClauseCount (1,024 by default) term clauses
# with TooManyClauses, which once ended a whole run. The cap is raised to MAX_CLAUSES (a clause
# per distinct term and field), and a longer query is cut to its first MAX_QUERY_WORDS distinct
# words, with a warning naming the topic: the other topics are never lost.
MAX_CLAUSES = 1 << 16
MAX_QUERY_WORDS = 4_000
log = logging.getLogger(__name__)


class Searcher:
    """A Lucene searcher over one index, or several shards searched as one."""

    def __init__(self, index_paths: Path | Sequence[Path], analyzer: AnalyzerSpec, base_dir: Path | None = None):
        paths = [index_paths] if isinstance(index_paths, (str, Path)) else list(index_paths)
        for p in paths:
            if not Path(p).is_dir():
                raise ToucheError("index directory not found", path=p)
        # A sharded index directory stands for its shards: all are searched as one.
        paths = [d for p in paths for d in lucene_dirs(Path(p))]
        self.analyzer_spec = analyzer
        jvm.autoclass("org.apache.lucene.search.IndexSearcher").setMaxClauseCount(MAX_CLAUSES)
        self._java = jvm.autoclass("touche.lucene.BatchSearcher")([str(p) for p in paths], analyzers.build(analyzer, base_dir))

    def set_similarity(self, similarity: BM25 | LMDirichlet) -> None:
        if isinstance(similarity, BM25):
            self._java.setBm25(float(similarity.k1), float(similarity.b))
        else:
            self._java.setLmDirichlet(float(similarity.mu))

    def search(self, queries: Mapping[str, str], field_weights: Mapping[str, float], k: int = 1000,
               threads: int = 2) -> Ranking:
        qids = list(queries)
        fields, weights = list(field_weights), [float(w) for w in field_weights.values()]
        texts = [_bounded(qid, queries[qid], len(fields)) for qid in qids]
        results = self._java.search(texts, fields, weights, int(k), int(threads))
        return {qid: _parse_hits(text) for qid, text in zip(qids, results)}

    def explain(self, query: str, field_weights: Mapping[str, float], docid: str) -> str | None:
        return self._java.explain(query, list(field_weights), [float(w) for w in field_weights.values()], docid)

    def raw(self, docids: Sequence[str]) -> dict[str, str | None]:
        """Stored raw records by id (None where absent), fetched in one JNI call as one string."""
        docids = list(docids)
        if not docids:
            return {}
        records = self._java.rawJoined(docids).split(_RECORD_SEPARATOR)[:-1]
        if len(records) != len(docids):  # a raw record that is not JSON held the separator
            return dict(zip(docids, self._java.raw(docids)))
        return {d: (r or None) for d, r in zip(docids, records)}

    def close(self) -> None:
        self._java.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _bounded(qid: str, text: str, n_fields: int) -> str:
    """The query, cut to at most MAX_QUERY_WORDS distinct words (and MAX_CLAUSES over all fields)."""
    words = text.split()
    limit = min(MAX_QUERY_WORDS, MAX_CLAUSES // max(n_fields, 1))
    distinct = dict.fromkeys(w.lower() for w in words)
    if len(distinct) <= limit:
        return text
    kept, seen = [], set()
    for word in words:
        key = word.lower()
        if key not in seen:
            if len(seen) == limit:
                continue
            seen.add(key)
        kept.append(word)
    log.warning("warning: topic %s: the query has %d distinct words; searched with its first %d", qid,
                len(distinct), limit)
    return " ".join(kept)


def _parse_hits(text: str) -> list[tuple[str, float]]:
    hits = []
    for line in text.splitlines():
        docid, score = line.rsplit("\t", 1)
        hits.append((docid, float(score)))
    return hits
