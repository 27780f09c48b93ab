"""Settings of Task 1 2022 (sentence pairs) variants (the ``pairs:`` section of a variant)."""
from __future__ import annotations

from touche.specs import Strict


class PairsSpec(Strict):
    """Not yet filled in: the section accepts no keys."""
