"""Scoring runs exactly as Touché's organisers did, plus trec_eval-style measures.

Touché measures (reproduce the official leaderboards to three decimals):

* ``touche_ndcg`` - nDCG@k of the organisers' evaluate.py: labels -2 become 0; each topic's
  run is cut to rank <= k by the rank column; unjudged documents are then dropped and the
  judged ones closed up (gain / log2(i + 2), i from 0); the ideal DCG comes from all of the
  topic's qrels; the mean is over topics with at least one judged document in the cut. Runs
  whose ranks start at 0 (Elrond's 2021 runs) are cut at rank <= k - 1, i.e. to their first k
  positions. This reproduces every Task 2 2022 value (relevance and quality), including a run
  whose tied scores make score order and rank order disagree.
  ``order="score"`` instead takes each topic's k highest scores, ties broken by docid
  ascending: the only rule found that reproduces all Task 1 2021 values here (ElrondTaskBodyRun:
  0.614 on the leaderboard; 0.615 by the rank column, because of two score ties at the cut).
* ``image_precision`` - image retrieval 2022: the first 10 images per topic and stance;
  on-topic = ONTOPIC 1, argumentative = PRO or CON 1, on-stance = the run's stance 1,
  unjudged = 0; each sum divided by 20 x the number of topics.
* ``stance_f1`` - Task 2 2022 stance: macro-F1 of the run's FIRST/SECOND/NEUTRAL/NO labels
  against the stance qrels over *all* run rows (every rank) whose passage is judged for the
  topic; rows with ``Q0`` predict no stance and are left out. N is the number of such rows.

trec_eval-style measures (``trec_measures``) go through ir_measures / pytrec_eval: documents
ordered by score (the rank column is ignored), unjudged = non-relevant, qrels labels as
written, averaged like trec_eval over the run's topics that have judgments (``all_topics=True``:
like ``trec_eval -c``, topics of the qrels the run misses count as 0). Labelled ``trec.*``.
"""
from __future__ import annotations

import functools
import logging
import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Union

import ir_measures

from touche.retrieval.formats.qrels import (
    STANCE_LABELS,
    ImageQrels,
    Qrels,
    QrelsKind,
    StanceQrels,
    read_qrels,
)
from touche.retrieval.formats.runfile import RunFormat, RunRow, detect_format, natural_key, validated_run
from touche.errors import InputError, ToucheError
from touche.inputs import distinct_labels

log = logging.getLogger(__name__)

__all__ = [
    "NdcgResult",
    "ImagePrecision",
    "StanceF1",
    "touche_ndcg",
    "trec_measures",
    "image_precision",
    "stance_f1",
    "evaluate",
    "evaluate_rows",
    "evaluate_rows_per_topic",
    "format_table",
    "DEFAULT_TREC_MEASURES",
]

DEFAULT_TREC_MEASURES = ("nDCG@5", "nDCG@10", "P@10", "AP", "Judged@5")

PathLike = Union[str, "os.PathLike[str]"]
QrelsArg = Union[PathLike, Sequence[PathLike], Mapping[str, PathLike]]


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


def _by_topic(rows: Iterable[RunRow]) -> dict[str, list[RunRow]]:
    topics: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        topics[row.qid].append(row)
    return topics


def _rank_order(rows: Iterable[RunRow]) -> list[RunRow]:
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
    for qid, topic_rows in _by_topic(rows).items():
        judged = qrels.get(qid)
        if not judged:
            continue
        if order == "rank":
            cut = _rank_order(r for r in topic_rows if r.rank <= cutoff)
        else:
            cut = sorted(topic_rows, key=lambda r: (-r.score, r.docid))[:k]
        gains = [max(0, judged[r.docid]) for r in cut if r.docid in judged]
        if not gains:
            continue
        ideal = _dcg(sorted((max(0, label) for label in judged.values()), reverse=True)[:k])
        per_topic[qid] = _dcg(gains) / ideal if ideal > 0 else 0.0
    mean = sum(per_topic.values()) / len(per_topic) if per_topic else math.nan
    return NdcgResult(mean, dict(sorted(per_topic.items(), key=lambda kv: natural_key(kv[0]))))


