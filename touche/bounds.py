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


def label_problem(value: int, shown: str | None = None) -> str | None:
    """Why a qrels label is refused, or None; ``shown``: the label as written."""
    if not LABEL_MIN <= value <= LABEL_MAX:
        return (
            f"label {shown or value} lies outside {LABEL_MIN}…{LABEL_MAX} (Touché's labels are −2…5; trec_eval keeps "
            "labels as 32-bit integers and goes wrong far below 2^31)"
        )
    return None


def score_problem(value: float, shown: str | None = None) -> str | None:
    """Why a run score is refused, or None (the caller has checked it is a number); ``shown``: how
    to write it when ``value`` stands for it (an integer too long for a float, as ``inf``)."""
    if abs(value) > SCORE_LIMIT:
        return (f"score {shown or repr(value)} lies beyond ±{SCORE_LIMIT!r}, the largest 32-bit float: trec_eval "
                "reads it as infinite and ties it with every other such score")
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
        raise ValueError(f"{where} holds {_shown(bad)}, not a number")
    try:
        array = objects.astype(float)
    except (OverflowError, ValueError):  # an integer of hundreds of digits; Decimal('sNaN')
        bad = next(v for v in objects.ravel() if not _float_or_none(v))
        raise ValueError(f"{where} holds {_shown(bad)}, which is no finite number a float can hold "
                         f"(every value must be finite, within {low:g}…{high:g})") from None
    if shape is not None and array.shape != shape:
        raise ValueError(f"{where} has shape {array.shape}, expected {shape}")
    wrong = ~np.isfinite(array) | (array < low) | (array > high)
    if above is not None:
        wrong |= ~(array > above)
    if wrong.any():
        place = tuple(int(i) for i in np.argwhere(wrong)[0])
        limits = f"finite, within {low:g}…{high:g}" + (f", above {above:g}" if above is not None else "")
        raise ValueError(
            f"{where}{list(place) if place else ''} is {float(array[place])!r} (every value must be {limits})"
        )
    return array


def _float_or_none(value) -> bool:
    try:
        float(value)
    except (OverflowError, ValueError, TypeError):
        return False
    return True


def _shown(value, limit: int = 40) -> str:
    """A value as a message quotes it: a number of hundreds of digits by its head and length."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:20]}… ({len(text)} characters)"


# A linear model's inputs and output (quality and stance models): every feature the toolkit computes
# of a text is a count, a share or a logarithm, so a text of up to 10^8 characters keeps each within
# ±10^8; the model's score over all such inputs must stay within ±10^20, eighteen orders below the
# largest 32-bit float. A standard deviation of 1e-300 passed every value check and made scores of
# 8e304 at the end of a run.
FEATURE_LIMIT = 1e8
OUTPUT_LIMIT = 1e20


def check_linear_output(coef, intercept, where: str, *, mean=None, scale=None, factor: float = 1.0,
                        inputs=FEATURE_LIMIT) -> float:
    """The largest |score| the linear model ``factor`` × (``coef`` · (x − mean) / scale +
    ``intercept``) gives for any x with every |x_i| ≤ ``inputs`` (a number or one per feature), or
    ValueError naming ``where`` when it exceeds ``OUTPUT_LIMIT``. ``coef``: one row per class."""
    import numpy as np
    coef = np.atleast_2d(np.asarray(coef, dtype=float))
    n = coef.shape[1]
    inputs = np.broadcast_to(np.asarray(inputs, dtype=float), (n,))
    mean = np.zeros(n) if mean is None else np.asarray(mean, dtype=float)
    scale = np.ones(n) if scale is None else np.asarray(scale, dtype=float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        spread = (inputs + np.abs(mean)) / scale
        bound = float(np.max(np.abs(coef) @ spread + np.abs(np.atleast_1d(intercept))) * abs(factor))
    if not bound <= OUTPUT_LIMIT:  # nan and inf too
        raise ValueError(f"{where} can score {bound:.3g} on a text of up to 10^8 characters (every feature within "
                         f"±10^8): a deviation or scale that small, or weights that large, break the model (its "
                         f"score must stay within ±{OUTPUT_LIMIT:g} on every such text)")
    return bound


def checked_count(value, where: str, low: int = 1) -> int:
    """A whole number of at least ``low`` (a count of examples, an n-gram size), or ValueError."""
    # bool is an Integral at run time (numbers registers int), which mypy does not know
    if not isinstance(value, Integral) or isinstance(value, bool) or value < low:  # type: ignore[unreachable]
        raise ValueError(f"{where} is {value!r}, expected a whole number ≥ {low}")
    return int(value)
