"""Touché inside PyTerrier's pipelines: run variants as transformers, Touché's measures as
ir_measures measures (so ``pt.Experiment`` reports them), topics and qrels as PyTerrier frames.

``pip install 'touche-toolkit[pyterrier]'`` (PyTerrier 1.1.2). PyTerrier's ``Experiment`` and
transformers run without Terrier's jars, so nothing here downloads anything; docs/pyterrier.md
shows a whole experiment. This module is part of the command-line wing (docs/architecture.md):
it may import every layer, and no layer imports it.

* ``Variant(name_or_yaml, corpus=...)`` is a ``pt.Transformer``: a queries frame (``qid``,
  ``query``; optionally Touché's ``title``, ``description``, ``narrative``, ``objects``) in, the
  rows of the variant's run file out (``qid``, ``query``, ``docno``, ``score``, ``rank`` from 0 as
  PyTerrier counts, and ``stance`` where the task has one). ``v.first_stage >> v.stages`` is the
  variant; any transformer may go between them.
* ``measure("touche.nDCG@5")`` (any name of the measure registry, ``quality:touche.nDCG@5`` for
  another qrels column) is an ir_measures measure: per topic ``touche evaluate``'s values.
* ``topics(...)`` and ``qrels(...)`` read files or ``irds:`` ids into PyTerrier's frames;
  ``explore(...)`` writes the run explorer for the systems of an experiment.
"""
from __future__ import annotations

import functools
import logging
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

try:
    import pyterrier as pt
except ImportError as exc:  # the optional dependency
    raise ImportError("touche.pyterrier needs PyTerrier: pip install 'touche-toolkit[pyterrier]' "
                      "(or pip install pyterrier==1.1.2)") from exc
import ir_measures

from touche import api, jvm
from touche.config import LoadedVariant
from touche.datasets import parse_ref, qrels_paths, topics_path
from touche.errors import InputError, ToucheError
from touche.paths import default_index_root
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.formats.gate import load_qrels, load_run, load_topics
from touche.retrieval.formats.runfile import RunFormat, canonical_topic
from touche.retrieval.formats.runwriter import ranked_rows
from touche.retrieval.formats.topics import Topic
from touche.retrieval.search import Ranking
from touche.retrieval.session import Pipeline, Session
from touche.retrieval.tasks import handler

__all__ = ["Variant", "measure", "topics", "qrels", "explore", "register_jars"]

log = logging.getLogger(__name__)
PathLike = str | os.PathLike[str]
TOPIC_COLUMNS = ("title", "description", "narrative", "objects")


# --------------------------------------------------------------------------- the JVM
def register_jars() -> bool:
    """Add the toolkit's jars to PyTerrier's Java configuration while its JVM has not started, so
    that a JVM PyTerrier starts (``pt.java.init()``, Terrier's components) holds them and the
    toolkit uses it (a process has one JVM). Returns whether they were added."""
    import sys
    if pt.java.started() or ("jnius_config" in sys.modules and sys.modules["jnius_config"].vm_running):
        return False
    configured = {str(j) for j in pt.java.configure().get("jars", [])}
    for jar in jvm.classpath():
        if str(jar) not in configured:
            pt.java.add_jar(str(jar))
    return True


# --------------------------------------------------------------------------- frames and rankings
def _topics_of(frame: pd.DataFrame) -> list[Topic]:
    """The topics of a queries (or results) frame, one per qid, through the input gate."""
    if "qid" not in frame.columns or not ({"query", "title"} & set(frame.columns)):
        raise InputError(f"a queries frame needs the columns qid and query (or title); it has "
                         f"{', '.join(map(str, frame.columns)) or 'none'}")
    columns = [c for c in ("qid", "query", *TOPIC_COLUMNS) if c in frame.columns]
    return load_topics(frame[columns].drop_duplicates("qid"))


def _queries_part(frame: pd.DataFrame) -> pd.DataFrame:
    """What a results frame carries of its queries (one row per qid): PyTerrier keeps them along."""
    columns = [c for c in frame.columns if c not in ("docno", "score", "rank", "stance")]
    return frame[columns].drop_duplicates("qid").reset_index(drop=True)


