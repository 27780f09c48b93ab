"""Inputs resolved once: what a command or a suite is given becomes paths.

A corpus, topics file or qrels file may be a path (relative to a variant or suite file when it
comes from one) or ``irds:<id>`` (ir_datasets, see touche/datasets.py); a TIRA input directory
holds the corpus files and ``topics.xml``, and what it holds says which task it is for. Every
layer takes these resolved paths; nothing below resolves an input again.
"""
from __future__ import annotations

import glob
import logging
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from touche import datasets, registry, sources
from touche.datasets import parse_ref
from touche.errors import InputError, ToucheError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Inputs:
    """What a run reads: the corpus (file or folder), the topics file and named qrels files."""
    corpus: Path
    topics: Path
    qrels: dict[str, Path] = field(default_factory=dict)


def resolve_corpus(value: str | os.PathLike[str], *, base_dir: Path | None = None, corpus_format: str | None = None,
                   config: Path | None = None, progress: bool = True) -> Path:
    """A corpus input: ``irds:<id>`` → the dataset's corpus; a path → itself (relative to ``base_dir``)."""
    ref = parse_ref(value)
    path = datasets.corpus_path(ref, progress=progress) if ref else Path(base_dir or "", value)
    if corpus_format:
        datasets.check_corpus_format(path, corpus_format, config=config)
    return path


def resolve_topics(value: str | os.PathLike[str], *, base_dir: Path | None = None) -> Path:
    ref = parse_ref(value)
    return datasets.topics_path(ref) if ref else Path(base_dir or "", value)


def expand_qrels(items: Iterable[str], *, required: bool = True, notes: list[str] | None = None) -> list[str]:
    """``[NAME=]PATH`` items with ``irds:<id>`` expanded: ``irds:<id>`` → every qrels file of the
    dataset (``relevance=…``, ``quality=…``), ``NAME=irds:<id>`` → that one."""
    out: list[str] = []
    for item in items:
        name, value = split_named(item)
        ref = parse_ref(value)
        if ref is None:
            out.append(item)
            continue
        found = datasets.qrels_paths(ref, required=required, notes=notes)
        if name:
            if name not in datasets.dataset(ref).qrels:
                raise InputError(f"{ref} has no '{name}' qrels (it has: {', '.join(datasets.dataset(ref).qrels)})")
            if name in found:
                out.append(f"{name}={found[name]}")
        else:
            out.extend(f"{n}={p}" for n, p in found.items())
    return out


_QRELS_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def split_named(item: str) -> tuple[str, str]:
    """``NAME=PATH`` → (NAME, PATH); a path that merely holds '=' (``runs/a=b/q.txt``) has no name."""
    name, sep, path = str(item).partition("=")
    if sep and _QRELS_NAME.fullmatch(name):
        return name, path
    return "", str(item)


# Characters that change how text around them reads or show as nothing: controls and format
# characters (the bidirectional overrides U+202E and kin, zero-width ones). Whitespace is left to
# the tables, which write any run of it as one space.
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs"})


def printable_label(text: str) -> str:
    """A name as tables, pages and exports show it: each invisible or text-reversing character
    written as ``[U+202E]`` (a U+202E in a run's file name once reversed the text of the Markdown,
    LaTeX and CSV exports where they were pasted)."""
    return "".join(f"[U+{ord(c):04X}]" if unicodedata.category(c) in _INVISIBLE and not c.isspace() else c
                   for c in text)


