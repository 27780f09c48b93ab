"""Full-size submissions, on collections of the real sizes made of real English text.

``python -m bench.fullsize [--only task1 task2-2022 pairs image] [--synthetic]`` generates (once,
cached under ``bench/data``) and measures ``touche run-all`` from scratch (fresh index root; the
dense encodings' disk cache emptied). The text is English by default, recombined from the real
samples in ../shared (bench/english.py: the stages that read language run as on the real
collections); without ../shared, or with ``--synthetic``, the Zipf pseudo-word collections below
(bench/synthetic.py), and every figure says which text it was measured on:

* **task1**: 387,740 args.me arguments, the 2020 topics: the five Task 1 variants;

* **task2-2022**: 868,655 passage-shaped records (the official collection's size) in one JSONL
  file, 50 comparative topics with ``<objects>``: the five-variant Task 2 2022 submission
  (indexes, dense re-ranking of the head, stance);
* **pairs**: a 365,408-argument 2022 sentence CSV (the official size), 50 topics: the five
  pair variants;
* **image**: 23,841 images (the 2022 collection's size) in the official layout, 50 topics:
  the five image variants. The pictures cycle through 16 distinct small images, so OCR runs 16
  times and the rest comes from its content-keyed cache (OCR of a real collection: 2.96
  images/s on 2 cores, docs/image.md).

Texts are Zipf-distributed words of one synthetic vocabulary (bench/synthetic.py) with the
topics' words mixed in, so every topic has hits. Printed: wall and CPU seconds, peak RSS of
the whole process tree, and where the time went (index builds from their metadata, each
variant from run-all's own log).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from bench import english
from bench.measure import Measured, directory_mib, python_command, run_measured
from bench.synthetic import (
    ARGSME_SIZE,
    PASSAGES_SIZE,
    vocabulary,
    write_corpus,
    write_passages,
    write_topics,
    zipf_probabilities,
)

ROOT = Path(__file__).resolve().parent.parent
PAIRS_SIZE = 365_408
IMAGES_SIZE = 23_841
VOCAB = 80_000
# (seconds, MiB) on 2 cores. task2-2022 is the target; pairs and image were set from the
# first measurement (640 s / 3.6 GiB and 120 s / 0.6 GiB, 24 November 2026) with room for a loaded machine.
TARGETS = {"task1": (300.0, 4096.0), "task2-2022": (600.0, 4096.0), "pairs": (900.0, 4096.0),
           "image": (300.0, 1024.0)}
SYNTHETIC = "synthetic (Zipf-distributed pseudo-words: the language-reading stages idle)"


def _topic_words(n_topics: int = 50) -> list[np.ndarray]:
    vocab = vocabulary(VOCAB, np.random.default_rng(42))
    pick = np.random.default_rng(7)
    return [vocab[pick.integers(20, 3000, size=4)] for _ in range(n_topics)]


def write_comparative_topics(path: Path) -> Path:
    """50 comparative topics: "Which is better, A or B for C D?" with <objects>A,B</objects>."""
    lines = ["<topics>"]
    for number, (a, b, c, d) in enumerate(_topic_words(), 1):
        lines.append(f"<topic><number>{number}</number><title>Which is better, {a} or {b} for {c} {d}?</title>"
                     f"<objects>{a},{b}</objects><description>Compare {a} and {b}.</description>"
                     "<narrative>Passages that compare them are relevant.</narrative></topic>")
    path.write_text("\n".join(lines + ["</topics>"]) + "\n")
    return path


def write_argument_topics(path: Path) -> Path:
    lines = ["<topics>"]
    for number, words in enumerate(_topic_words(), 1):
        lines.append(f"<topic><number>{number}</number><title>Should {' '.join(words)}?</title></topic>")
    path.write_text("\n".join(lines + ["</topics>"]) + "\n")
    return path


def task2_collection(data: Path, size: int = PASSAGES_SIZE) -> Path:
    folder = data / f"task2-2022-synthetic-{size}"
    if not (folder / "passages.jsonl").is_file():
        tmp = data / f".task2-2022-synthetic-{size}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        write_passages(tmp, size, files=1)
        (tmp / "passages-00.jsonl").rename(tmp / "passages.jsonl")
        write_comparative_topics(tmp / "topics.xml")
        tmp.rename(folder)
    return folder


def _sentences(rng, vocab, probs, count: int, median: int) -> list[str]:
    lengths = np.clip(rng.lognormal(np.log(median), 0.5, count).astype(int), 3, 120)
    words = vocab[rng.choice(len(vocab), size=int(lengths.sum()), p=probs)]
    out, pos = [], 0
    for n in lengths:
        text = " ".join(words[pos:pos + n])
        out.append(text[:1].upper() + text[1:] + ".")
        pos += n
    return out


def pairs_collection(data: Path, size: int = PAIRS_SIZE) -> Path:
    """A 2022 sentence CSV: every argument a conclusion and 2-9 premise sentences."""
    from touche.indexing.sentences import write_sentence_csv
    folder = data / f"pairs-synthetic-{size}"
    if (folder / "args-sentences.csv").is_file():
        return folder
    tmp = data / f".pairs-synthetic-{size}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    rng = np.random.default_rng(45)
    vocab, probs = vocabulary(VOCAB, np.random.default_rng(42)), zipf_probabilities(VOCAB)

    def records():
        for i in tqdm(range(size), desc="writing the pair CSV", unit=" args", mininterval=2):
            conclusion, *premise_sentences = _sentences(rng, vocab, probs, int(rng.integers(3, 11)), 18)
            yield english.sentenced_argument(i, conclusion, premise_sentences)
    write_sentence_csv(records(), tmp / "args-sentences.csv")
    write_argument_topics(tmp / "topics.xml")
    tmp.rename(folder)
    return folder


def image_collection(data: Path, size: int = IMAGES_SIZE) -> Path:
    """The 2022 layout: images/I<2 hex>/<id>/{image.png, image-url.txt, image-phash.txt,
    pages/<page>/{page-url.txt, rankings.jsonl, snapshot/{dom.html, text.txt, image-xpath.txt}}}."""
    from PIL import Image
    folder = data / f"image-synthetic-{size}"
    if (folder / "topics.xml").is_file():
        return folder
    tmp = data / f".image-synthetic-{size}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    rng = np.random.default_rng(46)
    vocab, probs = vocabulary(VOCAB, np.random.default_rng(42)), zipf_probabilities(VOCAB)
    topics = _topic_words()
    pictures = []
    for n in range(16):  # 16 distinct contents: OCR runs 16 times, the cache answers the rest
        buffer = Path(tmp / f"picture-{n}.png")
        Image.new("RGB", (64, 48), (16 * n, 255 - 16 * n, 128)).save(buffer)
        pictures.append(buffer.read_bytes())
        buffer.unlink()
    cues = ["good", "great", "safe", "benefit", "bad", "harm", "danger", "wrong"]
    for i in tqdm(range(size), desc="writing the image collection", unit=" images", mininterval=2):
        image_id = f"I{i:016x}"
        page_id = f"P{i:016x}"
        base = tmp / "images" / image_id[:3] / image_id
        snapshot = base / "pages" / page_id / "snapshot"
        snapshot.mkdir(parents=True)
        (base / "image.png").write_bytes(pictures[i % 16])
        (base / "image-url.txt").write_text(f"https://img.example.org/{image_id}.png\n")
        (base / "image-phash.txt").write_text(format(int(rng.integers(0, 2**62)), "064b") + "\n")
        topic = int(rng.integers(0, len(topics)))
        title_words = " ".join(topics[topic][:2])
        text = " ".join(vocab[rng.choice(VOCAB, size=int(rng.integers(60, 400)), p=probs)])
        near = f"{title_words} {cues[i % len(cues)]} " + " ".join(vocab[rng.choice(VOCAB, size=20, p=probs)])
        page = base / "pages" / page_id
        (page / "page-url.txt").write_text(f"https://pages.example.org/{page_id}\n")
        (page / "rankings.jsonl").write_text(json.dumps({"query": title_words, "topic": str(topic + 1),
                                                         "rank": int(rng.integers(1, 100))}) + "\n")
        (snapshot / "dom.html").write_text(
            f"<html><head><title>{title_words}</title></head><body><p>{text}</p>"
            f'<figure><img src="https://img.example.org/{image_id}.png" alt="{near}"></figure></body></html>')
        (snapshot / "image-xpath.txt").write_text("/HTML[1]/BODY[1]/FIGURE[1]/IMG[1]\n")
        (snapshot / "text.txt").write_text(f"{text}\n{near}\n")
    write_argument_topics(tmp / "topics.xml")
    tmp.rename(folder)
    return folder


def task1_collection(data: Path, size: int = ARGSME_SIZE) -> Path:
    folder = data / f"task1-synthetic-{size}"
    if not (folder / "topics.xml").is_file():
        tmp = data / f".task1-synthetic-{size}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        write_corpus(tmp / "args.json", size)
        write_topics(tmp / "topics.xml")
        tmp.rename(folder)
    return folder


# name → (task, English collection, synthetic collection, official size); images have no English
# counterpart (their text is the pages', which the sample does not hold at scale)
COLLECTIONS = {"task1": ("task1", english.argsme_collection, task1_collection, ARGSME_SIZE),
               "task2-2022": ("task2-stance", english.task2_collection, task2_collection, PASSAGES_SIZE),
               "pairs": ("task1-pairs", english.pairs_collection, pairs_collection, PAIRS_SIZE),
               "image": ("image", None, image_collection, IMAGES_SIZE)}
_WROTE = re.compile(r"wrote .*?/([^/ ]+)\.txt \((\d+) rows, (\d+) topics, ([\d.]+) s\)")


def measure(name: str, data: Path, fraction: float = 1.0, synthetic: bool = False) -> dict:
    task, make_english, make_synthetic, size = COLLECTIONS[name]
    size = max(200, int(size * fraction))
    use_english = make_english is not None and not synthetic and english.available()
    make, text = (make_english, english.TEXT) if use_english else (make_synthetic, SYNTHETIC)
    if make_english is not None and not synthetic and not use_english:
        print("[fullsize] ../shared is absent: no English text to recombine, falling back to the synthetic "
              "generator (labelled as such)", file=sys.stderr, flush=True)
    print(f"[fullsize] preparing {name} ({size:,}), text: {text} …", file=sys.stderr, flush=True)
    started = time.perf_counter()
    collection = make(data, size)
    prepared = time.perf_counter() - started
    work = data / f"fullsize-work-{name}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {"TOUCHE_INDEX_ROOT": str(work / "indexes"), "TOUCHE_MODEL_CACHE": str(work / "models")}
    print(f"[fullsize] run-all {name} …", file=sys.stderr, flush=True)
    m: Measured = run_measured(python_command("touche", "run-all", "--task", task, "-i", str(collection),
                                              "-o", str(work / "out")), env=env)
    variants = [(v, int(rows), float(s)) for v, rows, _, s in _WROTE.findall(m.stderr)]
    builds = []
    for meta_path in sorted((work / "indexes").glob("*/touche-index.json")):
        meta = json.loads(meta_path.read_text())
        builds.append((meta_path.parent.name[:40], meta["stats"]["documents"], meta["build"]["seconds"]))
    return {"name": name, "task": task, "size": size, "text": text, "collection": str(collection),
            "collection_mib": directory_mib(collection),
            "prepare_seconds": prepared, "seconds": m.seconds, "cpu_seconds": m.cpu_seconds,
            "peak_rss_mib": m.peak_rss_mib, "variants": variants, "index_builds": builds}


def result_path(data: Path, name: str, size: int, text_english: bool = True) -> Path:
    """Where main() keeps a submission's measurement and summary() finds it (English and
    synthetic figures apart)."""
    return data / f"fullsize-{name}-{size}{'-english' if text_english else ''}.json"


def judged(name: str, r: dict) -> str:
    """The submission's targets and whether the measurement ``r`` meets both."""
    seconds_target, rss_target = TARGETS[name]
    met = r["seconds"] < seconds_target and r["peak_rss_mib"] < rss_target
    return f"< {seconds_target:.0f} s, < {rss_target / 1024:g} GiB: " + ("met" if met else "NOT met")


