"""Full-size collections of real English text, recombined from what ``../shared`` holds.

The synthetic generator (bench/synthetic.py) writes Zipf-distributed pseudo-words: fine for
indexing and BM25, but the stages that read language (the English gate and the learned stance
models, the sentence splitter of the pairs task, the comparative-sentence features, the quality
model, the dense encoder) then see nothing like the real collections and skip or idle. Here
every document is made of real sentences:

* **Task 2 2022** (868,655 passages): each passage takes as many sentences as a real passage of
  the 2,425-passage sample (its sentence count drawn from theirs) from the pool of all their
  sentences, so sentences naming the topics' objects, comparative ones included, occur about as
  often per passage as in the sample; the 50 real 2022 topics with ``<objects>``.
* **Task 1** (387,740 args.me arguments): a real conclusion of the 10,604-argument sample and a
  premise of as many of its premise sentences as a real premise has; the 2020 topics (the 2021
  test topics are not used, not even for timing).
* **Task 1 2022 pairs** (a 365,408-argument sentence CSV): a real conclusion and 2–9 real premise
  sentences per argument; the 2022 topics.

Deterministic (fixed seeds, sentences in file order), written once and cached under
``bench/data`` like the synthetic collections. Without ``../shared`` there is no English text
to draw from: ``available()`` says so and bench.fullsize falls back to the synthetic generator,
labelling its figures as such.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
from tqdm import tqdm

from touche.paths import shared_touche_dir

TEXT = "English (sentences of ../shared's real samples, recombined)"
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def _shared() -> Path | None:
    folder = shared_touche_dir()
    return folder if folder is not None and (folder / "corpora").is_dir() else None


def available() -> bool:
    shared = _shared()
    return shared is not None and all((shared / "corpora" / name).is_file()
                                      for name in ("task2-2022-passages.sample.jsonl", "argsme-2020-04-01.sample.json"))


def split(text: str) -> list[str]:
    """Sentences by end punctuation (what recombining needs: whole real sentences, no model)."""
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if len(s.strip()) > 1]


def passage_sentences(shared: Path) -> tuple[list[str], np.ndarray]:
    """Every sentence of the real passages, and each passage's sentence count."""
    pool, counts = [], []
    with (shared / "corpora" / "task2-2022-passages.sample.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            sentences = split(json.loads(line)["contents"])
            if sentences:
                pool += sentences
                counts.append(len(sentences))
    return pool, np.asarray(counts)


def argument_parts(shared: Path) -> tuple[list[str], list[str], np.ndarray]:
    """The sample's conclusions, every premise sentence, and each premise's sentence count."""
    data = json.loads((shared / "corpora" / "argsme-2020-04-01.sample.json").read_text(encoding="utf-8"))
    conclusions, pool, counts = [], [], []
    for argument in data["arguments"]:
        if argument.get("conclusion", "").strip():
            conclusions.append(" ".join(argument["conclusion"].split()))
        for premise in argument.get("premises", []):
            sentences = split(premise.get("text", ""))
            if sentences:
                pool += sentences
                counts.append(len(sentences))
    return conclusions, pool, np.asarray(counts)


def _draw(rng: np.random.Generator, pool: list[str], counts: np.ndarray, n: int, chunk: int = 10_000):
    """``n`` texts, each of a real text's sentence count, its sentences drawn from the pool."""
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        lengths = counts[rng.integers(0, len(counts), size)]
        picks = rng.integers(0, len(pool), int(lengths.sum()))
        position = 0
        for length in lengths:
            yield [pool[i] for i in picks[position:position + length]]
            position += length


def _fresh(data: Path, name: str) -> tuple[Path, Path]:
    folder = data / name
    tmp = data / f".{name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return folder, tmp


def task2_collection(data: Path, size: int) -> Path:
    folder = data / f"task2-2022-english-{size}"
    if (folder / "passages.jsonl").is_file():
        return folder
    shared = _shared()
    folder, tmp = _fresh(data, f"task2-2022-english-{size}")
    pool, counts = passage_sentences(shared)
    rng = np.random.default_rng(52)
    with (tmp / "passages.jsonl").open("w", encoding="utf-8") as out:
        doc, part = 0, 1
        for sentences in tqdm(_draw(rng, pool, counts, size), total=size, desc="writing English passages",
                              unit=" passages", mininterval=2):
            docid = f"clueweb12-{doc // 40000:04d}wb-{doc // 1000 % 40:02d}-{doc % 1000:05d}"
            out.write(json.dumps({"id": f"{docid}___{part}", "contents": " ".join(sentences),
                                  "chatNoirUrl": f"https://chatnoir.example.org/cache?uuid={doc:032x}&index=cw12&raw"})
                      + "\n")
            part += 1
            if part > 1 + doc % 6:
                doc, part = doc + 1, 1
    shutil.copyfile(shared / "topics" / "task2-2022.xml", tmp / "topics.xml")
    tmp.rename(folder)
    return folder


def argsme_collection(data: Path, size: int) -> Path:
    folder = data / f"task1-english-{size}"
    if (folder / "topics.xml").is_file():
        return folder
    shared = _shared()
    folder, tmp = _fresh(data, f"task1-english-{size}")
    conclusions, pool, counts = argument_parts(shared)
    rng = np.random.default_rng(53)
    with (tmp / "args.json").open("w", encoding="utf-8") as out:
        out.write('{"arguments": [\n')
        for doc, sentences in enumerate(tqdm(_draw(rng, pool, counts, size), total=size,
                                             desc="writing English arguments", unit=" args", mininterval=2)):
            conclusion = conclusions[int(rng.integers(0, len(conclusions)))]
            source = f"{doc // 8:08x}"
            record = {"id": f"S{source}-A{doc:08x}", "conclusion": conclusion,
                      "premises": [{"text": " ".join(sentences), "stance": "PRO" if doc % 2 else "CON",
                                    "annotations": []}],
                      "context": {"sourceId": source, "discussionTitle": conclusion,
                                  "acquisitionTime": "2019-01-01T00:00:00Z"}}
            out.write((",\n" if doc else "") + json.dumps(record))
        out.write("\n]}\n")
    shutil.copyfile(shared / "topics" / "task1-2020.xml", tmp / "topics.xml")
    tmp.rename(folder)
    return folder


def sentenced_argument(i: int, conclusion: str, premise_sentences: list[str]):
    """Argument ``i`` of a generated 2022 sentence CSV: its conclusion and premise sentences."""
    from touche.indexing.records import Argument, Premise
    from touche.indexing.sentences import Sentence, SentencedArgument
    arg_id = f"S{i // 8:08x}-A{i:08x}"
    argument = Argument(arg_id, conclusion, (Premise(" ".join(premise_sentences), "PRO" if i % 2 else "CON"),),
                        source_id=arg_id.split("-")[0], discussion_title=conclusion)
    sentences = [Sentence(f"{arg_id}__CONC__1", conclusion, arg_id, "conclusion", 1)]
    sentences += [Sentence(f"{arg_id}__PREMISE__{n}", text, arg_id, "premise", n)
                  for n, text in enumerate(premise_sentences, 1)]
    return SentencedArgument(argument, tuple(sentences))


def pairs_collection(data: Path, size: int) -> Path:
    from touche.indexing.sentences import write_sentence_csv
    folder = data / f"pairs-english-{size}"
    if (folder / "args-sentences.csv").is_file():
        return folder
    shared = _shared()
    folder, tmp = _fresh(data, f"pairs-english-{size}")
    conclusions, pool, _ = argument_parts(shared)
    rng = np.random.default_rng(54)

    def records():
        for i in tqdm(range(size), desc="writing the English pair CSV", unit=" args", mininterval=2):
            conclusion = conclusions[int(rng.integers(0, len(conclusions)))]
            yield sentenced_argument(
                i, conclusion, [pool[j] for j in rng.integers(0, len(pool), int(rng.integers(2, 10)))]
            )
    write_sentence_csv(records(), tmp / "args-sentences.csv")
    shutil.copyfile(shared / "topics" / "task1-2022.xml", tmp / "topics.xml")
    tmp.rename(folder)
    return folder
