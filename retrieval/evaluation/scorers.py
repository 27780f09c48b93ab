"""The scorers behind Touché's measures: each computes one family of measures from run rows and
judgements (the formulas are described in ``measures.py``'s docstring). They know nothing of
measure names or files: ``registry.py`` maps names to them, ``measures.py`` reads the files."""
from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import ir_measures

from touche.errors import ToucheError
from touche.retrieval.formats.qrels import STANCE_LABELS, ImageQrels, StanceQrels
from touche.retrieval.formats.runfile import RunRow, natural_key

DEFAULT_TREC_MEASURES = ("nDCG@5", "nDCG@10", "P@10", "AP", "Judged@5")


@dataclass(frozen=True)
class NdcgResult:
    mean: float  # nan when no topic has a judged document in the cut
    per_topic: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ImagePrecision:
    on_topic: float
    argumentative: float
    on_stance: float
    topics: int  # the number of topics in the denominator (x 2k)


@dataclass(frozen=True)
class StanceF1:
    f1_macro: float  # nan when no row is judged
    n: int
    per_label: dict[str, float] = field(default_factory=dict)


def by_topic(rows: Iterable[RunRow]) -> dict[str, list[RunRow]]:
    topics: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        topics[row.qid].append(row)
    return topics


def rank_order(rows: Iterable[RunRow]) -> list[RunRow]:
    # Ties in the rank column are invalid; break them deterministically rather than by file order.
    return sorted(rows, key=lambda r: (r.rank, -r.score, r.docid))


def _dcg(gains: Iterable[float]) -> float:
    return sum(gain / math.log2(i + 2) for i, gain in enumerate(gains))


def touche_ndcg(
    run_rows: Iterable[RunRow],
    qrels: Mapping[str, Mapping[str, int]],
    k: int = 5,
    order: Literal["rank", "score"] = "rank",
) -> NdcgResult:
    """Touché's nDCG@k (see the module docstring); per-topic values for the averaged topics.

    ``order="rank"``: cut by the rank column (the 2022 evaluator); ``"score"``: the k highest
    scores, ties by docid ascending (reproduces the 2021 leaderboard).
    """
    if order not in ("rank", "score"):
        raise ValueError(f"order must be 'rank' or 'score', not {order!r}")
    rows = list(run_rows)
    if not rows:
        return NdcgResult(math.nan, {})
    # A run whose ranks start at 0 is cut to ranks 0..k-1 (its first k positions).
    cutoff = k - 1 if min(r.rank for r in rows) == 0 else k
    per_topic: dict[str, float] = {}
    for qid, topic_rows in by_topic(rows).items():
        judged = qrels.get(qid)
        if not judged:
            continue
        if order == "rank":
            cut = rank_order(r for r in topic_rows if r.rank <= cutoff)
        else:
            cut = sorted(topic_rows, key=lambda r: (-r.score, r.docid))[:k]
        gains = [max(0, judged[r.docid]) for r in cut if r.docid in judged]
        if not gains:
            continue
        # clamping at 0 keeps the order, so the k best labels are clamped after sorting (sorted in C)
        ideal = _dcg(max(0, label) for label in sorted(judged.values(), reverse=True)[:k])
        per_topic[qid] = _dcg(gains) / ideal if ideal > 0 else 0.0
    mean = sum(per_topic.values()) / len(per_topic) if per_topic else math.nan
    return NdcgResult(mean, dict(sorted(per_topic.items(), key=lambda kv: natural_key(kv[0]))))


_LEADING_ZEROS = re.compile(r"(?<=@)0+(?=[0-9]+$)")


def parse_trec(name: str):
    """An ir_measures measure by its name; a located error for a name or a parameter it does not
    know (ir_measures takes ``nDCG(rel=1)@5`` and fails with a KeyError when it is printed)."""
    try:  # a cut-off with leading zeros (P@05) is the number it writes; Python's syntax refuses 05
        measure = ir_measures.parse_measure(_LEADING_ZEROS.sub("", name))
    except (ValueError, NameError, SyntaxError, TypeError):
        raise ToucheError(
            f"unknown trec_eval-style measure {name!r} (ir_measures names, e.g. nDCG@10, P@10, AP)"
        ) from None
    supported = getattr(measure, "SUPPORTED_PARAMS", None)
    unknown = sorted(set(measure.params) - set(supported)) if supported is not None else []
    if unknown:
        raise ToucheError(f"trec_eval-style measure {name!r}: {measure.NAME} takes no parameter "
                          f"{', '.join(unknown)} (its parameters: {', '.join(sorted(supported or ()))})")
    # ir_measures asserts these only when it computes; labels (rel, gains) are the registry's to check
    for param, spec in (supported or {}).items():
        if param not in measure.params and getattr(spec, "required", False):
            shown = f"@k ({param})" if param == getattr(measure, "AT_PARAM", None) else f"{param}=…"
            raise ToucheError(f"trec_eval-style measure {name!r}: {measure.NAME} needs {shown}")
        if param in measure.params and param not in ("rel", "gains") and not spec.validate(measure.params[param]):
            raise ToucheError(f"trec_eval-style measure {name!r}: {measure.NAME} takes no {param}="
                              f"{measure.params[param]!r}" + (f" ({spec.desc})" if getattr(spec, "desc", None) else ""))
    return measure


