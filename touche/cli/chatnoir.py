"""``touche chatnoir``: fetch each topic's ChatNoir hits as a small ClueWeb12 corpus (Task 2's first
stage over all of ClueWeb12), to index and re-rank like any local corpus."""
from __future__ import annotations

from touche.api.tools import chatnoir
from touche.cli.common import add_command
from touche.guard import Files


def add_parser(sub) -> None:
    p = add_command(sub, "chatnoir", run, "touche chatnoir -c configs/task2/3-rerank.yaml -t topics.xml -o fetched/")
    p.add_argument("-c", "--config", required=True, help="Task 2 variant (its task2.chatnoir section, or defaults)")
    p.add_argument("-t", "--topics", required=True, help="topics XML")
    p.add_argument("-o", "--output", required=True, help="new directory for the fetched corpus")


def run(args) -> int:
    report = chatnoir(args.config, args.topics, args.output, progress=True)
    print("\n".join(report.lines))
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config), ("topics", args.topics)], folders=[("corpus folder", args.output)])
