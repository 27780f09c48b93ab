"""The Python API: what the command line does, as functions; runs are pandas DataFrames.

A run frame has ir_measures' run columns ``query_id``, ``doc_id``, ``score`` plus Touché's
``stance`` (the run file's second column: ``Q0``, ``PRO``/``CON``, ``FIRST``/``SECOND`` …) and
``rank``; its rows are in the order, and cut to the depth, of the run file the variant writes.
Examples (run by tests/test_python_api.py): docs/python-api.md.

This module is part of the command-line wing (docs/architecture.md): it may import every layer,
and no layer imports it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence, Union

import pandas as pd

from touche.config import LoadedVariant, load_variant, variant_file
from touche.errors import ConfigError
from touche.indexing.builder import IndexInfo, ensure_index
from touche.inputs import distinct_labels, resolve_corpus
from touche.paths import DEMO, default_index_root, shipped_variant_names
from touche.retrieval.evaluation.experiment import experiment as run_experiment
from touche.retrieval.evaluation.experiment import per_topic_frame
from touche.retrieval.evaluation.measures import QrelsArg, evaluate_rows
from touche.retrieval.evaluation.measures import evaluate as evaluate_run_file
from touche.retrieval.evaluation.report import Report, read_report, score_report, write_report
from touche.retrieval.evaluation.significance import DEFAULT_RESAMPLES
from touche.retrieval.experiments.explorer import DEFAULT_TOP, EXPLORER_FILE, write_explorer
from touche.retrieval.formats.gate import frame_rows, load_run
from touche.retrieval.formats.runfile import RunFormat, RunRow
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.runwriter import ranked_rows, write_run
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.session import Session
from touche.retrieval.tasks import handler

__all__ = ["RUN_COLUMNS", "DEMO", "variant", "index", "search", "evaluate", "experiment", "explore", "write",
           "frame_of_rows", "report", "Report", "write_report", "read_report"]

RUN_COLUMNS = ["query_id", "doc_id", "score", "stance", "rank"]
PathLike = str | os.PathLike[str]


def variant(name_or_path: PathLike | LoadedVariant, overrides: Mapping[str, Any] | None = None) -> LoadedVariant:
    """A run variant: a YAML path, or a shipped one by name (``"task1/1-krovetz-smart-lmd2000-quality"``,
    ``"task2/…"``; the names of ``configs/``). ``overrides`` as ``--set`` takes them:
    ``{"retrieval.similarity": {"name": "bm25", "k1": 1.2, "b": 0.75}}``."""
    if isinstance(name_or_path, LoadedVariant):
        return name_or_path if not overrides else load_variant(name_or_path.path, dict(overrides))
    if not str(name_or_path).strip():
        raise ConfigError(f"variant({name_or_path!r}): give a variant YAML path or a shipped name such as "
                          "'task1/1-krovetz-smart-lmd2000-quality'")
    path = Path(name_or_path)
    if variant_file(path) is None:
        raise ConfigError(f"no variant file {path} and no shipped variant of that name "
                          f"(shipped: {', '.join(shipped_variant_names())})")
    return load_variant(path, dict(overrides) if overrides else None)


def index(of: PathLike | LoadedVariant, corpus: PathLike, *, index_root: PathLike | None = None,
          progress: bool = True) -> IndexInfo:
    """Build (or reuse) the variant's index of ``corpus`` (a path or ``irds:<id>``);
    ``.documents``, ``.meta["stats"]`` and ``.path`` describe it. ``progress``: long steps
    (indexing) report on stderr, as every door of the toolkit does; False silences them."""
    loaded = variant(of)
    resolved = resolve_corpus(corpus, corpus_format=loaded.variant.corpus.format, config=loaded.path,
                              progress=progress)
    return ensure_index(loaded.variant, resolved, Path(index_root) if index_root else default_index_root(),
                        base_dir=loaded.path.parent, progress=progress)


def search(of: PathLike | LoadedVariant, topics: PathLike | pd.DataFrame | None, corpus: PathLike, *,
           query: str | None = None, index_root: PathLike | None = None, progress: bool = True,
           topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None) -> pd.DataFrame:
    """Run the variant (index, first stage, its task's and its stages' re-ranking) on topics: a
    topics file, ``irds:<id>``, a queries frame (PyTerrier's ``qid, query``, or Touché's ``title``
    …), or ``topics=None, query="…"`` for one query (topic 1); the run as a frame (see the module
    docstring). ``topics_only``/``topics_except``: a selection of the topics by number, as
    ``--topics-only`` takes it (``"51,55,57-60"`` or a list). ``progress``: long steps (indexing,
    a dense re-ranker's first encoding, which takes minutes, stance labelling) report on stderr;
    False silences them."""
    loaded = variant(of)
    if topics is None:
        if not (isinstance(query, str) and query.strip()):
            raise ConfigError("search(): give topics (a file, irds:<id> or a queries frame) or query='…'")
        topics = pd.DataFrame({"qid": ["1"], "query": [query]})
    elif query is not None:
        raise ConfigError("search(): give topics or query, not both")
    session = Session(corpus, topics, index_root=Path(index_root) if index_root else default_index_root(),
                      progress=progress, selection=_selection(topics_only, topics_except))
    try:
        result = session.run(loaded)
    finally:
        session.close()
    run_format = handler(loaded.variant.task).run_format
    return frame_of_rows(ranked_rows(result.rows, run_format, loaded.variant.tag, untie=True), run_format)


def frame_of_rows(rows: Sequence[RunRow], run_format: RunFormat | str | None = None) -> pd.DataFrame:
    """Run rows as a run frame (``frame.attrs["run_format"]`` keeps the format when known)."""
    frame = pd.DataFrame({"query_id": [r.qid for r in rows], "doc_id": [r.docid for r in rows],
                          "score": [r.score for r in rows], "stance": [r.column2 for r in rows],
                          "rank": [r.rank for r in rows]}, columns=RUN_COLUMNS)
    if run_format is not None:
        frame.attrs["run_format"] = RunFormat.parse(run_format).value
    return frame


def evaluate(run: pd.DataFrame | PathLike, qrels: QrelsArg, measures: Sequence[str] | str | None = None, *,
             depth: int = 5, run_format: RunFormat | str | None = None, per_topic: bool = False,
             topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None
             ) -> dict[str, float] | pd.DataFrame:
    """Touché's measures (``touche evaluate``'s names; ir_measures' spellings ``nDCG@5``,
    ``P@10`` too) of a run frame, scored as its run file would be (sorted by score, ties by
    document id, ranked, cut to the format's depth), or of a run file.

    ``per_topic=True``: the values per topic instead, as a tidy frame ``run, query_id, measure,
    value`` (the run named by its file, or a frame's ``attrs["name"]``, else ``run``); their mean
    is the mean above. Stance macro-F1 has no per-topic values (one F1 over all judged rows).
    ``topics_only``/``topics_except``: score these topics only, or all but these (``"51,55,57-60"``
    or a list, as ``--topics-only`` takes them)."""
    selection = _selection(topics_only, topics_except)
    if not per_topic:
        if not isinstance(run, pd.DataFrame):
            return evaluate_run_file(run, qrels, measures, depth=depth, fmt=run_format, topics=selection)
        return evaluate_rows(load_run(run, run_format), qrels, measures, depth=depth, topics=selection)
    (name, rows), = _named_runs([run], run_format, selection).items()
    return per_topic_frame({name: rows}, qrels, measures, depth=depth)


TopicSpec = Union[str, int, Sequence[Union[int, str]]]


def _selection(topics_only, topics_except) -> TopicSelection | None:
    return TopicSelection.of(topics_only, topics_except, names=("topics_only", "topics_except"))


def experiment(runs: Mapping[str, pd.DataFrame | PathLike] | Sequence[pd.DataFrame | PathLike], qrels: QrelsArg,
               measures: Sequence[str] | str | None = None, *, baseline: str | int | None = 0,
               correction: str = "holm", test: str = "randomization", alpha: float = 0.05, depth: int = 5,
               resamples: int = DEFAULT_RESAMPLES, run_format: RunFormat | str | None = None,
               topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None) -> pd.DataFrame:
    """Several runs against a baseline, as PyTerrier's ``Experiment`` does it, with Touché's
    measures: one row per run and measure with the mean, its 95 % topic-bootstrap interval, the
    number of topics, and against the baseline (default the first run) the mean difference on
    common topics, wins/losses/ties, the paired test's p (``test``: randomization with
    ``resamples`` sign flips, exact where 2^topics is fewer; t; wilcoxon) and that p corrected for
    the runs tested (``correction``: holm, bonferroni, fdr_bh, none). ``runs``: {name: frame or
    path}, or a list (named by file, or a frame's ``attrs["name"]``); ``topics_only``/
    ``topics_except`` as in ``evaluate``."""
    if isinstance(measures, str):
        measures = [measures]
    named = _named_runs(runs, run_format, _selection(topics_only, topics_except))
    if isinstance(runs, Mapping) and baseline in runs and not isinstance(baseline, bool):
        baseline = str(baseline)  # a key of the mapping is a name ({1: a, 2: b}, baseline=1), not a position
    return run_experiment(named, qrels, measures, baseline=baseline, correction=correction, test=test, alpha=alpha,
                          depth=depth, resamples=resamples)


def _named_runs(runs, run_format, selection: TopicSelection | None = None) -> dict[str, RunTable]:
    """Run frames and files through the input gate, each under a distinct name (of the topics
    ``selection`` keeps)."""
    if isinstance(runs, Mapping):
        items = [(str(name), run) for name, run in runs.items()]
    else:
        runs = list(runs)
        paths = [Path(r) for r in runs if not isinstance(r, pd.DataFrame)]
        labels = iter(distinct_labels(paths, label=lambda p: p.stem, what="run file"))
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
        selection.check_against(set().union(*(table.topics() for table in out.values())), "the runs")
        out = {name: table.restricted(selection.keeps) for name, table in out.items()}
    return out


def explore(runs: Mapping[str, pd.DataFrame | PathLike] | Sequence[pd.DataFrame | PathLike],
            qrels: QrelsArg | None = None,
            *, out: PathLike = EXPLORER_FILE, corpus: PathLike | None = None, topics: PathLike | None = None,
            baseline: str | None = None, measures: Sequence[str] | None = None, top: int = DEFAULT_TOP,
            test: str = "randomization", correction: str = "holm", progress: bool = False,
            topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None) -> Path:
    """The run explorer (``touche explore``) of run frames (ours, PyTerrier's results) or files:
    one HTML page comparing them topic by topic, by their measures when ``qrels`` are given
    (on the topics ``topics_only``/``topics_except`` select)."""
    names: list[str] | None
    if isinstance(runs, Mapping):
        names, sources = [str(n) for n in runs], list(runs.values())
    else:
        sources = list(runs)
        names = list(_named_runs(sources, None)) if any(isinstance(r, pd.DataFrame) for r in sources) else None
    return write_explorer(sources, qrels, Path(out), names=names, corpus=corpus, topics=topics, baseline=baseline,
                          measures=measures, top=top, test=test, correction=correction, progress=progress,
                          selection=_selection(topics_only, topics_except))


def report(runs: Mapping[str, pd.DataFrame | PathLike] | Sequence[pd.DataFrame | PathLike] | pd.DataFrame | PathLike,
           qrels: QrelsArg, measures: Sequence[str] | str | None = None, *, depth: int = 5,
           run_format: RunFormat | str | None = None, topics_only: TopicSpec | None = None,
           topics_except: TopicSpec | None = None, headers: Mapping[str, str] | None = None) -> Report:
    """Every measure of every run, per topic and overall, as one ``Report``: what ``touche
    evaluate`` prints and writes. ``report.markdown()`` (``per_topic=True``: a row per topic),
    ``.latex()`` (readable headers; ``headers`` overrides them, e.g. ``{"relevance:touche.nDCG@5":
    "nDCG@5 (rel.)"}``), ``.csv()`` (tidy, per topic and ``all``), ``.to_json()``;
    ``write_report(report, "scores.tex")`` writes one (the format from the suffix) and
    ``read_report`` reads a JSON one back, validated. ``runs`` as ``experiment`` takes them (or
    one run); the other arguments as ``evaluate``."""
    if isinstance(measures, str):
        measures = [measures]
    if isinstance(runs, (pd.DataFrame, str, os.PathLike)):
        runs = [runs]
    selection = _selection(topics_only, topics_except)
    return score_report(_named_runs(runs, run_format, selection), qrels, measures, depth=depth, selection=selection,
                        headers=headers)


def write(run: pd.DataFrame, path: PathLike, tag: str, *, run_format: RunFormat | str | None = None) -> Path:
    """A run frame as a valid run file (written whole or not at all, validated)."""
    rows, fmt = frame_rows(run, run_format, tag=tag)  # ranked: equal scores in the frame's rank order
    write_run(path, rows, fmt, tag, ties="given")  # raises on an invalid run; the file stays as it was
    return Path(path)
