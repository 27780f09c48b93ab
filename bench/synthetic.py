"""Synthetic args.me-shaped corpora and topics at any scale, reproducible from a seed.

Words follow a Zipf law over a pronounceable vocabulary, premise lengths a log-normal law
(args.me premises: median around a hundred words, a long tail of multi-thousand-word debate
posts), so postings lists and document lengths look like the real corpus to Lucene.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

ARGSME_SIZE = 387_740
SYLLABLES = [c + v for c in "bcdfghklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]


def vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    words = set()
    while len(words) < size:
        n = rng.integers(1, 4)
        words.add("".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n)))
    return rng.permutation(np.array(sorted(words)))  # frequency rank independent of spelling


def zipf_probabilities(size: int, exponent: float = 1.07) -> np.ndarray:
    p = 1.0 / np.arange(1, size + 1) ** exponent
    return p / p.sum()


def write_corpus(path: Path, n_docs: int = ARGSME_SIZE, seed: int = 42, vocab_size: int = 80_000,
                 median_words: int = 110) -> Path:
    rng = np.random.default_rng(seed)
    vocab = vocabulary(vocab_size, rng)
    probs = zipf_probabilities(vocab_size)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write('{"arguments": [\n')
        chunk = 10_000
        for start in tqdm(range(0, n_docs, chunk), desc=f"writing {path.name}", unit="k docs"):
            count = min(chunk, n_docs - start)
            lengths = np.clip(rng.lognormal(np.log(median_words), 0.9, count).astype(int), 5, 4000)
            conc_lengths = rng.integers(3, 14, count)
            words = vocab[rng.choice(vocab_size, size=int(lengths.sum() + conc_lengths.sum()), p=probs)]
            pos = 0
            records = []
            for i in range(count):
                doc = start + i
                conclusion = " ".join(words[pos:pos + conc_lengths[i]]); pos += conc_lengths[i]
                premise = " ".join(words[pos:pos + lengths[i]]); pos += lengths[i]
                source = f"{doc // 8:08x}"
                records.append(json.dumps({
                    "id": f"S{source}-A{doc:08x}", "conclusion": conclusion,
                    "premises": [{"text": premise, "stance": "PRO" if doc % 2 else "CON", "annotations": []}],
                    "context": {"sourceId": source, "sourceTitle": conclusion, "discussionTitle": conclusion,
                                "sourceUrl": f"https://debate.example.org/{source}", "sourceDomain": "debate.example.org",
                                "previousArgumentInSourceId": "", "nextArgumentInSourceId": "",
                                "acquisitionTime": "2019-01-01T00:00:00Z"}}))
            out.write((",\n" if start else "") + ",\n".join(records))
        out.write("\n]}\n")
    tmp.replace(path)
    return path


def write_topics(path: Path, n_topics: int = 50, seed: int = 7, vocab_size: int = 80_000) -> Path:
    """Topic titles from mid-frequency words (as real titles use), so 1,000 hits exist per topic."""
    rng = np.random.default_rng(42)
    vocab = vocabulary(vocab_size, rng)
    pick = np.random.default_rng(seed)
    lines = ["<topics>"]
    for number in range(1, n_topics + 1):
        words = vocab[pick.integers(20, 3000, size=pick.integers(3, 7))]
        lines.append(f"<topic><number>{number}</number><title>Should {' '.join(words)}?</title></topic>")
    lines.append("</topics>")
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--docs", type=int, default=ARGSME_SIZE)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    write_corpus(args.output_dir / "args-synthetic.json", args.docs, args.seed)
    write_topics(args.output_dir / "topics.xml")


if __name__ == "__main__":
    main()
