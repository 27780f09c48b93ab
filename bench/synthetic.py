"""Synthetic corpora and topics at any scale, reproducible from a seed.

Words follow a Zipf law over a pronounceable vocabulary; lengths follow log-normal laws fitted
to real samples, so postings lists and document lengths look like the real corpora to Lucene:

- args.me-shaped (``write_corpus``): premises with a median around a hundred words and a long
  tail of multi-thousand-word debate posts (real args.me sample: median 117 words);
- passage-shaped (``write_passages``, the Touché 2022 Task 2 JSONL schema): passages of a
  median 144 words with little spread (real sample of 2,425 passages: median 144, log-sd 0.25),
  several per ClueWeb12-style document id.

``write_jsonl_collection`` converts a corpus read through our own reader into Anserini's
JsonCollection (``{"id", "contents"}`` per line, split into files: IndexCollection runs one
thread per file), so raw Anserini indexes exactly the text our ``contents`` field holds.
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
                conclusion = " ".join(words[pos:pos + conc_lengths[i]])
                pos += conc_lengths[i]
                premise = " ".join(words[pos:pos + lengths[i]])
                pos += lengths[i]
                source = f"{doc // 8:08x}"
                records.append(json.dumps({
                    "id": f"S{source}-A{doc:08x}", "conclusion": conclusion,
                    "premises": [{"text": premise, "stance": "PRO" if doc % 2 else "CON", "annotations": []}],
                    "context": {"sourceId": source, "sourceTitle": conclusion, "discussionTitle": conclusion,
                                "sourceUrl": f"https://debate.example.org/{source}",
                                "sourceDomain": "debate.example.org",
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


PASSAGES_SIZE = 868_655  # the official Task 2 2022 collection


def write_passages(directory: Path, n_passages: int, seed: int = 43, vocab_size: int = 80_000,
                   median_words: int = 144, files: int = 4) -> Path:
    """Task 2 2022-shaped passages, ``{"id": "clueweb12-…___n", "contents", "chatNoirUrl"}``
    a line, spread round-robin over ``files`` JSONL files (the collection's own is one file;
    several let IndexCollection use its threads)."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary(vocab_size, np.random.default_rng(42))  # the args.me corpus' vocabulary
    probs = zipf_probabilities(vocab_size)
    directory.mkdir(parents=True, exist_ok=True)
    tmps = [directory / f"passages-{i:02d}.jsonl.tmp" for i in range(files)]
    outs = [t.open("w", encoding="utf-8") for t in tmps]
    try:
        written, doc, part = 0, 0, 1  # part: the passage's number within its document
        while written < n_passages:
            count = min(10_000, n_passages - written)
            lengths = np.clip(rng.lognormal(np.log(median_words), 0.25, count).astype(int), 10, 1400)
            per_doc = rng.integers(1, 7, count)
            words = vocab[rng.choice(vocab_size, size=int(lengths.sum()), p=probs)]
            pos = 0
            for i in range(count):
                docid = f"clueweb12-{doc // 40000:04d}wb-{doc // 1000 % 40:02d}-{doc % 1000:05d}"
                record = {"id": f"{docid}___{part}", "contents": " ".join(words[pos:pos + lengths[i]]),
                          "chatNoirUrl": f"https://chatnoir.example.org/cache?uuid={doc:032x}&index=cw12&raw"}
                pos += lengths[i]
                outs[(written + i) % files].write(json.dumps(record) + "\n")
                part += 1
                if part > per_doc[i]:
                    doc, part = doc + 1, 1
            written += count
    finally:
        for out in outs:
            out.close()
    for tmp in tmps:
        tmp.replace(tmp.with_suffix(""))
    return directory


def write_jsonl_collection(source, directory: Path, files: int = 4) -> Path:
    """Anserini's JsonCollection from one of our corpus sources: ``{"id", "contents"}`` per
    line, where contents is exactly our ``contents`` field, round-robin over ``files`` files."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"part-{i:02d}.jsonl" for i in range(files)]
    tmps = [p.with_suffix(".tmp") for p in paths]
    outs = [t.open("w", encoding="utf-8") for t in tmps]
    try:
        for n, (docid, (contents,), _raw) in enumerate(source.documents(["contents"])):
            outs[n % files].write(json.dumps({"id": docid, "contents": contents}, ensure_ascii=False) + "\n")
    finally:
        for out in outs:
            out.close()
    for tmp, path in zip(tmps, paths):
        tmp.replace(path)
    return directory


def write_topics_tsv(queries: dict[str, str], path: Path) -> Path:
    """``qid TAB query`` (Anserini's TsvString topic reader)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{qid}\t{' '.join(text.split())}\n" for qid, text in queries.items()), encoding="utf-8")
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
