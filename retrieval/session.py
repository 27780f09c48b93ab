"""Runs variants: index (shared), retrieve, re-rank, fuse, write a validated run file.

``Session`` keeps what variants of one invocation share: opened searchers per index and the
rankings of variants already run (a fusion variant reuses them instead of searching again).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from indexing.builder import IndexInfo, ensure_index
from retrieval.stages.fusion import reciprocal_rank_fusion
from retrieval.query import query_text
from retrieval.stages.quality import argument_quality
from retrieval.formats.runfile import write_run
from retrieval.search import Ranking, Searcher
from retrieval.tasks import Rows, handler
from retrieval.formats.topics import Topic, read_topics
from touche import jvm
from touche.config import ArgumentQualitySpec, FusionSpec, LoadedVariant, load_variant
from touche.errors import ToucheError
from touche.datasets import default_index_root



@dataclass
class VariantResult:
    loaded: LoadedVariant
    ranking: Ranking
    rows: Rows
    index: IndexInfo
    seconds: float
    run_path: Path | None = None


@dataclass
class Session:
    corpus_path: Path
    topics_path: Path
    index_root: Path = field(default_factory=default_index_root)
    progress: bool = True
    topics: list[Topic] = field(init=False)
    _searchers: dict[tuple, Searcher] = field(default_factory=dict, init=False)
    _results: dict[tuple, VariantResult] = field(default_factory=dict, init=False)

    def __post_init__(self):
        from touche.datasets import resolve_topics
        self.topics_path = resolve_topics(self.topics_path)  # a path, or irds:<id>
        self.topics = read_topics(self.topics_path)

    def searcher(self, index: IndexInfo, loaded: LoadedVariant) -> Searcher:
        key = (str(index.path), loaded.variant.analyzer.model_dump_json())
        if key not in self._searchers:
            self._searchers[key] = Searcher(index.path, loaded.variant.analyzer, loaded.path.parent)
        return self._searchers[key]

    def run(self, loaded: LoadedVariant) -> VariantResult:
        key = (str(loaded.path), repr(loaded.merged))
        if key in self._results:
            return self._results[key]
        jvm.start()
        started = time.perf_counter()
        variant = loaded.variant
        task = handler(variant.task)
        if variant.corpus.format not in task.corpus_formats:
            raise ToucheError(f"{variant.task} runs on {' or '.join(task.corpus_formats)} corpora, "
                              f"not corpus.format '{variant.corpus.format}'", path=loaded.path)
        # corpus.path (relative to the variant) or the session's; either may be irds:<id>
        from touche.datasets import resolve_corpus
        corpus = resolve_corpus(variant.corpus.path or self.corpus_path, corpus_format=variant.corpus.format,
                                base_dir=loaded.path.parent if variant.corpus.path else None, config=loaded.path)
        index = ensure_index(variant, corpus, self.index_root, base_dir=loaded.path.parent, progress=self.progress)
        searcher = self.searcher(index, loaded)
        searcher.set_similarity(variant.retrieval.similarity)
        if task.queries is not None:
            queries = task.queries(self, loaded)
        else:
            queries = {t.number: query_text(t, variant.query, str(self.topics_path)) for t in self.topics}
        ranking = searcher.search(queries, variant.query.field_weights, variant.retrieval.top_k, variant.retrieval.threads)
        if task.rerank is not None:
            ranking = task.rerank(self, loaded, ranking, searcher)
        for stage in variant.rerank:
            if isinstance(stage, ArgumentQualitySpec):
                ranking = argument_quality(ranking, stage, searcher.raw)
            elif isinstance(stage, FusionSpec):
                others = [self.run(load_variant(loaded.path.parent / other)).ranking for other in stage.variants]
                ranking = reciprocal_rank_fusion(([ranking] if stage.include_self else []) + others,
                                                 k=stage.k, depth=variant.retrieval.top_k)
        rows = task.rows(self, loaded, ranking, searcher)
        result = VariantResult(loaded, ranking, rows, index, time.perf_counter() - started)
        self._results[key] = result
        return result

    def write(self, result: VariantResult, path: Path) -> Path:
        variant = result.loaded.variant
        write_run(path, result.rows, handler(variant.task).run_format, variant.tag)
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


def check_input_dir(input_dir: Path) -> tuple[Path, Path]:
    """(corpus path, topics file) of a TIRA-style input directory, with a clear error if incomplete."""
    if not input_dir.is_dir():
        raise ToucheError("input directory not found", path=input_dir)
    topics = input_dir / "topics.xml"
    if not topics.is_file():
        raise ToucheError("the input directory has no topics.xml (TIRA input: corpus files + topics.xml)", path=input_dir)
    return input_dir, topics
