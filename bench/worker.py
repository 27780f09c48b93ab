"""One benchmark step in its own process (``python -m bench.worker STEP ...``), so that each
step's wall time, CPU time and peak RSS are its own. Prints one JSON line last.

Steps: ``jvm`` (start-up), ``index`` (our path, one variant's index), ``runs`` (our path, run
files of several variants in one session, each timed), ``bm25s`` (the pure-Python engine:
parse, tokenize, index, retrieve).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

T0 = time.perf_counter()


def _jvm_seconds(heap: str | None) -> float:
    from touche import jvm
    started = time.perf_counter()
    jvm.start(heap)
    jvm.autoclass("touche.lucene.BatchIndexer")  # loads Lucene's classes too
    return time.perf_counter() - started


def step_jvm(args) -> dict:
    seconds = _jvm_seconds(args.heap)
    return {"jvm_seconds": seconds, "process_seconds": time.perf_counter() - T0}


def _variant(args):
    from touche.config import load_variant
    overrides = dict(kv.split("=", 1) for kv in args.set or [])
    return load_variant(Path(args.variant), overrides)


def step_index(args) -> dict:
    jvm_seconds = _jvm_seconds(args.heap)
    from bench.measure import directory_mib
    from touche.indexing.builder import ensure_index
    loaded = _variant(args)
    started = time.perf_counter()
    info = ensure_index(loaded.variant, Path(args.corpus), Path(args.index_root), base_dir=loaded.path.parent,
                        progress=False, shards=args.shards)
    seconds = time.perf_counter() - started
    result = {"seconds": seconds, "documents": info.documents, "docs_per_second": info.documents / seconds,
              "index": str(info.path), "size_mib": directory_mib(info.path), "jvm_seconds": jvm_seconds,
              "build": info.meta["build"]}
    if args.compare_with:  # same run as this other index? (after timing: not part of the build)
        result["compare"] = compare_indexes(loaded, Path(args.topics), [info.path, Path(args.compare_with)])
    return result


def step_runs(args) -> dict:
    jvm_seconds = _jvm_seconds(args.heap)
    from touche.config import load_variant
    from touche.retrieval.session import Session
    session = Session(Path(args.corpus), Path(args.topics), Path(args.index_root), progress=False)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    timings = {}
    try:
        overrides = dict(kv.split("=", 1) for kv in args.set or [])
        for path in args.variants:
            loaded = load_variant(Path(path), overrides)
            started = time.perf_counter()
            result = session.run(loaded)
            session.write(result, out / f"{loaded.name}.txt")
            timings[loaded.name] = {"seconds": time.perf_counter() - started,
                                    "hits": sum(len(h) for h in result.ranking.values()),
                                    "topics": len(result.ranking), "index": str(result.index.path),
                                    "index_created": result.index.meta["build"]["created"]}
    finally:
        session.close()
    return {"runs": timings, "jvm_seconds": jvm_seconds}


def step_bm25s(args) -> dict:
    """The alternative a Python user would pick: bm25s (sparse matrices, numpy), with a Snowball
    stemmer from PyStemmer when installed and bm25s' English stoplist."""
    import bm25s

    from touche.indexing.corpora import open_corpus
    from touche.retrieval.formats.topics import read_topics
    try:
        import Stemmer
        stemmer = Stemmer.Stemmer("english")
    except ImportError:
        stemmer = None
    started = time.perf_counter()
    source = open_corpus(args.corpus_format, Path(args.corpus))
    ids, texts = [], []
    for docid, (contents,), _raw in source.documents(["contents"]):
        ids.append(docid)
        texts.append(contents)
    parsed = time.perf_counter()
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    del texts
    tokenized = time.perf_counter()
    retriever = bm25s.BM25(k1=args.k1, b=args.b, method="lucene")
    retriever.index(tokens, show_progress=False)
    indexed = time.perf_counter()
    save_dir = Path(args.save)
    retriever.save(str(save_dir))
    from bench.measure import directory_mib
    size = directory_mib(save_dir)

    topics = read_topics(Path(args.topics))
    search_started = time.perf_counter()
    query_tokens = bm25s.tokenize([t.title for t in topics], stopwords="en", stemmer=stemmer, show_progress=False)
    k = min(args.hits, len(ids))
    docs, scores = retriever.retrieve(query_tokens, k=k, show_progress=False, n_threads=args.threads)
    lines = []
    for topic, row_docs, row_scores in zip(topics, docs, scores):
        rank = 0
        for doc, score in zip(row_docs, row_scores):
            if score <= 0:
                break
            rank += 1
            lines.append(f"{topic.number} Q0 {ids[int(doc)]} {rank} {float(score):.6f} bm25s\n")
    Path(args.out).write_text("".join(lines))
    searched = time.perf_counter()
    return {"documents": len(ids), "parse_seconds": parsed - started, "tokenize_seconds": tokenized - parsed,
            "index_seconds": indexed - tokenized, "seconds": indexed - started,
            "docs_per_second": len(ids) / (indexed - started), "size_mib": size,
            "search_seconds": searched - search_started, "stemmer": "snowball" if stemmer else "none",
            "hits": len(lines)}


