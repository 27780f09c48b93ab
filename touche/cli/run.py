"""``touche run``: one variant, one run file (evaluated when qrels are given)."""
from __future__ import annotations

from pathlib import Path

from touche.atomic import check_writable
from touche.cli.common import add_command, dataset_option, note, overrides, selection_of, topic_options, variant_options
from touche.config import load_variant
from touche.errors import ToucheError
from touche.guard import Files
from touche.inputs import parse_named_qrels, split_named
from touche.paths import default_index_root
from touche.retrieval.evaluation.measures import score_run
from touche.retrieval.evaluation.report import Report
from touche.retrieval.preflight import check_variant_files
from touche.retrieval.session import Session


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
    loaded = load_variant(args.config, overrides(args.set, args.skip_bad_records))
    if not (args.input and args.topics):
        raise ToucheError("no corpus or topics: pass -i CORPUS -t TOPICS or --dataset ID")
    check_writable(Path(args.output))  # before minutes of indexing and search
    check_variant_files(loaded)
    selection = selection_of(args)
    session = Session(Path(args.input), Path(args.topics), Path(args.index_root or default_index_root()),
                      selection=selection)
    try:
        result = session.run(loaded)
        session.write(result, Path(args.output))
    finally:
        session.close()
    topics = [t.number for t in session.topics]
    found = [t for t in topics if result.ranking.get(t)]
    missing = f"; none for topic {', '.join(t for t in topics if t not in found)}" if len(found) < len(topics) else ""
    note(args, f"{args.output}: {sum(len(h) for h in result.ranking.values())} hits for {len(found)} of {len(topics)} "
               f"topics{missing} in {result.seconds:.1f} s")
    if args.qrels:  # scored as written, from memory: a pipe or standard output is never read back
        scored = score_run(result.written, parse_named_qrels(args.qrels), topics=selection)
        note(args, Report.of({loaded.name: scored}).markdown())
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config), ("corpus", args.input), ("topics", args.topics)]
                    + [("qrels", split_named(q)[1]) for q in args.qrels or []],
                    writes=[("run file", args.output)],
                    folders=[("index root", args.index_root or default_index_root())])
