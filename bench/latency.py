"""Search latency per topic on a built index: ``python -m bench.latency INDEX_DIR TOPICS.xml``.

Each topic is searched alone (one query, one thread, 1,000 hits, BM25), as an interactive
user or a per-topic pipeline would; the first pass after opening the index is "cold" (the
operating system may still have the index files cached from building them: drop the page cache
for a truly cold disk), the second "warm". Also the whole topic set at once on all threads, as
``touche run`` does. Prints JSON.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from touche import jvm
from touche.config import AnalyzerSpec
from touche.indexing.builder import open_index
from touche.retrieval.formats.topics import read_topics
from touche.retrieval.search import Searcher


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    index_dir, topics_path = Path(argv[0]), Path(argv[1])
    jvm.start()
    info = open_index(index_dir)
    analyzer = AnalyzerSpec.model_validate(info.meta["analyzer"])
    field = info.meta["index"]["fields"][0]
    topics = {t.number: t.title for t in read_topics(topics_path)}
    opened = time.perf_counter()
    searcher = Searcher(info.paths, analyzer)
    open_seconds = time.perf_counter() - opened
    passes = {}
    for name in ("cold", "warm"):
        per_topic = []
        for qid, title in topics.items():
            started = time.perf_counter()
            searcher.search({qid: title}, {field: 1.0}, k=1000, threads=1)
            per_topic.append(1000 * (time.perf_counter() - started))
        per_topic.sort()
        passes[name] = {"median_ms": round(statistics.median(per_topic), 1),
                        "p95_ms": round(per_topic[int(0.95 * (len(per_topic) - 1))], 1),
                        "max_ms": round(per_topic[-1], 1)}
    started = time.perf_counter()
    searcher.search(topics, {field: 1.0}, k=1000, threads=2)
    batch = time.perf_counter() - started
    searcher.close()
    size = sum(f.stat().st_size for p in info.paths for f in Path(p).rglob("*") if f.is_file())
    print(json.dumps({"index": str(index_dir), "documents": info.documents, "index_mib": round(size / 2**20),
                      "topics": len(topics), "open_seconds": round(open_seconds, 3), **passes,
                      "all_topics_2_threads_seconds": round(batch, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
