"""pyterrier-caching around a transformer that labels stance: its ``ScorerCache`` keeps one column
of each (query, document), the score, and a stance variant's results came out of it without
their stance. ``cached(variant, path)`` keeps both in one cache (the score and the stance of each
pair, pickled together: pyterrier-caching's ``value=``/``pickle=``), so the variant runs once per
missing pair; a plain ``ScorerCache(path, variant)`` of a variant that labels stance is refused
with that fix (``refuse_one_column_cache``)."""
from __future__ import annotations

import math
import os
import sys
from types import FrameType
from typing import Any

import pandas as pd
import pyterrier as pt

from touche.errors import EnvironmentProblem, ToucheError

PathLike = str | os.PathLike[str]
CACHED = "touche_scored"  # the cache's column: (score, stance) of a pair


def cached(scorer: pt.Transformer, path: PathLike | None = None, *, verbose: bool = False) -> pt.Transformer:
    """``scorer`` (a variant, or any transformer that scores given documents) behind
    pyterrier-caching's ``ScorerCache`` at ``path`` (None: a temporary one), the score and the
    stance of each (query, docno) cached together; what comes out is ranked by score, as
    ``ScorerCache``'s own output."""
    try:
        from pyterrier_caching import ScorerCache
    except ImportError:
        raise EnvironmentProblem("touche.pyterrier.cached needs pyterrier-caching: pip install pyterrier-caching "
                                 "(-c requirements.lock pins the tested version)") from None
    cache = ScorerCache(None if path is None else str(path), scorer >> pt.apply.generic(_pack), value=CACHED,
                        pickle=True, verbose=verbose)
    return cache >> pt.apply.generic(_unpack)


def _pack(results: pd.DataFrame) -> pd.DataFrame:
    stances = results["stance"] if "stance" in results.columns else [None] * len(results)
    return results.assign(**{CACHED: [(float(s), None if _missing(t) else str(t))
                                      for s, t in zip(results["score"], stances)]})


def _unpack(results: pd.DataFrame) -> pd.DataFrame:
    kept = results[results[CACHED].map(lambda v: isinstance(v, tuple))]  # pairs the scorer returned
    scores = [v[0] for v in kept[CACHED]]
    stances = [v[1] for v in kept[CACHED]]
    out = kept.drop(columns=[CACHED]).assign(score=scores)
    if any(s is not None for s in stances):
        out = out.assign(stance=[s if s is not None else "Q0" for s in stances])
    out = out.reset_index(drop=True)
    return pt.model.add_ranks(out)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def refuse_one_column_cache(transformer: pt.Transformer) -> None:
    """Called by a transformer whose results carry a stance: refused, naming the fix, when a
    pyterrier-caching cache that keeps the score alone runs it (its ``transform`` is a few calls
    up; PyTerrier gives a transformer no other way to know who runs it)."""
    frame: FrameType | None = sys._getframe(1)
    for _ in range(12):
        frame = frame.f_back if frame is not None else None
        if frame is None:
            return
        caller = frame.f_locals.get("self")
        if caller is None or not type(caller).__module__.startswith("pyterrier_caching"):
            continue
        if getattr(caller, "value", "score") == "score":
            raise ToucheError(f"{type(caller).__name__} keeps one column of each (query, document), the score, and "
                              f"would drop the stance {transformer!r} labels: cache it with touche.pyterrier.cached("
                              "transformer, path), which keeps the score and the stance together")
        return
