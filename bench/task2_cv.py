"""How much of the Task 2 re-ranking figure is tuning? A topic-disjoint estimate on the 2022 sample.

    python -m bench.task2_cv [--shared DIR] [--index-root DIR] [--variant FILE] [--folds 5]

The variant's first stage runs once and every feature of its top ``depth`` hits is computed
once (the dense one included). Then, over each grid of formula weights (``GRIDS``):
- the variant's own weights, scored on all 50 topics (what bench/task2_samples.py prints);
- the grid point best on all 50 topics (in-sample: tuned and scored on the same topics);
- nested cross-validation: topics split into ``--folds`` folds (every k-th topic by number);
  for each fold the grid point best on the other folds is scored on it, never on topics it was
  chosen on. The mean over the held-out topics is the figure to expect on new topics.
Selection criterion: mean of relevance and quality nDCG@5 (Touché's evaluator).
"""
from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

from bench.task2_samples import CONFIGS, shared_dir

GRIDS = {
    # every weight of the formula free: 1,200 formulas, the noisiest selection
    "wide": {
        "dense": [0.0, 1.0, 1.5, 2.0, 3.0],
        "prose": [0.0, 0.25, 0.5, 0.75, 1.0],
        "comparative_objects": [0.0, 0.15, 0.3, 0.5],
        "capitals": [0.0, -0.2, -0.4],
        "spam": [0.0, -0.3],
        "language": [0.0, 0.1],
    },
    # one step around the shipped weights: 12 formulas
    "narrow": {
        "dense": [1.0, 1.5, 2.0],
        "comparative_objects": [0.15, 0.3],
        "capitals": [-0.2, -0.4],
    },
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", help="the shared Touché data (default $TOUCHE_SHARED or ../shared/touche)")
    parser.add_argument("--index-root", help="where the sample index is kept (default: a temporary directory)")
    parser.add_argument("--variant", default=str(CONFIGS / "task2-stance" / "3-rerank.yaml"))
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args(argv)

    shared = shared_dir(args.shared)
    if not (shared / "qrels").is_dir():
        print(f"no Touché data at {shared} (set TOUCHE_SHARED or --shared)", file=sys.stderr)
        return 2
    from touche import jvm
    from touche.config import load_variant
    from touche.retrieval.evaluation.measures import touche_ndcg
    from touche.retrieval.formats.qrels import read_graded_qrels
    from touche.retrieval.formats.runfile import RunRow
    from touche.retrieval.session import Session
    from touche.retrieval.tasks.task2.features import reorder
    from touche.retrieval.tasks.task2.handlers import rerank_features
    from touche.specs.task2 import FeatureWeights

    jvm.start()
    qrels = {n: read_graded_qrels(shared / "qrels" / f"task2-2022-{n}.qrels") for n in ("relevance", "quality")}
    index_root = Path(args.index_root) if args.index_root else Path(tempfile.mkdtemp(prefix="touche-task2-cv-"))
    session = Session(shared / "corpora" / "task2-2022-passages.sample.jsonl", shared / "topics" / "task2-2022.xml",
                      index_root, progress=False)
    loaded = load_variant(Path(args.variant))
    spec = loaded.variant.task2
    first_stage = load_variant(Path(args.variant), {"task2.rerank.enabled": "false"})
    result = session.run(first_stage)
    head = {qid: hits[: spec.rerank.depth] for qid, hits in result.ranking.items()}
    features = rerank_features(session.task_context(loaded), head)
    session.close()

    def per_topic(weights: FeatureWeights) -> dict[str, dict[str, float]]:
        ranking = reorder(head, features, spec.rerank.model_copy(update={"weights": weights}))
        rows = [RunRow(qid, "Q0", d, rank, s, "cv") for qid, hits in ranking.items()
                for rank, (d, s) in enumerate(hits, 1)]
        return {name: touche_ndcg(rows, q).per_topic for name, q in qrels.items()}

    def mean(values: dict[str, float], topics=None) -> float:
        kept = [v for q, v in values.items() if topics is None or q in topics]
        return sum(kept) / len(kept) if kept else 0.0

    def both(scores, topics=None) -> float:
        return (mean(scores["relevance"], topics) + mean(scores["quality"], topics)) / 2

    shipped = per_topic(spec.rerank.weights)
    base = spec.rerank.weights.model_dump()
    topics = sorted(features, key=lambda q: (len(q), q))
    print(f"variant {loaded.name}, depth {spec.rerank.depth}, {len(topics)} topics, {args.folds} folds\n")
    print("| weights | chosen on | scored on | 2022 rel | 2022 qual |")
    print("|---|---|---|---:|---:|")
    print(f"| the variant's: {spec.rerank.weights.model_dump(exclude_defaults=True)} | — | all topics | "
          f"{mean(shipped['relevance']):.3f} | {mean(shipped['quality']):.3f} |")
    chosen = {}
    for grid_name, grid in GRIDS.items():
        points = []
        for combo in itertools.product(*grid.values()):
            weights = FeatureWeights(**{**base, **dict(zip(grid, combo))})
            points.append((dict(zip(grid, combo)), per_topic(weights)))
        best_weights, best = max(points, key=lambda p: both(p[1]))
        held_out = {"relevance": {}, "quality": {}}
        chosen[grid_name] = []
        for fold in range(args.folds):
            test = set(topics[fold:: args.folds])
            weights, scores = max(points, key=lambda p: both(p[1], set(topics) - test))
            chosen[grid_name].append(weights)
            for name in held_out:
                held_out[name].update({q: v for q, v in scores[name].items() if q in test})
        print(f"| best of the {grid_name} grid ({len(points)}): {best_weights} | all topics | the same topics | "
              f"{mean(best['relevance']):.3f} | {mean(best['quality']):.3f} |")
        print(f"| best of the {grid_name} grid on the other folds | other topics | held-out topics | "
              f"{mean(held_out['relevance']):.3f} | {mean(held_out['quality']):.3f} |")
    for grid_name, per_fold in chosen.items():
        print(f"\nchosen per fold, {grid_name} grid:")
        for fold, weights in enumerate(per_fold):
            print(f"  fold {fold}: {weights}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
