"""Scoring and comparing runs: ``touche evaluate``, ``compare`` and ``explore`` as functions, and
PyTerrier's ``Experiment`` with Touché's measures (``experiment``).

Every function here scores through one request (``retrieval.evaluation.scoring``): a topic
selection (``topics_only``/``topics_except``) checked against the runs and qrels, the collection the
scores are meant for (``corpus``, ``restrict``), qrels of the kind their names promise, ties in a
top k said.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Union

import pandas as pd

from touche.atomic import write_text
from touche.errors import ConfigError
from touche.inputs import distinct_labels, parse_named_qrels, resolved_qrels, runs_and_qrels, with_dataset
from touche.retrieval.evaluation.agreement import DEFAULT_PERSISTENCE
from touche.retrieval.evaluation.collection import Collection, on_collection
from touche.retrieval.evaluation.experiment import experiment as run_experiment
from touche.retrieval.evaluation.experiment import per_topic_frame
from touche.retrieval.evaluation.measures import QrelsArg, checked_selection
from touche.retrieval.evaluation.registry import split_measures
from touche.retrieval.evaluation.report import Report, read_report, write_report
from touche.retrieval.evaluation.scoring import Evaluation, evaluate_tables
from touche.retrieval.evaluation.significance import DEFAULT_RESAMPLES, DEFAULT_SEED
from touche.retrieval.experiments.comparison import RunComparison, compare_runs, format_comparison, plot_comparison
from touche.retrieval.experiments.explorer import DEFAULT_TOP, EXPLORER_FILE, write_explorer
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.selection import TopicSelection

__all__ = ["evaluate", "evaluate_runs", "experiment", "compare", "explore", "report", "Report", "write_report",
           "read_report"]

PathLike = Union[str, "os.PathLike[str]"]
TopicSpec = Union[str, int, Sequence[Union[int, str]]]
Runs = Union[Mapping[str, Union[pd.DataFrame, PathLike]], Sequence[Union[pd.DataFrame, PathLike]]]


def _selection(topics_only, topics_except) -> TopicSelection | None:
    return TopicSelection.of(topics_only, topics_except, names=("topics_only", "topics_except"))


def _measures(measures: Sequence[str] | str | None) -> list[str] | None:
    """A list of names, or one text as ``--measures`` takes it (comma-separated, between names:
    ``trec.nDCG(gains={0:0,1:5})@5`` is one)."""
    if isinstance(measures, str):
        return [m for m in split_measures(measures) if m]
    return list(measures) if measures is not None else None


def evaluate(run: pd.DataFrame | PathLike, qrels: QrelsArg, measures: Sequence[str] | str | None = None, *,
             depth: int = 5, run_format: RunFormat | str | None = None, per_topic: bool = False,
             topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None,
             corpus: PathLike | None = None, restrict: bool = False) -> dict[str, float] | pd.DataFrame:
    """Touché's measures (``touche evaluate``'s names; ir_measures' spellings ``nDCG@5``,
    ``P@10`` too) of a run frame, scored as its run file would be (sorted by score, ties by
    document id, ranked, cut to the format's depth), or of a run file.

    ``per_topic=True``: the values per topic instead, as a tidy frame ``run, query_id, measure,
    value`` (the run named by its file, or a frame's ``attrs["name"]``, else ``run``); their mean
    is the mean above. Stance macro-F1 has no per-topic values (one F1 over all judged rows).
    ``topics_only``/``topics_except``: score these topics only, or all but these (``"51,55,57-60"``
    or a list, as ``--topics-only`` takes them). ``corpus``: the collection the score is meant for
    (a sample): a run holding documents it lacks is cautioned; ``restrict``: scored on its
    documents only."""
    selection, collection = _selection(topics_only, topics_except), Collection.of(corpus, restrict)
    tables = _named_runs([run], run_format)
    if not per_topic:
        source = None if isinstance(run, pd.DataFrame) else str(run)
        evaluation = evaluate_tables(tables, qrels, _measures(measures), depth=depth, selection=selection,
                                     collection=collection, sources={name: source for name in tables if source})
        return next(iter(evaluation.means.values()))
    selection = checked_selection(selection, tables.values(), qrels)
    return per_topic_frame(_named_runs(tables, None, selection, collection), qrels, _measures(measures), depth=depth)


def evaluate_runs(runs: Runs, qrels: QrelsArg | Iterable[str] | None = None,
                  measures: Sequence[str] | str | None = None, *, also: Iterable[PathLike] | None = None,
                  depth: int = 5, run_format: RunFormat | str | None = None, corpus: PathLike | None = None,
                  restrict: bool = False, topics_only: TopicSpec | None = None,
                  topics_except: TopicSpec | None = None, per_topic: bool = False,
                  headers: Mapping[str, str] | Sequence[str] | None = None, csv: PathLike | None = None,
                  latex: PathLike | None = None, json: PathLike | None = None) -> Evaluation:
    """``touche evaluate``: several runs scored alike, as one ``Evaluation`` (per run its means, the
    topics each is over, its per-topic values; ``.table()``, ``.per_topic_table()``; the cautions
    and notes to show beside them). ``runs``: files, quoted globs (``"out/*.txt"``) or frames (a
    mapping names them); without ``qrels`` the files are told apart as the command does (a run's
    lines have six columns, qrels' four; ``NAME=PATH`` and ``irds:<id>`` are qrels; reports such
    as explore.html are left out). ``also``: more runs. ``csv``/``latex``/``json``: the report
    (``.report``) also written there (``-``: standard output), its tables a row per topic with
    ``per_topic``; ``headers``: the LaTeX table's headers (``{measure: text}`` or ``MEASURE=TEXT``
    items as ``--header`` takes them)."""
    selection, collection = _selection(topics_only, topics_except), Collection.of(corpus, restrict)
    if qrels is None:
        if isinstance(runs, Mapping) or any(isinstance(r, pd.DataFrame) for r in runs):
            raise ConfigError("evaluate_runs(): give the qrels (frames cannot be told apart from them)")
        files, items = runs_and_qrels([str(r) for r in runs], [str(a) for a in also or []])
        runs, qrels = files, parse_named_qrels(items)
    elif also:
        runs = [*runs, *also] if not isinstance(runs, Mapping) else {**runs, **{Path(a).name: a for a in also}}
    elif isinstance(qrels, (list, tuple)) and all(isinstance(q, str) for q in qrels):
        qrels = parse_named_qrels(qrels)  # [NAME=]PATH items, as the command takes them
    tables = _named_runs(runs, run_format, label=lambda p: p.name)
    sources = {} if isinstance(runs, Mapping) else \
        {name: str(run) for name, run in zip(tables, runs) if not isinstance(run, pd.DataFrame)}
    evaluation = evaluate_tables(tables, qrels, _measures(measures), depth=depth, selection=selection,
                                 collection=collection, sources=sources, headers=headers)
    assert evaluation.report is not None
    for fmt, path in (("csv", csv), ("latex", latex), ("json", json)):
        if path:
            write_report(evaluation.report, path, fmt, per_topic=per_topic)
            evaluation.written.append((fmt, str(path)))
    return evaluation


def experiment(runs: Runs, qrels: QrelsArg, measures: Sequence[str] | str | None = None, *,
               baseline: str | int | None = 0, correction: str = "holm", test: str = "randomization",
               alpha: float = 0.05, depth: int = 5, resamples: int = DEFAULT_RESAMPLES,
               run_format: RunFormat | str | None = None, topics_only: TopicSpec | None = None,
               topics_except: TopicSpec | None = None, corpus: PathLike | None = None,
               restrict: bool = False) -> pd.DataFrame:
    """Several runs against a baseline, as PyTerrier's ``Experiment`` does it, with Touché's
    measures: one row per run and measure with the mean, its 95 % topic-bootstrap interval, the
    number of topics, and against the baseline (default the first run) the mean difference on
    common topics, wins/losses/ties, the paired test's p (``test``: randomization with
    ``resamples`` sign flips, exact where 2^topics is fewer; t; wilcoxon) and that p corrected for
    the runs tested (``correction``: holm, bonferroni, fdr_bh, none). ``runs``: {name: frame or
    path}, or a list (named by file, or a frame's ``attrs["name"]``); ``topics_only``/
    ``topics_except``, ``corpus``/``restrict`` as in ``evaluate``."""
    selection, collection = _selection(topics_only, topics_except), Collection.of(corpus, restrict)
    named = _named_runs(runs, run_format)
    named = _named_runs(named, None, checked_selection(selection, named.values(), qrels), collection)
    if isinstance(runs, Mapping) and baseline in runs and not isinstance(baseline, bool):
        baseline = str(baseline)  # a key of the mapping is a name ({1: a, 2: b}, baseline=1), not a position
    return run_experiment(named, qrels, _measures(measures), baseline=baseline, correction=correction, test=test,
                          alpha=alpha, depth=depth, resamples=resamples)


def report(runs: Runs | pd.DataFrame | PathLike, qrels: QrelsArg, measures: Sequence[str] | str | None = None, *,
           depth: int = 5, run_format: RunFormat | str | None = None, topics_only: TopicSpec | None = None,
           topics_except: TopicSpec | None = None, corpus: PathLike | None = None, restrict: bool = False,
           headers: Mapping[str, str] | Sequence[str] | None = None) -> Report:
    """Every measure of every run, per topic and overall, as one ``Report``: what ``touche
    evaluate`` prints and writes. ``report.markdown()`` (``per_topic=True``: a row per topic),
    ``.latex()`` (readable headers; ``headers`` overrides them, e.g. ``{"relevance:touche.nDCG@5":
    "nDCG@5 (rel.)"}``), ``.csv()`` (tidy, per topic and ``all``), ``.to_json()``;
    ``write_report(report, "scores.tex")`` writes one (the format from the suffix) and
    ``read_report`` reads a JSON one back, validated. ``runs`` as ``experiment`` takes them (or
    one run); the other arguments as ``evaluate``."""
    if isinstance(runs, (pd.DataFrame, str, os.PathLike)):
        runs = [runs]
    tables = _named_runs(runs, run_format)
    sources = {} if isinstance(runs, Mapping) else \
        {name: str(run) for name, run in zip(tables, runs) if not isinstance(run, pd.DataFrame)}
    evaluation = evaluate_tables(tables, qrels, _measures(measures), depth=depth,
                                 selection=_selection(topics_only, topics_except),
                                 collection=Collection.of(corpus, restrict), sources=sources, headers=headers)
    assert evaluation.report is not None
    return evaluation.report


def _named_runs(runs, run_format, selection: TopicSelection | None = None, collection: Collection | None = None,
                label=lambda p: p.stem) -> dict[str, RunTable]:
    """Run frames and files through the input gate, each under a distinct name (of the topics
    ``selection`` keeps, on ``collection``)."""
    if isinstance(runs, Mapping):
        items = [(str(name), run) for name, run in runs.items()]
    else:
        runs = list(runs)
        paths = [Path(r) for r in runs if not isinstance(r, pd.DataFrame)]
        labels = iter(distinct_labels(paths, label=label, what="run file"))
        items = []
        for number, run in enumerate(runs, 1):
            name = run.attrs.get("name", f"run{number}" if len(runs) > 1 else "run") \
                if isinstance(run, pd.DataFrame) else next(labels)
            items.append((str(name), run))
    out: dict[str, RunTable] = {}
    for name, run in items:
        if name in out:
            raise ConfigError(f"two runs are named {name!r}: name them apart (a mapping, or frame.attrs['name'])")
        out[name] = load_run(run, run_format, name=name)
    if selection is not None:
        out = {name: table.restricted(selection.keeps) for name, table in out.items()}
    out, _ = on_collection(out, collection)
    return out


def compare(run_a: PathLike, run_b: PathLike, qrels: PathLike, measure: str = "touche.nDCG@5", *,
            output: PathLike | None = None, plot: PathLike | None = None, resamples: int = 10000,
            seed: int = DEFAULT_SEED, topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None,
            corpus: PathLike | None = None, restrict: bool = False) -> RunComparison:
    """``touche compare``: run B against run A (the baseline) topic by topic on one graded qrels
    file: means, wins/losses/ties, a paired t-test and a randomization test (``resamples`` sign
    flips, ``seed``). ``output``: also the Markdown report there (``-``: standard output);
    ``plot``: a PNG of the per-topic differences. ``str(format_comparison(…))`` is the report."""
    comparison = compare_runs(run_a, run_b, str(resolved_qrels(qrels)), measure, resamples=resamples,
                              seed=seed, topics=_selection(topics_only, topics_except),
                              collection=Collection.of(corpus, restrict))
    if output:
        write_text(output, format_comparison(comparison) + "\n")
    if plot:
        plot_comparison(comparison, plot)
    return comparison


def explore(runs: Runs, qrels: QrelsArg | Iterable[str] | None = None, *, out: PathLike = EXPLORER_FILE,
            corpus: PathLike | None = None, topics: PathLike | None = None, corpus_format: str | None = None,
            baseline: str | None = None, measures: Sequence[str] | str | None = None, top: int = DEFAULT_TOP,
            test: str = "randomization", resamples: int = DEFAULT_RESAMPLES, correction: str = "holm",
            rbo_p: float = DEFAULT_PERSISTENCE, markdown: PathLike | None = None, latex: PathLike | None = None,
            csv: PathLike | None = None, topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None,
            restrict: bool = False, dataset: str | None = None, progress: bool = False,
            headers: Mapping[str, str] | Sequence[str] | None = None) -> Path:
    """``touche explore``: the run explorer of run frames (ours, PyTerrier's results) or files, one
    HTML page comparing them topic by topic, by their measures when ``qrels`` are given ({name:
    path}, or ``[NAME=]PATH`` items). ``corpus``: the documents' texts (a TIRA input folder gives
    its topics and qrels too); a run holding documents it lacks is cautioned, ``restrict`` shows
    every run on its documents only. ``markdown``/``latex``/``csv``: the overview (per-topic
    values for CSV) also written there. ``rbo_p``: RBO's persistence; ``resamples``: the
    randomization test's; ``headers``: the LaTeX export's headers (``{measure: text}`` or
    ``MEASURE=TEXT`` items); the other options as ``touche explore`` takes them."""
    corpus, topics, qrels, _ = with_dataset(dataset, corpus=corpus, topics=topics, qrels=qrels)
    if isinstance(qrels, (list, tuple)) and all(isinstance(q, str) for q in qrels):
        qrels = parse_named_qrels(qrels)
    names: list[str] | None
    if isinstance(runs, Mapping):
        names, sources = [str(n) for n in runs], list(runs.values())
    else:
        sources = list(runs)
        names = list(_named_runs(sources, None)) if any(isinstance(r, pd.DataFrame) for r in sources) else None
    exports = {kind: path for kind, path in (("markdown", markdown), ("latex", latex), ("csv", csv)) if path}
    given = qrels is not None and (isinstance(qrels, pd.DataFrame) or not isinstance(qrels, (Mapping, list, tuple))
                                   or len(qrels) > 0)
    return write_explorer(sources, qrels if given else None, Path(out), names=names, corpus=corpus,
                          corpus_format=corpus_format, topics=topics, baseline=baseline,
                          measures=_measures(measures), top=top, test=test, correction=correction, rbo_p=rbo_p,
                          exports=exports, resamples=resamples, progress=progress,
                          selection=_selection(topics_only, topics_except), restrict=restrict, headers=headers)
