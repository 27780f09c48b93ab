"""Touché's measures as ir_measures measures, so ``pt.Experiment`` reports ``touche evaluate``'s
values: the leaderboard's, where PyTerrier's own conventions would change them (the rank column
of tied scores, stance counted over every row, topics some judgements leave out)."""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

import ir_measures
import pandas as pd

from touche.errors import ToucheError
from touche.pyterrier.scoring import PooledAgg, aggregation_of, scored
from touche.retrieval.evaluation.registry import check_trec_name, parse_measure
from touche.retrieval.formats.qrels import QrelsKind

_DEPTH = re.compile(r"@([0-9]+)$")


def qrels_column(name: str) -> str:
    """The qrels frame column a measure reads: ``quality:…`` names it; stance measures read
    ``stance`` (``tpt.qrels`` puts the stance judgements there); every other one ``relevance``
    (PyTerrier's ``label``)."""
    parsed = parse_measure(name)
    if parsed.qrels:
        return parsed.qrels
    return "stance" if parsed.family.qrels_kind is QrelsKind.STANCE else "relevance"


@functools.lru_cache(maxsize=None)
def measure(name: str):
    """A measure of the registry (``touche.nDCG@5``, ``touche2021.nDCG@5``, ``stance.F1_macro``,
    ``stance.N``, ``trec.nDCG@5`` …; ``quality:touche.nDCG@5`` reads the qrels frame's ``quality``
    column, see ``tpt.qrels``) as an ir_measures measure for ``pt.Experiment``, ``pt.GridScan``,
    ``pt.GridSearch``, ``ir_measures.calc_aggregate`` and ``iter_calc``. ``measure("touche.nDCG@5")
    @ 10`` is ``measure("touche.nDCG@10")``; the measure equals its name (``pt.GridSearch`` looks
    its result up by name).

    The run is read through the input gate as its file would be: ranked by score, equal scores in
    the order of the frame's ``rank`` column (Touché 2022's evaluator cuts by rank), once for all
    the toolkit's measures of an evaluation (``scoring.py``). Topic ids come back as the qrels
    frame writes them. Every topic of the qrels frame gets a value: a topic Touché's nDCG leaves
    out (no judged document in its cut) counts 0, and a topic the measure's qrels column does not
    judge counts 0 too, with a warning (give ``qrels[qrels.quality.notna()]`` for such a measure).

    A measure pooled over topics (stance macro-F1: one F1 over every judged row) gives each topic
    its own value (the F1 of its rows alone, nan where it predicts no stance) carrying its additive
    part, and its aggregate is the pooled value of all parts (``pooled.PooledAgg``): the mean
    ``pt.Experiment`` and ``calc_aggregate`` report is the leaderboard's, and a test against a
    baseline resamples the parts (docs/pyterrier.md, "Stance in pt.Experiment"). A count
    (``stance.N``) gives each topic its count and aggregates to the total."""
    parsed = parse_measure(name)
    column = qrels_column(name)
    kind = aggregation_of(parsed)

    def impl(qrels: pd.DataFrame, run: pd.DataFrame) -> Iterable[tuple[Any, float]]:
        yield from scored(name, parsed, column, kind, qrels, run)

    defined = ir_measures.define(impl, name=name, support_cutoff=False,
                                 run_inputs=["query_id", "doc_id", "score"],
                                 qrel_inputs=["query_id", "doc_id", "relevance" if column == "relevance" else column],
                                 short_desc=f"Touché's {parsed.name} (touche evaluate's values)")
    cls = type(defined)  # ir_measures' class of this one measure: its methods are set by name (B010: mypy
    # cannot type an assignment of a method to a class it did not see defined)
    setattr(cls, "__matmul__", lambda self, depth: _at_depth(name, depth))  # noqa: B010
    setattr(cls, "__eq__",  # noqa: B010
            lambda self, other: isinstance(other, (str, ir_measures.Measure)) and str(other) == name)
    setattr(cls, "__hash__", lambda self: hash(name))  # noqa: B010  # as its name's: pt.GridSearch finds it
    if kind is not None:
        setattr(cls, "aggregator", lambda self: PooledAgg(kind))  # noqa: B010
    return defined


def measures(*names: str | Any) -> list[Any]:
    """``pt.Experiment``'s ``eval_metrics`` from names: ours (``touche.nDCG@5``, ``stance.F1_macro``,
    ``quality:touche.nDCG@5``) become ``measure(…)``; every other name or measure object passes as
    PyTerrier takes it (``ndcg_cut_5``, ``ir_measures.nDCG@5``). PyTerrier parses a plain string
    as a trec_eval name only, so ``"touche.nDCG@5"`` alone is an unknown measure to it."""
    return [measure(item) if isinstance(item, str) and _is_ours(item) else item for item in names]


def _is_ours(name: str) -> bool:
    """Whether ``touche evaluate`` reads the name: ours, or ir_measures' spelling (``P@5``, as
    ``touche evaluate`` takes it: trec.P@5); a trec_eval name (``ndcg_cut_5``) is PyTerrier's."""
    try:
        check_trec_name(parse_measure(name))  # a trec.-family name must be one ir_measures knows
    except ToucheError:
        return False
    return True


def _at_depth(name: str, depth: Any):
    if not _DEPTH.search(name):
        raise ToucheError(f"{name} has no depth to change (only a measure named …@k takes @ {depth!r})")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ToucheError(f"{name} @ {depth!r}: the depth must be a whole number of at least 1")
    return measure(_DEPTH.sub(f"@{depth}", name))
