"""Task 1 2020/2021 (args.me): the ranking is the run; every row gets ``Q0``."""
from __future__ import annotations

from retrieval.formats.runfile import RunFormat
from retrieval.search import Ranking
from retrieval.tasks import Rows, TaskContext, TaskHandler


def q0_rows(ctx: TaskContext, ranking: Ranking) -> Rows:
    return {qid: [(docid, score, "Q0") for docid, score in hits] for qid, hits in ranking.items()}


HANDLER = TaskHandler(RunFormat.Q0, ("argsme",), q0_rows)
