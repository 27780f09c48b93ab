"""``touche run``: one variant, one run file (evaluated when qrels are given)."""
from __future__ import annotations

from touche.api.variants import run as run_variant
from touche.cli.common import add_command, dataset_option, note, topic_options, variant_options
from touche.guard import Files
from touche.inputs import split_named
from touche.paths import default_index_root

PARAMETERS = {"input": "corpus", "set": "overrides"}


def add_parser(sub) -> None:
    p = add_command(
        sub,
        "run",
        run,
        "touche run -c configs/task1/examples/1-bm25.yaml -i demo/args.me -t demo/topics.xml -o runs/bm25.txt",
    )
    variant_options(p)
    p.add_argument("-i", "--input", help="corpus file or directory, or irds:<ir_datasets id>")
    p.add_argument("-t", "--topics", help="topics XML file, or irds:<ir_datasets id>")
    p.add_argument("-o", "--output", required=True, help="run file to write (- : standard output)")
    dataset_option(p)
    p.add_argument("--qrels", action="append", metavar="[NAME=]PATH", help="evaluate against these qrels")
    p.add_argument("--index-root")
    topic_options(p)


def run(args) -> int:
    done = run_variant(args.config, args.input, args.topics, args.output, overrides=args.set,
                       skip_bad_records=args.skip_bad_records, dataset=args.dataset, qrels=args.qrels,
                       index_root=args.index_root, topics_only=args.topics_only, topics_except=args.topics_except)
    note(args, done.summary())
    if done.evaluation is not None:
        note(args, done.evaluation.table())
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config), ("corpus", args.input), ("topics", args.topics)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    writes=[("run file", args.output)],
                    folders=[("index root", args.index_root or default_index_root())])
