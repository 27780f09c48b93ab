"""The collection scores are meant for (``--corpus C``, ``corpus=`` in the API and PyTerrier).

A score on a sample beside one on the full corpus compares two collections, not two systems: an
official run retrieved from the whole corpus holds documents a sample lacks, and its Judged@5 of
1.000 beside a sample run's says nothing about either. Every entry that scores runs with a
collection named goes through ``on_collection``: a run holding documents the collection lacks
is cautioned (once, naming the run and the collection), and with ``restrict`` every run is scored
on the collection's documents only (the others dropped, the rest ranked again: the docs'
"restricted" official runs).
"""
from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from touche.errors import ToucheError
from touche.indexing.corpora import held_documents, open_corpus
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.tasks import corpus_format_of

log = logging.getLogger(__name__)

RESTRICTED = " (restricted)"  # how a table names a run scored on the collection's documents only


@dataclass(frozen=True)
class Collection:
    """A collection to score on: its path, its family (default: from the runs' format) and
    whether runs are restricted to its documents."""
    path: Path
    restrict: bool = False
    corpus_format: str | None = None

    @classmethod
    def of(cls, corpus: str | os.PathLike | None, restrict: bool = False, *, corpus_format: str | None = None,
           option: str = "--corpus") -> "Collection | None":
        """The collection a command's ``--corpus``/``--restrict`` (an API call's ``corpus=``/
        ``restrict=``) name; None without one; ``restrict`` without a collection is an error."""
        if corpus is None or str(corpus) == "":
            if restrict:
                raise ToucheError(f"restrict needs a collection to restrict the runs to ({option} PATH)")
            return None
        path = Path(corpus)
        if not path.exists():
            raise ToucheError("the collection (corpus) to score on is not found", path=path)
        return cls(path, bool(restrict), corpus_format)


@dataclass(frozen=True)
class Outside:
    """What a run holds that the collection lacks."""
    run: str
    outside: int
    documents: int

    def caution(self, collection: Path, restricted: bool) -> str:
        if restricted:
            return (f"caution: {self.run} holds {self.outside:,} of its {self.documents:,} documents that {collection} "
                    "lacks: they were dropped and the rest ranked again (restricted)")
        return (f"caution: {self.run} holds {self.outside:,} of its {self.documents:,} documents that {collection} "
                "lacks: it was retrieved from another collection, and its scores (Judged@k above all) are not "
                "comparable with runs on this one (restrict scores every run on its documents only: --restrict, "
                "restrict=True)")


def on_collection(runs: Mapping[str, RunTable], collection: Collection | None) -> tuple[dict[str, RunTable], list[str]]:
    """The runs as scored on ``collection`` (each restricted to its documents when it says so) and a
    caution for every run that holds documents it lacks, each also logged as a warning."""
    if collection is None or not runs:
        return dict(runs), []
    first = next(iter(runs.values()))
    family = collection.corpus_format or corpus_format_of(first.format, collection.path)
    docids = set().union(*(set(table.frame["docid"]) for table in runs.values()))
    held = held_documents(open_corpus(family, collection.path), docids)
    out: dict[str, RunTable] = {}
    cautions: list[str] = []
    for name, table in runs.items():
        documents = set(table.frame["docid"])
        outside = documents - held
        if outside:
            text = Outside(name, len(outside), len(documents)).caution(collection.path, collection.restrict)
            cautions.append(text)
            log.warning("%s", text)
        out[name] = table.keeping(held) if collection.restrict else table
    return out, cautions
