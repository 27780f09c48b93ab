"""Task 1's five variants on the real args.me sample in ../shared, beside team Elrond's runs.

    python -m bench.task1_sample [--shared DIR] [--index-root DIR] [--suite configs/task1/suite.yaml]

The sample holds 10,604 real args.me arguments; every system retrieves only from it. The 2020
topics (1-50) are the development set: every choice of the shipped variants was made on them
(configs/sweeps/task1-sample-2020.yaml, then ``touche choose``). The 2021 topics (51-100) are
the test set, reported here and never used to choose.

Printed per year: Touché's condensed nDCG@5 (unjudged dropped, mean over the topics with a
judged argument in the top 5) and the number of such topics; then team Elrond's official 2021
runs restricted to the sample's arguments (restrict, then score: the same measure); then the
*ceiling*: a perfect ranking of the sample's judged arguments. The 2021 qrels judge few of the
sample's arguments (a median of 2 per topic), so even the perfect ranking stays far below what
the full corpus allows; compare runs with each other and with the ceiling, not with the
official leaderboard. Finally the wall time of the whole five-variant suite per year.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

from touche.retrieval.evaluation.measures import touche_ndcg
from touche.retrieval.formats.qrels import read_graded_qrels
from touche.retrieval.formats.runfile import RunRow, read_run
from touche.retrieval.session import Session
from touche import jvm
from touche.config import load_suite, load_variant
from touche.paths import CONFIGS, shared_touche_dir

YEARS = ("2020", "2021")


def sample_ids(corpus: Path) -> set[str]:
    return {a["id"] for a in json.loads(corpus.read_text(encoding="utf-8"))["arguments"]}


def ceiling(qrels: dict[str, dict[str, int]], ids: set[str]) -> tuple[float, int]:
    """Condensed nDCG@5 of the perfect ranking of the judged arguments the sample holds."""
    values = []
    for judged in qrels.values():
        gains = sorted((max(0, g) for d, g in judged.items() if d in ids), reverse=True)[:5]
        if not gains:
            continue
        ideal = sorted((max(0, g) for g in judged.values()), reverse=True)[:5]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        values.append(sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / idcg if idcg else 0.0)
    return (sum(values) / len(values) if values else math.nan), len(values)


def restricted(run: Path, ids: set[str]) -> list[RunRow]:
    """An official run with every argument outside the sample removed, re-ranked by score."""
    by_topic: dict[str, list[RunRow]] = {}
    for row in read_run(run):
        if row.docid in ids:
            by_topic.setdefault(row.qid, []).append(row)
    out = []
    for qid, rows in by_topic.items():
        rows.sort(key=lambda r: (-r.score, r.docid))
        out += [RunRow(qid, "Q0", r.docid, rank, r.score, r.tag) for rank, r in enumerate(rows, 1)]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", help="the shared Touché data (default $TOUCHE_SHARED or ../shared/touche)")
    parser.add_argument("--index-root", help="where the sample's indexes are kept (default: a temporary directory)")
    parser.add_argument("--suite", default=str(CONFIGS / "task1" / "suite.yaml"))
    args = parser.parse_args(argv)
    shared = Path(args.shared) if args.shared else shared_touche_dir()
    corpus = shared / "corpora" / "argsme-2020-04-01.sample.json"
    if not corpus.is_file():
        print(f"no args.me sample at {corpus} (set TOUCHE_SHARED or --shared)", file=sys.stderr)
        return 2
    jvm.start()
    ids = sample_ids(corpus)
    qrels = {y: read_graded_qrels(shared / "qrels" / f"task1-{y}-relevance.qrels") for y in YEARS}
    index_root = Path(args.index_root) if args.index_root else Path(tempfile.mkdtemp(prefix="touche-task1-sample-"))
    suite_file, suite = load_suite(args.suite)
    scores: dict[str, dict[str, tuple[float, int]]] = {}
    seconds = {}
    for year in YEARS:
        started = time.perf_counter()
        session = Session(corpus, shared / "topics" / f"task1-{year}.xml", index_root, progress=False)
        try:
            for name in suite.variants:
                loaded = load_variant(suite_file.parent / name)
                result = session.run(loaded)
                rows = [RunRow(q, "Q0", d, r, s, "bench") for q, hits in result.ranking.items()
                        for r, (d, s) in enumerate(hits, 1)]
                value = touche_ndcg(rows, qrels[year])
                scores.setdefault(loaded.name, {})[year] = (value.mean, len(value.per_topic))
        finally:
            session.close()
        seconds[year] = time.perf_counter() - started
    primary = Path(suite.primary).stem
    print(f"Task 1 on the args.me sample ({len(ids):,} arguments); 2020 = development (chosen on), "
          f"2021 = test (reported only)\n")
    print("| run | 2020 (dev) nDCG@5 | topics | 2021 (test) nDCG@5 | topics |")
    print("|---|---:|---:|---:|---:|")
    for name, by_year in scores.items():
        label = f"{name} (primary)" if name == primary else name
        print(f"| {label} | " + " | ".join(f"{by_year[y][0]:.3f} | {by_year[y][1]}" for y in YEARS) + " |")
    for run in sorted((shared / "runs" / "task1-2021").glob("*.txt")):
        value = touche_ndcg(restricted(run, ids), qrels["2021"])
        print(f"| Elrond {run.stem}, restricted to the sample | — | — | {value.mean:.3f} | {len(value.per_topic)} |")
    line = " | ".join(f"{c:.3f} | {n}" for c, n in (ceiling(qrels[y], ids) for y in YEARS))
    print(f"| ceiling: the perfect ranking of the sample's judged arguments | {line} |")
    print(f"\nfive-variant suite, wall time (indexes built in the first year's run): "
          + ", ".join(f"{y}: {s:.1f} s" for y, s in seconds.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
