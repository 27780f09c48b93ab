"""Settings of Task 2 (comparative questions) variants (the ``task2:`` section of a variant)."""
from __future__ import annotations

from touche.specs import Strict


class Task2Spec(Strict):
    """Not yet filled in: the section accepts no keys."""
