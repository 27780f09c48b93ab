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

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import pandas as pd

from touche import sources
from touche.errors import InputError, ToucheError
from touche.inputs import distinct_labels
from touche.retrieval.evaluation.registry import (
    Measure,
    check_cutoff,
    defaults_for,
    known_measures,
    parse_measure,
    per_family,
)
from touche.retrieval.evaluation.scorers import (
    DEFAULT_TREC_MEASURES,
    ImagePrecision,
    NdcgResult,
    StanceF1,
    f1_per_label,
    image_precision,
    stance_f1,
    stance_macro_f1,
    touche_ndcg,
    trec_measures,
    trec_per_topic,
)
from touche.retrieval.formats.gate import is_frame, load_qrels, load_run
from touche.retrieval.formats.qrels import Qrels, check_named_kind
from touche.retrieval.formats.runfile import RunFormat, RunRow, natural_key
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.runwriter import WrittenRun
from touche.retrieval.formats.selection import TopicSelection

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
    "DEFAULT_TREC_MEASURES",
    "f1_per_label",
    "stance_macro_f1",
    "trec_per_topic",
    "parse_measure",
]

PathLike = Union[str, "os.PathLike[str]"]
QrelsSource = Union[PathLike, "pd.DataFrame", Qrels]  # what gate.load_qrels reads
QrelsArg = Union[QrelsSource, Sequence[QrelsSource], Mapping[str, QrelsSource]]


def _first_columns(path: Path) -> int | None:
    try:
        with sources.open_text(path, errors="replace") as handle:
            for line in handle:
                if line.strip():
                    return len(line.split())
    except OSError:
        return None
    return None


def _refuse_swapped(run_path: str | os.PathLike[str], qrels: QrelsArg) -> None:
    """RUN and QRELS given the wrong way round: say so, instead of a column-count error."""
    if isinstance(run_path, (WrittenRun, RunTable)) or is_frame(run_path):
        return  # written by us, read already, or a frame: a run, not a file to look into
    qrels_paths = [path for _, path in named_qrels(qrels) if isinstance(path, Path)]
    if _first_columns(Path(run_path)) == 4 and any(_first_columns(q) == 6 for q in qrels_paths):
        raise InputError("this looks like a qrels file (4 columns) and the qrels like a run (6 columns): "
                         "give the run first, then the qrels (touche evaluate RUN QRELS)", path=run_path)


def check_cutoffs(measures: Iterable[str], depth: int = 5) -> None:
    """``--depth`` and every measure's cut-off (``@k``) checked before any scorer sees them
    (``registry.cutoff_problem``: a whole number from 1 to ``MAX_CUTOFF``)."""
    check_cutoff("--depth", str(depth))
    for name in measures:
        parse_measure(name)


def _means(rows: RunTable, qrels: Qrels, measures: Sequence[Measure]) -> dict[str, float]:
    out: dict[str, float] = {}
    for family, batch in per_family(measures):
        out.update(family.means(batch, _family_rows(rows, family, batch, qrels), qrels.judgments))
    return {m.name: out[m.name] for m in measures}


