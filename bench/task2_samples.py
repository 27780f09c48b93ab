"""Every Task 2 variant on the real samples in ../shared, scored as Touché scores them.

    python -m bench.task2_samples [--shared DIR] [--index-root DIR] [--set KEY=VALUE ...]

Each system retrieves only from the sample: the ClueWeb12 sample (2,871 documents) for the
2020 and 2021 topics with the ``configs/task2`` variants, the 2022 passage sample (2,425
passages) for the 2022 topics with the ``configs/task2-stance`` variants. Printed: Touché
nDCG@5 for relevance (2020, 2021, 2022) and quality (2021, 2022), and stance macro-F1 on the
judged passages (2022). Unjudged documents are dropped from each top 5 (Touché's evaluator), so
a sample that judges few of a topic's hits scores that topic on fewer documents.

``--folds 2`` adds the figures of a strict topic split for the re-ranking variants: the
2022 topics are split by number (odd/even); nothing is tuned here, so this only shows how the
figures vary between the halves.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"


def shared_dir(given: str | None) -> Path:
    from touche.paths import shared_touche_dir
    return Path(given) if given else shared_touche_dir()


def _rows(result):
    from touche.retrieval.formats.runfile import RunRow

    return [RunRow(qid, column2, docid, rank, score, "bench")
            for qid, hits in result.rows.items()
            for rank, (docid, score, column2) in enumerate(hits, 1)]


def run_suite_on(suite: Path, corpus: Path, topics: Path, index_root: Path, overrides: dict) -> dict:
    from touche.retrieval.session import Session
    from touche.config import load_suite, load_variant

    suite_file, spec = load_suite(suite)
    session = Session(corpus, topics, index_root, progress=False)
    out = {}
    try:
        for name in spec.variants:
            loaded = load_variant(suite_file.parent / name, overrides)
            result = session.run(loaded)
            out[loaded.name] = (_rows(result), result.seconds)
    finally:
        session.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", help="the shared Touché data (default $TOUCHE_SHARED or ../shared/touche)")
    parser.add_argument("--index-root", help="where the sample indexes are kept (default: a temporary directory)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a key in every variant")
    parser.add_argument("--folds", type=int, default=0, help="also show the 2022 figures per half of the topics (2)")
    args = parser.parse_args(argv)

    shared = shared_dir(args.shared)
    if not (shared / "qrels").is_dir():
        print(f"no Touché data at {shared} (set TOUCHE_SHARED or --shared)", file=sys.stderr)
        return 2
    from touche.retrieval.evaluation.measures import stance_f1, touche_ndcg
    from touche.retrieval.formats.qrels import read_graded_qrels, read_stance_qrels
    from touche import jvm

    overrides = dict(item.split("=", 1) for item in args.set)
    index_root = Path(args.index_root) if args.index_root else Path(tempfile.mkdtemp(prefix="touche-task2-bench-"))
    jvm.start()
    qrels = {name: read_graded_qrels(shared / "qrels" / f"task2-{name}.qrels")
             for name in ("2020-relevance", "2021-relevance", "2021-quality", "2022-relevance", "2022-quality")}
    stance = read_stance_qrels(shared / "qrels" / "task2-2022-stance.qrels")
    clueweb = shared / "corpora" / "clueweb12-sample"
    passages = shared / "corpora" / "task2-2022-passages.sample.jsonl"

    started = time.perf_counter()
    docs20 = run_suite_on(CONFIGS / "task2" / "suite.yaml", clueweb, shared / "topics" / "task2-2020.xml", index_root, overrides)
    docs21 = run_suite_on(CONFIGS / "task2" / "suite.yaml", clueweb, shared / "topics" / "task2-2021.xml", index_root, overrides)
    pass22 = run_suite_on(CONFIGS / "task2-stance" / "suite.yaml", passages, shared / "topics" / "task2-2022.xml",
                          index_root, overrides)

    def ndcg(rows, name, topics=None):
        if topics is not None:
            rows = [r for r in rows if r.qid in topics]
        return touche_ndcg(rows, qrels[name]).mean

    header = ("| # | documents variant (2020/21) | 2020 rel | 2021 rel | 2021 qual | passages variant (2022) | "
              "2022 rel | 2022 qual | stance F1 |")
    print(header)
    print("|---|---|---:|---:|---:|---|---:|---:|---:|")
    for i, ((dname, (d20, _)), (_, (d21, _)), (pname, (p22, _))) in enumerate(
            zip(docs20.items(), docs21.items(), pass22.items()), 1):
        cells = [ndcg(d20, "2020-relevance"), ndcg(d21, "2021-relevance"), ndcg(d21, "2021-quality")]
        cells2 = [ndcg(p22, "2022-relevance"), ndcg(p22, "2022-quality"), stance_f1(p22, stance).f1_macro]
        fmt = lambda v: "n/a" if math.isnan(v) else f"{v:.3f}"  # noqa: E731
        print(f"| {i} | {dname} | " + " | ".join(fmt(v) for v in cells) + f" | {pname} | "
              + " | ".join(fmt(v) for v in cells2) + " |")
    if args.folds == 2:
        print()
        print("| passages variant | 2022 rel, odd topics | 2022 rel, even topics | 2022 qual, odd | 2022 qual, even |")
        print("|---|---:|---:|---:|---:|")
        numbers = {r.qid for rows, _ in pass22.values() for r in rows}
        odd = {q for q in numbers if int(q) % 2}
        even = numbers - odd
        for pname, (p22, _) in pass22.items():
            print(f"| {pname} | {ndcg(p22, '2022-relevance', odd):.3f} | {ndcg(p22, '2022-relevance', even):.3f} | "
                  f"{ndcg(p22, '2022-quality', odd):.3f} | {ndcg(p22, '2022-quality', even):.3f} |")
    print(f"\n{time.perf_counter() - started:.0f} s; judged passages in the stance figure: "
          f"{stance_f1(next(iter(pass22.values()))[0], stance).n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
