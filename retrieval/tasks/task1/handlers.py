"""Task 1's handlers: ``task1`` (args.me arguments, 2020/21: the ranking is the run, every row
``Q0``) and ``task1-pairs`` (pairs of argumentative sentences with stance, 2022: ``pairs.py``)."""
from __future__ import annotations

from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.tasks import TaskHandler, q0_rows
from touche.retrieval.tasks.task1.pairs import pair_rows

ARGUMENTS_HANDLER = TaskHandler(RunFormat.Q0, ("argsme",), q0_rows)
PAIRS_HANDLER = TaskHandler(RunFormat.PAIRS, ("argsme-sentences",), pair_rows)