def step_compare(args) -> dict:
    _jvm_seconds(None)
    return compare_indexes(_variant(args), Path(args.topics), [Path(i) for i in args.index])


def compare_indexes(loaded, topics: Path, indexes: list[Path]) -> dict:
    """Do two indexes (e.g. sharded and single) give the same run for a variant's queries?"""
    from touche.retrieval.formats.topics import read_topics
    from touche.retrieval.query import query_text
    from touche.retrieval.search import Searcher
    v = loaded.variant
    queries = {t.number: query_text(t, v.query) for t in read_topics(topics)}
    rankings = []
    for index in indexes:
        with Searcher(Path(index), v.analyzer, loaded.path.parent) as searcher:
            searcher.set_similarity(v.retrieval.similarity)
            rankings.append(searcher.search(queries, v.query.field_weights, v.retrieval.top_k))
    first, second = rankings
    difference = None
    for q in first:
        if first[q] != second.get(q):
            i = next((i for i, (a, b) in enumerate(zip(first[q], second.get(q, []))) if a != b),
                     min(len(first[q]), len(second.get(q, []))))
            difference = (f"topic {q}, rank {i + 1}: {first[q][i:i + 2]} vs {second.get(q, [])[i:i + 2]} "
                          f"({len(first[q])} vs {len(second.get(q, []))} hits)")
            break
    return {"identical": difference is None, "difference": difference,
            "hits": sum(len(h) for h in first.values())}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("jvm")
    p.add_argument("--heap")
    p = sub.add_parser("index")
    p.add_argument("--variant", required=True)
    p.add_argument("--set", action="append")
    p.add_argument("--corpus", required=True)
    p.add_argument("--index-root", required=True)
    p.add_argument("--shards", type=int, default=None)
    p.add_argument("--heap")
    p.add_argument("--compare-with", help="another index of the same variant: are the runs identical?")
    p.add_argument("--topics", help="topics for --compare-with")
    p = sub.add_parser("runs")
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--index-root", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--heap")
    p.add_argument("--set", action="append")
    p.add_argument("variants", nargs="+")
    p = sub.add_parser("compare")
    p.add_argument("--variant", required=True)
    p.add_argument("--set", action="append")
    p.add_argument("--topics", required=True)
    p.add_argument("--index", action="append", required=True)
    p = sub.add_parser("bm25s")
    p.add_argument("--corpus-format", default="argsme")
    p.add_argument("--corpus", required=True)
    p.add_argument("--topics", required=True)
    p.add_argument("--save", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--hits", type=int, default=1000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--k1", type=float, default=0.9)
    p.add_argument("--b", type=float, default=0.4)
    args = parser.parse_args(argv)
    steps = {"jvm": step_jvm, "index": step_index, "runs": step_runs, "compare": step_compare, "bm25s": step_bm25s}
    result = steps[args.step](args)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
