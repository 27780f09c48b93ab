"""Per-topic scores and paired significance tests: what ``touche compare`` and sweep reports use to
say whether a difference between two runs is more than chance."""
from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import check_cutoffs, evaluate_rows_per_topic
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.evaluation.resampling import (  # noqa: F401
    DEFAULT_BOOTSTRAP,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TIE_TOLERANCE,
    sign_flips,
)
from touche.retrieval.formats.gate import load_qrels, load_run
from touche.retrieval.formats.runfile import natural_key
from touche.retrieval.formats.selection import TopicSelection


# ------------------------------------------------------------------ per-topic scores
def split_measure(qualified: str) -> tuple[str | None, str]:
    """``relevance:touche.nDCG@5`` → (``relevance``, ``touche.nDCG@5``); no prefix → (None, measure)."""
    name, sep, measure = qualified.partition(":")
    return (name, measure) if sep else (None, qualified)


def per_topic_scores(run_path, qrels_path: str | os.PathLike[str], measure: str = "touche.nDCG@5",
                     topics: TopicSelection | None = None, *, name: str | None = None) -> dict[str, float]:
    """{topic: score} of one run, for the topics the measure averages over (of those ``topics``
    keeps).

    ``touche.nDCG@k`` / ``touche2021.nDCG@k``: the topics Touché counts (a judged document in
    the cut); ``trec.<ir_measures name>``: the run's topics that have judgments.
    """
    parsed = parse_measure(measure)
    check_cutoffs([parsed.name])
    if not parsed.has_per_topic:
        raise ToucheError(f"no per-topic values for measure {measure!r} (it is not a mean over topics): use a "
                          "measure such as touche.nDCG@k or trec.<measure>")
    qrels = load_qrels(qrels_path)
    if qrels.kind is not parsed.qrels_kind:
        raise ToucheError(f"per-topic scores of {parsed.name} need {parsed.qrels_kind.value} qrels; this file holds "
                          f"{qrels.kind.value} judgments", path=qrels_path)
    # the one gate: a run evaluate refuses (a file concatenated with itself) is never compared
    return evaluate_rows_per_topic(load_run(run_path), qrels_path, [parsed.name], topics=topics,
                                   name=name or str(run_path))[parsed.name]


# ------------------------------------------------------------------ significance
def paired_t_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """(t, two-sided p) of scipy's paired t-test; nan where undefined (n < 2, no variance)."""
    from scipy import stats  # here, not at import: scipy.stats takes 0.7 s to load
    if len(a) < 2:
        return math.nan, math.nan
    diffs = np.asarray(a, float) - np.asarray(b, float)
    if np.ptp(diffs) <= TIE_TOLERANCE:  # the spread, not the distance to the first: any topic order alike
        return math.nan, math.nan  # constant differences: t is undefined (scipy would warn)
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def paired_randomization_test(a: Sequence[float], b: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                              seed: int = DEFAULT_SEED) -> float:
    """Two-sided p of the paired randomization (sign-flip) test of the mean difference.

    Under the null hypothesis the two systems are exchangeable on each topic, so each topic's
    difference is equally likely to carry either sign. All 2^n flips are enumerated when that is
    at most ``resamples`` or 65,536 (the p is exact), otherwise ``resamples`` are drawn with a fixed seed
    (p counted as (hits + 1) / (resamples + 1), never 0), and the two-sided p is twice the
    smaller tail, as scipy's ``permutation_test`` counts it. IR evaluation prefers this test
    (Smucker et al., CIKM 2007) because per-topic nDCG is bounded and far from normal.

    Our own and not scipy's ``permutation_test`` (which the results matched before): that costs
    26 ms a pair at 50 topics and 0.6 s at 1,000, and the explorer tests every pair of up to 20
    runs on every measure so that any run can be the baseline. Here the flips of n topics are
    one matrix, drawn once per n and seed and shared by every pair: a test is a matrix-vector
    product (tests/evaluation/test_report.py checks it against the enumeration of every flip).
    """
    check_resamples(resamples)
    x, y = np.asarray(a, float), np.asarray(b, float)
    if len(x) < 2:
        return math.nan  # one topic: no test can tell two systems apart
    diffs = x - y
    if np.all(np.abs(diffs) <= TIE_TOLERANCE):
        return 1.0  # identical on every topic: every sign flip gives the same mean
    signs, exact = sign_flips(len(diffs), resamples, seed)
    null = signs @ diffs / len(diffs)
    observed = diffs.mean()
    gamma = abs(observed) * 1e-12 + 1e-15  # equal means computed in another order count as equal
    adjustment = 0 if exact else 1
    less = ((null <= observed + gamma).sum() + adjustment) / (len(null) + adjustment)
    greater = ((null >= observed - gamma).sum() + adjustment) / (len(null) + adjustment)
    return float(min(1.0, 2 * min(less, greater)))


