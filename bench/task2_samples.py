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
    from touche.config import load_suite, load_variant
    from touche.retrieval.session import Session

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
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a key in every variant")
    parser.add_argument("--folds", type=int, default=0, help="also show the 2022 figures per half of the topics (2)")
    args = parser.parse_args(argv)

    shared = shared_dir(args.shared)
    if not (shared / "qrels").is_dir():
        print(f"no Touché data at {shared} (set TOUCHE_SHARED or --shared)", file=sys.stderr)
        return 2
    from touche import jvm
    from touche.retrieval.evaluation.measures import stance_f1, touche_ndcg
    from touche.retrieval.formats.qrels import read_graded_qrels, read_stance_qrels

    overrides = dict(item.split("=", 1) for item in args.set)
    index_root = Path(args.index_root) if args.index_root else Path(tempfile.mkdtemp(prefix="touche-task2-bench-"))
    jvm.start()
    qrels = {name: read_graded_qrels(shared / "qrels" / f"task2-{name}.qrels")
             for name in ("2020-relevance", "2021-relevance", "2021-quality", "2022-relevance", "2022-quality")}
    stance = read_stance_qrels(shared / "qrels" / "task2-2022-stance.qrels")
    clueweb = shared / "corpora" / "clueweb12-sample"
    passages = shared / "corpora" / "task2-2022-passages.sample.jsonl"

    started = time.perf_counter()
    docs20 = run_suite_on(CONFIGS / "task2" / "suite.yaml", clueweb, shared / "topics" / "task2-2020.xml",
                          index_root, overrides)
    docs21 = run_suite_on(CONFIGS / "task2" / "suite.yaml", clueweb, shared / "topics" / "task2-2021.xml",
                          index_root, overrides)
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
    print()
    stance_models(shared, passages, stance)
    return 0


def stance_cost(passages: Path, qrels: Path, topics: Path) -> None:
    """Milliseconds per passage of each stance model on the judged passages (real English text
    that names the objects: the expensive case), with an empty evidence cache unless said; and
    what that makes for a variant's 50 topics × 1,000 passages."""
    from touche.retrieval.tasks.task2.stance import learned as stance_model
    from touche.retrieval.tasks.task2.stance.patterns import label_stance
    from touche.retrieval.tasks.task2.stance.training import judged_sample
    from touche.specs.task2 import StanceSpec

    sample = list(judged_sample(passages, qrels, topics))
    model = stance_model.load()
    print("| stance model | ms per passage | a 50,000-row variant, s |")
    print("|---|---:|---:|")
    for name, cold in (("patterns", True), ("learned", True), ("combined", True), ("combined", False)):
        if cold:
            stance_model._EVIDENCE.clear()
        spec = StanceSpec(model=name)
        started = time.perf_counter()
        for comp, key, _, _, text, _ in sample:
            if name == "patterns":
                label_stance(text, comp, spec)
            else:
                stance_model.label_passage(text, comp, spec, model, key)
        ms = (time.perf_counter() - started) * 1000 / len(sample)
        what = name if cold else f"{name}, its evidence cached (another variant labelled the passage)"
        print(f"| {what} | {ms:.2f} | {ms * 50:.0f} |")
    print()


