"""How far two rankings of the same topic agree, with no judgement needed: what a participant
compares their runs by before the qrels exist (DiffIR's use case, Jimmy et al. SIGIR 2021 demo).

Per topic, on each run's documents in rank order (the first ``AGREEMENT_DEPTH``):

* ``RBO`` - rank-biased overlap, extrapolated (RBO_ext of Webber, Moffat & Zobel, TOIS 2010,
  eq. 32, which also holds for lists of different lengths) with persistence ``p`` (default 0.9:
  the first 10 ranks carry 86 % of the weight). 1 for the same ranking, 0 for disjoint ones.
  The headline: it says how much two rankings share and where.
* ``Jaccard@5``, ``Jaccard@10`` - |A ∩ B| / |A ∪ B| of the two top k sets.
* ``Kendall τ@10`` - Kendall's τ of the order the two rankings give the documents **both top 10s
  hold** (no ties there: τ-a = τ-b); undefined when they share fewer than two. It says whether
  the runs order alike what they agree to show, not how much they share (Jaccard@10 says that).
  Over the union, with the missing documents tied at the bottom (last round's definition, and
  DiffIR's over whole runs), two top 10s that share nothing read as anti-correlated (τ ≈ −0.7).
* ``τ_AP@10`` - the AP correlation of Yilmaz, Aslam & Robertson (SIGIR 2008) over the same shared
  documents, which weighs swaps near the top more; it is asymmetric, so the mean of both
  directions. DiffIR reports it one way (the second run judged against the first) over whole runs.

The measures are a registry (``AGREEMENT_MEASURES``: name → function of a ``Pair``); every value
is symmetric in the two runs, so a page stores one value per unordered pair and topic. The
built-in ones are also computed for every pair of a topic at once (``BATCHED``: a page of 100
runs has 4,950 pairs); a registered measure without a batch form is computed pair by pair. Our
own code: scipy has Kendall's τ (too slow a call here) but neither RBO nor τ_AP, and the ``rbo``
package computes average overlap by default and its ``rbo_ext`` one pair at a time; the values
here are checked against values derived by hand and the batch against the pair functions
(tests/evaluation/test_agreement.py).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from touche.errors import ToucheError

AGREEMENT_DEPTH = 100
DEFAULT_PERSISTENCE = 0.9
UNION_DEPTH = 10


class PersistenceError(ToucheError, ValueError):
    """An RBO persistence outside (0, 1): a user's error (exit 2) and a bad argument alike."""


def check_persistence(p: float) -> float:
    """RBO's persistence ``p``, strictly between 0 and 1 (NaN refused): the one check of every door
    (``rbo``, ``agreement``, the explorer's ``--rbo-p``)."""
    if not 0 < p < 1:
        raise PersistenceError(f"RBO's persistence p must lie strictly between 0 and 1, got {p}")
    return p


def rbo(a: Sequence[str], b: Sequence[str], p: float = DEFAULT_PERSISTENCE) -> float:
    """RBO_ext of two rankings without repeated items (eq. 32 of Webber et al.)."""
    check_persistence(p)
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = sorted((a, b), key=len)
    s, n_long = len(short), len(long_)
    # X_d, the overlap of the two prefixes of length d (the short list's whole length past s): an
    # item shared at places i and j counts from depth max(i, j) + 1 on
    place = {item: j + 1 for j, item in enumerate(long_)}  # 1, 2, …
    joins = [max(i, place[item] - 1) for i, item in enumerate(short) if item in place]
    overlap = np.cumsum(np.bincount(np.asarray(joins, int), minlength=n_long)[:n_long]) if joins else np.zeros(n_long)
    depth = np.arange(1, n_long + 1)
    powers = p ** depth
    x_s = overlap[s - 1]
    weighted = (overlap / depth * powers).sum() + (x_s * (depth[s:] - s) / (s * depth[s:]) * powers[s:]).sum()
    return float((1 - p) / p * weighted + ((overlap[-1] - x_s) / n_long + x_s / s) * powers[-1])


def jaccard(a: Sequence[str], b: Sequence[str], k: int) -> float:
    first, second = set(a[:k]), set(b[:k])
    union = first | second
    return len(first & second) / len(union) if union else 1.0


