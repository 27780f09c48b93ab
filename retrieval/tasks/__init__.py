"""What differs between Touché tasks after first-stage retrieval, one handler per task.

A handler gets a ``TaskContext``, never the session: the validated variant and its file, the
corpus as the session resolved it (``irds:`` ids included), the topics, the variant's searcher
and a way to open another index of the same corpus (the sentence-level index of the pair task).
It turns a ``Ranking`` into run rows ``(docid, score, column2)`` — column2 is ``Q0`` or a stance
— and names the run format its runs are validated against. It may also formulate the queries
and re-rank before the variant's generic ``rerank:`` stages.

Task 1 2020/21 needs nothing more; Task 2 2022 labels stance (task2/), Task 1 2022 builds
sentence pairs (task1/pairs.py), image retrieval picks 10 images per stance (image/). Each task
package declares its handlers in its ``handlers.py``; a new task is a package here with a
``TaskHandler`` there and one declaration in ``touche/registry.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

from touche import registry
from touche.config import VariantSpec
from touche.errors import ToucheError
from touche.indexing.corpora import first_document, open_corpus
from touche.inputs import detect_task
from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.formats.topics import Topic
from touche.retrieval.search import Ranking, Searcher

Rows = dict[str, list[tuple[str, float, str]]]


@dataclass(frozen=True)
class TaskContext:
    """What a task handler may know of the run it takes part in."""
    variant: VariantSpec
    variant_path: Path             # the YAML file: errors name it, relative files resolve against its folder
    corpus: Path                   # resolved once by the session (a path; irds:<id> already fetched)
    topics: tuple[Topic, ...]
    topics_path: Path
    searcher: Searcher             # the variant's first-stage searcher (raw records, explain)
    open_index: Callable[[VariantSpec], Searcher]  # another index of the same corpus, built on first use, shared
    progress: bool = True

    @property
    def name(self) -> str:
        return self.variant_path.stem

    @property
    def variant_dir(self) -> Path:
        return self.variant_path.parent


RowMaker = Callable[[TaskContext, Ranking], Rows]
RankingStage = Callable[[TaskContext, Ranking], Ranking]
# Optional task-specific query formulation: context → {topic number: query text}.
QueryMaker = Callable[[TaskContext], dict[str, str]]


class TaskHandler(NamedTuple):
    run_format: RunFormat
    corpus_formats: tuple[str, ...]
    rows: RowMaker
    queries: QueryMaker | None = None  # None: retrieval.query.query_text for every topic
    # The task's own re-ranking, applied right after retrieval and before the variant's generic
    # `rerank:` stages, so that a fusion stage fuses re-ranked rankings.
    rerank: RankingStage | None = None
    # Files or folders the task reads besides the index (a model), by variant: what a sweep point
    # is keyed by (retrieval/fingerprint.py).
    files_read: Callable[[VariantSpec, Path], tuple[Path, ...]] | None = None
    # Loads those files now (variant, its folder), raising a located error for a missing or
    # damaged one: run before the first index is built (retrieval/preflight.py).
    check_files: Callable[[VariantSpec, Path], None] | None = None


def q0_rows(ctx: TaskContext, ranking: Ranking) -> Rows:
    """The ranking is the run, every row ``Q0`` (Task 1 2020/21, Task 2 2020/21)."""
    return {qid: [(docid, score, "Q0") for docid, score in hits] for qid, hits in ranking.items()}


TASKS = registry.TASKS  # task → its declaration, the handler imported on first use (touche/registry.py)


def handler(task: str) -> TaskHandler:
    return registry.load(TASKS, task, "task")


def corpus_format_of(run_format: RunFormat, corpus: Path) -> str:
    """The corpus family that runs of this format read: the one of the task that writes them; of
    two tasks (Q0: args.me and ClueWeb12), the one a TIRA folder holds, else the first family
    whose reader takes the corpus's first record."""
    tasks = [name for name in TASKS if handler(name).run_format is run_format]
    formats = list(dict.fromkeys(f for name in tasks for f in handler(name).corpus_formats))
    if len(formats) > 1 and Path(corpus).is_dir():
        try:
            task = detect_task(Path(corpus))
        except ToucheError:  # no TIRA folder: the first family whose reader takes it, below
            task = None
        if task in tasks:
            return handler(task).corpus_formats[0]
    if len(formats) > 1:
        for fmt in formats:
            try:
                first_document(open_corpus(fmt, corpus))
                return fmt
            except ToucheError:
                continue
    return formats[0]