def macro_f1_lead_interval(truth: list[str], ours: list[str], theirs: list[str], topics: list[str],
                           draws: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % interval of macro-F1(ours) − macro-F1(theirs) with the topics drawn again with
    replacement (a macro-F1 is one figure over all passages, not a mean of topics: each draw
    pools the passages of the drawn topics; scikit-learn's macro-F1 is the scorer's: over the
    labels that occur)."""
    import numpy as np
    from sklearn.metrics import f1_score

    by_topic: dict[str, list[int]] = {}
    for i, t in enumerate(topics):
        by_topic.setdefault(t, []).append(i)
    groups = list(by_topic.values())
    truth_a, ours_a, theirs_a = np.array(truth), np.array(ours), np.array(theirs)
    rng = np.random.default_rng(seed)
    leads = []
    for _ in range(draws):
        rows = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        leads.append(f1_score(truth_a[rows], ours_a[rows], average="macro", zero_division=0)
                     - f1_score(truth_a[rows], theirs_a[rows], average="macro", zero_division=0))
    return float(np.percentile(leads, 2.5)), float(np.percentile(leads, 97.5))


def stance_models(shared: Path, passages: Path, stance: dict) -> None:
    """Each stance model on the 780 judged passages of the sample: macro-F1, per-class F1 and the
    confusion matrix; the official 2022 runs restricted to the same passages; the cost."""
    import gzip
    import json

    from touche.retrieval.evaluation.measures import stance_f1
    from touche.retrieval.formats.runfile import RunRow, read_run
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE
    from touche.retrieval.tasks.task2.stance.training import (
        judged_labels,
        judged_passages,
        out_of_fold_spread,
        read_compsent,
        score_sentences,
    )

    qrels, topics = shared / "qrels" / "task2-2022-stance.qrels", shared / "topics" / "task2-2022.xml"
    truth, labels, numbers = judged_labels(MODEL_FILE, passages, qrels, topics)
    order = ("FIRST", "SECOND", "NEUTRAL", "NO")

    def scores(predicted):
        rows = [RunRow("1", p, str(i), i + 1, 0.0, "t") for i, p in enumerate(predicted)]
        return stance_f1(rows, {"1": {str(i): t for i, t in enumerate(truth)}})

    print(f"### Stance on the {len(truth)} judged passages of the sample (FIRST/SECOND/NEUTRAL/NO: "
          + "/".join(str(truth.count(c)) for c in order) + ")\n")
    print(
        "| model | fitted on | macro-F1 | F1 FIRST | F1 SECOND | F1 NEUTRAL | F1 NO | confusion (rows: truth"
        " F/S/N/NO) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")
    fitted = {"patterns": "hand-set, on these 780 (optimistic)", "learned": "CompSent-19 only (no Touché label)",
              "combined": "CompSent-19 + the sample, out of fold (topic-grouped 5 folds)"}
    for name, predicted in labels.items():
        s = scores(predicted)
        confusion = " ".join("[" + ",".join(str(sum(1 for t, p in zip(truth, predicted) if t == a and p == b))
                                           for b in order) + "]" for a in order)
        print(f"| {name} | {fitted[name]} | {s.f1_macro:.3f} | "
              + " | ".join(f"{s.per_label.get(c, 0.0):.3f}" for c in order) + f" | {confusion} |")
    for name in ("learned", "combined"):
        low, high = macro_f1_lead_interval(truth, labels[name], labels["patterns"], numbers)
        print(f"{name} − patterns: {scores(labels[name]).f1_macro - scores(labels['patterns']).f1_macro:+.3f} "
              f"[{low:+.3f}, {high:+.3f}] (95 % topic bootstrap, 2,000 draws)")
    model = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))
    data = judged_passages(model["sentences"], passages, qrels, topics)
    spread = out_of_fold_spread(data)
    print(f"\ncombined, other deals of the topics into 5 folds (10 random): mean {sum(spread) / len(spread):.3f}, "
          f"min {min(spread):.3f}, max {max(spread):.3f}")
    test = shared / "corpora" / "compsent19" / "test.csv"
    if test.is_file():
        sentences, gold = read_compsent(test)
        sc = score_sentences(model["sentences"], sentences, gold)
        print(f"sentence classifier on CompSent-19's held-out test split ({sc.n:,}): micro-F1 {sc.micro:.3f}, "
              f"macro-F1 {sc.macro:.3f} (" + ", ".join(f"{c} {v:.3f}" for c, v in sc.per_class.items()) + ")")
    stance_cost(passages, qrels, topics)
    held = {(q, d) for q, docs in stance.items() for d in docs}
    texts = {line.split('"id": "', 1)[1].split('"', 1)[0] for line in passages.read_text(encoding="utf-8").splitlines()
             if '"id": "' in line}
    print("| official 2022 run, restricted to the sample's judged passages | macro-F1 | N |")
    print("|---|---:|---:|")
    for run in sorted((shared / "runs" / "task2-2022").glob("*.txt")):
        rows = [r for r in read_run(run) if (r.qid, r.docid) in held and r.docid in texts]
        result = stance_f1(rows, stance)
        if result.n:
            print(f"| {run.stem} | {result.f1_macro:.3f} | {result.n} |")


if __name__ == "__main__":
    sys.exit(main())