def trec_measures(
    run_rows: Iterable[RunRow],
    qrels: Mapping[str, Mapping[str, int]],
    measures: Sequence[str] = DEFAULT_TREC_MEASURES,
    all_topics: bool = False,
) -> dict[str, float]:
    """trec_eval-style measures by ir_measures names (``nDCG@5``, ``P@10``, ``AP``, ``Judged@5`` …).

    Keys are the names as given, prefixed ``trec.``. Averaged over the run's judged topics,
    as trec_eval does; ``all_topics``: over all the qrels' topics, as ``trec_eval -c``.
    """
    parsed = {name: parse_trec(name) for name in measures}
    run = _score_dict(run_rows)
    if not run:
        return {f"trec.{name}": math.nan for name in measures}
    # ir_measures averages over every qrels topic (missing ones as 0); trec_eval without -c
    # averages over the run's topics only.
    qrels_dict = {
        qid: {docid: int(label) for docid, label in docs.items()}
        for qid, docs in qrels.items()
        if all_topics or qid in run
    }
    if not qrels_dict:
        return {f"trec.{name}": math.nan for name in measures}
    values = ir_measures.calc_aggregate(list(parsed.values()), qrels_dict, dict(run))
    return {f"trec.{name}": float(values.get(measure, math.nan)) for name, measure in parsed.items()}


def _score_dict(run_rows) -> dict[str, dict[str, float]]:
    """{topic: {docid: score}}, what pytrec_eval reads; from a RunTable's columns without rows."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    if hasattr(run_rows, "frame"):
        frame = run_rows.frame
        for qid, docid, score in zip(frame["qid"].tolist(), frame["docid"].tolist(), frame["score"].tolist()):
            run[qid][docid] = score
        return run
    for row in run_rows:
        run[row.qid][row.docid] = row.score
    return run


def image_precision(
    run_rows: Iterable[RunRow],
    qrels: ImageQrels,
    k: int = 10,
    topics: Iterable[str] | None = None,
) -> ImagePrecision:
    """Image retrieval precision@k (on-topic, argumentative, on-stance).

    ``topics``: the topics in the denominator (2k per topic). Default: the run's topics that
    have judgments, as trec_eval averages over the run's topics; pass the qrels' topics to
    penalise a run that misses some.
    """
    groups: dict[tuple[str, str], list[RunRow]] = defaultdict(list)
    for row in run_rows:
        if row.column2 in ("PRO", "CON"):
            groups[row.qid, row.column2].append(row)
    counted = set(topics) if topics is not None else {qid for qid, _ in groups if qid in qrels}
    on_topic = argumentative = on_stance = 0
    for (qid, stance), rows in groups.items():
        if qid not in counted:
            continue
        judged = qrels.get(qid, {})
        for row in rank_order(rows)[:k]:
            aspects = judged.get(row.docid, {})
            on_topic += aspects.get("ONTOPIC", 0)
            argumentative += max(aspects.get("PRO", 0), aspects.get("CON", 0))
            on_stance += aspects.get(stance, 0)
    denominator = 2 * k * len(counted)
    if not denominator:
        return ImagePrecision(math.nan, math.nan, math.nan, 0)
    return ImagePrecision(on_topic / denominator, argumentative / denominator, on_stance / denominator, len(counted))


def stance_f1(run_rows: Iterable[RunRow], qrels: StanceQrels) -> StanceF1:
    """Macro-F1 of the run's stance labels on judged passages (see the module docstring).

    Like scikit-learn's ``f1_score(average="macro")``, the mean is over the labels that occur
    in the qrels or the predictions of the judged rows; F1 is 0 for a label never predicted
    correctly.
    """
    truth: list[str] = []
    predicted: list[str] = []
    for row in run_rows:
        if row.column2 not in STANCE_LABELS:
            continue
        label = qrels.get(row.qid, {}).get(row.docid)
        if label is not None:
            truth.append(label)
            predicted.append(row.column2)
    if not truth:
        return StanceF1(math.nan, 0, {})
    per_label = f1_per_label(truth, predicted, [label for label in STANCE_LABELS
                                                if label in truth or label in predicted])
    return StanceF1(sum(per_label.values()) / len(per_label), len(truth), per_label)


def f1_per_label(truth: Sequence[str], predicted: Sequence[str], labels: Iterable[str]) -> dict[str, float]:
    """Each label's F1 of ``predicted`` against ``truth`` (0 for a label never predicted correctly)."""
    out: dict[str, float] = {}
    for label in labels:
        tp = sum(1 for t, p in zip(truth, predicted) if t == label and p == label)
        fp = sum(1 for t, p in zip(truth, predicted) if t != label and p == label)
        fn = sum(1 for t, p in zip(truth, predicted) if t == label and p != label)
        out[label] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return out


def stance_macro_f1(truth: Sequence[str], predicted: Sequence[str]) -> float:
    """``stance_f1``'s macro-F1 of labels against labels, one passage each (no run, no qrels)."""
    rows = [RunRow("1", label, str(i), i + 1, 0.0, "t") for i, label in enumerate(predicted)]
    return stance_f1(rows, {"1": {str(i): label for i, label in enumerate(truth)}}).f1_macro


def trec_per_topic(run_rows: Iterable[RunRow], qrels: Mapping[str, Mapping[str, int]],
                   measures: Sequence[str]) -> dict[str, dict[str, float]]:
    """``trec_measures``' values per topic (ir_measures' ``iter_calc``), keys ``trec.<name>``."""
    parsed = {name: parse_trec(name) for name in measures}
    run = _score_dict(run_rows)
    out: dict[str, dict[str, float]] = {f"trec.{name}": {} for name in measures}
    qrels_dict = {qid: {d: int(v) for d, v in docs.items()} for qid, docs in qrels.items() if qid in run}
    if not qrels_dict:
        return out
    names = {measure: name for name, measure in parsed.items()}
    for value in ir_measures.iter_calc(list(parsed.values()), qrels_dict, dict(run)):
        out[f"trec.{names[value.measure]}"][value.query_id] = float(value.value)
    return out
