"""Runs variants: index (shared), retrieve, task re-ranking, stages, rows, a validated run file.

``Session`` keeps what the variants of one invocation share: the inputs, resolved once (topics
here, each variant's corpus on its first run: a path relative to the variant file, the
session's corpus, or ``irds:<id>``), the opened searchers per index, and the rankings of
variants already run (a fusion stage reuses them instead of searching again). Task handlers and
stages get narrow contexts (``TaskContext``, ``StageContext``), never the session.
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from touche import jvm
from touche.config import LoadedVariant, VariantSpec, load_variant
from touche.errors import InputError
from touche.guard import OutputFolder
from touche.indexing.builder import IndexInfo, ensure_index
from touche.inputs import resolve_corpus, resolve_topics
from touche.notes import topic_note
from touche.paths import default_index_root
from touche.retrieval.formats.gate import load_topics
from touche.retrieval.formats.runwriter import WrittenRun, write_run
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.formats.topics import Topic
from touche.retrieval.preflight import preflight
from touche.retrieval.query import query_text
from touche.retrieval.search import Ranking, Searcher
from touche.retrieval.stages import StageContext
from touche.retrieval.tasks import Rows, TaskContext, TaskHandler, handler

log = logging.getLogger(__name__)


@dataclass
class VariantResult:
    loaded: LoadedVariant
    ranking: Ranking
    rows: Rows
    index: IndexInfo
    seconds: float
    run_path: Path | None = None
    written: WrittenRun | None = None  # the run file's text, as written


@dataclass
class Session:
    corpus_path: str | os.PathLike[str]  # a path, or irds:<id>
    topics_path: Any  # a path, irds:<id>, a queries frame or Topic records; None: each pipeline gets its topics
    index_root: Path = field(default_factory=default_index_root)
    progress: bool = True
    selection: TopicSelection | None = None  # the topics kept of the topics file (--topics-only/-except)
    topics: list[Topic] = field(init=False)
    _searchers: dict[tuple, Searcher] = field(default_factory=dict, init=False)
    _results: dict[tuple, VariantResult] = field(default_factory=dict, init=False)
    _corpora: dict[tuple, Path] = field(default_factory=dict, init=False)
    _checked: set[tuple] = field(default_factory=set, init=False)  # model files preflight loaded

    def __post_init__(self):
        if self.topics_path is None:  # topics given to each pipeline (a PyTerrier transformer's queries)
            self.topics = []
            return
        if not isinstance(self.topics_path, (str, os.PathLike)):  # a queries frame, Topic records
            self.topics, self.topics_path, what = load_topics(self.topics_path), None, "the queries given"
        else:
            self.topics_path = resolve_topics(self.topics_path)
            self.topics, what = load_topics(self.topics_path), f"the topics file {self.topics_path}"
        if self.selection is not None:
            self.selection = self.selection.checked_against((t.number for t in self.topics), what)
            self.topics = [t for t in self.topics if self.selection.keeps(t.number)]

    def corpus(self, loaded: LoadedVariant) -> Path:
        """The variant's corpus, resolved once: its own ``corpus.path`` (relative to its file) or
        the session's; either may be ``irds:<id>``."""
        variant = loaded.variant
        own = variant.corpus.path
        key = (str(loaded.path.parent) if own else None, own or str(self.corpus_path), variant.corpus.format)
        if key not in self._corpora:
            self._corpora[key] = resolve_corpus(own or self.corpus_path, corpus_format=variant.corpus.format,
                                                base_dir=loaded.path.parent if own else None, config=loaded.path,
                                                progress=self.progress)
        return self._corpora[key]

    def searcher(self, index: IndexInfo, loaded: LoadedVariant, analyzer_of: VariantSpec | None = None) -> Searcher:
        analyzer = (analyzer_of or loaded.variant).analyzer
        key = (str(index.path), analyzer.model_dump_json())
        if key not in self._searchers:
            self._searchers[key] = Searcher(index.path, analyzer, loaded.path.parent)
        return self._searchers[key]

    def task_context(self, loaded: LoadedVariant) -> TaskContext:
        """The variant's index (built or found) and searcher, in the narrow context its task
        handler gets."""
        return self._context(loaded, tuple(self.topics))[0]

    def _context(self, loaded: LoadedVariant, topics: tuple[Topic, ...]) -> tuple[TaskContext, IndexInfo]:
        jvm.start()
        variant = loaded.variant
        corpus = self.corpus(loaded)
        index = ensure_index(variant, corpus, self.index_root, base_dir=loaded.path.parent, progress=self.progress)
        searcher = self.searcher(index, loaded)
        searcher.set_similarity(variant.retrieval.similarity)

        def open_index(other: VariantSpec) -> Searcher:
            """Another index of the same corpus (e.g. the pair task's sentence index), shared."""
            info = ensure_index(other, corpus, self.index_root, base_dir=loaded.path.parent, progress=self.progress)
            return self.searcher(info, loaded, analyzer_of=other)

        ctx = TaskContext(variant=variant, variant_path=loaded.path, corpus=corpus, topics=topics,
                          topics_path=Path(self.topics_path or "queries frame"), searcher=searcher,
                          open_index=open_index,
                          progress=self.progress)
        return ctx, index

    def run(self, loaded: LoadedVariant) -> VariantResult:
        key = (str(loaded.path), repr(loaded.merged))
        if key in self._results:
            return self._results[key]
        started = time.perf_counter()
        pipeline = self.pipeline(loaded)
        queries = pipeline.queries()
        ranking = pipeline.rerank(pipeline.search(queries), queries)
        missing = [t.number for t in pipeline.ctx.topics if not ranking.get(t.number)]
        if missing:  # the run file holds no line for them: said here, not left for a score to hide
            log.warning("warning: %s: no hits for topic%s %s (no indexed word of the query matched, or the query "
                        "was cut to its first words: see above); the run holds no line for %s", loaded.name,
                        "s" if len(missing) > 1 else "", ", ".join(missing), "them" if len(missing) > 1 else "it")
        rows = pipeline.rows(ranking)
        result = VariantResult(loaded, ranking, rows, pipeline.index, time.perf_counter() - started)
        self._results[key] = result
        return result

    def pipeline(self, loaded: LoadedVariant, topics: list[Topic] | None = None) -> "Pipeline":
        """The variant's parts, in the order a run takes them (``Pipeline``), on the session's
        topics or on ``topics`` (a PyTerrier transformer's queries)."""
        preflight(loaded, self._checked)  # before its index: every entry the same preflight
        jvm.start()
        task = handler(loaded.variant.task)
        ctx, index = self._context(loaded, tuple(topics) if topics is not None else tuple(self.topics))
        return Pipeline(loaded, task, ctx, index, self)

    def write(self, result: VariantResult, path: Path, *, into: OutputFolder | None = None) -> Path:
        """The result's run file at ``path`` (in the output folder ``into``, if given); its text is
        kept as ``result.written``: what is done with the run next reads it from there."""
        variant = result.loaded.variant
        # untied: equal scores of our own ranking would let trec_eval (by docid) and Touché 2022 (by rank) differ
        result.written = write_run(path, result.rows, handler(variant.task).run_format, variant.tag, into=into,
                                   untie=True)
        result.run_path = path
        return path

    def forget(self, result: VariantResult) -> None:
        """Drop a finished result from the cache fusion stages draw on (a sweep keeps hundreds)."""
        for key, cached in list(self._results.items()):
            if cached is result:
                del self._results[key]

    def close(self) -> None:
        for searcher in self._searchers.values():
            searcher.close()
        self._searchers.clear()


