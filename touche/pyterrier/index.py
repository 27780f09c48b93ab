"""A built index as PyTerrier's citizens have one: opened by path, a transformer (BM25 on it),
a ``pt.Artifact`` (``pt.Artifact.load(path)`` finds this class through the ``pyterrier.artifact``
entry point, the folder recognised by its ``touche-index.json``), with retrievers, a text loader for a neural
re-ranker that follows, a variant over it, and an indexer of documents from any iterator
(``pt.get_dataset(...).get_corpus_iter()``).

The index folder is the toolkit's own (``touche-index.json`` says its analyzer, fields, corpus
and statistics), so ``touche run`` and a variant reuse it and it searches without its corpus."""
from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyterrier as pt
from pydantic import ValidationError

from touche import api
from touche.atomic import atomic_open
from touche.config import BM25, AnalyzerSpec, LMDirichlet, describe_validation_error
from touche.errors import ConfigError, InputError
from touche.guard import named_location
from touche.indexing.builder import META_FILE, build_index
from touche.indexing.corpora import check_fields, open_corpus, source_class
from touche.progress import progress_bar
from touche.pyterrier.frames import (
    answerable,
    as_frame,
    candidates_of,
    numbered_topics,
    only_candidates,
    queries_part,
    topics_of,
)
from touche.pyterrier.variant import Variant
from touche.retrieval.search import Searcher

PathLike = str | os.PathLike[str]
ARTIFACT_TYPE, ARTIFACT_FORMAT = "sparse_index", "touche-lucene"
INDEXER_VARIANT = "task2-stance/1-bm25"  # a passages variant: {"id", "contents"} records, Krovetz + SMART


class _OnClassOrIndex:
    """``Index.indexer(path, …)`` and ``Index(path).indexer(…)`` alike (pyterrier-anserini's and
    pyterrier-pisa's users write the second)."""

    def __init__(self, function):
        self.function = function
        self.__doc__ = function.__doc__

    def __get__(self, index, owner):
        return self.function if index is None else functools.partial(self.function, index.path)


def _indexer(path: PathLike, *, variant: PathLike = INDEXER_VARIANT, text_field: str = "text",
             overrides: Mapping[str, Any] | None = None) -> "Indexer":
    """An indexer of any iterator of dicts (``docno`` and ``text_field``) into the new folder ``path``."""
    return Indexer(path, variant=variant, text_field=text_field, overrides=overrides)