def _per_topic(rows: RunTable, qrels: Qrels, measures: Sequence[Measure]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for family, batch in per_family([m for m in measures if m.has_per_topic]):
        out.update(family.per_topic(batch, _family_rows(rows, family, batch, qrels), qrels.judgments))
    return {m.name: out[m.name] for m in measures if m.name in out}


def pooled_parts(rows: Rows, qrels: QrelsArg, label: str):
    """The per-topic parts (``pooled.Pooled``) of a labelled measure without per-topic values
    (``stance:stance.F1_macro``), or None when its family has none."""
    name, _, bare = label.rpartition(":")
    measure = parse_measure(bare)
    path = dict(named_qrels(qrels)).get(name or None)
    if path is None:
        return None
    judged = load_qrels(path)
    return measure.family.pooled(measure, _family_rows(as_table(rows), measure.family, [measure], judged),
                                 judged.judgments)


def _family_rows(rows: RunTable, family, batch: Sequence[Measure], qrels: Qrels) -> Rows:
    """The rows the family looks at (as a smaller table, for a family that reads columns): the
    same rows whichever other measures are asked for."""
    need = family.rows_needed(batch)
    return rows.subset(need, qrels.judgments) if family.reads_tables else rows.select(need, qrels.judgments)


def _source(value: QrelsSource) -> Path | pd.DataFrame | Qrels:
    return value if is_frame(value) or isinstance(value, Qrels) else Path(value)


def named_qrels(qrels: QrelsArg) -> list[tuple[str | None, Path | pd.DataFrame | Qrels]]:
    """(name, source) of each qrels input: a file, a frame (ir_measures' or PyTerrier's layout)
    or ``Qrels``; named as given in a mapping, else by the file stem's last word."""
    if isinstance(qrels, (str, os.PathLike, Qrels)) or is_frame(qrels):
        return [(None, _source(qrels))]
    if isinstance(qrels, Mapping):
        return [(str(name), _source(path)) for name, path in qrels.items()]
    if any(is_frame(q) or isinstance(q, Qrels) for q in qrels):
        raise ToucheError("several qrels frames need names: give {name: frame}")
    paths = [Path(p) for p in qrels]  # type: ignore[arg-type]  # no frame, no Qrels: refused above
    # Short names from the file stem's last word (relevance, quality, stance); on clashes the full
    # stem, with folders prepended where stems clash too (x/qrels, y/qrels: two columns, not one).
    short = [p.stem.rsplit("-", 1)[-1] for p in paths]
    if len(set(short)) != len(short):
        short = distinct_labels(paths, label=lambda p: p.stem, what="qrels file")
    return list(zip(short, paths))


def evaluate(
    run_path: str | os.PathLike[str],
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
    fmt: RunFormat | str | None = None,
    topics: TopicSelection | None = None,
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
    run concatenated with itself once gave nDCG@5 above 1. ``topics``: score the topics this
    selection keeps only (of the run and of the qrels).
    """
    with sources.reading():  # a run or qrels given as a pipe: read once, looked at twice
        _refuse_swapped(run_path, qrels)
        return evaluate_rows(load_run(run_path, fmt), qrels, measures, depth=depth, topics=topics,
                             name=_run_name(run_path))


def _run_name(run) -> str:
    """How a warning names a run: its file, or what the writer wrote it as."""
    if isinstance(run, RunTable):
        return "the run"
    return str(getattr(run, "label", run)) if not is_frame(run) else str(run.attrs.get("name") or "the run frame")


Rows = Union[Sequence[RunRow], RunTable]


def as_table(rows: Rows) -> RunTable:
    """Rows already in memory as a table: every measure reads a run one way (``_family_rows``)."""
    if isinstance(rows, RunTable):
        return rows
    rows = list(rows)
    return RunTable.from_rows(rows, _format_of_rows(rows))


def _format_of_rows(rows: Sequence[RunRow]) -> RunFormat:
    """The format rows without a file are of (what their ranking groups by: images per stance)."""
    labels = {r.column2 for r in rows}
    if any("," in r.docid for r in rows):
        return RunFormat.PAIRS
    if labels and labels <= {"PRO", "CON"}:
        return RunFormat.IMAGE
    return RunFormat.STANCE if labels - {"Q0"} else RunFormat.Q0


def evaluate_rows(
    rows: Rows,
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
    topics: TopicSelection | None = None,
    name: str = "the run",
) -> dict[str, float]:
    """``evaluate`` on rows already in memory (the Python API's runs, or a ``RunTable``); the
    caller vouches for their validity (ranks per topic 1, 2, …, no document twice)."""
    results: dict[str, float] = {}
    for label, rows_, judged, wanted in _scoring_plan(rows, qrels, measures, depth, topics, name):
        for measure, value in _means(rows_, judged, wanted).items():
            results[label(measure)] = value
    return results


def evaluate_rows_per_topic(
    rows: Rows,
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
    topics: TopicSelection | None = None,
    name: str = "the run",
) -> dict[str, dict[str, float]]:
    """{measure: {topic: value}}, the values ``evaluate_rows`` averages, for the topics it
    averages over (Touché's nDCG: topics with a judged document in the cut; trec_eval-style:
    the run's judged topics; image precision: the run's judged topics, each over its 2k images).
    Stance macro-F1 is one F1 over every judged row of every topic, not a mean of topics: it has
    no per-topic values (``stance.N`` has: the judged rows per topic)."""
    results: dict[str, dict[str, float]] = {}
    for label, rows_, judged, wanted in _scoring_plan(rows, qrels, measures, depth, topics, name):
        for measure, values in _per_topic(rows_, judged, wanted).items():
            results[label(measure)] = values
    return results


def score_rows(
    rows: Rows,
    qrels: QrelsArg,
    measures: Sequence[str] | None = None,
    *,
    depth: int = 5,
    topics: TopicSelection | None = None,
    name: str = "the run",
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """``evaluate_rows`` and ``evaluate_rows_per_topic`` at once: one plan (qrels read and rows
    grouped once); each measure is then computed for its mean and for its per-topic values."""
    means: dict[str, float] = {}
    per_topic: dict[str, dict[str, float]] = {}
    for label, rows_, judged, wanted in _scoring_plan(rows, qrels, measures, depth, topics, name):
        means.update((label(m), v) for m, v in _means(rows_, judged, wanted).items())
        per_topic.update((label(m), v) for m, v in _per_topic(rows_, judged, wanted).items())
    return means, per_topic


def _scoring_plan(rows: Rows, qrels: QrelsArg, measures: Sequence[str] | str | None, depth: int,
                  topics: TopicSelection | None = None, name: str = "the run"):
    """(label of a measure, rows, qrels, measures to compute) per qrels file: measure names
    parsed and checked, topic ids made comparable, the same plan for means and per-topic values.
    A measure named with its qrels (``relevance:touche.nDCG@5``) is computed on that file only.
    From a ``RunTable`` each family gets only the rows it looks at (``_family_rows``). A topic
    selection keeps its topics of the run and of the qrels alike."""
    if isinstance(measures, str):
        measures = [measures]  # one measure's name, not a sequence of one-letter names
    parsed = [parse_measure(m) for m in measures] if measures is not None else None
    check_cutoff("--depth", str(depth))  # the names were checked whole as they were parsed
    named = [(qrels_name, load_qrels(path)) for qrels_name, path in named_qrels(qrels)]
    for qrels_name, judged in named:
        check_named_kind(qrels_name, judged)
    table = as_table(rows)
    if topics is not None:
        if not topics.checked:  # no entry checked it against more (a topics file, several runs)
            topics = topics.checked_against(table.topics().union(*(q.topics() for _, q in named)),
                                            f"{name} and the qrels")
        named = [(qrels_name, judged.restricted(topics.keeps)) for qrels_name, judged in named]
        table = table.restricted(topics.keeps)
    if parsed is not None:
        unknown = [m.label(m.qrels) for m in parsed if not any(m.applies_to(n, q.kind) for n, q in named)]
        if unknown:
            raise ToucheError(
                f"measure(s) {', '.join(unknown)} do not apply to the given qrels "
                f"({', '.join((f'{n}: ' if n else '') + q.kind.value for n, q in named)}); known: {known_measures()}")
    plan = []
    for qrels_name, judged in named:
        _warn_unmatched(table, judged, name)
        wanted = [m for m in parsed if m.applies_to(qrels_name, judged.kind)] if parsed is not None \
            else [parse_measure(m) for m in defaults_for(judged.kind, depth)]
        wanted = list({m.name: m for m in wanted}.values())  # a measure asked for twice is computed once
        plan.append(((lambda m, n=qrels_name: f"{n}:{m}" if n else m), table, judged, wanted))
    _warn_ties(table, [m for _, _, _, wanted in plan for m in wanted], name)
    return plan


def _warn_ties(table: RunTable, measures: Sequence[Measure], name: str) -> None:
    """A run whose top k holds tied scores, said wherever it is scored: Touché's evaluator cuts by
    rank, trec_eval orders by score (ties by document id), so the two read different rankings of
    the same file (a run tied in its whole top 5 scored touche.nDCG@5 0.468 and trec.nDCG@5 0.000)."""
    cutoffs = [m.cutoff for m in measures if m.cutoff is not None]
    if not cutoffs:  # stance F1 reads every judged row, whatever their order
        return
    k = max(cutoffs)
    tied = table.tied_topics(k)
    if tied:
        shown = ", ".join(tied[:5]) + (f", … ({len(tied)} in all)" if len(tied) > 5 else "")
        log.warning("warning: %s holds tied scores in the top %d of %d topic(s) (%s): Touché's evaluator cuts each "
                    "topic by rank, trec_eval orders it by score with ties by document id, so touche.* and trec.* "
                    "measures read different rankings of it (touche validate lists the ties; every run the toolkit "
                    "writes has distinct scores)", name, k, len(tied), shown)


def checked_selection(selection: TopicSelection | None, runs: Iterable[Rows], qrels: QrelsArg | None = None, *,
                      topics: Iterable[str] | None = None, what: str | None = None) -> TopicSelection | None:
    """A topic selection checked once for everything an entry scores (``TopicSelection.checked_against``):
    against ``topics`` (a topics file's ids) where given, else against every run's topics and the
    qrels'. Each scoring call would otherwise check it against one run and the qrels only."""
    if selection is None or selection.checked:
        return selection
    if topics is not None:
        return selection.checked_against(topics, what or "the topics file")
    known: set[str] = set().union(*(as_table(rows).topics() for rows in runs))
    given = qrels is not None and not (isinstance(qrels, (Mapping, list, tuple)) and not qrels)
    if given:
        known |= set().union(*(load_qrels(path).topics() for _, path in named_qrels(qrels)))
    return selection.checked_against(known, what or ("the runs and qrels" if given else "the runs"))


def _warn_unmatched(table: RunTable, qrels: Qrels, name: str) -> None:
    """A run scored '-' or 0 everywhere because of the qrels given, said with both named: no topic
    in common (another year), or no document of the run judged (another task or collection: a
    Task 1 run against Task 2 qrels shares topics 1-50 and nothing else)."""
    judged, run_topics = qrels.topics(), table.topics()

    def sample(ids: set[str]) -> str:
        shown = sorted(ids, key=natural_key)
        return ", ".join(shown[:6]) + (f", … ({len(shown)} in all)" if len(shown) > 6 else "")
    if run_topics and not run_topics & judged:
        log.warning("warning: %s and %s have no topic in common (run: %s; qrels: %s): every score is undefined; "
                    "are they of the same year and task?", name, qrels.path, sample(run_topics), sample(judged))
    elif run_topics and not table.judged_mask(qrels.judgments).any():
        log.warning("warning: %s judges none of the documents of %s (its ids look like %s): every score is 0 or "
                    "undefined; are they of the same task and collection?", qrels.path, name,
                    ", ".join(table.frame["docid"].head(3).tolist()))


@dataclass
class Scored:
    """A run scored: its means, how many topics each mean is taken over, its per-topic values
    (``pooled``: those of a measure pooled over topics, each topic's own value, which the mean
    is not the mean of: stance F1)."""
    means: dict[str, float]
    counts: dict[str, int]
    per_topic: dict[str, dict[str, float]]
    pooled: dict[str, dict[str, float]] = field(default_factory=dict)


def score_run(run, qrels: QrelsArg, measures: Sequence[str] | None = None, *, depth: int = 5,
              fmt: RunFormat | str | None = None, topics: TopicSelection | None = None,
              name: str | None = None) -> Scored:
    """``evaluate`` with what a table of means should say beside them: over how many topics each
    is taken (Touché's nDCG: the topics with a judged document in the cut; trec_eval's: the run's
    judged topics; a pooled measure: the topics the run and the qrels share), and the values per
    topic (``trec_eval -q``)."""
    _refuse_swapped(run, qrels)
    table = load_run(run, fmt)
    means, per_topic = score_rows(table, qrels, measures, depth=depth, topics=topics, name=name or _run_name(run))
    kept = table.restricted(topics.keeps) if topics is not None else table
    shared = kept.topics() & set().union(*(load_qrels(path).topics() for _, path in named_qrels(qrels)))
    counts = {m: len(per_topic[m]) if m in per_topic else len(shared) for m in means}
    pooled = {m: parts.per_topic() for m in means
              if m not in per_topic and (parts := pooled_parts(kept, qrels, m)) is not None}
    return Scored(means, counts, per_topic, pooled)
