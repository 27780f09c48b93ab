"""``touche run-all``: a task's five variants (the TIRA entry point), evaluated when qrels are known."""
from __future__ import annotations

from pathlib import Path

from touche.cli.common import add_command, dataset_option, overrides, selection_of, topic_options, variant_options
from touche.config import load_variant
from touche.errors import ToucheError
from touche.guard import Files
from touche.inputs import parse_named_qrels, split_named
from touche.paths import CONFIGS, default_index_root
from touche.retrieval.suite import run_suite


def add_parser(sub) -> None:
    p = add_command(sub, "run-all", run,
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
    p.add_argument("--topics", metavar="FILE", help="the topics file, where the input folder's is not topics.xml "
                                                    "(a path, or a name inside the input folder)")
    p.add_argument("--index-root")
    topic_options(p)


def run(args) -> int:
    outcome = run_suite(suite_path=suite_for(args), input_dir=Path(args.input) if args.input else None,
                     output_dir=Path(args.output), only_config=Path(args.config) if args.config else None,
                     index_root=Path(args.index_root) if args.index_root else None,
                     qrels=parse_named_qrels(args.qrels) if args.qrels else None,
                     overrides=overrides(args.set, args.skip_bad_records),
                     topics_file=Path(args.topics) if args.topics else None, selection=selection_of(args))
    if outcome.table:
        print(outcome.table)
    return 0


def suite_for(args) -> Path:
    """--suite wins; then the task of a single variant (-c: its own task's demo data and qrels);
    otherwise the default suite of --task (configs/<task>/suite.yaml)."""
    if args.suite:
        return Path(args.suite)
    task = config_task(getattr(args, "config", None)) or getattr(args, "task", None) or "task1"
    path = CONFIGS / task / "suite.yaml"
    if not path.is_file():
        known = sorted(p.parent.name for p in CONFIGS.glob("*/suite.yaml"))
        raise ToucheError(f"no suite for task '{task}' (tasks with suites: {', '.join(known)})", path=path)
    return path


def config_task(config: str | None) -> str | None:
    """The task a single variant (-c) declares: its suite supplies the demo data and qrels."""
    if not config:
        return None
    return load_variant(config).variant.task


def files(args) -> Files:
    """Inputs and folders; run_suite checks the files it writes once the suite names them."""
    return Files.of(reads=[("input", args.input), ("suite", args.suite), ("variant", args.config),
                           ("topics", args.topics)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    folders=[("output folder", args.output), ("index root", args.index_root or default_index_root())])
