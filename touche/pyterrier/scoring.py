"""How a measure of ``measures.py`` scores the frames ir_measures hands it: the run through the
input gate once for all the toolkit's measures of one evaluation, the qrels once per content for
a whole experiment, and the per-topic values PyTerrier's aggregations need.

ir_measures gives every measure of one evaluation the same run frame object, and PyTerrier
gives every system of an experiment a qrels frame of the same content: so the gated run of the
last frame seen and the gated qrels of the last few contents are kept (``_Gated``). Gating a
frame (ranked as its run file would be, then read by the file's parser) is what a measure cost:
once per measure and system it made ``pt.Experiment`` 5-8 times slower than ``api.experiment``.

Values of a measure pooled over topics (stance macro-F1) and of a count (``stance.N``) are
``PooledValue``: the topic's own value (its F1, its count) with its additive part, so that
``PooledAgg`` and ``rendering.py`` compute the pooled value and its test from the parts.
"""
from __future__ import annotations

import hashlib
import math
import re
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import evaluate_rows_per_topic, pooled_parts
from touche.retrieval.evaluation.registry import Measure
from touche.retrieval.formats.gate import load_qrels, load_run, topic_id
from touche.retrieval.formats.qrels import Qrels, QrelsKind
from touche.retrieval.formats.runfile import canonical_topic, natural_key
from touche.retrieval.formats.runtable import RunTable

_DEPTH = re.compile(r"@([0-9]+)$")
_WHOLE_FLOAT = re.compile(r"[0-9]+\.0+")
POOLED, COUNT = "pooled", "count"


def aggregation_of(parsed: Measure) -> str | None:
    """How a measure's topics make its value: None for a mean of topics, ``POOLED`` for one value
    of the parts of all topics (stance macro-F1), ``COUNT`` for a total (stance.N)."""
    if parsed.family.is_count(parsed):
        return COUNT
    return None if parsed.has_per_topic else POOLED


# --------------------------------------------------------------------------- values of pooled measures
def _total(parts: np.ndarray) -> np.ndarray:
    """A count's value of its (summed) parts: the count itself."""
    return np.asarray(parts, float)[..., 0]


class PooledValue(float):
    """A topic's own value of a pooled measure or a count (a float: PyTerrier and ir_measures read
    it as one), with the topic's additive ``part`` and the function making the measure of summed
    parts (``pooled.Pooled``'s ``value``); ``kind`` is ``POOLED`` or ``COUNT``."""

    part: np.ndarray | None
    measure_of: Callable
    kind: str

    def __new__(cls, value: float, part: np.ndarray | None, measure_of: Callable, kind: str):
        self = super().__new__(cls, value)
        self.part, self.measure_of, self.kind = part, measure_of, kind
        return self

    def __reduce__(self):
        return PooledValue, (float(self), self.part, self.measure_of, self.kind)


def pooled_total(values: Iterable[Any]) -> float | None:
    """The measure of the parts of ``values`` (one per topic), None when none is a
    ``PooledValue``; 0 where it is undefined (a run that says no stance), as the leaderboards
    print it."""
    values = [v for v in values if isinstance(v, PooledValue)]
    if not values:
        return None
    parts = [v.part for v in values if v.part is not None]
    if not parts:
        return 0.0
    value = float(values[0].measure_of(np.sum(parts, axis=0)))
    return 0.0 if math.isnan(value) else value


class PooledAgg:
    """ir_measures' aggregator of a pooled measure or a count: the measure of the topics' summed
    parts (``calc_aggregate``, ``pt.GridScan``), not the mean of their own values."""

    def __init__(self, kind: str):
        self.kind = kind
        self.values: list[Any] = []

    def add(self, value) -> None:
        self.values.append(value)

    def result(self) -> float:
        total = pooled_total(self.values)
        if total is None:  # values another provider filled in (ir_measures' default per missing topic)
            return float(sum(self.values)) if self.kind == COUNT else 0.0
        return total


# --------------------------------------------------------------------------- gating, once
class _Gated:
    """The gated run of the last run frame handed over (ir_measures hands each measure of one
    evaluation the same object, which is kept, so its id is not reused) and the gated qrels of
    the last few qrels contents."""

    def __init__(self, keep: int = 8):
        self.frame: pd.DataFrame | None = None
        self.table: RunTable | None = None
        self.qrels: OrderedDict[tuple, Qrels] = OrderedDict()
        self.keep = keep

    def run(self, run: pd.DataFrame) -> RunTable:
        if self.frame is not run:
            columns = [c for c in ("query_id", "doc_id", "score", "rank", "stance") if c in run.columns]
            frame = run[columns].assign(query_id=run["query_id"].map(_whole_topic))
            self.table, self.frame = load_run(frame, name="of the experiment"), run
        assert self.table is not None
        return self.table

    def judged(self, qrels: pd.DataFrame, column: str) -> tuple[pd.DataFrame, Qrels | None]:
        """The rows of the qrels frame that judge ``column``, and them through the gate."""
        judged = qrels[["query_id", "doc_id", column]].dropna().rename(columns={column: "relevance"})
        if judged.empty:
            return judged, None
        digest = hashlib.blake2b(pd.util.hash_pandas_object(judged, index=False).to_numpy().tobytes(),
                                 digest_size=16).hexdigest()
        key = (column, len(judged), digest)
        if key not in self.qrels:
            self.qrels[key] = load_qrels(judged)
            while len(self.qrels) > self.keep:
                self.qrels.popitem(last=False)
        self.qrels.move_to_end(key)
        return judged, self.qrels[key]