def _as_frame(ranking: Ranking, queries: pd.DataFrame, stance: Mapping[tuple[str, str], str] | None = None
              ) -> pd.DataFrame:
    """A ranking as a results frame: the queries' columns, docno, score and rank from 0."""
    canonical = {canonical_topic(str(q)): str(q) for q in queries["qid"]}
    rows = [(canonical.get(qid, qid), docno, float(score), rank)
            for qid, hits in ranking.items() for rank, (docno, score) in enumerate(hits)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])
    frame["rank"] = frame["rank"].astype(np.int64)
    merged = _queries_part(queries).astype({"qid": str}).merge(frame, on="qid", how="inner")
    return merged


def _as_ranking(frame: pd.DataFrame) -> Ranking:
    """A results frame as a ranking: per topic (in the frame's order) best score first; a
    transformer between two stages may have re-scored it (pt.apply), so scores decide, and
    equal scores keep their order (the rank column, else the frame's)."""
    if frame.empty:
        return {}
    missing = [c for c in ("qid", "docno", "score") if c not in frame.columns]
    if missing:
        raise InputError(f"a results frame needs the columns qid, docno, score; missing: {', '.join(missing)}")
    qids = frame["qid"].astype(str).map(canonical_topic).to_numpy()
    order_of_topic = {q: i for i, q in enumerate(dict.fromkeys(qids))}
    tie = frame["rank"].to_numpy() if "rank" in frame.columns else np.arange(len(frame))
    scores = frame["score"].to_numpy(dtype=float)
    order = np.lexsort((np.arange(len(frame)), tie, -scores, [order_of_topic[q] for q in qids]))
    ranking: Ranking = {}
    docnos = frame["docno"].astype(str).to_numpy()
    for i in order:
        ranking.setdefault(qids[i], []).append((docnos[i], float(scores[i])))
    return ranking


# --------------------------------------------------------------------------- the transformers
class Variant(pt.Transformer):
    """A run variant as a PyTerrier transformer (see the module docstring). The index is built on
    first use and reused as ``touche run`` reuses it (``index_root``); one JVM per process."""

    def __init__(self, name_or_yaml: PathLike | LoadedVariant, corpus: PathLike, *,
                 overrides: Mapping[str, Any] | None = None, index_root: PathLike | None = None,
                 progress: bool = False):
        self.loaded = api.variant(name_or_yaml, overrides)
        self.corpus = str(corpus)
        self.index_root = Path(index_root) if index_root else default_index_root()
        self.progress = progress
        self._session: Session | None = None
        task = handler(self.loaded.variant.task)
        parts = ([f"{self.loaded.variant.task} re-ranking"] if task.rerank is not None else []) + \
            [stage.name for stage in self.loaded.variant.rerank]
        self.first_stage = FirstStage(self)
        self.rows = RunRows(self)
        stages = [Rerank(self, i, name) for i, name in enumerate(parts)] + [self.rows]
        self.stages = functools.reduce(lambda a, b: a >> b, stages)

    @property
    def name(self) -> str:
        return self.loaded.name

    def __repr__(self) -> str:
        return f"touche.Variant({self.loaded.name!r})"

    def pipeline(self, frame: pd.DataFrame) -> Pipeline:
        """The variant's parts on the topics of ``frame`` (its session opened once)."""
        if self._session is None:
            register_jars()  # before our JVM starts: a PyTerrier JVM started later would hold them
            self._session = Session(self.corpus, None, self.index_root, progress=self.progress)
        return self._session.pipeline(self.loaded, _topics_of(frame))

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        return self.stages.transform(self.first_stage.transform(queries))

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        return self.rows.transform_outputs([*input_columns, "docno", "score", "rank"])

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


class FirstStage(pt.Transformer):
    """The variant's queries (as it formulates them from the topics) searched: queries → results."""

    def __init__(self, variant: Variant):
        self.variant = variant

    def __repr__(self) -> str:
        return f"touche.FirstStage({self.variant.name!r})"

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        if queries.empty:
            return pd.DataFrame(columns=[*queries.columns, "docno", "score", "rank"])
        pipeline = self.variant.pipeline(queries)
        return _as_frame(pipeline.search(pipeline.queries()), queries)

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        return [*input_columns, "docno", "score", "rank"]