def distinct_labels(paths: Iterable[str | Path], label=lambda p: p.name, what: str = "file") -> list[str]:
    """A label per path (``label(path)``, e.g. the file name) that tells distinct files apart: where
    two labels clash, the folders above them are prepended until they differ (``c1/run.txt``,
    ``st2/run.txt``). The same file given twice is an error: a table keyed by label would
    otherwise silently show one of them."""
    paths = [Path(p) for p in paths]
    resolved = [Path(p).resolve() for p in paths]
    for i, path in enumerate(resolved):
        if path in resolved[:i]:
            raise InputError(f"this {what} is given twice (as {paths[resolved.index(path)]} and {paths[i]}); "
                             "give each once", path=paths[i])
    labels = [label(p) for p in paths]
    depth = 1
    deepest = max((len(r.parent.parts) for r in resolved), default=0)
    while len(set(labels)) < len(labels):
        clashing = {x for x in labels if labels.count(x) > 1}
        if depth > deepest:  # no folder tells them apart (x/run.txt, x/run.tsv labelled by stem)
            labels = [str(r) if x in clashing else x for x, r in zip(labels, resolved)]
            break
        parents = [r.parent.parts[-depth:] if depth <= len(r.parent.parts) else r.parent.parts for r in resolved]
        labels = ["/".join((*parent, label(p))) if x in clashing else x
                  for x, p, parent in zip(labels, paths, parents)]
        depth += 1
    return [printable_label(x) for x in labels]


def parse_named_qrels(items: Iterable[str]) -> dict[str, Path]:
    """``[NAME=]PATH`` command-line items → {name: path}; an unnamed file is named by its stem
    (folders prepended where two stems clash). A NAME given twice is an error."""
    given = [split_named(item) for item in items]
    names = [name for name, _ in given if name]
    for name in names:
        if names.count(name) > 1:
            raise InputError(f"the qrels name '{name}' is given twice ("
                             + ", ".join(f"{n}={p}" for n, p in given if n == name)
                             + "): give each qrels file its own name")
    unnamed = [Path(path) for name, path in given if not name]
    stems = iter(distinct_labels(unnamed, label=lambda p: p.stem, what="qrels file"))
    named: dict[str, Path] = {}
    for name, path in given:
        key = printable_label(name) if name else next(stems)
        if key in named:
            raise InputError(f"the qrels name '{key}' names two files ({named[key]} and {path}): "
                             f"write NAME=PATH for one of them")
        named[key] = Path(path)
    return named


def resolve_named_qrels(named: dict[str, str], *, base_dir: Path | None = None) -> dict[str, Path]:
    """A ``name: path`` mapping (suite and sweep YAML) where a value may be ``irds:<id>``: that
    dataset's qrels of the same name."""
    out: dict[str, Path] = {}
    for name, value in named.items():
        ref = parse_ref(value)
        if ref is None:
            out[name] = Path(base_dir or "", value)
            continue
        d = datasets.dataset(ref)
        if name not in d.qrels:
            raise InputError(f"{ref} has no '{name}' qrels (it has: {', '.join(d.qrels)})")
        out[name] = datasets.ensure_file(d.qrels[name])
    return out


BEIR_FILES = ("corpus.jsonl", "queries.jsonl")  # args.me as BEIR lays it out (indexing/beir.py)


def is_beir_folder(path: Path) -> bool:
    return Path(path).is_dir() and all((Path(path) / name).is_file() for name in BEIR_FILES)


def check_input_dir(input_dir: Path, topics: Path | None = None) -> tuple[Path, Path]:
    """(corpus path, topics file) of a TIRA-style input directory (or a BEIR folder: its
    queries.jsonl are the topics), with a clear error if incomplete. ``topics``: the topics file
    when it has another name (a path, or a name inside the folder)."""
    if not input_dir.is_dir():
        raise ToucheError("input directory not found", path=input_dir)
    if topics is not None:
        given = topics if sources.exists(topics) or topics.is_absolute() else input_dir / topics
        if not sources.exists(given):  # a file, or a pipe (<(cat topics.xml)), read once
            raise ToucheError(f"the topics file {topics} is neither a file nor one inside the input directory",
                              path=input_dir)
        return input_dir, given
    topics = input_dir / "topics.xml"
    if not topics.is_file() and is_beir_folder(input_dir):
        return input_dir, input_dir / "queries.jsonl"
    if not topics.is_file():
        others = sorted(p.name for p in input_dir.glob("*.xml"))
        hint = f"; it holds {', '.join(others[:3])}: name the topics file with --topics" if others else ""
        raise ToucheError(f"the input directory has no topics.xml (TIRA input: corpus files + topics.xml){hint}",
                          path=input_dir)
    return input_dir, topics