def paired_wilcoxon_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Two-sided p of scipy's Wilcoxon signed-rank test (zero differences dropped, as
    ``zero_method="wilcox"``); nan where undefined (fewer than two non-zero differences)."""
    from scipy import stats
    diffs = np.asarray(a, float) - np.asarray(b, float)
    diffs = diffs[np.abs(diffs) > TIE_TOLERANCE]
    if len(diffs) < 2:
        return math.nan if len(a) < 2 else 1.0
    return float(stats.wilcoxon(diffs).pvalue)


@dataclass(frozen=True)
class SignificanceTest:
    """A paired test a report may use: (a, b, resamples, seed) → two-sided p, and the name a
    report's caption gives it (the explorer's page and exports take it from here). ``many``: the
    same p for each row of a matrix of differences at once (rows × topics, at least two topics;
    → (p per row, whether every p is exact)); by default ``p`` of each row against zeros.
    ``resampled``: its p is drawn from sampled resamples, so never below ``p_floor(resamples)``
    (reports say so)."""
    title: str
    p: Callable[[Sequence[float], Sequence[float], int, int], float]
    many: Callable[[np.ndarray, int, int], tuple[np.ndarray, bool]] | None = None
    resampled: bool = False

    def __call__(self, a: Sequence[float], b: Sequence[float], resamples: int, seed: int) -> float:
        return self.p(a, b, resamples, seed)

    def of_rows(self, diffs: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
        if self.many is not None:
            return self.many(diffs, resamples, seed)
        zeros = [0.0] * diffs.shape[1]
        return np.array([self.p(d, zeros, resamples, seed) for d in diffs], dtype=float), True


def _t_rows(diffs: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    n = diffs.shape[1]
    return (np.array([paired_t_test(d, np.zeros(n))[1] for d in diffs]) if len(diffs) < 8 else _t_many(diffs)), True


def _wilcoxon_rows(diffs: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    n = diffs.shape[1]
    return np.array([paired_wilcoxon_test(d, np.zeros(n)) for d in diffs]), True


# The paired tests a report may use, by PyTerrier's ``test=`` names: one entry adds a test to
# ``--test``, the API, the explorer's page and exports and their captions.
SIGNIFICANCE_TESTS = {
    "randomization": SignificanceTest("paired randomization test", lambda a, b, resamples, seed:
                                      paired_randomization_test(a, b, resamples=resamples, seed=seed),
                                      lambda diffs, resamples, seed: _randomization(diffs, resamples, seed),
                                      resampled=True),
    "t": SignificanceTest("paired t-test", lambda a, b, resamples, seed: paired_t_test(a, b)[1], _t_rows),
    "wilcoxon": SignificanceTest("Wilcoxon signed-rank test", lambda a, b, resamples, seed: paired_wilcoxon_test(a, b),
                                 _wilcoxon_rows),
}


@dataclass(frozen=True)
class PairTest:
    """Two runs on the topics both are scored on: ``delta`` the mean of second − first, the
    paired test's two-sided ``p`` (the same either way round), topics where second is better,
    worse, tied, and whether p is exact (every sign flip enumerated; else at least the floor
    1 / (resamples + 1))."""
    delta: float
    p: float
    wins: int
    losses: int
    ties: int
    exact: bool = True

    @property
    def topics(self) -> int:
        return self.wins + self.losses + self.ties


def pairwise(values: Sequence[Mapping[str, float]], pairs: Sequence[tuple[int, int]], test: str = "randomization", *,
             resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> list[PairTest]:
    """Every pair (i, j) of ``values`` (per run: topic → value) tested on their common topics, the
    same p as ``SIGNIFICANCE_TESTS[test]`` gives each pair, computed for many pairs at once: pairs
    on the same topics share one sign-flip matrix product (a page of 100 runs tests 4,950 pairs a
    measure; one at a time that was most of its minute)."""
    check_test(test)
    check_resamples(resamples)
    topics = sorted({t for v in values for t in v}, key=natural_key)
    column = {t: c for c, t in enumerate(topics)}
    matrix = np.full((len(values), len(topics)), np.nan)
    for r, v in enumerate(values):
        for t, x in v.items():
            matrix[r, column[t]] = x
    scored = ~np.isnan(matrix)
    groups: dict[bytes, list[int]] = {}
    for k, (i, j) in enumerate(pairs):
        groups.setdefault((scored[i] & scored[j]).tobytes(), []).append(k)
    out: list[PairTest | None] = [None] * len(pairs)
    for mask_bytes, members in groups.items():
        common = np.frombuffer(mask_bytes, dtype=bool)
        first = np.array([pairs[k][0] for k in members])
        second = np.array([pairs[k][1] for k in members])
        diffs = matrix[second][:, common] - matrix[first][:, common]  # pairs × common topics
        for k, result in zip(members, _tested(diffs, test, resamples, seed)):
            out[k] = result
    return out  # type: ignore[return-value]


def _tested(diffs: np.ndarray, test: str, resamples: int, seed: int) -> list[PairTest]:
    n = diffs.shape[1]
    wins = (diffs > TIE_TOLERANCE).sum(axis=1)
    losses = (diffs < -TIE_TOLERANCE).sum(axis=1)
    delta = diffs.mean(axis=1) if n else np.full(len(diffs), np.nan)
    exact = True
    if n < 2:
        p = np.full(len(diffs), np.nan)
    else:
        p, exact = SIGNIFICANCE_TESTS[test].of_rows(diffs, resamples, seed)
    return [PairTest(float(d), float(q), int(w), int(lo), int(n - w - lo), exact)
            for d, q, w, lo in zip(delta, p, wins, losses)]


def _randomization(diffs: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    """``paired_randomization_test`` of each row of ``diffs`` (its arithmetic, chunk by chunk)."""
    n = diffs.shape[1]
    signs, exact = sign_flips(n, resamples, seed)
    observed = diffs.mean(axis=1)
    gamma = np.abs(observed) * 1e-12 + 1e-15
    adjustment = 0 if exact else 1
    p = np.empty(len(diffs))
    step = max(1, 4_000_000 // len(signs))
    for start in range(0, len(diffs), step):
        null = signs @ diffs[start:start + step].T / n  # resamples × pairs
        o, g = observed[start:start + step], gamma[start:start + step]
        less = ((null <= o + g).sum(axis=0) + adjustment) / (len(null) + adjustment)
        greater = ((null >= o - g).sum(axis=0) + adjustment) / (len(null) + adjustment)
        p[start:start + step] = np.minimum(1.0, 2 * np.minimum(less, greater))
    same = np.all(np.abs(diffs) <= TIE_TOLERANCE, axis=1)
    p[same] = 1.0  # identical on every topic: every flip gives the same mean
    return p, exact


def _t_many(diffs: np.ndarray) -> np.ndarray:
    """scipy's paired t-test of each row against 0, nan where the differences are constant."""
    from scipy import stats
    constant = np.ptp(diffs, axis=1) <= TIE_TOLERANCE
    with np.errstate(invalid="ignore", divide="ignore"):
        p = stats.ttest_1samp(diffs, 0.0, axis=1).pvalue
    return np.where(constant, np.nan, p)


