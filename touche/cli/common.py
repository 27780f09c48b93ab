"""What several commands share: their parsers' summary and options, --set overrides, and how --dataset
and irds:<id> arguments become the paths commands take (`apply_to_args`)."""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from touche import numbers
from touche.atomic import is_stdout
from touche.cli.commands import COMMANDS
from touche.datasets import PREFIX, corpus_path, dataset, parse_ref, qrels_paths, topics_path
from touche.errors import ToucheError
from touche.inputs import detect_task, expand_qrels
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
    p.add_argument("--topics-only", metavar="SPEC", help="only these topics, e.g. 51,55,57-60")
    p.add_argument("--topics-except", metavar="SPEC", help="all topics but these, e.g. 51,55,57,73,80 (a held-out "
                                                           "test set)")


def selection_of(args) -> TopicSelection | None:
    return TopicSelection.of(getattr(args, "topics_only", None), getattr(args, "topics_except", None))


def overrides(pairs: list[str] | None, skip_bad_records: bool = False) -> dict[str, str]:
    out = {"corpus.skip_bad_records": "true"} if skip_bad_records else {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ToucheError(f"--set expects KEY=VALUE (e.g. retrieval.similarity.k1=1.2), got '{pair}'")
        key, value = pair.split("=", 1)
        out[key.strip()] = value
    return out


def model_output(output: str, shipped: Path, replace_shipped: bool) -> Path:
    """Where a ``train-*`` command writes its model: ``output``, or the model the package ships
    with ``--replace-shipped`` only (in an editable install that is the checkout); never a folder."""
    path = shipped if replace_shipped else Path(output)
    if path.resolve() == shipped.resolve() and not replace_shipped:
        raise ToucheError("this is the model the package ships; pass --replace-shipped to overwrite it", path=path)
    if path.is_dir():
        raise ToucheError(f"the output is a folder; give a file name (e.g. {shipped.name})", path=path)
    return path


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
    if command != "run-all" and (given := parse_ref(getattr(args, "input", None))):
        args.input = str(corpus_path(given))
    if given := parse_ref(getattr(args, "topics", None)):
        args.topics = str(topics_path(given))
    qrels = getattr(args, "qrels", None)
    if isinstance(qrels, list):
        notes: list[str] = []
        args.qrels = expand_qrels(qrels, required=not qrels_from_dataset, notes=notes) or None
        for note in notes:
            log.info("note: %s", note)
    elif isinstance(qrels, str) and (given := parse_ref(qrels)):  # a single qrels file: the relevance judgements
        args.qrels = str(qrels_paths(given)["relevance"])