def resolve_input(value: str | Path, topics: Path | None = None) -> Inputs:
    """A run-all input: ``irds:<id>`` → corpus, topics and the qrels that can be had; a TIRA input
    directory (corpus files + topics.xml, or ``topics``) → the directory and its topics."""
    ref = parse_ref(value)
    if ref is None:
        corpus, topics = check_input_dir(Path(value), topics)
        beir_qrels = Path(value) / "qrels" / "test.tsv"
        if is_beir_folder(Path(value)) and beir_qrels.is_file():
            return Inputs(corpus, topics, {"relevance": beir_qrels})
        return Inputs(corpus, topics)
    notes: list[str] = []
    qrels = datasets.qrels_paths(ref, required=False, notes=notes)
    for note in notes:
        log.info("note: %s", note)
    return Inputs(datasets.corpus_path(ref), datasets.topics_path(ref), qrels)


def detect_task(input_dir: Path) -> str:
    """The task a TIRA input directory is for, from what it holds (each task's ``markers`` in
    touche/registry.py); the default task (args.me JSON, Task 1) when it holds none of the others'
    files. An explicit --task, --suite or -c always wins over this."""
    if is_beir_folder(input_dir):  # its corpus.jsonl is args.me, not Task 2 passages
        return registry.DEFAULT_TASK
    found = [name for name, task in reversed(registry.TASKS.items()) if name != registry.DEFAULT_TASK  # latest first
             and any(next(input_dir.glob(p), None) is not None for p in task.markers)]
    if len(found) > 1:
        raise InputError(f"the input directory holds the files of two tasks ({' and '.join(found)}); "
                         f"choose one with --task", path=input_dir)
    default = registry.TASKS[registry.DEFAULT_TASK]
    if not found and not any(next(input_dir.glob(p), None) is not None for p in default.markers):
        held = sorted(p.name for p in input_dir.iterdir())
        kinds = [task.holds for task in registry.TASKS.values() if task.holds]
        raise InputError(f"the input directory holds no corpus ({', '.join(kinds[:-1])} or {kinds[-1]}); it holds "
                         + (", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "") if held
                            else "nothing"), path=input_dir)
    return found[0] if found else registry.DEFAULT_TASK


# --------------------------------------------------------------------------- --dataset and the task
def with_dataset(dataset_id: str | None, *, corpus=None, topics=None, qrels=None
                 ) -> tuple[Any, Any, Any, bool]:
    """(corpus, topics, qrels, qrels from the dataset?): ``dataset_id`` (``--dataset ID``, an API
    call's ``dataset=``) fills what is not given with ``irds:ID``; an unknown id is an error listing
    the known ones. ``qrels`` may be a list of ``[NAME=]PATH`` items or one path."""
    if not dataset_id:
        return corpus, topics, qrels, False
    datasets.dataset(dataset_id)  # an unknown id fails now, listing the known ones
    ref = datasets.PREFIX + dataset_id
    from_dataset = not qrels
    return corpus or ref, topics or ref, qrels or [ref], from_dataset


def task_of(task: str | None, input: str | Path | None = None, *, suite=None, config=None) -> str:
    """The task whose suite runs: ``task`` given; else (no suite) the task of an ``irds:`` input's
    dataset or of what a TIRA input folder holds; else task1. A single variant (``config``) runs
    with its own task's suite whatever this says (``suite.suite_for``)."""
    if task:
        return task
    if suite:
        return registry.DEFAULT_TASK
    ref = parse_ref(input)
    if ref:
        return datasets.dataset(ref).task
    if input and Path(input).is_dir():
        detected = detect_task(Path(input))  # a TIRA input directory says what it is for
        log.info("task: %s (detected from what %s holds; --task chooses another)", detected, input)
        return detected
    return registry.DEFAULT_TASK


