"""Task 1 2022 benchmark: pair building per topic on a synthetic sentence corpus of args.me size.

    python -m bench.pairs                  # 365,408 arguments as in the 2022 CSV (index build ~15 min)
    python -m bench.pairs --docs 20000     # CI-sized

Writes a synthetic 2022 sentence CSV (Zipf words from ``bench.synthetic``; premises of
log-normal length split into sentences of log-normal length, a few argumentative marker words
sprinkled in, eight arguments per debate sharing its conclusion — so duplicates are as common
as in the real corpus — and short conclusions left out of the sentence list), builds the
argument- and the sentence-level index of a variant (default: the suite's primary), and times
each stage over 50 topics: argument search, sentence search, and pair building per topic
(raw records fetched from the index, features, pairs, selection). Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import csv
import resource
import statistics
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from bench.synthetic import vocabulary, write_topics, zipf_probabilities

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "configs" / "task1-pairs" / "suite.yaml"
ARGSME_2022_SIZE = 365_408
ARGUMENTS_PER_DEBATE = 8
MARKERS = np.array(["because", "should", "therefore", "since", "must", "evidence", "would", "if"])


def write_sentence_corpus(path: Path, n_docs: int = ARGSME_2022_SIZE, vocab_size: int = 80_000,
                          median_words: int = 110, median_sentence: int = 18, short_conclusion: int = 5) -> Path:
    """A synthetic 2022 CSV; the vocabulary is the one ``write_topics`` draws its titles from."""
    rng = np.random.default_rng(42)
    vocab = vocabulary(vocab_size, rng)  # same seed and order as bench.synthetic: topics match
    probs = zipf_probabilities(vocab_size)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "conclusion", "premises", "context", "sentences"])
        chunk = 10_000
        conclusion = ""
        for start in tqdm(range(0, n_docs, chunk), desc=f"writing {path.name}", unit="10k args"):
            count = min(chunk, n_docs - start)
            lengths = np.clip(rng.lognormal(np.log(median_words), 0.9, count).astype(int), 5, 4000)
            words = vocab[rng.choice(vocab_size, size=int(lengths.sum()) + 14 * count, p=probs)]
            pos = 0
            for i in range(count):
                doc = start + i
                debate = doc // ARGUMENTS_PER_DEBATE
                if doc % ARGUMENTS_PER_DEBATE == 0:  # a new debate: its title is every argument's conclusion
                    size = int(rng.integers(2, 14))
                    conclusion = " ".join(words[pos:pos + size]).capitalize()
                    pos += size
                arg_id = f"S{debate:08x}-A{doc:08x}"
                n = int(lengths[i])
                premise_words = list(words[pos:pos + n])
                pos += n
                sentences, premise = _sentences(premise_words, rng, median_sentence)
                listed = [] if len(conclusion.split()) < short_conclusion else [
                    {"sent_id": f"{arg_id}__CONC__1", "sent_text": conclusion}]
                listed += [{"sent_id": f"{arg_id}__PREMISE__{k}", "sent_text": s} for k, s in enumerate(sentences, 1)]
                stance = "PRO" if doc % 3 else "CON"
                writer.writerow([arg_id, conclusion, repr([{"text": premise, "stance": stance, "annotations": []}]),
                                 repr({"sourceId": f"{debate:08x}", "discussionTitle": conclusion}), repr(listed)])
    tmp.replace(path)
    return path


def _sentences(words: list[str], rng: np.random.Generator, median: int) -> tuple[list[str], str]:
    sentences = []
    i = 0
    while i < len(words):
        size = max(3, int(rng.lognormal(np.log(median), 0.5)))
        chunk = words[i:i + size]
        i += size
        if rng.random() < 0.5:
            chunk.insert(int(rng.integers(0, len(chunk) + 1)), str(rng.choice(MARKERS)))
        sentences.append(" ".join(chunk).capitalize() + ".")
    return sentences, " ".join(sentences)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def directory_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=ARGSME_2022_SIZE)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument("--variant", type=Path, default=None, help="variant YAML (default: the suite's primary)")
    parser.add_argument("--heap", default="6g")
    args = parser.parse_args()

    corpus_dir = args.data / f"pairs-synthetic-{args.docs}"
    corpus = corpus_dir / "args-sentences-synthetic.csv"
    if not corpus.is_file():
        write_sentence_corpus(corpus, args.docs)
    topics_path = write_topics(corpus_dir / "topics.xml")
    index_root = args.data / f"pairs-indexes-{args.docs}"

    from touche import jvm
    jvm.start(args.heap)
    from touche.config import load_suite, load_variant
    from touche.indexing.builder import ensure_index
    from touche.retrieval.query import query_text
    from touche.retrieval.session import Session
    from touche.retrieval.tasks.task1.pairs import ArgumentStore, PairBuilder, search_sentences, sentence_variant
    from touche.specs.pairs import PairsSpec

    if args.variant is None:
        _, suite = load_suite(SUITE)
        args.variant = SUITE.parent / suite.primary
    loaded = load_variant(args.variant)
    variant = loaded.variant
    spec = variant.pairs or PairsSpec()

    print(f"corpus: {args.docs:,} synthetic arguments ({corpus.stat().st_size / 2**20:,.0f} MiB CSV); "
          f"variant {loaded.name}")
    print("\n| index | documents | build s | docs/s | size MiB |\n|---|---|---|---|---|")
    for name, v in (("arguments", variant), ("sentences", sentence_variant(variant))):
        info = ensure_index(v, corpus_dir, index_root, base_dir=loaded.path.parent, progress=False)
        build = info.meta["build"]
        print(f"| {name} | {info.documents:,} | {build['seconds']:.1f} | {build['docs_per_second']:,.0f} | "
              f"{directory_mib(info.path):,.0f} |", flush=True)

    session = Session(corpus_dir, topics_path, index_root, progress=False)
    index = ensure_index(variant, corpus_dir, index_root, base_dir=loaded.path.parent, progress=False)
    searcher = session.searcher(index, loaded)
    searcher.set_similarity(variant.retrieval.similarity)
    queries = {t.number: query_text(t, variant.query) for t in session.topics}
    titles = {t.number: t.title for t in session.topics}

    t = time.perf_counter()
    ranking = searcher.search(queries, variant.query.field_weights, variant.retrieval.top_k, variant.retrieval.threads)
    argument_seconds = time.perf_counter() - t
    t = time.perf_counter()
    sentence_ranking = search_sentences(session, loaded, queries, spec)
    sentence_seconds = time.perf_counter() - t
    searcher.set_similarity(variant.retrieval.similarity)

    builder, store = PairBuilder(spec), ArgumentStore(searcher.raw)
    per_topic, pairs, used, relaxed = [], [], [], 0
    for qid, hits in ranking.items():
        result = builder.build(qid, titles[qid], hits, sentence_ranking.get(qid, []), store)
        per_topic.append(result.seconds)
        pairs.append(len(result.pairs))
        used.append(result.arguments_used)
        relaxed += result.relaxed
    t = time.perf_counter()
    session.run(loaded)  # the whole variant as run_all.sh runs it (indexes reused)
    end_to_end = time.perf_counter() - t
    session.close()

    n = len(ranking)
    per_topic_sorted = sorted(per_topic)
    print(f"\n| stage ({n} topics) | total s | per topic ms |\n|---|---|---|")
    print(
        f"| argument search (top {variant.retrieval.top_k}) | {argument_seconds:.2f} |"
        f" {1000 * argument_seconds / n:.0f} |"
    )
    print(f"| sentence search (top {spec.sentence_retrieval.depth}) | {sentence_seconds:.2f} | "
          f"{1000 * sentence_seconds / n:.0f} |")
    print(f"| pair building: mean / median / p95 | {sum(per_topic):.2f} | {1000 * statistics.mean(per_topic):.0f} / "
          f"{1000 * statistics.median(per_topic):.0f} / {1000 * per_topic_sorted[int(0.95 * (n - 1))]:.0f} |")
    print(f"| whole variant (Session.run, indexes reused) | {end_to_end:.2f} | {1000 * end_to_end / n:.0f} |")
    print(f"\npairs per topic: min {min(pairs)}, median {int(statistics.median(pairs))}, max {max(pairs)}; "
          f"arguments used: median {int(statistics.median(used))}, max {max(used)}; topics with relaxed filters: "
          f"{relaxed}; peak RSS {peak_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
