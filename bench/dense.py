"""Throughput of the dense feature's encoder (retrieval/encoders/dense.py, all-MiniLM-L6-v2 with numpy).

    python -m bench.dense [--texts 256] [--words 300] [--batch-size 32]

Encodes ``--texts`` synthetic passages of ``--words`` words each (every one cut at the model's
256 word pieces, as the passages of a Task 2 re-ranking are), prints texts per second, the
time to load the model and the process's peak memory. The passages are distinct, so the
encoder's cache does not help; a second pass over them shows the cached speed.
"""
from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("laptop desktop better cheaper battery screen keyboard faster portable power price students work home "
         "because however although more less than which would should prefer choose the a of and to in is it for "
         "on with as that this are be by not or have from but they you at an was can their one all").split()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args(argv)
    from touche.errors import ToucheError
    from touche.retrieval.encoders import dense

    started = time.perf_counter()
    try:
        enc = dense.encoder(dense.resolve_model(dense.DEFAULT_MODEL), 256)
    except ToucheError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    loaded = time.perf_counter() - started
    # a fresh disk cache: "cold" must not read what an earlier run of this benchmark stored
    scratch = tempfile.TemporaryDirectory(prefix="bench-dense-")
    enc.disk = dense.EncodingCache(Path(scratch.name) / "encodings.sqlite")
    enc._cache.clear()
    rng = random.Random(42)
    texts = [" ".join(rng.choice(WORDS) for _ in range(args.words)) + f" passage{i}." for i in range(args.texts)]
    started = time.perf_counter()
    enc.encode(texts, batch_size=args.batch_size)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    enc.encode(texts, batch_size=args.batch_size)
    cached = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    scratch.cleanup()
    print(
        "| model | texts × word pieces | batch × cores | load s | encode s | texts/s | cached texts/s | peak RSS MiB |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|")
    print(f"| {dense.DEFAULT_MODEL} (numpy) | {args.texts} × {enc.max_tokens} | {args.batch_size} × "
          f"{dense.usable_cores()} | {loaded:.1f} | {cold:.1f} | "
          f"{args.texts / cold:.1f} | {args.texts / max(cached, 1e-9):,.0f} | {peak:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
