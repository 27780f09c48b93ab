"""``touche compare``: two runs topic by topic, with a paired t-test and a randomization test."""
from __future__ import annotations

from touche.api.scores import compare
from touche.cli.common import add_command, collection_options, note, topic_options, whole_number
from touche.guard import Files
from touche.retrieval.experiments.comparison import format_comparison


def add_parser(sub) -> None:
    p = add_command(
        sub,
        "compare",
        run,
        "touche compare out/4-smart-lmd4000.txt out/1-krovetz-smart-lmd2000-quality.txt demo/qrels-relevance.txt "
        "--plot cmp.png",
    )
    p.add_argument("run_a", help="run A (the baseline)")
    p.add_argument("run_b", help="run B (compared with A: differences are B - A)")
    p.add_argument("qrels", help="graded qrels file (relevance or quality)")
    p.add_argument("--measure", default="touche.nDCG@5", help="touche.nDCG@k, touche2021.nDCG@k or trec.<measure>")
    p.add_argument("-o", "--output", help="also write the Markdown report here (- : only there, on standard output)")
    p.add_argument("--plot", help="write a PNG bar chart of the per-topic differences (- : standard output)")
    p.add_argument("--resamples", type=whole_number, default=10000,
                   help="randomization test resamples (default 10000)")
    p.add_argument("--seed", type=whole_number, default=20220401,
                   help="randomization test seed (fixed: same p every time)")
    collection_options(p)
    topic_options(p)


def run(args) -> int:
    comparison = compare(args.run_a, args.run_b, args.qrels, args.measure, output=args.output, plot=args.plot,
                         resamples=args.resamples, seed=args.seed, topics_only=args.topics_only,
                         topics_except=args.topics_except, corpus=args.corpus, restrict=args.restrict)
    note(args, format_comparison(comparison), about=args.output)  # -o - is the report on standard output, once
    if args.output:
        note(args, f"\nwrote {args.output}", about=args.output)
    if args.plot:
        note(args, f"wrote {args.plot}", about=args.plot)
    return 0


def files(args) -> Files:
    return Files.of(reads=[("run A", args.run_a), ("run B", args.run_b), ("qrels", args.qrels),
                           ("corpus", args.corpus)],
                    writes=[("Markdown report", args.output), ("plot", args.plot)])
