"""What every resampling of topics shares, with no import of ours (significance tests, pooled
measures and the registry all use it): the seeds, the counts, the tie tolerance and the sign
flips of a randomization test."""
from __future__ import annotations

import functools

import numpy as np

# Differences smaller than this are ties: nDCG values of equal rankings can differ in the last
# bits when computed from differently ordered sums.
TIE_TOLERANCE = 1e-9
DEFAULT_RESAMPLES = 10_000
DEFAULT_BOOTSTRAP = 2_000
DEFAULT_SEED = 20220401  # fixed so that a report's p-value is the same on every rerun
# Up to this many sign flips (16 topics) every one is enumerated whatever ``resamples`` says: an
# exact p costs a 65,536 × 16 matrix (8 MB) and goes down to 2 / 65,536, not 2 / (resamples + 1).
EXACT_FLIPS = 2 ** 16


def sign_flips(n: int, resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    """(every ±1 vector of length n, True) when there are at most ``resamples`` or
    ``EXACT_FLIPS``; else ``resamples`` random ones and False. Read-only: shared by every test of
    n topics."""
    if n < 63 and 2 ** n <= max(resamples, EXACT_FLIPS):
        return _every_flip(n), True
    return _random_flips(resamples, seed, n)[:resamples * n].reshape(resamples, n), False


@functools.lru_cache(maxsize=8)
def _every_flip(n: int) -> np.ndarray:
    codes = np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
    signs = np.where(codes & 1, -1.0, 1.0)
    signs.setflags(write=False)
    return signs


_STREAMS: dict[tuple[int, int], np.ndarray] = {}


def _random_flips(resamples: int, seed: int, n: int) -> np.ndarray:
    """The first ``resamples × n`` signs of seed's stream, flat: what
    ``default_rng(seed).random((resamples, n)) < 0.5`` draws, row by row, for any n up to the
    longest asked so far. One stream serves every n (pairs of runs scored on different topics
    have different n: a page of 100 runs drew 1,844 matrices, 6 s, when each n drew its own)."""
    stream = _STREAMS.get((resamples, seed))
    if stream is None or len(stream) < resamples * n:
        if len(_STREAMS) >= 4:  # 10,000 flips of 1,000 topics are 80 MB
            _STREAMS.clear()
        stream = np.where(np.random.default_rng(seed).random(resamples * n) < 0.5, -1.0, 1.0)
        stream.setflags(write=False)
        _STREAMS[(resamples, seed)] = stream
    return stream