def shared_ranks(a: Sequence[str], b: Sequence[str], k: int = UNION_DEPTH) -> tuple[np.ndarray, np.ndarray]:
    """The ranks (1, 2, …) in a and in b of the documents both top k hold, in a's order."""
    in_b = {d: i + 1 for i, d in enumerate(b[:k])}
    shared = [(i + 1, in_b[d]) for i, d in enumerate(a[:k]) if d in in_b]
    return np.array([x for x, _ in shared], float), np.array([y for _, y in shared], float)


def kendall_tau(a: Sequence[str], b: Sequence[str], k: int = UNION_DEPTH) -> float:
    """Kendall's τ of the two orders of the documents both top k hold (nan below two)."""
    return _kendall(*shared_ranks(a, b, k))


@lru_cache(maxsize=64)
def _upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)  # the pairs i < j of n items


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2:
        return math.nan
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
    """The symmetric τ_AP over the documents both top k hold: the mean of both directions."""
    return _tau_ap(*shared_ranks(a, b, k))


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

    @cached_property
    def shared(self) -> tuple[np.ndarray, np.ndarray]:
        return shared_ranks(self.a, self.b, UNION_DEPTH)  # read by both correlations


AGREEMENT_MEASURES: dict[str, Callable[[Pair], float]] = {
    "RBO": lambda pair: rbo(pair.a, pair.b, pair.p),
    "Jaccard@5": lambda pair: jaccard(pair.a, pair.b, 5),
    "Jaccard@10": lambda pair: jaccard(pair.a, pair.b, 10),
    f"Kendall τ@{UNION_DEPTH}": lambda pair: _kendall(*pair.shared),
    f"τ_AP@{UNION_DEPTH}": lambda pair: _tau_ap(*pair.shared),
}


# --------------------------------------------------------------------------- every pair at once
@dataclass(frozen=True)
class Batch:
    """One topic's rankings as integer ranks: ``ranks[r, u]`` the rank (1, …) of document u in run r
    (0: not ranked), ``lengths[r]`` each list's length, ``top[r, q]`` the document at rank q + 1
    (−1 past the list); ``first``, ``second``: the runs of each pair, pairs in ``pair_index`` order."""
    ranks: np.ndarray
    lengths: np.ndarray
    top: np.ndarray
    first: np.ndarray
    second: np.ndarray
    p: float

    @cached_property
    def overlaps(self) -> np.ndarray:
        """X[k, d]: documents both lists of pair k hold within their first d (d = 0 … depth).

        Counted document by document over the pairs of runs that hold it, not pair by pair over
        every document: the work grows with how often documents are shared (80,000 joins a topic
        for a year's 100 runs of 100 rows), not with pairs × distinct documents (4,950 × 2,300)."""
        depth = int(self.lengths.max(initial=0))
        pair_of = np.full((len(self.ranks), len(self.ranks)), -1, np.int64)
        pair_of[self.first, self.second] = pair_of[self.second, self.first] = np.arange(len(self.first))
        holders_per_doc = (self.ranks > 0).sum(axis=0)
        joins = [np.zeros(0, np.int64)]  # pair k joins at depth d: key k * (depth + 1) + d
        for c in np.unique(holders_per_doc[holders_per_doc >= 2]):  # documents held by c runs, together
            ranks = self.ranks[:, holders_per_doc == c].T  # documents × runs
            holders = np.argsort(ranks == 0, axis=1, kind="stable")[:, :c]  # the c runs holding each
            held_at = np.take_along_axis(ranks, holders, axis=1)
            i, j = np.triu_indices(c, 1)
            # the depth from which both lists of the pair hold the document
            joins.append((pair_of[holders[:, i], holders[:, j]] * (depth + 1)
                          + np.maximum(held_at[:, i], held_at[:, j])).ravel())
        counts = np.bincount(np.concatenate(joins), minlength=len(self.first) * (depth + 1))
        return np.cumsum(counts.reshape(len(self.first), depth + 1), axis=1).astype(float)

    @cached_property
    def shared_top(self) -> tuple[np.ndarray, np.ndarray]:
        """(rank in the second run of the first run's q-th document, the same the other way),
        0 where the other top ``UNION_DEPTH`` does not hold it: pairs × UNION_DEPTH."""
        def ranks_of(who, of_whom):
            codes = self.top[who]
            found = np.where(codes >= 0, self.ranks[of_whom[:, None], np.maximum(codes, 0)], 0)
            return np.where((found >= 1) & (found <= UNION_DEPTH), found, 0)
        return ranks_of(self.first, self.second), ranks_of(self.second, self.first)


