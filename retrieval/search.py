"""First-stage retrieval: all topics searched inside the JVM, one string per topic back.

``Ranking`` (topic id → [(docid, score)], best first) is the value every stage takes and
returns: search, re-ranking and fusion compose like PyTerrier's transformers.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

from touche import jvm
from touche.config import BM25, AnalyzerSpec, LMDirichlet
from touche.errors import InputError, ToucheError
from touche.indexing.builder import index_paths as lucene_dirs
from touche.notes import topic_note
from touche.stemming import analyzers

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
        self._analyzer = analyzers.build(analyzer, base_dir)
        self._java = jvm.autoclass("touche.lucene.BatchSearcher")([str(p) for p in paths], self._analyzer)

    def set_similarity(self, similarity: BM25 | LMDirichlet) -> None:
        if isinstance(similarity, BM25):
            self._java.setBm25(float(similarity.k1), float(similarity.b))
        else:
            self._java.setLmDirichlet(float(similarity.mu))

    def search(self, queries: Mapping[str, str], field_weights: Mapping[str, float], k: int = 1000,
               threads: int = 2, within: Mapping[str, Sequence[str]] | None = None) -> Ranking:
        """Each query's best ``k`` documents; with ``within`` ({qid: document ids}), each query's
        candidates scored (a re-ranker's first stage): those the query matches by their score, the
        others after them with 0 (as PyTerrier's re-rankers keep every candidate); a candidate the
        index does not hold is left out, and said (``touche.notes``)."""
        qids = list(queries)
        fields, weights = list(field_weights), [float(w) for w in field_weights.values()]
        texts = [_bounded(qid, queries[qid], len(fields)) for qid in qids]
        if within is None:
            results = self._java.search(texts, fields, weights, int(k), int(threads))
            ranking = {qid: _parse_hits(text) for qid, text in zip(qids, results)}
            self._say_empty_queries(queries, fields, [q for q in qids if not ranking[q]])
            return ranking
        candidates = [list(dict.fromkeys(str(d) for d in within.get(qid, ()))) for qid in qids]
        for qid, docs in zip(qids, candidates):
            if any("\n" in d for d in docs):
                raise InputError(f"topic {qid}: a candidate document id holds a line break")
        results = self._java.searchWithin(texts, ["\n".join(docs) for docs in candidates], fields, weights,
                                          int(threads))
        ranking = {}
        nothing = set(self._say_empty_queries(queries, fields, [q for q, text in zip(qids, results) if not text]))
        absent = self.missing(d for docs in candidates for d in docs)
        for qid, text, docs in zip(qids, results, candidates):
            hits = _parse_hits(text)
            scored = {d for d, _ in hits}
            lacking = [d for d in docs if d in absent]
            if lacking and qid not in nothing:  # no score of this index is theirs to give: said, not made up
                shown = ", ".join(repr(d) for d in lacking[:3]) + (f" and {len(lacking) - 3} more" if len(lacking) > 3
                                                                   else "")
                topic_note(log, qid, f"{len(lacking)} candidate document(s) are not in this index ({shown}): left "
                                     "out of its results")
            # a query that analyses to nothing scores no candidate: it has no results, as without candidates
            ranking[qid] = [] if qid in nothing else \
                hits + [(d, 0.0) for d in docs if d not in scored and d not in absent]
        return ranking

    def missing(self, docids) -> set[str]:
        """The document ids this index does not hold."""
        joined = "\n".join(dict.fromkeys(docids))
        return set(self._java.missing(joined).split("\n")) - {""} if joined else set()

    def _say_empty_queries(self, queries: Mapping[str, str], fields: Sequence[str], empty: Sequence[str]) -> list[str]:
        """The queries among ``empty`` (no hits) that analyse to nothing (stopwords and punctuation
        only), each said with a warning: it has no results, and the batch goes on."""
        tokens = jvm.autoclass("touche.lucene.Analyzers").tokens
        nothing = [qid for qid in empty if not any(len(tokens(self._analyzer, f, queries[qid])) for f in fields)]
        for qid in nothing:
            topic_note(log, qid, f"the query {queries[qid][:80]!r} analyses to nothing (stopwords and punctuation "
                                 "only): no results for it")
        return nothing

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
    kept: list[str] = []
    seen: set[str] = set()
    for word in words:
        key = word.lower()
        if key not in seen:
            if len(seen) == limit:
                continue
            seen.add(key)
        kept.append(word)
    topic_note(log, qid, f"the query has {len(distinct)} distinct words; searched with its first {limit}")
    return " ".join(kept)


def _parse_hits(text: str) -> list[tuple[str, float]]:
    hits = []
    for line in text.splitlines():
        docid, score = line.rsplit("\t", 1)
        hits.append((docid, float(score)))
    return hits
