"""Task 1 2020/2021 (args.me): the ranking is the run; every row gets ``Q0``."""
from __future__ import annotations

from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.search import Ranking
from touche.retrieval.tasks import Rows, TaskContext, TaskHandler


def q0_rows(ctx: TaskContext, ranking: Ranking) -> Rows:
    return {qid: [(docid, score, "Q0") for docid, score in hits] for qid, hits in ranking.items()}


HANDLER = TaskHandler(RunFormat.Q0, ("argsme",), q0_rows)