class Rerank(pt.Transformer):
    """One re-ranking of the variant (its task's, or a ``rerank:`` stage): results → results."""

    def __init__(self, variant: Variant, position: int, name: str):
        self.variant, self.position, self.name = variant, position, name

    def __repr__(self) -> str:
        return f"touche.Rerank({self.variant.name!r}, {self.name!r})"

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        if results.empty:
            return results
        pipeline = self.variant.pipeline(results)
        _, apply = pipeline.rerankers()[self.position]
        return _as_frame(apply(_as_ranking(results), pipeline.queries()), _queries_part(results))

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        return list(input_columns)


class RunRows(pt.Transformer):
    """What the run file holds of a ranking (a task may label stance or pair sentences), ranked as
    the run-file writer ranks it (score, ties by document id, cut to the format's depth)."""

    def __init__(self, variant: Variant):
        self.variant = variant
        self.format = handler(variant.loaded.variant.task).run_format

    def __repr__(self) -> str:
        return f"touche.RunRows({self.variant.name!r})"

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        if results.empty:
            return pd.DataFrame(columns=self.transform_outputs(list(results.columns)))
        pipeline = self.variant.pipeline(results)
        rows = ranked_rows(pipeline.rows(_as_ranking(results)), self.format, self.variant.loaded.variant.tag)
        queries = _queries_part(results).astype({"qid": str})
        canonical = {canonical_topic(q): q for q in queries["qid"]}
        frame = pd.DataFrame({"qid": [canonical.get(r.qid, r.qid) for r in rows], "docno": [r.docid for r in rows],
                              "score": [r.score for r in rows], "rank": [r.rank - 1 for r in rows]})
        if self.format is not RunFormat.Q0:
            frame["stance"] = [r.column2 for r in rows]
        frame["rank"] = frame["rank"].astype(np.int64)
        return queries.merge(frame, on="qid", how="inner")

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        out = [c for c in input_columns if c not in ("stance",)]
        return out + (["stance"] if self.format is not RunFormat.Q0 else [])


# --------------------------------------------------------------------------- measures
@functools.lru_cache(maxsize=None)
def measure(name: str):
    """A measure of the registry (``touche.nDCG@5``, ``touche2021.nDCG@5``, ``stance.F1_macro``,
    ``image.on_topic_P@10``, ``trec.nDCG@5`` …; ``quality:touche.nDCG@5`` reads the qrels frame's
    ``quality`` column, see ``qrels``) as an ir_measures measure for ``pt.Experiment``,
    ``ir_measures.calc_aggregate`` and ``iter_calc``.

    Per topic it gives ``touche evaluate``'s values: the run is read through the input gate
    (ranked by score as its file would be; the rank column is PyTerrier's and is not read). Two
    conventions differ from ``touche evaluate`` and are ir_measures' (every judged topic counts):
    a topic Touché's nDCG leaves out (no judged document in the cut) counts 0, and a measure over
    all judged rows (stance macro-F1) gives every judged topic the pooled value, so the mean is the
    pooled value."""
    parsed = parse_measure(name)
    column = parsed.qrels or "relevance"
    bare = parsed.name

    def impl(qrels: pd.DataFrame, run: pd.DataFrame):
        if column not in qrels.columns:
            raise ToucheError(f"{name} reads the qrels column '{column}', which this qrels frame lacks (it has "
                              f"{', '.join(map(str, qrels.columns))}); give it with touche.pyterrier.qrels("
                              f"{{'relevance': …, '{column}': …}})")
        judged = qrels[["query_id", "doc_id", column]].dropna().rename(columns={column: "relevance"})
        if judged.empty or run.empty:
            return
        columns = [c for c in ("query_id", "doc_id", "score", "stance") if c in run.columns]
        table = load_run(run[columns].astype({"query_id": str, "doc_id": str}), name=name)
        written = {canonical_topic(str(q)): str(q) for q in judged["query_id"].unique()}
        if parsed.has_per_topic:
            values = evaluate_rows_per_topic(table, judged, [bare]).get(bare, {})
            for qid, value in values.items():
                yield written.get(qid, qid), float(value)
        else:  # pooled over every judged row: each judged topic gets it (ir_measures averages topics)
            value = evaluate_rows(table, judged, [bare]).get(bare, math.nan)
            if not math.isnan(value):
                for qid in sorted(written.values()):
                    yield qid, float(value)

    run_inputs = ["query_id", "doc_id", "score"]
    return ir_measures.define(impl, name=name, support_cutoff=False, run_inputs=run_inputs,
                              qrel_inputs=["query_id", "doc_id", column if column != "relevance" else "relevance"],
                              short_desc=f"Touché's {bare} (touche evaluate's values)")


