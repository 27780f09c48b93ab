"""A collection named in a PyTerrier pipeline: results scored on a sample beside runs from the
full corpus, as ``touche evaluate --corpus C --restrict`` does (``retrieval/evaluation/collection.py``)."""
from __future__ import annotations

import os

import pandas as pd
import pyterrier as pt

from touche.retrieval.evaluation.collection import Collection, on_collection
from touche.retrieval.formats.gate import load_run

PathLike = str | os.PathLike[str]


class Restrict(pt.Transformer):
    """Results → the same results on ``corpus``'s documents only (``restrict=True``: the others
    dropped, the rest ranked again from 0), with a caution (a logged warning) for results holding
    documents the corpus lacks; ``restrict=False`` passes them unchanged and only cautions.
    ``run >> Restrict("sample/")`` in a ``pt.Experiment`` scores an official run on the sample."""

    def __init__(self, corpus: PathLike, restrict: bool = True, *, corpus_format: str | None = None,
                 name: str = "results"):
        collection = Collection.of(corpus, restrict, corpus_format=corpus_format, option="corpus")
        assert collection is not None  # a corpus is given
        self.collection = collection
        self.name = name  # how a caution names the results (a system of the experiment)
        self.cautions: list[str] = []

    def __repr__(self) -> str:
        return f"touche.Restrict({str(self.collection.path)!r}, restrict={self.collection.restrict})"

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        if results.empty:
            return results
        frame = results[["qid", "docno", "score"] + (["rank"] if "rank" in results.columns else [])]
        tables, self.cautions = on_collection({self.name: load_run(frame, name=self.name)}, self.collection)
        if not self.collection.restrict:
            return results
        kept = set(tables[self.name].frame["docid"])
        out = results[results["docno"].isin(kept)].copy()
        out = out.sort_values(["qid", "rank"] if "rank" in out.columns else ["qid", "score"],
                              ascending=[True, True] if "rank" in out.columns else [True, False], kind="stable")
        out["rank"] = out.groupby("qid", sort=False).cumcount()
        return out.reset_index(drop=True)
