"""Run variants as PyTerrier transformers: ``Variant`` is a first stage (``FirstStage``) followed
by its re-rankings (``Rerank``) and the rows its run file holds (``RunRows``); its YAML keys are
its parameters (``pt.GridScan``), and it pickles without its JVM objects (``pt.parallel``)."""
from __future__ import annotations

import copy
import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyterrier as pt

from touche import api
from touche.config import LoadedVariant, dotted_get
from touche.paths import default_index_root
from touche.pyterrier.caching import refuse_one_column_cache
from touche.pyterrier.frames import (
    answerable,
    as_frame,
    as_ranking,
    candidates_of,
    carried,
    numbered_topics,
    only_candidates,
    queries_part,
    topics_of,
)
from touche.retrieval.formats.runfile import RunFormat, canonical_topic
from touche.retrieval.formats.runwriter import ranked_rows
from touche.retrieval.preflight import preflight
from touche.retrieval.session import Pipeline, Session
from touche.retrieval.tasks import handler

PathLike = str | os.PathLike[str]
_MISSING = object()


# --------------------------------------------------------------------------- the transformers
class Variant(pt.Transformer):
    """A run variant as a PyTerrier transformer (see the package docstring). The index is built on
    first use and reused as ``touche run`` reuses it (``index_root``); one JVM per process.

    Long steps (indexing, a dense re-ranker's encoding, stance labelling) show progress bars on
    stderr unless ``progress=False``. Its parameters are the variant's YAML keys, dotted
    (``retrieval.similarity.k1``): what ``pt.GridScan``/``pt.GridSearch`` read and set, as
    ``touche sweep`` varies them."""

    def __init__(self, name_or_yaml: PathLike | LoadedVariant, corpus: PathLike, *,
                 overrides: Mapping[str, Any] | None = None, index_root: PathLike | None = None,
                 progress: bool = True):
        self.source = name_or_yaml
        self.overrides = dict(overrides or {})
        self.corpus = str(corpus)
        self.index_root = Path(index_root) if index_root else default_index_root()
        self.progress = progress
        self._session: Session | None = None
        self._preflighted: set[tuple] = set()  # the model files preflight loaded already
        self._load()

    def _load(self) -> None:
        """The variant with its overrides, and its stages (a parameter may add or drop one)."""
        self.loaded = api.variant(self.source, self.overrides)
        # its model files now, as every entry checks them (not at the first query); once per file set
        # (pt.GridScan sets a parameter per point)
        preflight(self.loaded, self._preflighted)
        task = handler(self.loaded.variant.task)
        parts = ([f"{self.loaded.variant.task} re-ranking"] if task.rerank is not None else []) + \
            [stage.name for stage in self.loaded.variant.rerank]
        self.first_stage = FirstStage(self)
        self.rows = RunRows(self)
        stages: list[pt.Transformer] = [Rerank(self, i, name) for i, name in enumerate(parts)] + [self.rows]
        self.stages = functools.reduce(lambda a, b: a >> b, stages)

    # PyTerrier's parameter protocol (pt.GridScan, pt.GridSearch)
    def get_parameter(self, name: str) -> Any:
        """A YAML key's value, dotted, as the variant runs with it (validated: a value set as
        ``"0.9"`` reads 0.9), defaults included."""
        for source in (self.loaded.variant.model_dump(mode="json"), self.loaded.merged):
            value = _dotted(source, name)
            if value is not _MISSING:
                return value
        raise ValueError(f"variant {self.name!r} has no key {name!r} (its parameters are its YAML keys, dotted: "
                         "retrieval.similarity.k1 …)")

    def set_parameter(self, name: str, value: Any) -> "Variant":
        """Set a YAML key (as ``--set name=value`` does); the variant is validated again at once,
        so a wrong key or value is refused here, not in the middle of a grid."""
        previous = dict(self.overrides)
        # the newest setting wins: it goes last, and settings inside the key it replaces go
        # (retrieval.similarity.k1 is part of retrieval.similarity); the value is copied, so
        # the caller's dict is never changed by a later setting
        self.overrides = {key: v for key, v in self.overrides.items()
                          if key != name and not key.startswith(name + ".")}
        self.overrides[name] = copy.deepcopy(value)
        try:
            self._load()
        except Exception:
            self.overrides = previous
            self._load()
            raise
        return self

    # pt.parallel and joblib pickle transformers: the JVM's objects stay behind
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_session"] = None
        return state

    @property
    def name(self) -> str:  # type: ignore[override]  # read-only: the variant's own name
        return self.loaded.name

    def __repr__(self) -> str:
        return f"touche.Variant({self.loaded.name!r})"

    def pipeline(self, frame: pd.DataFrame) -> Pipeline:
        """The variant's parts on the topics of ``frame`` (its session opened once)."""
        if self._session is None:
            self._session = Session(self.corpus, None, self.index_root, progress=self.progress)
        return self._session.pipeline(self.loaded, topics_of(frame))

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        """Queries → the variant's run; a results frame (``docno``) → its documents re-ranked by
        the variant: the first stage scores each query's candidates only, then the variant's
        stages, and only candidates come out (PyTerrier's ``bm25 % 100 >> variant``)."""
        if self.rows.format is not RunFormat.Q0:
            refuse_one_column_cache(self)
        results = self.stages.transform(self.first_stage.transform(queries))
        return only_candidates(results, queries) if "docno" in queries.columns else results

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
        """Queries → results; a results frame (``docno``) → its candidates scored."""
        queries = answerable(queries)
        if queries.empty:
            return pd.DataFrame(columns=[*queries_part(queries).columns, "docno", "score", "rank"])
        queries, own_ids = numbered_topics(queries)
        with own_ids.notes():
            pipeline = self.variant.pipeline(queries)
            within = candidates_of(queries) if "docno" in queries.columns else None
            ranking = pipeline.search(pipeline.queries(lenient=True), within)
        return own_ids(as_frame(ranking, queries_part(queries)))

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
        given = results
        results, own_ids = numbered_topics(results)
        with own_ids.notes():
            pipeline = self.variant.pipeline(results)
            _, apply = pipeline.rerankers()[self.position]
            ranking = apply(as_ranking(results), pipeline.queries(lenient=True))
        return carried(own_ids(as_frame(ranking, queries_part(results))), given)

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
        given = results
        results, own_ids = numbered_topics(results)
        with own_ids.notes():
            pipeline = self.variant.pipeline(results)
            rows = ranked_rows(pipeline.rows(as_ranking(results)), self.format, self.variant.loaded.variant.tag,
                               untie=True)  # as its run file: no evaluator orders a topic otherwise
        queries = queries_part(results).astype({"qid": str})
        canonical = {canonical_topic(q): q for q in queries["qid"]}
        frame = pd.DataFrame({"qid": [canonical.get(r.qid, r.qid) for r in rows], "docno": [r.docid for r in rows],
                              "score": [r.score for r in rows], "rank": [r.rank - 1 for r in rows]})
        if self.format is not RunFormat.Q0:
            frame["stance"] = [r.column2 for r in rows]
        frame["rank"] = frame["rank"].astype(np.int64)
        return carried(own_ids(queries.merge(frame, on="qid", how="inner")), given)

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        out = [c for c in input_columns if c not in ("stance",)]
        return out + (["stance"] if self.format is not RunFormat.Q0 else [])


def _dotted(data: Any, name: str) -> Any:
    return dotted_get(data, name, _MISSING)
