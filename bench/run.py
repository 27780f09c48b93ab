"""Foundation benchmark: index a synthetic args.me-sized corpus with every analyzer chain of the
Task 1 suite, then time the five runs (50 topics × 1,000 hits each). Prints a table.

    python -m bench.run                 # full scale: 387,740 arguments (about 10 minutes)
    python -m bench.run --docs 20000    # CI-sized
"""
from __future__ import annotations

import argparse
import resource
import shutil
import time
from pathlib import Path

from bench.synthetic import ARGSME_SIZE, write_corpus, write_topics

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "configs" / "task1" / "suite.yaml"


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def directory_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=ARGSME_SIZE)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument("--heap", default="6g")
    args = parser.parse_args()

    corpus_dir = args.data / f"argsme-synthetic-{args.docs}"
    corpus = corpus_dir / "args-synthetic.json"
    if not corpus.is_file():
        write_corpus(corpus, args.docs)
    write_topics(corpus_dir / "topics.xml")
    index_root = args.data / f"indexes-{args.docs}"
    shutil.rmtree(index_root, ignore_errors=True)  # measure building, not reuse
    out = args.data / f"runs-{args.docs}"

    from touche import jvm
    t = time.perf_counter()
    jvm.start(args.heap)
    jvm_seconds = time.perf_counter() - t

    from indexing.builder import ensure_index
    from retrieval.pipeline import Session
    from touche.config import load_suite, load_variant
    _, suite = load_suite(SUITE)
    variants = [load_variant(SUITE.parent / v) for v in suite.variants]

    print(f"corpus: {args.docs:,} synthetic arguments ({corpus.stat().st_size / 2**20:.0f} MiB JSON); "
          f"JVM start {jvm_seconds:.2f} s")
    print("\n| index (analyzer chain) | fields | docs/s | seconds | size MiB |\n|---|---|---|---|---|")
    seen = set()
    for loaded in variants:
        v = loaded.variant
        if v.index_key() in seen:
            continue
        seen.add(v.index_key())
        info = ensure_index(v, corpus_dir, index_root, base_dir=loaded.path.parent, progress=False)
        a = v.analyzer
        chain = f"{a.stemmer}, stop={a.stoplist}" + (f", shingles {a.shingles.min_size}-{a.shingles.max_size}" if a.shingles else "")
        build = info.meta["build"]
        print(f"| {chain} | {'+'.join(v.index.fields)} | {build['docs_per_second']:,.0f} | {build['seconds']:.1f} | "
              f"{directory_mib(info.path):.0f} |", flush=True)

    print("\n| variant | topics | hits | seconds |\n|---|---|---|---|")
    session = Session(corpus_dir, corpus_dir / "topics.xml", index_root, progress=False)
    out.mkdir(parents=True, exist_ok=True)
    total = time.perf_counter()
    for loaded in variants:
        t = time.perf_counter()
        result = session.run(loaded)
        session.write(result, out / f"{loaded.name}.txt")
        hits = sum(len(h) for h in result.ranking.values())
        print(f"| {loaded.name} | {len(result.ranking)} | {hits:,} | {time.perf_counter() - t:.2f} |", flush=True)
    session.close()
    print(f"\nfive runs: {time.perf_counter() - total:.1f} s (indexes reused); peak RSS {peak_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
