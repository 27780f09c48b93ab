"""Task 1's five variants on the development sets of real args.me data, beside team Elrond's runs.

    python -m bench.task1_sample [--shared DIR] [--index-root DIR] [--suite configs/task1/suite.yaml]

The sets are those of ``configs/sweeps/task1-dev.yaml`` (the one definition): the 2020 topics on
the args.me sample (10,604 arguments, a third of 2020's judgements), the five 2021 topics whose
every judged argument the sample and its completion file hold (52, 67, 68, 74, 100: fully
judged, the reliable but small set) and the other 2021 topics on the same collection (a tenth
judged). **The 2021 topics 51, 55, 57, 73, 80 are a held-out test set: they are excluded by the
sets and never run or scored here.**

Printed per set: Touché's condensed nDCG@5 (unjudged dropped; mean over the topics with a judged
argument in the top 5, their number beside) with its 95 % topic-bootstrap interval, quality
nDCG@5 where the set has quality judgements, then team Elrond's official 2021 runs restricted to
the set's arguments and topics (restrict, then score: the same measure), the *ceiling* (the
perfect ranking of the set's judged arguments) and the judged coverage of each set; finally the
wall time of the whole five-variant suite per set.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from touche import jvm
from touche.config import load_suite, load_variant
from touche.indexing.corpora import corpus_ids, open_corpus
from touche.paths import CONFIGS, shared_touche_dir
from touche.retrieval.evaluation.measures import canonical_topic, touche_ndcg
from touche.retrieval.evaluation.significance import bootstrap_interval
from touche.retrieval.experiments.robust import coverage
from touche.retrieval.experiments.sweep import load_sweep
from touche.retrieval.formats.qrels import read_graded_qrels
from touche.retrieval.formats.runfile import RunRow, read_run
from touche.retrieval.formats.topics import read_topics
from touche.retrieval.session import Session

DEV_SWEEP = CONFIGS / "sweeps" / "task1-dev.yaml"
TEST_TOPICS = frozenset({"51", "55", "57", "73", "80"})  # never scored: checked below


def ceiling(qrels: dict[str, dict[str, int]], ids: set[str], topics: set[str]) -> tuple[float, int]:
    """Condensed nDCG@5 of the perfect ranking of the judged arguments the collection holds."""
    values = []
    for qid, judged in qrels.items():
        if qid not in topics:
            continue
        gains = sorted((max(0, g) for d, g in judged.items() if d in ids), reverse=True)[:5]
        if not gains:
            continue
        ideal = sorted((max(0, g) for g in judged.values()), reverse=True)[:5]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        values.append(sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / idcg if idcg else 0.0)
    return (sum(values) / len(values) if values else math.nan), len(values)


def restricted(run: Path, ids: set[str], topics: set[str]) -> list[RunRow]:
    """An official run with every argument outside the collection and every topic outside the set
    removed, re-ranked by score."""
    by_topic: dict[str, list[RunRow]] = {}
    for row in read_run(run):
        qid = canonical_topic(row.qid)
        if row.docid in ids and qid in topics:
            by_topic.setdefault(qid, []).append(row)
    out = []
    for qid, rows in by_topic.items():
        rows.sort(key=lambda r: (-r.score, r.docid))
        out += [RunRow(qid, "Q0", r.docid, rank, r.score, r.tag) for rank, r in enumerate(rows, 1)]
    return out


def scored(rows: list[RunRow], qrels: dict[str, dict[str, int]]) -> str:
    result = touche_ndcg(rows, qrels)
    low, high = bootstrap_interval(list(result.per_topic.values()))
    return f"{result.mean:.3f} [{low:.2f}, {high:.2f}] | {len(result.per_topic)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", help="the shared Touché data (default $TOUCHE_SHARED or ../shared/touche)")
    parser.add_argument("--index-root", help="where the collections' indexes are kept (default: a temporary directory)")
    parser.add_argument("--suite", default=str(CONFIGS / "task1" / "suite.yaml"))
    args = parser.parse_args(argv)
    shared = Path(args.shared) if args.shared else shared_touche_dir()
    if not (shared / "corpora" / "argsme-2020-04-01.sample.json").is_file():
        print(f"no args.me sample under {shared} (set TOUCHE_SHARED or --shared)", file=sys.stderr)
        return 2
    os.environ["TOUCHE_SHARED"] = str(shared)  # the sweep file's paths
    work = Path(tempfile.mkdtemp(prefix="touche-task1-dev-"))
    index_root = Path(args.index_root) if args.index_root else work / "indexes"
    sweep = load_sweep(DEV_SWEEP, output=work / "sets")
    jvm.start()
    suite_file, suite = load_suite(args.suite)
    primary = Path(suite.primary).stem
    print(f"Task 1 on the development sets of {DEV_SWEEP.relative_to(CONFIGS.parent)} (the test topics "
          f"{', '.join(sorted(TEST_TOPICS, key=int))} are never run); Touché nDCG@5 [95 % topic-bootstrap "
          "interval] | topics scored\n")
    for dev in sweep.sets:
        dev.prepare()
        topics = {canonical_topic(t.number) for t in read_topics(dev.topics)}
        assert not topics & TEST_TOPICS, f"set {dev.name} would score a test topic"
        relevance = read_graded_qrels(dev.qrels["relevance"])
        quality = read_graded_qrels(dev.qrels["quality"]) if "quality" in dev.qrels else None
        ids = corpus_ids(open_corpus("argsme", dev.corpus))
        covered = coverage(relevance, ids, sorted(topics))
        mean_cov = sum(covered.values()) / len(covered) if covered else math.nan
        print(f"### {dev.name}: {dev.description} ({len(topics)} topics, {len(ids):,} arguments, judged coverage "
              f"{mean_cov:.2f})\n")
        print("| run | relevance nDCG@5 | topics |" + (" quality nDCG@5 | topics |" if quality else ""))
        print("|---|---:|---:|" + ("---:|---:|" if quality else ""))
        started = time.perf_counter()
        session = Session(dev.corpus, dev.topics, index_root, progress=False)
        try:
            for name in suite.variants:
                loaded = load_variant(suite_file.parent / name)
                result = session.run(loaded)
                rows = [RunRow(q, "Q0", d, r, s, "bench") for q, hits in result.ranking.items()
                        for r, (d, s) in enumerate(hits, 1)]
                label = f"{loaded.name} (primary)" if loaded.name == primary else loaded.name
                print(f"| {label} | {scored(rows, relevance)} |" + (f" {scored(rows, quality)} |" if quality else ""))
        finally:
            session.close()
        seconds = time.perf_counter() - started
        if dev.name.startswith("2021"):
            for run in sorted((shared / "runs" / "task1-2021").glob("*.txt")):
                rows = restricted(run, ids, topics)
                print(f"| Elrond {run.stem}, restricted | {scored(rows, relevance)} |"
                      + (f" {scored(rows, quality)} |" if quality else ""))
        value, n = ceiling(relevance, ids, topics)
        print(f"| *ceiling: the perfect ranking of the judged arguments held* | {value:.3f} | {n} |"
              + (" | |" if quality else ""))
        print(f"\nthe five-variant suite: {seconds:.1f} s on this set (indexes built on first use)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
