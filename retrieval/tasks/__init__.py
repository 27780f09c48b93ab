"""What differs between Touché tasks after first-stage retrieval, one handler per task.

A handler turns a variant's ``Ranking`` into run rows ``(docid, score, column2)`` — column2 is
``Q0`` or a stance — and names the run format its runs are validated against. Task 1 2020/21
needs nothing more; Task 2 2022 labels stance, Task 1 2022 builds sentence pairs, image
retrieval picks 10 images per stance. New tasks register here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

from retrieval.formats.runfile import RunFormat
from touche import registry
from retrieval.search import Ranking, Searcher

if TYPE_CHECKING:
    from retrieval.session import Session
    from touche.config import LoadedVariant

Rows = dict[str, list[tuple[str, float, str]]]
RowMaker = Callable[["Session", "LoadedVariant", Ranking, Searcher], Rows]
RankingStage = Callable[["Session", "LoadedVariant", Ranking, Searcher], Ranking]
# Optional task-specific query formulation: (session, loaded) → {topic number: query text}.
QueryMaker = Callable[["Session", "LoadedVariant"], dict[str, str]]


class TaskHandler(NamedTuple):
    run_format: RunFormat
    corpus_formats: tuple[str, ...]
    rows: RowMaker
    queries: QueryMaker | None = None  # None: retrieval.query.query_text for every topic
    # The task's own re-ranking, applied right after retrieval and before the variant's generic
    # `rerank:` stages, so that a fusion stage fuses re-ranked rankings.
    rerank: RankingStage | None = None


def q0_rows(session, loaded, ranking: Ranking, searcher) -> Rows:
    return {qid: [(docid, score, "Q0") for docid, score in hits] for qid, hits in ranking.items()}


TASK1 = TaskHandler(RunFormat.Q0, ("argsme",), q0_rows)

# task → "module:handler", imported on first use.
TASKS: dict[str, str] = {
    "task1": "retrieval.tasks:TASK1",
    "task1-pairs": "retrieval.tasks.task1_pairs:HANDLER",
    "task2": "retrieval.tasks.task2.comparative:DOCUMENTS_HANDLER",
    "task2-stance": "retrieval.tasks.task2.comparative:PASSAGES_HANDLER",
    "image": "retrieval.tasks.image:HANDLER",
}


def handler(task: str) -> TaskHandler:
    return registry.load(TASKS, task, "task")
