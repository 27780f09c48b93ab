"""How far two rankings of the same topic agree, with no judgement needed: what a participant
compares their runs by before the qrels exist (DiffIR's use case, Jimmy et al. SIGIR 2021 demo).

Per topic, on each run's documents in rank order (the first ``AGREEMENT_DEPTH``):

* ``RBO`` - rank-biased overlap, extrapolated (RBO_ext of Webber, Moffat & Zobel, TOIS 2010,
  eq. 32, which also holds for lists of different lengths) with persistence ``p`` (default 0.9:
  the first 10 ranks carry 86 % of the weight). 1 for the same ranking, 0 for disjoint ones.
* ``Jaccard@5``, ``Jaccard@10`` - |A ∩ B| / |A ∪ B| of the two top k sets.
* ``Kendall τ@10`` - Kendall's τ-b (as scipy's ``kendalltau``) over the union of the two top 10s, each document at
  its rank in each run; one a run does not rank within ``AGREEMENT_DEPTH`` is placed after it
  (tied there): DiffIR likewise ties the missing documents at the bottom.
* ``τ_AP@10`` - the AP correlation of Yilmaz, Aslam & Robertson (SIGIR 2008) over the same
  union, which weighs swaps near the top more; it is asymmetric, so the mean of both directions
  (as DiffIR reports it). A tie in the ranking judged counts half.

The measures are a registry (``AGREEMENT_MEASURES``: name → function of a ``Pair``); every value
is symmetric in the two runs, so a page stores one value per unordered pair and topic. Our own
code: scipy has Kendall's τ (too slow a call here, see ``kendall_tau``) but neither RBO nor τ_AP, and the ``rbo`` package computes
average overlap by default and its ``rbo_ext`` only on whole lists, one pair at a time; the
values here are checked against values derived by hand (tests/test_agreement.py).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import combinations

import numpy as np

AGREEMENT_DEPTH = 100
DEFAULT_PERSISTENCE = 0.9
UNION_DEPTH = 10


def rbo(a: Sequence[str], b: Sequence[str], p: float = DEFAULT_PERSISTENCE, rank_a: Mapping[str, int] | None = None,
        rank_b: Mapping[str, int] | None = None) -> float:
    """RBO_ext of two rankings without repeated items (eq. 32 of Webber et al.); ``rank_a``,
    ``rank_b`` as in ``union_ranks``."""
    if not 0 < p < 1:
        raise ValueError(f"RBO's persistence p must lie strictly between 0 and 1, got {p}")
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    (short, _), (long_, long_ranks) = sorted(((a, rank_a), (b, rank_b)), key=lambda pair: len(pair[0]))
    s, l = len(short), len(long_)
    # X_d, the overlap of the two prefixes of length d (the short list's whole length past s): an
    # item shared at places i and j counts from depth max(i, j) + 1 on
    place = long_ranks if long_ranks is not None else {item: j + 1 for j, item in enumerate(long_)}  # 1, 2, …
    joins = [max(i, place[item] - 1) for i, item in enumerate(short) if item in place]
    overlap = np.cumsum(np.bincount(np.asarray(joins, int), minlength=l)[:l]) if joins else np.zeros(l)
    depth = np.arange(1, l + 1)
    powers = p ** depth
    x_s = overlap[s - 1]
    weighted = (overlap / depth * powers).sum() + (x_s * (depth[s:] - s) / (s * depth[s:]) * powers[s:]).sum()
    return float((1 - p) / p * weighted + ((overlap[-1] - x_s) / l + x_s / s) * powers[-1])


def jaccard(a: Sequence[str], b: Sequence[str], k: int) -> float:
    first, second = set(a[:k]), set(b[:k])
    union = first | second
    return len(first & second) / len(union) if union else 1.0


def union_ranks(a: Sequence[str], b: Sequence[str], k: int = UNION_DEPTH, rank_a: Mapping[str, int] | None = None,
                rank_b: Mapping[str, int] | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The union of the two top k (in a's order, then b's), and each run's rank of them; a
    document a run does not rank (within its list) is placed after its list, tied. ``rank_a``,
    ``rank_b``: the lists' ranks (document → 1, 2, …) when the caller has them already."""
    union = list(dict.fromkeys([*a[:k], *b[:k]]))
    rank_a = rank_a if rank_a is not None else {d: i + 1 for i, d in enumerate(a)}
    rank_b = rank_b if rank_b is not None else {d: i + 1 for i, d in enumerate(b)}
    return (union, np.array([rank_a.get(d, len(a) + 1) for d in union], float),
            np.array([rank_b.get(d, len(b) + 1) for d in union], float))


