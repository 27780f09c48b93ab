"""``touche datasets``: the ir_datasets ids the toolkit reads, what of each is cached, where files go
(how ``--dataset`` and ``irds:<id>`` arguments become the paths commands take: ``common.apply_to_args``)."""
from __future__ import annotations

import logging

from touche.cli.common import add_command
from touche.datasets import DATASETS, corpus_path, dataset, irds_home, qrels_paths, status_rows, topics_path
from touche.guard import Files

log = logging.getLogger(__name__)


def add_parser(sub) -> None:
    p = add_command(sub, "datasets", run,
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
    for part, cached, present, hint in status_rows(d.id):
        print(f"  {part:17} {'present' if present else 'MISSING'}  {cached}")
        if not present:
            missing += 1
            print(f"  {'':17} offline: {hint}")
    return 0 if not missing else 1


def files(args) -> Files:
    return Files()  # --fetch fills ir_datasets' own cache