class Index(pt.Artifact, pt.Transformer):
    path: Path  # PyTerrier's artifacts may have none; ours always has its folder
    """The toolkit's index at ``path`` (see the module docstring). As a transformer it is its
    ``bm25()``; ``retriever``, ``bm25``, ``dirichlet``, ``reranker``, ``text_loader`` and ``variant``
    give the rest. ``Index(path)`` of a folder not built yet is one to build: ``built()`` says
    whether it is, ``indexer()`` builds it."""

    ARTIFACT_TYPE = ARTIFACT_TYPE
    ARTIFACT_FORMAT = ARTIFACT_FORMAT
    ARTIFACT_PACKAGE_HINT = "touche-toolkit"  # what to pip install (the import name is touche)
    indexer = _OnClassOrIndex(_indexer)

    def __init__(self, path: PathLike):
        super().__init__(Path(path))
        self._meta: dict | None = None
        self._searcher: Searcher | None = None
        if (self.path / META_FILE).exists() or (self.path.exists() and any(self.path.iterdir())):
            self._read_meta()  # a folder holding something must be an index of ours

    def _read_meta(self) -> dict:
        meta_file = self.path / META_FILE
        if not meta_file.is_file():
            if not self.path.exists():
                raise InputError("this index is not built yet: build it with Index(path).indexer().index(documents), "
                                 "or Index.of(variant, corpus)", path=self.path)
            raise InputError(foreign_index(self.path), path=self.path)
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            self._analyzer = AnalyzerSpec.model_validate(meta["analyzer"])
            self._fields = tuple(meta["index"]["fields"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{META_FILE} is not the toolkit's index description ({exc})", path=meta_file) from None
        self._meta = meta
        return meta

    @property
    def meta(self) -> dict:
        return self._meta if self._meta is not None else self._read_meta()

    @property
    def analyzer(self) -> AnalyzerSpec:
        self.meta  # noqa: B018 - read once
        return self._analyzer

    @property
    def fields(self) -> tuple[str, ...]:
        self.meta  # noqa: B018 - read once
        return self._fields

    def built(self) -> bool:
        """Whether the index is there (PyTerrier's indexes say so by ``built()``)."""
        return (self.path / META_FILE).is_file()

    def __repr__(self) -> str:
        return f"touche.Index({str(self.path)!r})"

    @classmethod
    def of(cls, variant: PathLike, corpus: PathLike, *, overrides: Mapping[str, Any] | None = None,
           index_root: PathLike | None = None, progress: bool = True) -> "Index":
        """The index a variant (name or YAML, with ``overrides`` as ``Variant`` and ``--set`` take
        them: ``{"analyzer.stemmer": "porter"}``) searches on ``corpus``, built unless it exists;
        its indexing reports on stderr unless ``progress=False``."""
        return cls(api.index(api.variant(variant, overrides), corpus, index_root=index_root, progress=progress).path)

    @property
    def documents(self) -> int:
        return int(self.meta["stats"]["documents"])

    def num_docs(self) -> int:
        """The documents the index holds (as pyterrier-anserini's and Terrier's indexes say it)."""
        return self.documents

    def _package_files(self):
        """What ``build_package`` packs: the index, without Lucene's ``write.lock`` (a lock of the
        writer that built it, which a reader of the package neither needs nor should find)."""
        return ((name, source) for name, source in super()._package_files() if Path(name).name != "write.lock")

    def searcher(self) -> Searcher:
        if self._searcher is None:
            self._searcher = Searcher(self.path, self.analyzer)
        return self._searcher

    # the retrievers
    def retriever(self, similarity: BM25 | LMDirichlet | None = None, *, num_results: int = 1000,
                  field_weights: Mapping[str, float] | None = None) -> "Retriever":
        return Retriever(self, similarity or BM25(k1=0.9, b=0.4), num_results,
                         dict(field_weights) if field_weights else {f: 1.0 for f in self.fields})

    def bm25(self, k1: float = 0.9, b: float = 0.4, *, num_results: int = 1000,
             field_weights: Mapping[str, float] | None = None) -> "Retriever":
        """BM25 with Anserini's defaults (k1 0.9, b 0.4), every indexed field weighted 1."""
        return self.retriever(BM25(k1=k1, b=b), num_results=num_results, field_weights=field_weights)

    def dirichlet(self, mu: float = 1000.0, *, num_results: int = 1000,
                  field_weights: Mapping[str, float] | None = None) -> "Retriever":
        return self.retriever(LMDirichlet(mu=mu), num_results=num_results, field_weights=field_weights)

    def reranker(self, similarity: BM25 | LMDirichlet | None = None, *,
                 field_weights: Mapping[str, float] | None = None) -> "Retriever":
        """Scores the documents a results frame gives (``docno``) for its queries, and only those
        (pyterrier-anserini's ``.reranker()``): BM25 with Anserini's defaults unless told."""
        retriever = self.retriever(similarity, field_weights=field_weights)
        retriever.candidates_only = True
        return retriever

    def text_loader(self, column: str = "text") -> "TextLoader":
        """Adds each document's text (as the explorer shows it) for a re-ranker that reads text."""
        return TextLoader(self, column)

    def variant(self, name_or_yaml: PathLike, *, overrides: Mapping[str, Any] | None = None) -> Variant:
        """A run variant on this index's corpus, its indexes kept beside this one (the same index
        when the variant's analyzer and fields are this index's)."""
        corpus = self.meta.get("corpus", {}).get("path")
        if not corpus or not Path(corpus).exists():
            raise InputError(f"a variant needs the corpus this index was built from, which is not at {corpus!r}; "
                             "build the variant on the corpus (touche.pyterrier.Variant(..., corpus=...))",
                             path=self.path)
        return Variant(name_or_yaml, corpus, overrides=overrides, index_root=self.path.parent)

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        return self.bm25().transform(queries)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_searcher": None}


class Retriever(pt.Transformer):
    """One similarity over an index: queries (``qid``, ``query``) → results (``docno``, ``score``,
    ``rank`` from 0), the query analysed by the index's own analyzer."""

    def __init__(self, index: Index, similarity: BM25 | LMDirichlet, num_results: int,
                 field_weights: dict[str, float]):
        unknown = sorted(set(field_weights) - set(index.fields))
        if unknown:
            raise InputError(f"fields {', '.join(unknown)} are not in this index (it has {', '.join(index.fields)})",
                             path=index.path)
        self.index, self.similarity, self.num_results, self.field_weights = (
            index,
            similarity,
            num_results,
            field_weights,
        )
        self.candidates_only = False  # a re-ranker: a frame without documents is refused

    def __repr__(self) -> str:
        return f"touche.Retriever({self.index!r}, {self.similarity!r})"

    # PyTerrier's parameter protocol (pt.GridScan, pt.GridSearch): the similarity's own
    # parameters (k1 and b of BM25, mu of LM-Dirichlet) and num_results, validated as a
    # variant's YAML validates them
    def parameters(self) -> list[str]:
        return [f for f in type(self.similarity).model_fields if f != "name"] + ["num_results"]

    def get_parameter(self, name: str) -> Any:
        if name not in self.parameters():
            raise ValueError(f"{self!r} has no parameter {name!r} (its parameters: {', '.join(self.parameters())})")
        return self.num_results if name == "num_results" else getattr(self.similarity, name)

    def set_parameter(self, name: str, value: Any) -> "Retriever":
        """Set a parameter; a value the schema refuses is refused at once (ConfigError naming it),
        not in the middle of a grid."""
        self.get_parameter(name)
        if name == "num_results":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"num_results must be a whole number of at least 1, got {value!r}")
            self.num_results = value
            return self
        try:
            self.similarity = type(self.similarity).model_validate({**self.similarity.model_dump(), name: value})
        except ValidationError as exc:
            raise ConfigError(f"{self.similarity.name} {describe_validation_error(exc)}") from None
        return self

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        """Queries → the index's best documents; a results frame (``docno``) → its documents
        scored, each query's candidates only (PyTerrier's ``bm25 % 100 >> index.bm25()``)."""
        reranking = "docno" in queries.columns
        if self.candidates_only and not reranking:
            raise InputError("a re-ranker scores the documents it is given: give it a results frame (qid, query, "
                             "docno), e.g. index.bm25() % 100 >> index.reranker(...)")
        given = queries
        queries = answerable(queries)
        if queries.empty:
            return pd.DataFrame(columns=[*queries_part(queries).columns, "docno", "score", "rank"])
        queries, own_ids = numbered_topics(queries)
        topics = topics_of(queries)  # through the gate; a topic's title is the frame's query
        searcher = self.index.searcher()
        searcher.set_similarity(self.similarity)
        with own_ids.notes():
            ranking = searcher.search({t.number: t.title for t in topics}, self.field_weights, self.num_results,
                                      within=candidates_of(queries) if reranking else None)
        results = own_ids(as_frame(ranking, queries_part(queries)))
        return only_candidates(results, given) if reranking else results


class TextLoader(pt.Transformer):
    """Results → results with each document's text in ``column`` (from the index's stored records)."""

    def __init__(self, index: Index, column: str = "text"):
        self.index, self.column = index, column
        family = source_class(index.meta["corpus"]["format"])
        self._display = getattr(family, "display_raw", None)

    def __repr__(self) -> str:
        return f"touche.TextLoader({self.index!r})"

    def transform(self, results: pd.DataFrame) -> pd.DataFrame:
        if results.empty:
            return results.assign(**{self.column: pd.Series(dtype=object)})
        stored = self.index.searcher().raw(sorted(set(results["docno"].astype(str))))
        texts = {docno: (self._display(raw) if self._display else raw) for docno, raw in stored.items()
                 if raw is not None}
        missing = sorted(set(stored) - set(texts))
        if missing:
            raise InputError(f"{len(missing)} document(s) are not in this index (e.g. {missing[0]!r})",
                             path=self.index.path)
        return results.assign(**{self.column: results["docno"].astype(str).map(texts)})


class Indexer(pt.Indexer):
    """Documents from any iterator of dicts (``docno`` and ``text_field``) into a new index at
    ``path``, with a passages variant's analyzer and fields (default: Krovetz + SMART,
    ``contents``). Returns the ``Index``. The documents are stored in the index (raw), so it
    searches and loads text without them; ``path`` must not exist yet."""

    def __init__(self, path: PathLike, *, variant: PathLike = INDEXER_VARIANT, text_field: str = "text",
                 overrides: Mapping[str, Any] | None = None):
        self.path = Path(path)
        self.loaded = api.variant(variant, overrides)
        self.text_field = text_field
        if self.loaded.variant.corpus.format != "passages":
            raise InputError(f"an indexer of documents needs a passages variant (corpus.format: passages), "
                             f"not {self.loaded.variant.corpus.format!r}", path=self.loaded.path)

    def index(self, documents: Iterable[Mapping[str, Any]]) -> Index:  # type: ignore[override]  # no **kwargs
        if self.path.exists() or self.path.is_symlink():
            raise InputError("the index folder exists: give a new path (nothing is replaced)", path=self.path)
        folder = named_location(self.path.parent, "folder of the index")
        variant = self.loaded.variant
        with tempfile.TemporaryDirectory(prefix="touche-documents-") as work:
            corpus = Path(work) / "documents.jsonl"
            with atomic_open(corpus, "w") as out:
                shown = progress_bar(documents, desc="documents", unit=" docs", leave=False)
                for number, doc in enumerate(shown, start=1):
                    docno, text = doc.get("docno"), doc.get(self.text_field)
                    if not isinstance(docno, str) or not docno.strip() or not isinstance(text, str):
                        raise InputError(f"document {number}: expected a non-empty string 'docno' and a string "
                                         f"'{self.text_field}', got keys {sorted(doc)}")
                    out.write(json.dumps({"id": docno, "contents": text}, ensure_ascii=False) + "\n")
            source = open_corpus(variant.corpus.format, corpus, skip_bad_records=variant.corpus.skip_bad_records)
            check_fields(source, variant.index.fields)
            # the iterator's documents live in the index alone: no corpus path to describe
            build_index(source, variant.analyzer, variant.index, self.path, base_dir=self.loaded.path.parent,
                        progress=True, extra_meta={"corpus": {**source.describe(), "path": None}}, folder=folder)
        return Index(self.path)


def foreign_index(path: Path) -> str:
    """Why a folder the toolkit did not build is no ``Index`` of it, and what opens it instead."""
    rebuild = ("or build the toolkit's index of the same documents: touche.pyterrier.Index.indexer(folder).index("
               "dataset.get_corpus_iter()), or Index.of(variant, corpus)")
    try:
        pt_meta = json.loads((path / "pt_meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pt_meta = None
    lucene = any(child.name.startswith("segments_") for child in path.iterdir())
    if isinstance(pt_meta, dict) and pt_meta.get("format") == "anserini" or lucene:
        whose = "pyterrier-anserini's index (its pt_meta.json says format 'anserini')" \
            if isinstance(pt_meta, dict) and pt_meta.get("format") == "anserini" else \
            "a Lucene index the toolkit did not build (Anserini's or Pyserini's, say)"
        return (f"this is {whose}, and touche.pyterrier.Index cannot open it: the toolkit's index says in its "
                f"{META_FILE} which analyzer its documents went through (queries must go through the same one) and "
                "which fields it holds, and this index records neither, so its queries could only be analysed by "
                "guess. Search it with pyterrier_anserini.AnseriniIndex(path).bm25() (it shares the JVM with the "
                f"toolkit), {rebuild}")
    if isinstance(pt_meta, dict):
        return (f"this is a PyTerrier artifact of type {pt_meta.get('type')!r}, format {pt_meta.get('format')!r}, not "
                f"an index of the toolkit ({META_FILE} is missing): open it with pt.Artifact.load(path), {rebuild}")
    return (f"not an index of the toolkit: {META_FILE} is missing (build one with touche.pyterrier.Index.of(variant, "
            "corpus), Index.indexer(path).index(documents) or touche index)")


def artifact_metadata(path: str, listing: list[str]) -> dict | None:
    """PyTerrier's ``pyterrier.artifact.metadata_adapter`` hook: a folder holding the toolkit's
    index description is this artifact, so ``pt.Artifact.load`` opens any index the toolkit built
    (``touche run``, a variant, ``touche index``) without a ``pt_meta.json`` written into it."""
    if META_FILE in listing:
        return {"type": ARTIFACT_TYPE, "format": ARTIFACT_FORMAT, "package_hint": "touche-toolkit"}
    return None
