"""What several commands share: their parsers' summary and options, and how --dataset and irds:<id>
arguments become the paths commands take (`apply_to_args`)."""
from __future__ import annotations

import argparse
import logging
import sys

from touche import numbers
from touche.atomic import is_stdout
from touche.cli.commands import COMMANDS
from touche.datasets import corpus_path, parse_ref, topics_path
from touche.inputs import resolved_qrels, task_of, with_dataset
from touche.retrieval.formats.selection import TopicSelection

log = logging.getLogger(__name__)


def add_command(sub, name: str, run, example: str) -> argparse.ArgumentParser:
    """Command ``name``'s parser, with its summary from ``COMMANDS`` and ``example``."""
    help_text = COMMANDS[name]
    p = sub.add_parser(name, help=help_text, description=f"{help_text}\n\nexample:\n  {example}",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)
    return p


def whole_number(text: str) -> int:
    """An option's whole number, written in the digits 0-9 (``touche/numbers.py``): argparse's
    ``type=int`` read ``--depth ٥`` as 5."""
    try:
        return numbers.whole(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def decimal_number(text: str) -> float:
    """An option's number (``0.9``, ``1e-3``), written in the digits 0-9 (``touche/numbers.py``)."""
    try:
        return numbers.decimal(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def note(args, text: str, *, about=None) -> None:
    """A status line ("wrote …"): on standard output, unless one of the command's outputs is
    standard output (``-o -``), which it would run into; then on standard error. A line
    ``about`` an output that went to standard output is not said (it was the output)."""
    if is_stdout(about):
        return
    taken = any(is_stdout(path) for _, path in args.files(args).writes)
    print(text, file=sys.stderr if taken else sys.stdout)


def dataset_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", metavar="ID", help="ir_datasets id: corpus, topics and qrels from it "
                   "(e.g. argsme/2020-04-01/touche-2021-task-1; list: touche datasets)")


def variant_options(p: argparse.ArgumentParser, config_required: bool = True) -> None:
    p.add_argument("-c", "--config", required=config_required, help="run-variant YAML file")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key (repeatable)")
    p.add_argument("--skip-bad-records", action="store_true",
                   help="skip malformed corpus records (counted and listed) instead of stopping")


def topic_options(p: argparse.ArgumentParser) -> None:
    """--topics-only / --topics-except, as a sweep's sets select topics (lists and ranges)."""
    one = p.add_mutually_exclusive_group()
    one.add_argument("--topics-only", metavar="SPEC", type=TopicSelection.option("only"),
                     help="only these topics, e.g. 51,55,57-60 (a topic the topics, or runs and qrels, lack is an "
                          "error; a range takes those it holds)")
    one.add_argument("--topics-except", metavar="SPEC", type=TopicSelection.option("except"),
                     help="all topics but these, e.g. 51,55,57,73,80 (a held-out test set)")


def collection_options(p: argparse.ArgumentParser, corpus: bool = True) -> None:
    """--corpus / --restrict: the collection scores are meant for (a sample), as evaluate, compare,
    explore (whose -i is its corpus) and run-all's evaluation take them."""
    if corpus:
        p.add_argument("--corpus", metavar="PATH", help="the collection the scores are meant for (a sample): a run "
                                                        "holding documents it lacks was retrieved from another one, "
                                                        "and is said to be")
    p.add_argument("--restrict", action="store_true",
                   help="with --corpus: score every run on that collection's documents only (the others dropped, "
                        "the rest ranked again), as an official run is compared with runs on a sample")


def apply_to_args(args) -> None:
    """Turn ``--dataset`` and ``irds:`` values of parsed arguments into what commands take, so the
    output guard checks paths before any work (``touche.inputs`` decides; the API does the same).

    ``--dataset ID`` fills unset ``-i``/``-t``/``--qrels`` with ``irds:ID``; ``run-all`` keeps its
    ``-i irds:ID`` (its suite resolves corpus and topics together) and runs the dataset's task
    when no ``--task``/``--suite`` is given; other commands get plain paths here.
    """
    given = {name: getattr(args, name) for name in ("input", "topics", "qrels") if hasattr(args, name)}
    corpus, topics, qrels, from_dataset = with_dataset(getattr(args, "dataset", None), corpus=given.get("input"),
                                                       topics=given.get("topics"), qrels=given.get("qrels"))
    for name, value in (("input", corpus), ("topics", topics), ("qrels", qrels)):
        if name in given:
            setattr(args, name, value)
    if hasattr(args, "task"):
        args.task = task_of(args.task, getattr(args, "input", None), suite=getattr(args, "suite", None),
                            config=getattr(args, "config", None))
    if getattr(args, "command", None) != "run-all" and (ref := parse_ref(getattr(args, "input", None))):
        args.input = str(corpus_path(ref))
    if ref := parse_ref(getattr(args, "topics", None)):
        args.topics = str(topics_path(ref))
    if "qrels" in given:
        args.qrels = resolved_qrels(args.qrels, required=not from_dataset)