@dataclass
class Pipeline:
    """One variant's run as its parts: the queries, the first stage (search), the re-ranking (the
    task's, then each ``rerank:`` stage) and the rows the run file holds. ``Session.run`` takes
    them in order; ``touche.pyterrier`` makes each a PyTerrier transformer."""
    loaded: LoadedVariant
    task: TaskHandler
    ctx: TaskContext
    index: IndexInfo
    session: Session

    def queries(self, *, lenient: bool = False) -> dict[str, str]:
        """Topic number → query text, as the variant formulates them. ``lenient`` (a PyTerrier
        batch): a topic whose query is left with no word is said and skipped, not the batch's end."""
        variant = self.loaded.variant
        if self.task.queries is not None:
            return self.task.queries(self.ctx)
        out = {}
        for t in self.ctx.topics:
            try:
                out[t.number] = query_text(t, variant.query, str(self.ctx.topics_path))
            except InputError as exc:
                if not lenient:
                    raise
                topic_note(log, t.number, f"{exc.message}: no results for it")
        return out

    def search(self, queries: Mapping[str, str], within: dict[str, list[str]] | None = None) -> Ranking:
        """The first stage: the queries (or a feedback stage's new ones) searched; ``within``:
        each query's candidates only (a re-ranker's: PyTerrier's ``bm25 % 100 >> variant``)."""
        variant = self.loaded.variant
        return self.ctx.searcher.search(queries, variant.query.field_weights, variant.retrieval.top_k,
                                        variant.retrieval.threads, within=within)

    def rerankers(self) -> list[tuple[str, Callable[[Ranking, dict[str, str]], Ranking]]]:
        """(name, re-ranking) of the task's re-ranking, then each ``rerank:`` stage, in order."""
        out: list[tuple[str, Callable[[Ranking, dict[str, str]], Ranking]]] = []
        if (task_rerank := self.task.rerank) is not None:
            out.append((f"{self.loaded.variant.task} re-ranking",
                        lambda ranking, queries: task_rerank(self.ctx, ranking)))
        for stage in self.loaded.variant.rerank:
            def apply(ranking: Ranking, queries: dict[str, str], stage=stage) -> Ranking:
                return stage.apply(ranking, self.stage_context(queries))
            out.append((stage.name, apply))
        return out

    def rerank(self, ranking: Ranking, queries: dict[str, str]) -> Ranking:
        for _, apply in self.rerankers():
            ranking = apply(ranking, queries)
        return ranking

    def stage_context(self, queries: dict[str, str]) -> StageContext:
        variant = self.loaded.variant
        return StageContext(variant_path=self.loaded.path, topics={t.number: t for t in self.ctx.topics},
                            queries=queries, searcher=self.ctx.searcher, top_k=variant.retrieval.top_k,
                            run_variant=lambda path: self.session.run(load_variant(path)).ranking,
                            search=self.search, progress=self.session.progress)

    def rows(self, ranking: Ranking) -> Rows:
        """What the run file holds of the ranking (a task may label stance or pair sentences)."""
        return self.task.rows(self.ctx, ranking)
