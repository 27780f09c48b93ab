"""``touche datasets``: the ir_datasets ids the toolkit reads, what of each is cached, where files go;
and how ``--dataset`` and ``irds:<id>`` arguments become the paths commands take."""
from __future__ import annotations

import logging
from pathlib import Path

from touche.cli.common import add_command
from touche.guard import Files
from touche.datasets import (DATASETS, PREFIX, corpus_path, dataset, irds_home, parse_ref, qrels_paths,
                             status_rows, topics_path)
from touche.inputs import detect_task, expand_qrels

log = logging.getLogger(__name__)


def add_parser(sub) -> None:
    p = add_command(sub, "datasets", run, "list the ir_datasets ids the toolkit reads, and where each file is cached",
                    "touche datasets argsme/2020-04-01/touche-2021-task-1")
    p.add_argument("id", nargs="?", help="show this dataset's files: present, or where to place them offline "
                                         "(exit 1 when some are missing)")
    p.add_argument("--fetch", action="store_true", help="fetch every file now (downloads on a machine with internet)")


def run(args) -> int:
    """Supported ids, what of each is cached, where files go."""
    if not args.id:
        print(f"ir_datasets cache: {irds_home()} (IR_DATASETS_HOME)")
        print(f"{'id':50} {'task':13} {'corpus.format':18} cached")
        for d in DATASETS.values():
            rows = status_rows(d.id)
            have = sum(r[2] for r in rows)
            print(f"{d.id:50} {d.task:13} {d.corpus.formats[0]:18} {have}/{len(rows)} files")
        return 0
    d = dataset(args.id)
    if args.fetch:
        print(f"corpus: {corpus_path(d.id)}")
        print(f"topics: {topics_path(d.id)}")
        for name, path in qrels_paths(d.id).items():
            print(f"qrels {name}: {path}")
        return 0
    missing = 0
    print(f"{d.id}: task {d.task}, corpus.format {' or '.join(d.corpus.formats)}")
    for part, path, present, hint in status_rows(d.id):
        print(f"  {part:17} {'present' if present else 'MISSING'}  {path}")
        if not present:
            missing += 1
            print(f"  {'':17} offline: {hint}")
    return 0 if not missing else 1


def apply_to_args(args) -> None:
    """Turn ``--dataset`` and ``irds:`` values of parsed arguments into what commands take.

    ``--dataset ID`` fills unset ``-i``/``-t``/``--qrels`` with ``irds:ID``; ``run-all`` keeps its
    ``-i irds:ID`` (its suite resolves corpus and topics together) and runs the dataset's task
    when no ``--task``/``--suite`` is given; other commands get plain paths here.
    """
    dataset_id = getattr(args, "dataset", None)
    qrels_from_dataset = False
    if dataset_id:
        dataset(dataset_id)  # an unknown id fails now, listing the known ones
        ref = PREFIX + dataset_id
        if hasattr(args, "input") and not args.input:
            args.input = ref
        if hasattr(args, "topics") and not args.topics:
            args.topics = ref
        if hasattr(args, "qrels") and not args.qrels:
            args.qrels, qrels_from_dataset = [ref], True
    command = getattr(args, "command", None)
    if hasattr(args, "task") and getattr(args, "task", None) is None:
        ref = parse_ref(getattr(args, "input", None))
        local = getattr(args, "input", None)
        if ref and not getattr(args, "suite", None):
            args.task = dataset(ref).task
        elif local and not getattr(args, "suite", None) and Path(local).is_dir():
            args.task = detect_task(Path(local))  # a TIRA input directory says what it is for
            log.info("task: %s (detected from what %s holds; --task chooses another)", args.task, local)
        else:
            args.task = "task1"
    if command != "run-all" and parse_ref(getattr(args, "input", None)):
        args.input = str(corpus_path(parse_ref(args.input)))
    if parse_ref(getattr(args, "topics", None)):
        args.topics = str(topics_path(parse_ref(args.topics)))
    qrels = getattr(args, "qrels", None)
    if isinstance(qrels, list):
        notes: list[str] = []
        args.qrels = expand_qrels(qrels, required=not qrels_from_dataset, notes=notes) or None
        for note in notes:
            log.info("note: %s", note)
    elif isinstance(qrels, str) and parse_ref(qrels):  # a single qrels file: the relevance judgements
        args.qrels = str(qrels_paths(parse_ref(qrels))["relevance"])


def files(args) -> Files:
    return Files()  # --fetch fills ir_datasets' own cache
