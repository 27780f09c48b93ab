"""Experiments over many variants: ``touche sweep`` and ``touche choose`` as functions."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Union

from touche.inputs import parse_named_qrels
from touche.retrieval.experiments.choose import choose as choose_points
from touche.retrieval.experiments.choose.picks import Pick
from touche.retrieval.experiments.sweep import SweepOutcome, SweepPlan, plan_sweep, run_sweep

__all__ = ["sweep", "choose"]

PathLike = Union[str, "os.PathLike[str]"]


def sweep(sweep: PathLike, *, output: PathLike | None = None, corpus: PathLike | None = None,
          topics: PathLike | None = None, qrels: Mapping[str, PathLike] | Iterable[str] | None = None,
          index_root: PathLike | None = None, limit: int | None = None, dry_run: bool = False,
          progress: bool = True, ray: str | bool | None = None) -> SweepOutcome | SweepPlan:
    """``touche sweep``: run (or resume) a sweep file's grid, every point on every set, and write its
    reports (results.csv, results.md, sweep.png, sweep.json); the outcome's ``summary()`` says what
    was found. ``output``, ``corpus``, ``topics``, ``qrels`` ({name: path} or ``NAME=PATH`` items)
    instead of the sweep file's; ``limit``: at most this many unfinished runs now; ``ray``: as Ray
    tasks (True: a local cluster; else its address). ``dry_run``: nothing runs; the plan (which
    runs are done, which to do) is returned."""
    named = None if qrels is None else {n: Path(p) for n, p in (
        qrels.items() if isinstance(qrels, Mapping) else parse_named_qrels(qrels).items())}
    corpus_path, topics_path = Path(corpus) if corpus else None, Path(topics) if topics else None
    output_path = Path(output) if output else None
    if dry_run:
        return plan_sweep(Path(sweep), corpus=corpus_path, topics=topics_path, qrels=named, output=output_path)
    return run_sweep(Path(sweep), corpus=corpus_path, topics=topics_path, qrels=named, output=output_path,
                     index_root=Path(index_root) if index_root else None, progress=progress, limit=limit, ray=ray)


def choose(results: PathLike, out: PathLike, *, measure: str | None = None, second: str | None = "auto",
           count: int = 5, min_diff: int | None = None, distinct: str | None = None, max_loss: float | None = None,
           reference: bool = True, index_root: PathLike | None = None, partial: bool = False,
           progress: bool = True) -> list[Pick]:
    """``touche choose``: ``count`` diverse, strong submissions from a sweep's output folder
    (``results``), written to ``out`` as variant files, a suite.yaml and choice.md. ``second``: the
    second measure ("auto": the main one on the quality qrels; None: no pick by a second measure);
    ``reference``: run the shipped suite's primary on the sweep's data to compare; the other
    options as the command takes them."""
    return choose_points(Path(results), Path(out), measure=measure, second=second, count=count, min_diff=min_diff,
                         reference=reference, distinct=distinct,
                         index_root=Path(index_root) if index_root else None, partial=partial, max_loss=max_loss,
                         progress=progress)