def p_floor(resamples: int) -> float:
    """The smallest p the randomization test can give when it draws ``resamples`` sign flips:
    twice the smallest tail, 1 / (resamples + 1), at most 1 (an enumerated p is exact)."""
    return min(1.0, 2 / (resamples + 1))


def paired_on_common(values: Mapping[str, float], base: Mapping[str, float], *,
                     resamples: int = DEFAULT_RESAMPLES) -> tuple[float, float, int]:
    """``values`` − ``base`` on the topics both are scored on: the mean difference, the paired
    randomization test's two-sided p (nan below two topics) and the number of topics."""
    common = sorted(set(values) & set(base))
    if not common:
        return math.nan, math.nan, 0
    a, b = [values[t] for t in common], [base[t] for t in common]
    return (sum(x - y for x, y in zip(a, b)) / len(common), paired_randomization_test(a, b, resamples=resamples),
            len(common))


def wins_losses_ties(values: Mapping[str, float], base: Mapping[str, float]) -> tuple[int, int, int]:
    """The topics both are scored on where ``values`` is better than, worse than or tied with ``base``."""
    diffs = [values[t] - base[t] for t in set(values) & set(base)]
    return (sum(d > TIE_TOLERANCE for d in diffs), sum(d < -TIE_TOLERANCE for d in diffs),
            sum(abs(d) <= TIE_TOLERANCE for d in diffs))


