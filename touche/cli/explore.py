"""``touche explore``: several runs of one task, their judgements and texts, as one self-contained HTML page."""
from __future__ import annotations

from touche import registry
from touche.api.scores import explore
from touche.cli.common import (
    add_command,
    collection_options,
    dataset_option,
    decimal_number,
    note,
    topic_options,
    whole_number,
)
from touche.guard import Files
from touche.inputs import split_named
from touche.retrieval.evaluation.agreement import DEFAULT_PERSISTENCE
from touche.retrieval.evaluation.registry import leaderboard_measures
from touche.retrieval.evaluation.significance import CORRECTIONS, DEFAULT_RESAMPLES, SIGNIFICANCE_TESTS
from touche.retrieval.experiments.explorer import DEFAULT_TOP, EXPLORER_FILE
from touche.retrieval.formats.qrels import QrelsKind

PARAMETERS = {"input": "corpus", "output": "out", "header": "headers"}


def add_parser(sub) -> None:
    p = add_command(sub, "explore", run,
                    "touche explore out/[1-5]-*.txt -i demo/args.me -t demo/topics.xml -o out/explore.html")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files of one task (the first is the baseline)")
    p.add_argument("--qrels", action="append", metavar="[NAME=]QRELS",
                   help="qrels files (repeatable; relevance, quality, stance or image judgements); without any, "
                        "the runs are compared by how their rankings agree")
    p.add_argument("-i", "--input", "--corpus", help="the corpus (file or folder) or a TIRA input folder, for the "
                                                     "documents' texts and lengths (optional: without it the page "
                                                     "shows ids and labels); a run holding documents it lacks is "
                                                     "cautioned")
    p.add_argument("-t", "--topics", help="topics XML, for titles and the terms marked in snippets "
                                          "(default: topics.xml of a TIRA input folder)")
    p.add_argument("--corpus-format", choices=tuple(registry.CORPUS_FAMILIES),
                   help="the corpus family (default: from the runs' format and the corpus)")
    p.add_argument("--baseline", help="the run the others are compared with (default: the first)")
    p.add_argument("--top", type=whole_number, default=DEFAULT_TOP,
                   help=f"documents shown per run and topic (default {DEFAULT_TOP})")
    p.add_argument("--measures", help="comma-separated measures, a qrels name before one restricts it to that file "
                                      "(relevance:touche.nDCG@5); default: what the leaderboards show for the "
                                      "qrels given: " + ", ".join(leaderboard_measures(QrelsKind)))
    p.add_argument("--test", choices=tuple(SIGNIFICANCE_TESTS), default="randomization",
                   help="paired significance test against the baseline (default randomization; stance F1, one "
                        "value over all rows, is always tested by swapping predictions topic by topic)")
    p.add_argument("--resamples", type=whole_number, default=DEFAULT_RESAMPLES,
                   help=f"randomization test resamples (default {DEFAULT_RESAMPLES:,}; every sign flip is enumerated "
                        "up to 16 topics): its p is never below 2 / (resamples + 1), which the page says beside p")
    p.add_argument("--correction", choices=tuple(CORRECTIONS), default="holm",
                   help="multiple-testing correction over the runs tested (default holm; fdr_bh: Benjamini-Hochberg)")
    p.add_argument("--rbo-p", type=decimal_number, default=DEFAULT_PERSISTENCE,
                   help=f"RBO's persistence p (default {DEFAULT_PERSISTENCE}: the first 10 ranks weigh 86 %%)")
    p.add_argument("--markdown", metavar="FILE",
                   help="also write the overview as a Markdown table (- : standard output)")
    p.add_argument("--latex", metavar="FILE", help="also write the overview as a LaTeX table (booktabs; - : standard "
                                                   "output)")
    p.add_argument("--csv", metavar="FILE", help="also write the per-topic values as CSV (run,query_id,measure,value; "
                                                 "- : standard output)")
    p.add_argument("--header", action="append", metavar="MEASURE=TEXT",
                   help="a measure's header in the LaTeX export (repeatable), e.g. "
                        "'relevance:touche.nDCG@5=nDCG@5 (rel.)'; default: the measure without touche. and with its "
                        "qrels in brackets")
    collection_options(p, corpus=False)
    topic_options(p)
    p.add_argument("-o", "--output", default=EXPLORER_FILE, help=f"HTML file to write (default {EXPLORER_FILE}; - : "
                                                                 "standard output)")
    dataset_option(p)


def run(args) -> int:
    path = explore(args.runs, args.qrels, out=args.output, corpus=args.input, topics=args.topics,
                   corpus_format=args.corpus_format, baseline=args.baseline, measures=args.measures, top=args.top,
                   test=args.test, resamples=args.resamples, correction=args.correction, rbo_p=args.rbo_p,
                   markdown=args.markdown, latex=args.latex, csv=args.csv, topics_only=args.topics_only,
                   topics_except=args.topics_except, restrict=args.restrict, dataset=args.dataset, progress=True,
                   headers=args.header)
    for kind in ("markdown", "latex", "csv"):
        if getattr(args, kind):
            note(args, f"wrote {getattr(args, kind)} ({kind})", about=getattr(args, kind))
    size = f" ({path.stat().st_size / 1e6:.1f} MB)" if path.is_file() else ""
    note(args, f"wrote {path}{size}{'' if args.qrels else ', no qrels: runs compared by how their rankings agree'}: "
               "open it in a browser", about=path)
    return 0


def files(args) -> Files:
    return Files.of(reads=[("run", r) for r in args.runs] + [("qrels", split_named(q)[1]) for q in args.qrels or []]
                    + [("corpus", args.input), ("topics", args.topics)],
                    writes=[("explorer page", args.output), ("Markdown export", args.markdown),
                            ("LaTeX export", args.latex), ("CSV export", args.csv)])
