"""Touché's measures as ir_measures measures, so ``pt.Experiment`` reports ``touche evaluate``'s
values: the leaderboard's, where PyTerrier's own conventions would change them (the rank column
of tied scores, stance counted over every row, topics some judgements leave out)."""
from __future__ import annotations

import functools
import math
import re
import warnings
from collections.abc import Iterable
from typing import Any

import ir_measures
import pandas as pd

from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.evaluation.registry import check_trec_name, parse_measure
from touche.retrieval.formats.gate import load_run, topic_id
from touche.retrieval.formats.qrels import QrelsKind
from touche.retrieval.formats.runfile import canonical_topic, natural_key

_DEPTH = re.compile(r"@([0-9]+)$")
_WHOLE_FLOAT = re.compile(r"[0-9]+\.0+")


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
    column, see ``tpt.qrels``) as an ir_measures measure for ``pt.Experiment``,
    ``ir_measures.calc_aggregate`` and ``iter_calc``. ``measure("touche.nDCG@5") @ 10`` is
    ``measure("touche.nDCG@10")``.

    The run is read through the input gate as its file would be: ranked by score, equal scores in
    the order of the frame's ``rank`` column (Touché 2022's evaluator cuts by rank). Topic ids
    come back as the qrels frame writes them. PyTerrier averages over every topic of the qrels
    frame, so: a measure pooled over all judged rows (stance macro-F1) gives every judged topic
    the pooled value, and a count (``stance.N``) the total, so that the mean is the leaderboard's
    figure (only the mean: no per-topic value, significance test or ``batch_size`` means anything
    for them, docs/pyterrier.md); a topic Touché's nDCG leaves out (no judged document in its
    cut) counts 0; and a topic the measure's qrels column does not judge counts 0 too, with a
    warning (give ``qrels[qrels.quality.notna()]`` for such a measure)."""
    parsed = parse_measure(name)
    column = qrels_column(name)
    bare = parsed.name
    pooled = not parsed.has_per_topic or parsed.family.is_count(parsed)

    def impl(qrels: pd.DataFrame, run: pd.DataFrame) -> Iterable[tuple[Any, float]]:
        if column not in qrels.columns:
            raise ToucheError(f"{name} reads the qrels column '{column}', which this qrels frame lacks (it has "
                              f"{', '.join(map(str, qrels.columns))}); give it with touche.pyterrier.qrels("
                              f"{{'relevance': …, '{column}': …}})")
        judged = qrels[["query_id", "doc_id", column]].dropna().rename(columns={column: "relevance"})
        _warn_unjudged(name, column, qrels, judged)
        if judged.empty:
            return
        if run.empty:
            yield from ((qid, 0.0) for qid in judged["query_id"].unique())
            return
        columns = [c for c in ("query_id", "doc_id", "score", "rank", "stance") if c in run.columns]
        frame = run[columns].assign(query_id=run["query_id"].map(_whole_topic))
        table = load_run(frame, name=name)
        if parsed.family.qrels_kind is QrelsKind.STANCE:
            _warn_no_stance(name, run)
        elif bare.startswith("touche.nDCG@"):
            _warn_tied_cut(name, table, int(_DEPTH.search(bare)[1]))  # type: ignore[index]  # touche.nDCG@k
        written = {canonical_topic(topic_id(q)): q for q in judged["query_id"].unique()}
        written = {c: written[c] for c in sorted(written, key=natural_key)}  # topic 52 before 100
        # Every judged topic gets a value, in one order: PyTerrier lays a system's means out by
        # the order they arrive in, and a topic ir_measures fills in later shifted the columns.
        if not pooled:
            values = evaluate_rows_per_topic(table, judged, [bare]).get(bare, {})
            for canonical, qid in written.items():
                yield qid, float(values.get(canonical, 0.0))
        else:  # the pooled value (a count: the total) on each, so the mean is it; none (no stance said): 0
            value = evaluate_rows(table, judged, [bare]).get(bare, math.nan)
            for qid in written.values():
                yield qid, 0.0 if math.isnan(value) else float(value)

    defined = ir_measures.define(impl, name=name, support_cutoff=False,
                                 run_inputs=["query_id", "doc_id", "score"],
                                 qrel_inputs=["query_id", "doc_id", "relevance" if column == "relevance" else column],
                                 short_desc=f"Touché's {bare} (touche evaluate's values)")
    type(defined).__matmul__ = lambda self, depth: _at_depth(name, depth)
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


def _whole_topic(value: Any) -> Any:
    """PyTerrier turns a float qid column into text ("52.0"): topic 52, as the gate reads 52.0."""
    if isinstance(value, str) and _WHOLE_FLOAT.fullmatch(value):
        return value.split(".", 1)[0]
    return value


_warned: set[tuple] = set()  # what was said once already


def _warn_unjudged(name: str, column: str, qrels: pd.DataFrame, judged: pd.DataFrame) -> None:
    """Say (once per measure and qrels shape) when topics of the frame lack this measure's
    judgements: PyTerrier and ir_measures count each of them 0 in the mean."""
    topics, covered = qrels["query_id"].nunique(), judged["query_id"].nunique()
    if covered < topics and (name, topics, covered) not in _warned:
        _warned.add((name, topics, covered))
        warnings.warn(f"{name}: {topics - covered} of the qrels frame's {topics} topics have no '{column}' "
                      f"judgement, and PyTerrier counts each of them 0 in the mean; for touche evaluate's "
                      f"value give the judged topics only (qrels[qrels['{column}'].notna()])", stacklevel=2)


def _warn_no_stance(name: str, run: pd.DataFrame) -> None:
    """A stance measure of a frame that says no stance: every row counts as Q0, and the measure
    is 0 or undefined (touche evaluate says so too)."""
    stances = run["stance"].astype(str) if "stance" in run.columns else None
    if (stances is None or stances.isin(["Q0", "nan", "None", ""]).all()) and (name, "stance") not in _warned:
        _warned.add((name, "stance"))
        warnings.warn(
            f"{name}: the run frame says no stance ({'no stance column' if stances is None else 'Q0 in every row'}"
            "): its stance measures are 0 or undefined. pt.io.read_results drops a run file's stance; "
            "read it with touche.pyterrier.read_run",
            stacklevel=3,
        )


def _warn_tied_cut(name: str, table, depth: int) -> None:
    """touche.nDCG@k cuts each topic by rank (Touché 2022's evaluator); where scores tie within the
    cut, the 2021 evaluator (by score) may read another top k: said once, with the measure that
    reproduces the 2020/2021 leaderboards."""
    frame = table.frame
    head = frame[frame["rank"] <= depth + 1]
    tied = head.groupby("qid")["score"].apply(lambda s: s.duplicated().any())
    count = int(tied.sum())
    key = (name, "ties", count)
    if count and key not in _warned:
        _warned.add(key)
        year = name.replace("touche.", "touche2021.", 1)
        warnings.warn(f"{name} cuts each topic by rank (Touché 2022's evaluator); {count} topic(s) of this run hold "
                      f"tied scores in their top {depth}, which Touché 2020/2021's evaluator (by score) may order "
                      f"otherwise: for a 2020 or 2021 run, {year} gives the leaderboard's value", stacklevel=3)