def _parse_trec(name: str):
    try:
        return ir_measures.parse_measure(name)
    except (ValueError, NameError, SyntaxError, TypeError):
        raise ToucheError(f"unknown trec_eval-style measure {name!r} (ir_measures names, e.g. nDCG@10, P@10, AP)") from None


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
    parsed = {name: _parse_trec(name) for name in measures}
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for row in run_rows:
        run[row.qid][row.docid] = row.score
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
        for row in _rank_order(rows)[:k]:
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


# ------------------------------------------------------------------------- convenience


_TOUCHE_NDCG = re.compile(r"touche(2021)?\.nDCG@(\d+)")
_IMAGE = re.compile(r"image\.(on_topic|argumentative|on_stance)_P@(\d+)")
STANCE_MEASURES = ("stance.F1_macro", "stance.N")


def _default_measures(kind: QrelsKind, depth: int) -> list[str]:
    if kind is QrelsKind.GRADED:
        trec = [f"nDCG@{depth}", "nDCG@10", "P@10", "AP", f"Judged@{depth}"]
        return [f"touche.nDCG@{depth}"] + [f"trec.{m}" for m in dict.fromkeys(trec)]
    if kind is QrelsKind.STANCE:
        return list(STANCE_MEASURES)
    return [f"image.{aspect}_P@10" for aspect in ("on_topic", "argumentative", "on_stance")]


_PREFIXES = ("touche.", "touche2021.", "trec.", "stance.", "image.")


def ir_measures_name(measure: str) -> str:
    """A measure as ir_measures users write it (``nDCG@5``, ``P@10``, ``AP``) is ir_measures' /
    trec_eval's measure (unjudged documents count as 0): ``trec.nDCG@5``. Touché's own nDCG@5
    (unjudged dropped) is ``touche.nDCG@5``; prefixed names pass unchanged."""
    return measure if measure.startswith(_PREFIXES) else f"trec.{measure}"


def _first_columns(path: Path) -> int | None:
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            for line in handle:
                if line.strip():
                    return len(line.split())
    except OSError:
        return None
    return None


def _refuse_swapped(run_path: str | os.PathLike[str], qrels: QrelsArg) -> None:
    """RUN and QRELS given the wrong way round: say so, instead of a column-count error."""
    qrels_paths = [path for _, path in named_qrels(qrels)]
    if _first_columns(Path(run_path)) == 4 and any(_first_columns(q) == 6 for q in qrels_paths):
        raise InputError("this looks like a qrels file (4 columns) and the qrels like a run (6 columns): "
                         "give the run first, then the qrels (touche evaluate RUN QRELS)", path=run_path)


_CUTOFF = re.compile(r"@([^@,()]*)$")


def check_cutoffs(measures: Iterable[str], depth: int = 5) -> None:
    """Every cut-off (``@k``) a positive whole number, before any scorer sees it: pytrec_eval
    aborts the whole process (SIGABRT, no message) on ``@0``, and Judged@0 divides by zero."""
    for name, value in [("--depth", str(depth))] + [(m, m) for m in measures]:
        text = value if name == "--depth" else (_CUTOFF.search(value).group(1) if _CUTOFF.search(value) else None)
        if text is None:
            continue
        try:
            ok = int(text) >= 1
        except ValueError:
            ok = False
        if not ok:
            raise ToucheError(f"the cut-off of {name} must be a positive whole number (k ≥ 1), got {text!r}")


def _applies(measure: str, kind: QrelsKind) -> bool:
    if kind is QrelsKind.GRADED:
        return bool(_TOUCHE_NDCG.fullmatch(measure)) or measure.startswith("trec.")
    if kind is QrelsKind.STANCE:
        return measure in STANCE_MEASURES
    return bool(_IMAGE.fullmatch(measure))


