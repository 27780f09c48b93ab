"""``touche run-all``: a task's five variants (the TIRA entry point), evaluated when qrels are known."""
from __future__ import annotations

from touche import registry
from touche.api.variants import run_all
from touche.cli.common import add_command, collection_options, dataset_option, topic_options, variant_options
from touche.guard import Files
from touche.inputs import split_named
from touche.paths import default_index_root

PARAMETERS = {"set": "overrides"}


def add_parser(sub) -> None:
    p = add_command(sub, "run-all", run,
                    "touche run-all -i $inputDataset -o $outputDir")
    p.add_argument("-i", "--input", help="TIRA input directory (corpus files + topics.xml), or irds:<ir_datasets id>; "
                                         "default: demo data")
    dataset_option(p)
    p.add_argument("-o", "--output", default="out", help="output directory (run.txt = primary variant)")
    variant_options(p, config_required=False)
    p.add_argument("--task", choices=tuple(registry.TASKS),
                   help="task whose default suite runs (configs/TASK/suite.yaml; default: the dataset's task, else "
                        f"{registry.DEFAULT_TASK})")
    p.add_argument("--suite", help="suite YAML naming the five variants and the primary (overrides --task)")
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH", help="qrels for the evaluation table")
    p.add_argument("--topics", metavar="FILE", help="the topics file, where the input folder's is not topics.xml "
                                                    "(a path, or a name inside the input folder)")
    p.add_argument("--index-root")
    topic_options(p)
    collection_options(p)


def run(args) -> int:
    outcome = run_all(args.input, args.output, dataset=args.dataset, config=args.config, overrides=args.set,
                      skip_bad_records=args.skip_bad_records, task=args.task, suite=args.suite, qrels=args.qrels,
                      topics=args.topics, index_root=args.index_root, topics_only=args.topics_only,
                      topics_except=args.topics_except, corpus=args.corpus, restrict=args.restrict)
    if outcome.table:
        print(outcome.table)
    return 0


def files(args) -> Files:
    """Inputs and folders; run_suite checks the files it writes once the suite names them."""
    return Files.of(reads=[("input", args.input), ("suite", args.suite), ("variant", args.config),
                           ("topics", args.topics), ("collection", args.corpus)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    folders=[("output folder", args.output), ("index root", args.index_root or default_index_root())])