# --------------------------------------------------------------------------- topics and qrels
def topics(source: PathLike | pd.DataFrame) -> pd.DataFrame:
    """A topics file, BEIR queries or ``irds:<id>`` as PyTerrier's queries frame: ``qid``, ``query``
    (the title) and Touché's ``title``, ``description``, ``narrative``, ``objects`` (comma-joined)."""
    ref = parse_ref(source) if not isinstance(source, pd.DataFrame) else None
    read = load_topics(topics_path(ref) if ref else source)
    return pd.DataFrame({"qid": [t.number for t in read], "query": [t.title for t in read],
                         "title": [t.title for t in read], "description": [t.description for t in read],
                         "narrative": [t.narrative for t in read], "objects": [", ".join(t.objects) for t in read]})


def qrels(source: PathLike | Mapping[str, PathLike]) -> pd.DataFrame:
    """Qrels as PyTerrier's frame (``qid``, ``docno``, ``label``): a file, ``irds:<id>`` (every qrels
    file of the dataset), or {name: file}. The relevance qrels (else the first) give ``label``;
    each other one a column of its name (``quality``, ``stance``), which ``measure("quality:…")``
    reads. Topic ids as the gate makes them (``01`` is topic 1)."""
    if isinstance(source, Mapping):
        named = {str(n): p for n, p in source.items()}
    elif parse_ref(source):
        named = dict(qrels_paths(parse_ref(source)))
    else:
        named = {"relevance": source}
    if not named:
        raise InputError("no qrels given")
    main = "relevance" if "relevance" in named else next(iter(named))
    frames = {}
    for name, path in named.items():
        judged = load_qrels(path)
        if judged.kind.value == "image":
            raise InputError("image qrels (three aspects per image) have no PyTerrier layout; score image runs "
                             "with touche evaluate", path=path)
        frames[name] = pd.DataFrame([(q, d, v) for q, docs in judged.judgments.items() for d, v in docs.items()],
                                    columns=["qid", "docno", "label" if name == main else name])
    out = frames[main]
    for name, frame in frames.items():
        if name == main:
            continue
        lost = len(frame.merge(out[["qid", "docno"]], on=["qid", "docno"], how="left", indicator=True)
                   .query("_merge == 'left_only'"))
        if lost:
            log.warning("warning: %d %s judgement(s) are of documents the %s qrels do not judge: left out of the "
                        "frame (PyTerrier's qrels have one row per judged document)", lost, name, main)
        out = out.merge(frame, on=["qid", "docno"], how="left")
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- the explorer
def explore(systems: Sequence[Any] | Mapping[str, Any], topics_frame: pd.DataFrame | None = None, *,
            qrels: Any = None, names: Sequence[str] | None = None, out: PathLike = "explore.html",
            **options) -> Path:
    """The run explorer for the systems of an experiment (what ``pt.Experiment`` was given: result
    frames, transformers run on ``topics_frame``, or run files), as ``touche explore`` writes it;
    ``options`` as ``api.explore`` takes them (corpus, topics, baseline, measures, test …)."""
    items = list(systems.items()) if isinstance(systems, Mapping) else \
        list(zip(names or [None] * len(systems), systems))
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
