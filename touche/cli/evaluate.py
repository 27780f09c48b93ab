"""``touche evaluate``: Touché's nDCG@5 (unjudged dropped) and trec_eval-style measures."""
from __future__ import annotations

import sys

from touche.retrieval.evaluation.measures import evaluate, format_table
from touche.cli.common import add_command
from touche.inputs import split_named
from touche.guard import Files
from touche.inputs import distinct_labels, parse_named_qrels


def add_parser(sub) -> None:
    p = add_command(sub, "evaluate", run,
                    "touche evaluate out/run.txt relevance=demo/qrels-relevance.txt quality=demo/qrels-quality.txt")
    p.add_argument("run", help="run file")
    p.add_argument("qrels", nargs="+", metavar="[NAME=]QRELS", help="qrels files (relevance, quality, stance, image)")
    p.add_argument("--also", action="append", metavar="RUN", help="more runs to compare in the same table")
    p.add_argument("--measures", help="comma-separated, e.g. touche.nDCG@5,nDCG@5,P@10 (default: all that apply). "
                                      "touche.nDCG@k is the Touché 2022 evaluator's (cut by rank, unjudged dropped); "
                                      "touche2021.nDCG@k orders by score as the 2021 leaderboard did; a name "
                                      "without prefix is ir_measures' (unjudged count as 0), as trec.<name>")
    p.add_argument("--depth", type=int, default=5, help="cut-off k of the default nDCG@k (default 5)")


def run(args) -> int:
    runs = [args.run, *(args.also or [])]
    qrels = parse_named_qrels(args.qrels)
    measures = args.measures.split(",") if args.measures else None
    labels = distinct_labels(runs, what="run file")  # c1/run.txt and st2/run.txt stay two rows
    scores = {label: evaluate(r, qrels, measures, depth=args.depth) for label, r in zip(labels, runs)}
    print(format_table(scores))
    for label, values in scores.items():
        if any(name.endswith("stance.N") and value == 0 for name, value in values.items()):
            print(f"note: {label} labels no stance on any judged row (each says Q0 or misses the judgements), so "
                  "its stance measures are - and 0. PyTerrier's pt.io.write_results writes Q0 where a frame's "
                  "stance was: write such a file with touche.pyterrier.write_run.", file=sys.stderr)
    return 0


def files(args) -> Files:
    return Files.of(reads=[("run", r) for r in [args.run, *(args.also or [])]]
                    + [("qrels", split_named(q)[1]) for q in args.qrels])