def check_resamples(resamples) -> int:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ToucheError(f"the randomization test needs at least one resample, a whole number (got {resamples!r})")
    return int(resamples)


def check_test(name: str) -> str:
    if name not in SIGNIFICANCE_TESTS:
        raise ToucheError(f"unknown significance test {name!r}; use one of {', '.join(SIGNIFICANCE_TESTS)}")
    return name


# ------------------------------------------------------------------ intervals and corrections
# The multiple-testing corrections, by statsmodels' names, with the name a caption gives each.
CORRECTIONS = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg", "none": "no"}


def bootstrap_interval(values: Sequence[float], *, confidence: float = 0.95, resamples: int = DEFAULT_BOOTSTRAP,
                       seed: int = DEFAULT_SEED, total: bool = False) -> tuple[float, float]:
    """The percentile interval of the mean over topics, topics drawn with replacement (scipy's
    ``bootstrap``; fixed seed: the same interval on every rerun). How far the mean of these
    topics could move with other topics of the same kind; nan with fewer than two topics.
    ``total``: the interval of their sum instead (a count such as stance.N is shown as the sum
    of its per-topic counts, so its interval must be the sum's too)."""
    from scipy import stats
    x = np.asarray(values, float)
    if len(x) < 2:
        return math.nan, math.nan
    scale = len(x) if total else 1
    if np.ptp(x) <= TIE_TOLERANCE:  # equal but for the last bits: every resampled mean lies in their range
        return float(x.min() * scale), float(x.max() * scale)
    result = stats.bootstrap((x,), np.sum if total else np.mean, confidence_level=confidence,
                             n_resamples=resamples, method="percentile", vectorized=True, rng=seed)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def measure_interval(measure: str, values: Sequence[float], **options) -> tuple[float, float]:
    """The interval around the value a table shows for ``measure`` (``qrels:name`` or a bare
    name) from its per-topic ``values``: the mean's for an effectiveness measure, the total's for
    a count, whose shown value is the sum of its per-topic counts. Every table and page takes its
    interval here, so a count is never shown as a total with a per-topic mean's interval."""
    return bootstrap_interval(values, total=parse_measure(split_measure(measure)[1]).integer, **options)


def check_correction(name: str) -> str:
    if name not in CORRECTIONS:
        raise ToucheError(f"unknown correction {name!r}; use one of {', '.join(CORRECTIONS)}")
    return name


def corrected(p_values: Sequence[float], method: str = "holm") -> list[float]:
    """p-values corrected for testing several runs against one baseline, as statsmodels'
    ``multipletests`` (PyTerrier's Experiment) computes them: ``holm`` (Holm-Bonferroni, controls
    the family-wise error), ``bonferroni``, ``fdr_bh`` (Benjamini-Hochberg) or ``none``.
    Undefined p-values (nan) stay nan and do not count as tests.

    Our own few lines (tests/evaluation/test_report.py checks them against statsmodels): each
    ``multipletests`` call ran a full garbage collection, 0.14 s, and a page of 16 runs asks for
    75 corrections."""
    check_correction(method)
    values = [float(p) for p in p_values]
    defined = [i for i, p in enumerate(values) if not math.isnan(p)]
    if method == "none" or not defined:
        return values
    p = np.array([values[i] for i in defined])
    m = len(p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "bonferroni":
        adjusted_sorted = np.minimum(1.0, ranked * m)
    elif method == "holm":
        adjusted_sorted = np.minimum(1.0, np.maximum.accumulate(ranked * (m - np.arange(m))))
    else:  # fdr_bh: the running minimum from the largest p down
        adjusted_sorted = np.minimum(1.0, np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1])
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    out = list(values)
    for i, value in zip(defined, adjusted):
        out[i] = float(value)
    return out
