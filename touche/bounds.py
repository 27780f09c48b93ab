"""The range of every number the toolkit reads, in one place, so every reader (files and frames,
qrels and runs, model files) accepts and refuses the same values and says so alike.

Why bounds at all: trec_eval (pytrec_eval, under ir_measures) keeps labels as 32-bit integers and
scores as 32-bit floats. A label of 2,147,483,647 gave trec.nDCG@5 = 3.2e18, one of 3,000,000,000
zero for every trec measure beside a plausible touche.nDCG@5, 10^20 a SystemError; scores beyond
a 32-bit float (3.4e38) all become infinite and tie. Touché's labels are −2…5; no judgements of
any collection come near ±1,000. A model file's numbers come from a fit on standardised features:
a value beyond ±10^6, or NaN, is a broken file, not a model (NaN idf values labelled every passage
alike without an error).
"""
from __future__ import annotations

from decimal import Decimal
from numbers import Integral, Real

LABEL_MIN, LABEL_MAX = -1000, 1000  # a relevance or quality label
SCORE_LIMIT = 3.4028234663852886e38  # |score| a run may hold: the largest 32-bit float, as trec_eval reads scores
MODEL_LIMIT = 1e6  # |value| of any number in a model file


def label_problem(value: int) -> str | None:
    """Why a qrels label is refused, or None."""
    if not LABEL_MIN <= value <= LABEL_MAX:
        return (f"label {value} lies outside {LABEL_MIN}…{LABEL_MAX} (Touché's labels are −2…5; trec_eval keeps "
                "labels as 32-bit integers and goes wrong far below 2^31)")
    return None


def score_problem(value: float, shown: str | None = None) -> str | None:
    """Why a run score is refused, or None (the caller has checked it is a number); ``shown``: how
    to write it when ``value`` stands for it (an integer too long for a float, as ``inf``)."""
    if abs(value) > SCORE_LIMIT:
        return (f"score {shown or f'{value:g}'} lies beyond ±3.4e38, the largest 32-bit float: trec_eval reads it as "
                "infinite and ties it with every other such score")
    return None


def is_number(value) -> bool:
    """A real number that is no bool and no string (a Decimal is one): what a score or a model
    value may be."""
    import numpy as np  # only where a frame or a model file is read
    return isinstance(value, (Real, Decimal, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def checked_array(values, where: str, shape: tuple[int, ...] | None = None, *, low: float = -MODEL_LIMIT,
                  high: float = MODEL_LIMIT, above: float | None = None):
    """``values`` as a float array, or ValueError naming ``where``: numbers only (no bool, no
    string, no ragged rows), of ``shape``, finite, within [low, high] and, with ``above``,
    greater than it."""
    import numpy as np
    try:
        objects = np.asarray(values, dtype=object)
    except ValueError:
        raise ValueError(f"{where} is not a regular array (rows of different lengths)") from None
    bad = next((v for v in objects.ravel() if not is_number(v)), None)
    if bad is not None:
        raise ValueError(f"{where} holds {bad!r}, not a number")
    array = objects.astype(float)
    if shape is not None and array.shape != shape:
        raise ValueError(f"{where} has shape {array.shape}, expected {shape}")
    wrong = ~np.isfinite(array) | (array < low) | (array > high)
    if above is not None:
        wrong |= ~(array > above)
    if wrong.any():
        place = tuple(int(i) for i in np.argwhere(wrong)[0])
        limits = f"finite, within {low:g}…{high:g}" + (f", above {above:g}" if above is not None else "")
        raise ValueError(f"{where}{list(place) if place else ''} is {float(array[place])!r} (every value must be {limits})")
    return array


def checked_count(value, where: str, low: int = 1) -> int:
    """A whole number of at least ``low`` (a count of examples, an n-gram size), or ValueError."""
    if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{where} is {value!r}, expected a whole number ≥ {low}")
    return int(value)
