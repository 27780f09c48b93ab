"""``touche compare``: two runs topic by topic, with a paired t-test and a randomization test."""
from __future__ import annotations

from touche.atomic import write_text
from touche.cli.common import add_command, note, selection_of, topic_options, whole_number
from touche.guard import Files
from touche.retrieval.experiments.comparison import compare_runs, format_comparison, plot_comparison


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
    p.add_argument("--resamples", type=whole_number, default=10000, help="randomization test resamples (default 10000)")
    p.add_argument("--seed", type=whole_number, default=20220401,
                   help="randomization test seed (fixed: same p every time)")
    topic_options(p)


def run(args) -> int:
    cmp = compare_runs(args.run_a, args.run_b, args.qrels, args.measure, resamples=args.resamples, seed=args.seed,
                       topics=selection_of(args))
    text = format_comparison(cmp)
    note(args, text, about=args.output)  # -o - is the report on standard output, once
    if args.output:
        write_text(args.output, text + "\n")
        note(args, f"\nwrote {args.output}", about=args.output)
    if args.plot:
        note(args, f"wrote {plot_comparison(cmp, args.plot)}")
    return 0


def files(args) -> Files:
    return Files.of(reads=[("run A", args.run_a), ("run B", args.run_b), ("qrels", args.qrels)],
                    writes=[("Markdown report", args.output), ("plot", args.plot)])