_gated = _Gated()


def scored(name: str, parsed: Measure, column: str, kind: str | None, qrels: pd.DataFrame,
           run: pd.DataFrame) -> Iterable[tuple[Any, float]]:
    """(qid, value) for every topic the qrels frame judges in ``column``, natural order."""
    if column not in qrels.columns:
        raise ToucheError(f"{name} reads the qrels column '{column}', which this qrels frame lacks (it has "
                          f"{', '.join(map(str, qrels.columns))}); give it with touche.pyterrier.qrels("
                          f"{{'relevance': …, '{column}': …}})")
    judged_frame, judged = _gated.judged(qrels, column)
    _warn_unjudged(name, column, qrels, judged_frame)
    if judged is None:
        return
    written = {canonical_topic(topic_id(q)): q for q in judged_frame["query_id"].unique()}
    # Every judged topic gets a value, in one order: PyTerrier lays a system's means out by
    # the order they arrive in, and a topic ir_measures fills in later shifted the columns.
    written = {c: written[c] for c in sorted(written, key=natural_key)}  # topic 52 before 100
    bare = parsed.name
    if run.empty:
        for qid in written.values():
            yield qid, (0.0 if kind is None else PooledValue(math.nan if kind == POOLED else 0.0, None,
                                                             _total, kind))
        return
    table = _gated.run(run)
    if parsed.family.qrels_kind is QrelsKind.STANCE:
        _warn_no_stance(name, run)
    elif bare.startswith("touche.nDCG@") and (depth := _DEPTH.search(bare)):
        _warn_tied_cut(name, table, int(depth[1]))
    if kind == POOLED:
        pooled = pooled_parts(table, judged, bare)
        index = {t: i for i, t in enumerate(pooled.topics)}
        zero = np.zeros(pooled.parts.shape[1:], pooled.parts.dtype)
        for canonical, qid in written.items():
            part = pooled.parts[index[canonical]] if canonical in index else zero
            yield qid, PooledValue(float(pooled.value(part)), part, pooled.value, kind)
        return
    values = evaluate_rows_per_topic(table, judged, [bare]).get(bare, {})
    for canonical, qid in written.items():
        value = float(values.get(canonical, 0.0))
        yield qid, (value if kind is None else PooledValue(value, np.array([value]), _total, kind))


def _whole_topic(value: Any) -> Any:
    """PyTerrier turns a float qid column into text ("52.0"): topic 52, as the gate reads 52.0."""
    if isinstance(value, str) and _WHOLE_FLOAT.fullmatch(value):
        return value.split(".", 1)[0]
    return value


# --------------------------------------------------------------------------- what a frame misleads
_warned: set[tuple] = set()  # what was said once already


def _warn_unjudged(name: str, column: str, qrels: pd.DataFrame, judged: pd.DataFrame) -> None:
    """Say (once per measure and qrels shape) when topics of the frame lack this measure's
    judgements: PyTerrier and ir_measures count each of them 0 in the mean."""
    topics, covered = qrels["query_id"].nunique(), judged["query_id"].nunique()
    if covered < topics and (name, topics, covered) not in _warned:
        _warned.add((name, topics, covered))
        warnings.warn(f"{name}: {topics - covered} of the qrels frame's {topics} topics have no '{column}' "
                      f"judgement, and PyTerrier counts each of them 0 in the mean; for touche evaluate's "
                      f"value give the judged topics only (qrels[qrels['{column}'].notna()])", stacklevel=4)


def _warn_no_stance(name: str, run: pd.DataFrame) -> None:
    """A stance measure of a frame that says no stance: every row counts as Q0, and the measure
    is 0 or undefined (touche evaluate says so too)."""
    stances = run["stance"].astype(str) if "stance" in run.columns else None
    if (stances is None or stances.isin(["Q0", "nan", "None", ""]).all()) and (name, "stance") not in _warned:
        _warned.add((name, "stance"))
        which = "no stance column" if stances is None else "Q0 in every row"
        warnings.warn(f"{name}: the run frame says no stance ({which}"
                      "): its stance measures are 0 or undefined. A frame read by pt.io.read_results from a file "
                      "another tool wrote has no stance; read such a file with touche.pyterrier.read_run",
                      stacklevel=4)


def _warn_tied_cut(name: str, table, depth: int) -> None:
    """touche.nDCG@k cuts each topic by rank (Touché 2022's evaluator); where scores tie within the
    cut, the 2021 evaluator (by score) may read another top k: said once, with the measure that
    reproduces the 2020/2021 leaderboards."""
    count = len(table.tied_topics(depth))  # the scorer path's reading of a tied top k
    key = (name, "ties", count)
    if count and key not in _warned:
        _warned.add(key)
        year = name.replace("touche.", "touche2021.", 1)
        warnings.warn(f"{name} cuts each topic by rank (Touché 2022's evaluator); {count} topic(s) of this run hold "
                      f"tied scores in their top {depth}, which Touché 2020/2021's evaluator (by score) may order "
                      f"otherwise: for a 2020 or 2021 run, {year} gives the leaderboard's value", stacklevel=4)
