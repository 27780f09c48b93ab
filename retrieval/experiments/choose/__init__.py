"""``touche choose``: five submissions picked from a sweep's results. ``picks`` chooses and writes
them, ``loss`` tests each against pick 1, ``reference`` holds them against the shipped primary,
``report`` writes choice.md."""
from touche.retrieval.experiments.choose.picks import choose

__all__ = ["choose"]
