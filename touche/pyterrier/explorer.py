"""The run explorer for the systems of a PyTerrier experiment."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyterrier as pt

from touche import api
from touche.errors import ToucheError

PathLike = str | os.PathLike[str]


def explore(systems: Sequence[Any] | Mapping[str, Any], topics_frame: pd.DataFrame | None = None, *,
            qrels: Any = None, names: Sequence[str] | None = None, out: PathLike = "explore.html",
            **options) -> Path:
    """The run explorer for the systems of an experiment (what ``pt.Experiment`` was given: result
    frames, transformers run on ``topics_frame``, or run files), as ``touche explore`` writes it;
    ``options`` as ``api.explore`` takes them (corpus, topics, baseline, measures, test …)."""
    items = list(systems.items()) if isinstance(systems, Mapping) else \
        list(zip(names or [None] * len(systems), systems))  # type: ignore[list-item]  # unnamed: named below
    runs: dict[str, Any] = {}
    for number, (name, system) in enumerate(items, 1):
        if isinstance(system, pt.Transformer):
            if topics_frame is None:
                raise ToucheError("give the topics (a queries frame) to run the transformers on")
            frame = system.transform(topics_frame)
        else:
            frame = system
        label = name or getattr(system, "name", None) or (Path(frame).stem if not isinstance(frame, pd.DataFrame)
                                                          else f"system{number}")
        runs[str(label)] = frame
    return api.explore(runs, qrels, out=out, **options)
