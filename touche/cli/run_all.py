"""``touche run-all``: a task's five variants (the TIRA entry point), evaluated when qrels are known."""
from __future__ import annotations

from pathlib import Path

from touche.retrieval.suite import run_suite
from touche.cli.common import add_command, dataset_option, overrides, suite_for, variant_options
from touche.paths import default_index_root
from touche.inputs import split_named
from touche.guard import Files
from touche.inputs import parse_named_qrels


def add_parser(sub) -> None:
    p = add_command(sub, "run-all", run, "run a task's five variants (TIRA entry point), evaluate when qrels are known",
                    "touche run-all -i $inputDataset -o $outputDir")
    p.add_argument("-i", "--input", help="TIRA input directory (corpus files + topics.xml), or irds:<ir_datasets id>; "
                                         "default: demo data")
    dataset_option(p)
    p.add_argument("-o", "--output", default="out", help="output directory (run.txt = primary variant)")
    variant_options(p, config_required=False)
    p.add_argument("--task", help="task whose default suite runs (configs/TASK/suite.yaml; default: the "
                                  "dataset's task, else task1)")
    p.add_argument("--suite", help="suite YAML naming the five variants and the primary (overrides --task)")
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH", help="qrels for the evaluation table")
    p.add_argument("--index-root")


def run(args) -> int:
    outcome = run_suite(suite_path=suite_for(args), input_dir=Path(args.input) if args.input else None,
                     output_dir=Path(args.output), only_config=Path(args.config) if args.config else None,
                     index_root=Path(args.index_root) if args.index_root else None,
                     qrels=parse_named_qrels(args.qrels) if args.qrels else None,
                     overrides=overrides(args.set, args.skip_bad_records))
    if outcome.table:
        print(outcome.table)
    return 0


def files(args) -> Files:
    """Inputs and folders; run_suite checks the files it writes once the suite names them."""
    return Files.of(reads=[("input", args.input), ("suite", args.suite), ("variant", args.config)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    folders=[("output folder", args.output), ("index root", args.index_root or default_index_root())])