def _measure_one(rows: list[RunRow], qrels: Qrels, measures: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    trec = [m[len("trec."):] for m in measures if m.startswith("trec.")]
    trec_values = trec_measures(rows, qrels.judgments, trec) if trec else {}  # type: ignore[arg-type]
    image_cache: dict[int, ImagePrecision] = {}
    stance: StanceF1 | None = None
    for measure in measures:
        if match := _TOUCHE_NDCG.fullmatch(measure):
            order = "score" if match.group(1) else "rank"
            ndcg = touche_ndcg(rows, qrels.judgments, int(match.group(2)), order)  # type: ignore[arg-type]
            out[measure] = ndcg.mean
        elif measure.startswith("trec."):
            out[measure] = trec_values[measure]
        elif match := _IMAGE.fullmatch(measure):
            k = int(match.group(2))
            if k not in image_cache:
                image_cache[k] = image_precision(rows, qrels.judgments, k)  # type: ignore[arg-type]
            out[measure] = getattr(image_cache[k], match.group(1))
        elif measure in STANCE_MEASURES:
            stance = stance or stance_f1(rows, qrels.judgments)  # type: ignore[arg-type]
            out[measure] = stance.f1_macro if measure == "stance.F1_macro" else stance.n
    return out


def named_qrels(qrels: QrelsArg) -> list[tuple[str | None, Path]]:
    if isinstance(qrels, (str, os.PathLike)):
        return [(None, Path(qrels))]
    if isinstance(qrels, Mapping):
        return [(str(name), Path(path)) for name, path in qrels.items()]
    paths = [Path(p) for p in qrels]
    # Short names from the file stem's last word (relevance, quality, stance); on clashes the full
    # stem, with folders prepended where stems clash too (x/qrels, y/qrels: two columns, not one).
    short = [p.stem.rsplit("-", 1)[-1] for p in paths]
    if len(set(short)) != len(short):
        short = distinct_labels(paths, label=lambda p: p.stem, what="qrels file")
    return list(zip(short, paths))


def refuse_invalid(run_path: str | os.PathLike[str], fmt: RunFormat | str | None = None) -> None:
    """Raise InputError, naming the first errors, when the run file fails validation."""
    valid_rows(run_path, fmt)


def valid_rows(run_path: str | os.PathLike[str], fmt: RunFormat | str | None = None) -> list[RunRow]:
    """The rows of a run file that passes validation (read once); InputError naming the first
    errors otherwise: an invalid run is never scored."""
    fmt = RunFormat.parse(fmt) if fmt is not None else detect_format(run_path)
    problems, rows = validated_run(run_path, fmt)
    errors = [p for p in problems if p.is_error]
    if errors:
        shown = "; ".join(f"line {p.line}: {p.message}" if p.line is not None else p.message for p in errors[:3])
        raise InputError(f"not a valid {fmt.name} run ({len(errors)} error(s)), so not scored: {shown}"
                         + ("; …" if len(errors) > 3 else "") + f" (touche validate {run_path} lists them all)",
                         path=run_path)
    return rows


def evaluate(
    run_path: str | os.PathLike[str],
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
    fmt: RunFormat | str | None = None,
) -> dict[str, float]:
    """Score one run against one or more qrels files; returns {measure: value}.

    ``qrels``: a path (keys are bare measure names), a sequence of paths (keys prefixed by the
    file stem's last word, e.g. ``relevance:``), or {name: path} (keys prefixed ``name:``).
    Each file's kind is detected. ``measures`` (default: all that fit each kind, with nDCG at
    ``depth``):

    * graded qrels: ``touche.nDCG@k``, ``touche2021.nDCG@k`` (ordered by score, as the 2021
      leaderboard), ``trec.<ir_measures name>`` (``trec.nDCG@5``, ``trec.P@10``,
      ``trec.AP``, ``trec.Judged@5`` …);
    * stance qrels: ``stance.F1_macro``, ``stance.N``;
    * image qrels: ``image.on_topic_P@10``, ``image.argumentative_P@10``, ``image.on_stance_P@10``.

    A measure is computed for every qrels file whose kind it fits. An invalid run (duplicate
    documents, more than 1,000 per topic, increasing scores …) is refused, not scored: scoring a
    run concatenated with itself once gave nDCG@5 above 1.
    """
    _refuse_swapped(run_path, qrels)
    return evaluate_rows(valid_rows(run_path, fmt), qrels, measures, depth=depth)


def evaluate_rows(
    rows: list[RunRow],
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
) -> dict[str, float]:
    """``evaluate`` on rows already in memory (the Python API's runs); the caller vouches for
    their validity (ranks per topic 1, 2, …, no document twice)."""
    results: dict[str, float] = {}
    for label, rows_, judged, wanted in _scoring_plan(rows, qrels, measures, depth):
        for measure, value in _measure_one(rows_, judged, wanted).items():
            results[label(measure)] = value
    return results


def evaluate_rows_per_topic(
    rows: list[RunRow],
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
) -> dict[str, dict[str, float]]:
    """{measure: {topic: value}}, the values ``evaluate_rows`` averages, for the topics it
    averages over (Touché's nDCG: topics with a judged document in the cut; trec_eval-style:
    the run's judged topics; image precision: the run's judged topics, each over its 2k images).
    Stance macro-F1 is one F1 over every judged row of every topic, not a mean of topics: it has
    no per-topic values (``stance.N`` has: the judged rows per topic)."""
    results: dict[str, dict[str, float]] = {}
    for label, rows_, judged, wanted in _scoring_plan(rows, qrels, measures, depth):
        for measure, values in _per_topic_one(rows_, judged, wanted).items():
            results[label(measure)] = values
    return results


def score_rows(
    rows: list[RunRow],
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """``evaluate_rows`` and ``evaluate_rows_per_topic`` at once: one plan (qrels read and rows
    grouped once); each measure is then computed for its mean and for its per-topic values."""
    means: dict[str, float] = {}
    per_topic: dict[str, dict[str, float]] = {}
    for label, rows_, judged, wanted in _scoring_plan(rows, qrels, measures, depth):
        means.update((label(m), v) for m, v in _measure_one(rows_, judged, wanted).items())
        per_topic.update((label(m), v) for m, v in _per_topic_one(rows_, judged, wanted).items())
    return means, per_topic


def cached_qrels(path: str | os.PathLike[str]) -> Qrels:
    """A qrels file, parsed once per version of it (several runs are scored against the same file,
    and a page or sweep reads it for several purposes)."""
    try:
        stat = Path(path).stat()
    except OSError:
        return read_qrels(path)  # its located error
    return _qrels_of(Path(path).resolve(), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _qrels_of(path: Path, mtime_ns: int, size: int) -> Qrels:
    return read_qrels(path)


def _scoring_plan(rows: list[RunRow], qrels: QrelsArg, measures: Sequence[str] | str | None, depth: int):
    """(label of a measure, rows, qrels, measures to compute) per qrels file: measure names
    checked, topic ids made comparable, the same plan for means and per-topic values."""
    if isinstance(measures, str):
        measures = [measures]  # one measure's name, not a sequence of one-letter names
    if measures is not None:
        measures = [ir_measures_name(m) for m in measures]
    check_cutoffs(measures or (), depth)
    named = [(name, cached_qrels(path)) for name, path in named_qrels(qrels)]
    if measures is not None:
        unknown = [m for m in measures if not any(_applies(m, q.kind) for _, q in named)]
        if unknown:
            raise ToucheError(
                f"measure(s) {', '.join(unknown)} do not apply to the given qrels "
                f"({', '.join(q.kind.value for _, q in named)}); known: touche.nDCG@k, touche2021.nDCG@k, trec.<measure>, "
                f"{', '.join(STANCE_MEASURES)}, image.on_topic_P@10, image.argumentative_P@10, "
                "image.on_stance_P@10"
            )
    rows = canonical_topics(rows)
    plan = []
    for name, judged in named:
        judged = Qrels(judged.kind, {canonical_topic(q): v for q, v in judged.judgments.items()}, judged.path)  # type: ignore[arg-type]
        _warn_unmatched_topics(rows, judged)
        wanted = [m for m in measures if _applies(m, judged.kind)] if measures is not None else _default_measures(judged.kind, depth)
        plan.append(((lambda m, n=name: f"{n}:{m}" if n else m), rows, judged, wanted))
    return plan


def _per_topic_one(rows: list[RunRow], qrels: Qrels, measures: Sequence[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    by_topic = _by_topic(rows)
    trec = [m[len("trec."):] for m in measures if m.startswith("trec.")]
    trec_values = trec_per_topic(rows, qrels.judgments, trec) if trec else {}  # type: ignore[arg-type]
    for measure in measures:
        if match := _TOUCHE_NDCG.fullmatch(measure):
            order = "score" if match.group(1) else "rank"
            out[measure] = touche_ndcg(rows, qrels.judgments, int(match.group(2)), order).per_topic  # type: ignore[arg-type]
        elif measure.startswith("trec."):
            out[measure] = trec_values[measure]
        elif match := _IMAGE.fullmatch(measure):
            k = int(match.group(2))
            out[measure] = {qid: getattr(image_precision(topic_rows, qrels.judgments, k, topics=[qid]),  # type: ignore[arg-type]
                                         match.group(1))
                            for qid, topic_rows in sorted(by_topic.items(), key=lambda kv: natural_key(kv[0]))
                            if qid in qrels.judgments}
        elif measure == "stance.N":
            judged = qrels.judgments
            out[measure] = {qid: float(sum(1 for r in topic_rows if r.column2 in STANCE_LABELS
                                           and r.docid in judged.get(qid, {})))  # type: ignore[union-attr]
                            for qid, topic_rows in by_topic.items() if qid in judged}
    return out


def trec_per_topic(run_rows: Iterable[RunRow], qrels: Mapping[str, Mapping[str, int]],
                   measures: Sequence[str]) -> dict[str, dict[str, float]]:
    """``trec_measures``' values per topic (ir_measures' ``iter_calc``), keys ``trec.<name>``."""
    parsed = {name: _parse_trec(name) for name in measures}
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for row in run_rows:
        run[row.qid][row.docid] = row.score
    out: dict[str, dict[str, float]] = {f"trec.{name}": {} for name in measures}
    qrels_dict = {qid: {d: int(v) for d, v in docs.items()} for qid, docs in qrels.items() if qid in run}
    if not qrels_dict:
        return out
    names = {measure: name for name, measure in parsed.items()}
    for value in ir_measures.iter_calc(list(parsed.values()), qrels_dict, dict(run)):
        out[f"trec.{names[value.measure]}"][value.query_id] = float(value.value)
    return out


def canonical_topic(qid: str) -> str:
    """A topic id as a number where it is one: ``001``, ``01`` and ``1`` are topic 1 (Touché's
    topics are numbered; a run padded with zeros once scored nothing without a word)."""
    qid = str(qid)
    return str(int(qid)) if qid.isdecimal() else qid


def canonical_topics(rows: list[RunRow]) -> list[RunRow]:
    renamed = {q: c for q in {r.qid for r in rows} if (c := canonical_topic(q)) != q}
    if not renamed:
        return rows
    return [RunRow(renamed[r.qid], r.column2, r.docid, r.rank, r.score, r.tag) if r.qid in renamed else r
            for r in rows]


def _warn_unmatched_topics(rows: list[RunRow], qrels: Qrels) -> None:
    """Run and qrels without a topic in common score '-' everywhere: say so, naming both sets."""
    run_topics = {r.qid for r in rows}
    judged = qrels.topics()
    if run_topics and not run_topics & judged:
        def sample(ids: set[str]) -> str:
            shown = sorted(ids, key=natural_key)
            return ", ".join(shown[:6]) + (f", … ({len(shown)} in all)" if len(shown) > 6 else "")
        log.warning("warning: the run and %s have no topic in common (run: %s; qrels: %s): every score is "
                    "undefined; are they of the same year and task?", qrels.path, sample(run_topics), sample(judged))


def format_table(
    results: Mapping[str, Mapping[str, float]] | Mapping[str, float],
    digits: int = 3,
) -> str:
    """A Markdown table (readable as plain text): one row per run, one column per measure.

    ``results`` is {run name: {measure: value}}; a flat {measure: value} is one run named
    ``run``. Undefined values (nan, or a measure a run lacks) print as ``-``.
    """
    if results and all(isinstance(v, (int, float)) for v in results.values()):
        results = {"run": results}  # type: ignore[dict-item]
    table: Mapping[str, Mapping[str, float]] = results  # type: ignore[assignment]
    columns = list(dict.fromkeys(m for values in table.values() for m in values))

    def cell(value: float | None) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return f"{value:.{digits}f}"

    header = ["run", *columns]
    body = [[name, *(cell(values.get(m)) for m in columns)] for name, values in table.items()]
    widths = [max(3, *(len(r[i]) for r in [header, *body])) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = [cells[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(["-" * (widths[0] + 2)] + ["-" * (w + 1) + ":" for w in widths[1:]]) + "|"
    return "\n".join([line(header), rule, *(line(r) for r in body)])
