"""The one rule for every weight a variant holds: a weight is 0 (its term off) or large enough to
count, and the weights of one formula are not all 0.

Why: scores are 32-bit floats (Lucene's, and a run file's as trec_eval reads them), which tell two
values apart only 2^-23 of their size apart (``SCORE_RESOLUTION``). A field weight of 1e-320,
inside the documented (0, 100], made Lucene's scores 0 and subnormals, rrf weights [0, 0] made
every fused score 0, and rrf's ``k: 10**24`` made 1/(k + rank) equal for every rank: each wrote a
run in document-id order (the writer breaks ties so) that scored 0.57 where the base scored 0.75,
and nothing said why. A weight below ``MIN_WEIGHT`` is lost beside a term of weight 1 and alone
shrinks scores towards underflow; a formula whose weights are all 0 gives every hit one score.

A field is a weight by its type: ``Weight`` (a number), ``FieldWeights`` (field → weight) or
``FusionWeights`` (one per fused ranking). A model whose weights together make one score names
them in ``formula`` (``touche/specs/__init__.py`` checks that one of them is not 0).
``tests/core/test_weights.py`` finds every weight of the schema by these types and checks the
rule over all of them, and that no field named as a weight escapes them.
"""
from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator

# Two 32-bit floats of one size differ by at least this share of it (2^-23, numpy's
# finfo(float32).eps): what a score written to Lucene or a run file can still tell apart.
SCORE_RESOLUTION = 2.0 ** -23
MIN_WEIGHT = SCORE_RESOLUTION  # a weight not 0 weighs at least this much (1.19e-07)
# Ranks a fused score must tell apart: every rank a run holds (Touché's hold at most 1,000).
FUSED_DEPTH = 1000
# rrf's 1/(k + rank) and 1/(k + rank + 1) differ by 1/(k + rank + 1) of their size: while k + rank
# stays below an eighth of 1/SCORE_RESOLUTION, consecutive ranks to FUSED_DEPTH lie at least eight
# 32-bit steps apart (a sum of several rankings rounds once per term).
RRF_MAX_K = int(1 / SCORE_RESOLUTION) // 8 - FUSED_DEPTH


class WeightKey:
    """Marks a weight in a field's type, so the schema's weights can be found (tests, docs)."""


def weight_problem(value: float) -> str | None:
    """Why ``value`` is no weight (None: it is one): not 0 yet below ``MIN_WEIGHT`` in size."""
    if value != 0 and math.isfinite(value) and abs(value) < MIN_WEIGHT:
        return (f"{value!r} is too small to weigh anything: a weight is 0 (the term off) or at least {MIN_WEIGHT:.3g} "
                f"in size (2^-23: below it the term is lost in a 32-bit score, Lucene's and a run file's, or "
                "underflows to 0 with every score)")
    return None


def _counts(value: float) -> float:
    problem = weight_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def all_zero_problem(names: list[str], what: str = "score") -> str:
    """The message for a formula whose weights are all 0."""
    listed = ", ".join(names)
    return (f"{listed}: {'both are' if len(names) == 2 else 'all are'} 0, so every {what} is the same and the "
            "ranking says nothing (ties go by document id): give at least one a weight")


def _some_field_weighs(value: dict[str, float]) -> dict[str, float]:
    if value and not any(value.values()):
        raise ValueError(all_zero_problem([f"the weight of '{name}'" for name in value]))
    return value


def _some_ranking_weighs(value: tuple[float, ...] | None) -> tuple[float, ...] | None:
    if value is not None and value and not any(value):
        raise ValueError("every fused ranking's weight is 0, so every fused score is 0 and the ranking says nothing "
                         "(ties go by document id): give at least one ranking a weight")
    return value


Weight = Annotated[float, AfterValidator(_counts), WeightKey()]
WholeWeight = Annotated[int, WeightKey()]  # a repetition count: 0 or at least 1, never too small
FieldWeights = Annotated[dict[str, Weight], AfterValidator(_some_field_weighs), WeightKey()]
FusionWeights = Annotated[tuple[Weight, ...], AfterValidator(_some_ranking_weighs), WeightKey()]
