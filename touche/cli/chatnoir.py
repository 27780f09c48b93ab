"""``touche chatnoir``: fetch each topic's ChatNoir hits as a small ClueWeb12 corpus (Task 2's first
stage over all of ClueWeb12), to index and re-rank like any local corpus."""
from __future__ import annotations

from pathlib import Path

from touche.cli.common import add_command
from touche.config import load_variant
from touche.guard import Files
from touche.retrieval.formats.gate import load_topics
from touche.retrieval.tasks.task2.chatnoir import ChatNoirClient, fetch_corpus
from touche.specs.task2 import ChatNoirSpec, Task2Spec


def add_parser(sub) -> None:
    p = add_command(sub, "chatnoir", run, "touche chatnoir -c configs/task2/3-rerank.yaml -t topics.xml -o fetched/")
    p.add_argument("-c", "--config", required=True, help="Task 2 variant (its task2.chatnoir section, or defaults)")
    p.add_argument("-t", "--topics", required=True, help="topics XML")
    p.add_argument("-o", "--output", required=True, help="new directory for the fetched corpus")


def run(args) -> int:
    spec = load_variant(args.config).variant.task2 or Task2Spec()
    client = ChatNoirClient(spec.chatnoir or ChatNoirSpec())
    out = fetch_corpus(load_topics(args.topics), spec, Path(args.output), client,
                       progress=lambda line: print(line, flush=True))
    print(f"wrote {out} ({client.requests_sent} requests); index and re-rank it with: "
          f"touche run -c {args.config} -i {out} -t {args.topics} -o run.txt")
    return 0


def files(args) -> Files:
    return Files.of(reads=[("variant", args.config), ("topics", args.topics)], folders=[("corpus folder", args.output)])