def report(r: dict) -> str:
    lines = [f"### {r['name']} ({r['size']:,}): five-variant `touche run-all --task {r['task']}` from scratch",
             "", f"text: {r.get('text', SYNTHETIC)}; collection {r['collection_mib']:,.0f} MiB (generated once in "
                 f"{r['prepare_seconds']:.0f} s)", "",
             "| what | seconds |", "|---|---:|"]
    for variant, rows, seconds in r["variants"]:
        lines.append(f"| variant {variant} ({rows:,} rows; its index if first to need it, search, re-ranking, "
                     f"write) | {seconds:.1f} |")
    for name, documents, seconds in r["index_builds"]:
        lines.append(f"| … of which index {name}… ({documents:,} documents) | ({seconds:.1f}) |")
    accounted = sum(s for *_, s in r["variants"])
    lines += [f"| the rest (start, reading topics, corpus checks, evaluation) | {r['seconds'] - accounted:.1f} |",
              f"| **total wall** | **{r['seconds']:.1f}** |", "",
              f"CPU {r['cpu_seconds']:.0f} s; peak RSS {r['peak_rss_mib']:,.0f} MiB (process tree). "
              f"Targets: {judged(r['name'], r)}", ""]
    return "\n".join(lines)


def summary(data: Path) -> str:
    """One row per submission measured at its official size (the JSON files main() leaves), with the
    day it was measured: what `python -m bench` prints when it does not run them again."""
    lines = ["### Full-size submissions (five-variant `touche run-all` from scratch, official sizes)", "",
             "| submission | size | wall s | CPU s | peak RSS MiB | target | measured |",
             "|---|---:|---:|---:|---:|---|---|"]
    found = False
    for name, (_task, _english, _synthetic, size) in COLLECTIONS.items():
        path = result_path(data, name, size)
        if not path.exists():
            path = result_path(data, name, size, text_english=False)
        if not path.exists():
            lines.append(f"| {name} | {size:,} | | | | | not yet: `python -m bench.fullsize --only {name}` |")
            continue
        found = True
        r = json.loads(path.read_text())
        lines.append(f"| {name} | {size:,} | {r['seconds']:.1f} | {r['cpu_seconds']:.0f} | {r['peak_rss_mib']:,.0f} | "
                     f"{judged(name, r)}; {r.get('text', SYNTHETIC).split(' (')[0]} | "
                     f"{time.strftime('%Y-%m-%d', time.localtime(path.stat().st_mtime))} |")
    if not found:
        lines += ["", "(none measured yet: `python -m bench --fullsize` or `python -m bench.fullsize`)"]
    return "\n".join(lines + [""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fullsize", description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", choices=list(COLLECTIONS), default=list(COLLECTIONS))
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument("--fraction", type=float, default=1.0,
                        help="collections at this fraction of the real sizes (a quick check of the machinery)")
    parser.add_argument("--synthetic", action="store_true",
                        help="the pseudo-word collections even where ../shared's English text is there")
    args = parser.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    print(f"[fullsize] text: {english.TEXT if english.available() and not args.synthetic else SYNTHETIC}",
          file=sys.stderr, flush=True)
    for name in args.only:
        result = measure(name, args.data, args.fraction, args.synthetic)
        result_path(args.data, name, result["size"], result["text"] == english.TEXT).write_text(
            json.dumps(result, indent=2))
        print(report(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
