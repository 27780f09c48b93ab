"""``touche evaluate``: Touché's nDCG@5 (unjudged dropped) and trec_eval-style measures, of one run
or several, as means (with the topics each is taken over) or per topic (``trec_eval -q``), and the
report as CSV, LaTeX or JSON."""
from __future__ import annotations

import sys

from touche.api.scores import evaluate_runs
from touche.cli.common import add_command, collection_options, note, topic_options, whole_number
from touche.guard import Files
from touche.inputs import runs_and_qrels, split_named

PARAMETERS = {"inputs": "runs", "header": "headers"}


def add_parser(sub) -> None:
    p = add_command(sub, "evaluate", run,
                    "touche evaluate out/*.txt relevance=demo/qrels-relevance.txt quality=demo/qrels-quality.txt "
                    "--per-topic --topics-except 51,55")
    p.add_argument("inputs", nargs="+", metavar="RUN... [NAME=]QRELS...",
                   help="run files (or a quoted glob, 'out/*.txt'), then qrels files (relevance, quality, stance, "
                        "image); a file is a run when its first line has more than four columns (reports such as "
                        "explore.html are left out)")
    p.add_argument("--also", action="append", metavar="RUN", help="one more run (as a RUN before the qrels)")
    p.add_argument("--measures", help="comma-separated, e.g. touche.nDCG@5,nDCG@5,P@10 (default: all that apply). "
                                      "touche.nDCG@k is the Touché 2022 evaluator's (cut by rank, unjudged dropped); "
                                      "touche2021.nDCG@k orders by score as the 2021 leaderboard did; a name "
                                      "without prefix is ir_measures' (unjudged count as 0), as trec.<name>")
    p.add_argument("--depth", type=whole_number, default=5, help="cut-off k of the default nDCG@k (default 5)")
    p.add_argument("--per-topic", action="store_true",
                   help="a row per topic and run, then the means (as trec_eval -q), in the Markdown and LaTeX tables")
    p.add_argument("--csv", metavar="FILE", help="also write every value, per topic and the means (query_id all), as "
                                                 "tidy CSV: run,query_id,measure,value,topics (- : standard output)")
    p.add_argument("--latex", metavar="FILE", help="also write the table as LaTeX (booktabs; readable headers, see "
                                                   "--header; - : standard output)")
    p.add_argument("--json", metavar="FILE", help="also write the whole report (every mean, count and per-topic "
                                                  "value) as JSON, the model touche.api.read_report reads back "
                                                  "(- : standard output)")
    p.add_argument("--header", action="append", metavar="MEASURE=TEXT",
                   help="the LaTeX table's header of a measure (repeatable), e.g. "
                        "'relevance:touche.nDCG@5=nDCG@5 (rel.)'; default: the measure without touche. and with its "
                        "qrels in brackets")
    collection_options(p)
    topic_options(p)


def run(args) -> int:
    evaluation = evaluate_runs(args.inputs, None, args.measures, also=args.also, depth=args.depth, corpus=args.corpus,
                               restrict=args.restrict, topics_only=args.topics_only, topics_except=args.topics_except,
                               per_topic=args.per_topic, headers=args.header, csv=args.csv, latex=args.latex,
                               json=args.json)
    if not evaluation.exported_to_stdout:
        print(evaluation.per_topic_table() if args.per_topic else evaluation.table())
    for fmt, path in evaluation.written:
        note(args, f"wrote {path} ({fmt})", about=path)
    for line in evaluation.notes:
        print(line, file=sys.stderr)
    return 0


def files(args) -> Files:
    runs, qrels = runs_and_qrels(args.inputs, args.also, quiet=True)
    return Files.of(reads=[("run", r) for r in runs] + [("qrels", split_named(q)[1]) for q in qrels]
                    + [("corpus", args.corpus)],
                    writes=[("CSV report", args.csv), ("LaTeX report", args.latex), ("JSON report", args.json)])