def _batch_rbo(batch: Batch) -> np.ndarray:
    p, x = batch.p, batch.overlaps
    la, lb = batch.lengths[batch.first], batch.lengths[batch.second]
    short, long_ = np.minimum(la, lb), np.maximum(la, lb)
    depth = np.arange(x.shape[1])
    powers = p ** depth
    rows = np.arange(len(x))
    x_s, x_l = x[rows, short], x[rows, long_]
    within = (depth >= 1) & (depth <= long_[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        first = np.where(within, x / np.maximum(depth, 1) * powers, 0).sum(axis=1)
        past = within & (depth > short[:, None])
        second = np.where(
            past,
            x_s[:, None] * (depth - short[:, None]) / (np.maximum(short, 1)[:, None] * np.maximum(depth, 1)) * powers,
            0,
        ).sum(axis=1)
        value = (1 - p) / p * (first + second) \
            + ((x_l - x_s) / np.maximum(long_, 1) + x_s / np.maximum(short, 1)) * p ** long_
    return np.where((short == 0) & (long_ == 0), 1.0, np.where(short == 0, 0.0, value))


def _batch_jaccard(k: int) -> Callable[[Batch], np.ndarray]:
    def jaccard_at(batch: Batch) -> np.ndarray:
        both = batch.overlaps[:, min(k, batch.overlaps.shape[1] - 1)]
        union = np.minimum(k, batch.lengths[batch.first]) + np.minimum(k, batch.lengths[batch.second]) - both
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(union > 0, both / union, 1.0)
    return jaccard_at


_Q1, _Q2 = np.triu_indices(UNION_DEPTH, 1)  # position q1 above q2 in the first run's top 10
# which pair of positions (q1, q2) ends at which q2: summing over it is one product (np.add.at took 1 s a page)
_ENDS_AT = (_Q2[:, None] == np.arange(UNION_DEPTH)).astype(float)


def _shared_order(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of ``t`` (the other run's ranks of one run's top 10, 0 where not shared): per pair of
    positions q1 < q2 whether both are shared and the other run orders them alike; the counts."""
    held = t > 0
    both = held[:, _Q1] & held[:, _Q2]
    alike = both & (t[:, _Q1] < t[:, _Q2])
    return held, both, alike


def _batch_kendall(batch: Batch) -> np.ndarray:
    held, both, alike = _shared_order(batch.shared_top[0])
    n = held.sum(axis=1)
    concordance = 2 * alike.sum(axis=1) - both.sum(axis=1)  # concordant − discordant (no ties among ranks)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n >= 2, concordance / (n * (n - 1) / 2), np.nan)


def _tau_ap_batch_one_way(t: np.ndarray) -> np.ndarray:
    held, _, alike = _shared_order(t)
    correct = alike @ _ENDS_AT  # C(q2): the shared documents above q2 the other run also puts above
    position = np.cumsum(held, axis=1) - 1  # q's place among the shared documents, in this run's order
    n = held.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(held & (position >= 1), correct / np.maximum(position, 1), 0).sum(axis=1)
        return np.where(n >= 2, 2 * terms / (n - 1) - 1, np.nan)


def _batch_tau_ap(batch: Batch) -> np.ndarray:
    forward, backward = batch.shared_top
    return (_tau_ap_batch_one_way(forward) + _tau_ap_batch_one_way(backward)) / 2


BATCHED: dict[str, Callable[[Batch], np.ndarray]] = {
    "RBO": _batch_rbo, "Jaccard@5": _batch_jaccard(5), "Jaccard@10": _batch_jaccard(10),
    f"Kendall τ@{UNION_DEPTH}": _batch_kendall, f"τ_AP@{UNION_DEPTH}": _batch_tau_ap,
}


def pair_count(runs: int) -> int:
    return runs * (runs - 1) // 2


def pair_index(i: int, j: int, runs: int) -> int:
    """The place of the unordered pair {i, j} (i ≠ j) among all pairs of ``runs`` runs, in the order
    of ``np.triu_indices`` (0-1, 0-2, …, 1-2, …): how a page stores one value per pair."""
    i, j = min(i, j), max(i, j)
    return i * (2 * runs - i - 1) // 2 + (j - i - 1)


@dataclass
class Agreement:
    """Every pair of runs (in ``pair_index`` order): per topic a pairs × measures array (nan where
    a run does not rank the topic, or a measure is undefined) and the means over the topics."""
    measures: list[str]
    runs: list[str]
    per_topic: dict[str, np.ndarray] = field(default_factory=dict)
    means: np.ndarray | None = None

    def value(self, first: str, second: str, measure: str, topic: str | None = None) -> float | None:
        """One pair's value (its mean over topics when ``topic`` is None); None where undefined."""
        if first == second:
            return None
        k = pair_index(self.runs.index(first), self.runs.index(second), len(self.runs))
        table = self.means if topic is None else self.per_topic.get(topic)
        value = np.nan if table is None else table[k, self.measures.index(measure)]
        return None if math.isnan(value) else round(float(value), 6)


def agreement(rankings: Mapping[str, Mapping[str, Sequence[str]]], *, p: float = DEFAULT_PERSISTENCE,
              measures: Sequence[str] | None = None) -> Agreement:
    """``rankings``: run → topic → document ids in rank order. Every unordered pair of runs, per
    topic both rank (each topic's pairs at once for the built-in measures)."""
    check_persistence(p)
    names = list(measures or AGREEMENT_MEASURES)
    unknown = [m for m in names if m not in AGREEMENT_MEASURES]
    if unknown:
        raise ValueError(f"unknown agreement measure(s) {', '.join(unknown)}; known: {', '.join(AGREEMENT_MEASURES)}")
    runs = list(rankings)
    out = Agreement(names, runs)
    first, second = np.triu_indices(len(runs), 1)
    topics = sorted({t for by_topic in rankings.values() for t in by_topic})
    for topic in topics:
        lists = [rankings[r].get(topic) for r in runs]
        batch = _batch_of(lists, first, second, p)
        values = np.column_stack([BATCHED[m](batch) if m in BATCHED else _pair_by_pair(m, lists, first, second, p)
                                  for m in names]) if len(first) else np.zeros((0, len(names)))
        missing = np.array([lst is None for lst in lists])
        values[missing[first] | missing[second]] = np.nan  # a run without this topic pairs with none
        out.per_topic[topic] = values
    stacked = np.stack(list(out.per_topic.values())) if out.per_topic else np.full((1, len(first), len(names)), np.nan)
    with np.errstate(invalid="ignore"):
        counts = (~np.isnan(stacked)).sum(axis=0)
        out.means = np.where(counts > 0, np.nansum(stacked, axis=0) / np.maximum(counts, 1), np.nan)
    return out


def _batch_of(lists: list[Sequence[str] | None], first: np.ndarray, second: np.ndarray, p: float) -> Batch:
    vocabulary: dict[str, int] = {}
    for docs in lists:
        for d in docs or ():
            vocabulary.setdefault(d, len(vocabulary))
    ranks = np.zeros((len(lists), len(vocabulary)), np.int32)
    top = np.full((len(lists), UNION_DEPTH), -1, np.int64)
    lengths = np.zeros(len(lists), np.int64)
    for r, docs in enumerate(lists):
        if not docs:
            continue
        codes = np.fromiter((vocabulary[d] for d in docs), np.int64, len(docs))
        ranks[r, codes] = np.arange(1, len(docs) + 1)
        lengths[r] = len(docs)
        top[r, :min(UNION_DEPTH, len(docs))] = codes[:UNION_DEPTH]
    return Batch(ranks, lengths, top, first, second, p)


def _pair_by_pair(name: str, lists, first: np.ndarray, second: np.ndarray, p: float) -> np.ndarray:
    """A registered measure without a batch form, pair by pair."""
    function = AGREEMENT_MEASURES[name]
    return np.array([function(Pair(lists[i] or (), lists[j] or (), p)) for i, j in zip(first, second)], float)