def kendall_tau(a: Sequence[str], b: Sequence[str], k: int = UNION_DEPTH) -> float:
    """Kendall's τ-b over the union of the two top k (scipy's ``kendalltau``, as a sign matrix:
    scipy's call costs 0.6 ms, and a page of 16 runs and 50 topics asks for 6,000)."""
    return _kendall(*union_ranks(a, b, k)[1:])


@lru_cache(maxsize=64)
def _upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)  # the pairs i < j of n items (n ≤ 20: two top 10s)


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    i, j = _upper(len(x))
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    denominator = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    return float((dx * dy).sum() / denominator) if denominator else math.nan


def tau_ap_one_way(order: np.ndarray, truth: np.ndarray) -> float:
    """τ_AP of the ranking ``order`` (ranks) judged against ``truth`` (ranks), same items."""
    n = len(order)
    if n < 2:
        return math.nan
    t = truth[np.argsort(order, kind="stable")]
    above, below = _upper(n)  # position `above` is above position `below`
    score = (t[above] < t[below]) + 0.5 * (t[above] == t[below])
    correct = np.bincount(below, weights=score, minlength=n)  # C(i): the items above i it orders right
    return float(2 * (correct[1:] / np.arange(1, n)).sum() / (n - 1) - 1)


def tau_ap(a: Sequence[str], b: Sequence[str], k: int = UNION_DEPTH) -> float:
    """The symmetric τ_AP: the mean of a judged against b and b against a."""
    return _tau_ap(*union_ranks(a, b, k)[1:])


def _tau_ap(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2:
        return math.nan
    return (tau_ap_one_way(x, y) + tau_ap_one_way(y, x)) / 2


@dataclass(frozen=True)
class Pair:
    """Two runs' rankings of one topic (document ids in rank order) and the RBO persistence."""
    a: Sequence[str]
    b: Sequence[str]
    p: float = DEFAULT_PERSISTENCE
    rank_a: Mapping[str, int] | None = None  # document → rank in a, when known (a run is in many pairs)
    rank_b: Mapping[str, int] | None = None

    @cached_property
    def union(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        return union_ranks(self.a, self.b, UNION_DEPTH, self.rank_a, self.rank_b)  # read by both correlations


AGREEMENT_MEASURES: dict[str, Callable[[Pair], float]] = {
    "RBO": lambda pair: rbo(pair.a, pair.b, pair.p, pair.rank_a, pair.rank_b),
    "Jaccard@5": lambda pair: jaccard(pair.a, pair.b, 5),
    "Jaccard@10": lambda pair: jaccard(pair.a, pair.b, 10),
    f"Kendall τ@{UNION_DEPTH}": lambda pair: _kendall(*pair.union[1:]),
    f"τ_AP@{UNION_DEPTH}": lambda pair: _tau_ap(*pair.union[1:]),
}


@dataclass
class Agreement:
    """Every pair of runs: per topic the measures' values, and their means over the topics both rank."""
    measures: list[str]
    runs: list[str]
    per_topic: dict[tuple[str, str], dict[str, list[float | None]]] = field(default_factory=dict)
    means: dict[tuple[str, str], list[float | None]] = field(default_factory=dict)



def pair_key(runs: Sequence[str], first: str, second: str) -> str:
    """An unordered pair of runs as the explorer's data names it: their positions, ``i|j`` with i < j."""
    i, j = sorted((runs.index(first), runs.index(second)))
    return f"{i}|{j}"


def agreement(rankings: Mapping[str, Mapping[str, Sequence[str]]], *, p: float = DEFAULT_PERSISTENCE,
              measures: Sequence[str] | None = None) -> Agreement:
    """``rankings``: run → topic → document ids in rank order. Every unordered pair of runs."""
    names = list(measures or AGREEMENT_MEASURES)
    unknown = [m for m in names if m not in AGREEMENT_MEASURES]
    if unknown:
        raise ValueError(f"unknown agreement measure(s) {', '.join(unknown)}; known: {', '.join(AGREEMENT_MEASURES)}")
    runs = list(rankings)
    out = Agreement(names, runs)
    ranks = {run: {topic: {d: i + 1 for i, d in enumerate(docs)} for topic, docs in by_topic.items()}
             for run, by_topic in rankings.items()}
    for first, second in combinations(runs, 2):
        topics = sorted(set(rankings[first]) & set(rankings[second]))
        values: dict[str, list[float | None]] = {}
        for topic in topics:
            pair = Pair(rankings[first][topic], rankings[second][topic], p, ranks[first][topic], ranks[second][topic])
            values[topic] = [_finite(AGREEMENT_MEASURES[m](pair)) for m in names]
        out.per_topic[first, second] = values
        columns = np.array([[np.nan if v is None else v for v in row] for row in values.values()], float)
        out.means[first, second] = [None] * len(names) if not len(columns) else \
            [_finite(float(np.nanmean(c))) if not np.all(np.isnan(c)) else None for c in columns.T]
    return out


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 6)