def resolved_qrels(qrels, *, required: bool = True) -> list[str] | str | None:
    """``[NAME=]PATH`` items with ``irds:`` ids expanded (notes on what a dataset lacks logged); one
    ``irds:`` id given alone (compare's single qrels) is its relevance judgements."""
    if isinstance(qrels, (list, tuple)):
        notes: list[str] = []
        out = expand_qrels(qrels, required=required, notes=notes) or None
        for note in notes:
            log.info("note: %s", note)
        return out
    if isinstance(qrels, str) and (ref := parse_ref(qrels)):
        return str(datasets.qrels_paths(ref)["relevance"])
    return qrels


# --------------------------------------------------------------------------- runs and qrels told apart
GLOB = set("*?[")
QRELS_COLUMNS = 4  # qid 0 docid label (a BEIR qrels file has three)
# A report beside the runs (explore.html, evaluation.md, results.json): its first line is markup,
# a Markdown table or JSON, never a run's or qrels' fields; ``touche evaluate out/*`` passes it.
_NOT_TABULAR = ("<", "|", "{", "[", "#")


def runs_and_qrels(items: Iterable[str], also: Iterable[str] | None = None, *, quiet: bool = False
                   ) -> tuple[list[str], list[str]]:
    """Files given together (``touche evaluate RUN... QRELS...``) told apart: a NAME=PATH or an
    ``irds:`` id is qrels; a file whose first line has more than four columns a run (a damaged
    run is still read as one, and its reader says what is wrong), a report (HTML, Markdown, JSON) is
    left out with a note, anything else qrels; a pattern that names no file is expanded.
    ``also``: more runs. ``quiet``: the output guard's look before the command runs (no note,
    nothing refused: the command itself says what is missing or wrong)."""
    kinds: list[tuple[str, str | None]] = []  # (item, "run" | "qrels" | None: no such file)
    for item in items:
        name, path = split_named(item)
        if name or path.startswith("irds:"):
            kinds.append((item, "qrels"))
            continue
        matches = sorted(glob.glob(path)) if GLOB & set(path) and not Path(path).exists() else [path]
        if not matches:
            raise InputError(f"no file matches {path!r}")
        for match in matches:
            if not (sources.exists(match) or Path(match).is_dir()):
                kinds.append((match, None))
                continue
            first = _first_line(match)
            if first is not None and first.lstrip().startswith(_NOT_TABULAR):
                if not quiet:  # said once, where the files are read (the output guard looks first)
                    log.info("note: left out %s: neither a run nor qrels (its first line is %r)", match, first[:40])
                continue
            kinds.append((match, "run" if len((first or "").split()) > QRELS_COLUMNS else "qrels"))
    if quiet:  # the output guard's look: every file named is read; what is missing is said by the command
        kinds = [(item, kind or "run") for item, kind in kinds]
    for place, (item, kind) in enumerate(kinds):
        if kind is None:  # runs come first: a missing file before qrels was meant as a run, after runs as qrels
            later, earlier = {k for _, k in kinds[place + 1:]}, {k for _, k in kinds[:place]}
            what = "run file" if "qrels" in later else "qrels file" if "run" in earlier else "run or qrels file"
            raise InputError(f"{what} not found (the runs come first, then the qrels)", path=item)
    runs = [item for item, kind in kinds if kind == "run"]
    qrels = [item for item, kind in kinds if kind == "qrels"]
    runs += list(also or [])
    qrels = expand_qrels(qrels)  # irds:<id> → the dataset's qrels files
    if quiet:
        return runs, qrels
    if not runs:
        raise InputError("no run among the files given (a run's lines have six columns: qid Q0 docid rank score "
                         "tag; a file with four or fewer is read as qrels); give the runs first, then the qrels")
    if not qrels:
        raise InputError("no qrels among the files given (their lines have four columns: qid 0 docid label); give "
                         "them after the runs")
    return runs, qrels


def _first_line(path: str) -> str | None:
    """A file's first non-blank line (None for a folder or an unreadable file: then its reader says
    what is wrong with it)."""
    try:
        with sources.open_text(path, errors="replace") as handle:  # a pipe: read once, kept for its reader
            for line in handle:
                if line.strip():
                    return line.strip()
    except OSError:
        return None
    return None
