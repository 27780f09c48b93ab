"""The run explorer: several runs of one task, their judgements and texts, as one HTML file.

``touche explore RUN... --qrels Q [-i CORPUS] [-t TOPICS] -o explore.html`` (and ``run-all``
beside ``evaluation.md`` when qrels are known) writes a page that answers what the mean tables
cannot: which topics a variant lost against the baseline, and which documents did it.

* **Overview** (plain HTML, readable with JavaScript off): runs × measures with their 95 %
  topic-bootstrap intervals, the difference to the baseline, the paired randomization p and that
  p corrected for the runs tested (``retrieval/evaluation/experiment.py``); a chart per run of
  the per-topic differences to the baseline, sorted, each bar a link to its topic; the table of
  every topic's values.
* **Topic view** (rendered from the embedded JSON, one topic at a time, so 1,000 topics stay
  light): the top k of every run side by side, each document with its labels (relevance,
  quality, stance; *unjudged* marked, which Touché's condensed nDCG drops), its rank in the
  other runs, its length and a snippet with the topic's terms marked; what entered and left the
  top 5 against the baseline. Task 2 2022: the predicted stance beside the judged one; sentence
  pairs: both sentences; images: the thumbnails. Keys: → / j next topic, ← / k previous, b the
  next run as baseline.

The file is self-contained: styles, script, data and thumbnails are inline; it requests nothing.
It is written atomically; bad input (runs of two tasks, runs without a common topic, qrels that
do not fit the runs, an output path that is a folder) is a located error before anything is
written. A document absent from the corpus is shown as absent.
"""
from __future__ import annotations

import hashlib
import logging
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from touche.indexing.corpora import document_texts, open_corpus
from touche.retrieval.evaluation.experiment import experiment, score_runs
from touche.retrieval.evaluation.registry import leaderboard_measures, ranking_measure
from touche.retrieval.evaluation.measures import (cached_qrels, canonical_topic, canonical_topics, named_qrels,
                                                  valid_rows)
from touche.retrieval.experiments.contact_sheet import ImageRecords, highlight, snippet, thumbnail
from touche.retrieval.experiments.explorer_page import render_explorer
from touche.retrieval.formats.qrels import QrelsKind
from touche.retrieval.formats.runfile import RunFormat, RunRow, detect_format, natural_key
from touche.retrieval.formats.topics import Topic, read_topics
from touche.retrieval.tasks import corpus_format_of
from touche.retrieval.tasks.image import topic_terms
from touche.atomic import check_not_an_input, check_writable, write_text
from touche.errors import InputError, ToucheError
from touche.inputs import distinct_labels

log = logging.getLogger(__name__)

__all__ = ["write_explorer", "explorer_data", "render_explorer", "read_documents"]

DEFAULT_TOP = 10
SNIPPET_CHARS = 320
EXPLORER_FILE = "explore.html"
_KIND_FITS = {QrelsKind.GRADED: (RunFormat.Q0, RunFormat.PAIRS, RunFormat.STANCE),
              QrelsKind.STANCE: (RunFormat.STANCE,), QrelsKind.IMAGE: (RunFormat.IMAGE,)}


# --------------------------------------------------------------------------- documents
@dataclass(frozen=True)
class Document:
    text: str  # what the snippet is cut from (a pair: both sentences, one per line)
    words: int
    thumbnail: str | None = None  # an image's data: URI


@dataclass
class Documents:
    """The texts of the documents the page shows, read once from the corpus (only those)."""
    found: dict[str, Document] = field(default_factory=dict)
    corpus: str | None = None  # what was read, for the page's header

    def get(self, docid: str) -> Document | None:
        return self.found.get(docid)


def _words(text: str) -> int:
    return len(text.split())


def read_documents(corpus: Path, corpus_format: str, docids: set[str], *, progress: bool = False,
                   stored=None) -> Documents:
    """The documents of ``docids`` (pairs ``s1,s2`` as their two sentences) from the corpus
    (``indexing.corpora.document_texts``: from an index's stored records when ``stored`` gives
    them, else one streaming pass); images are read from their folders."""
    out = Documents(corpus=str(corpus))
    if corpus_format == "images":
        images = ImageRecords(corpus)
        for docid in tqdm(sorted(docids), desc="images", unit=" image", disable=not progress):
            features = images.get(docid)
            if features is None:
                continue
            texts = features.texts
            text = " · ".join(t for t in (texts.get("page_title", ""), texts.get("alt_text", ""),
                                          texts.get("near_text", "")) if t.strip())
            found = thumbnail(images.files[docid])
            out.found[docid] = Document(text, _words(text), found[0] if found else None)
        return out
    texts = document_texts(open_corpus(corpus_format, corpus), set(docids), progress=progress, stored=stored)
    for docid, text in texts.items():
        out.found[docid] = Document(text, _words(text))
    return out


# --------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class LoadedRuns:
    runs: dict[str, list[RunRow]]  # name → rows (topic ids canonical)
    format: RunFormat
    paths: dict[str, Path]
    folded: dict[str, str] = field(default_factory=dict)  # a byte copy's name → the run it copies


def load_runs(paths: Sequence[str | os.PathLike], names: Sequence[str] | None = None) -> LoadedRuns:
    """Validated runs of one format under distinct names, with at least one topic in common."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ToucheError("give at least one run file")
    labels = list(names) if names else distinct_labels(paths, label=lambda p: p.stem, what="run file")
    formats: dict[Path, RunFormat] = {}
    runs: dict[str, list[RunRow]] = {}
    digests: dict[str, str] = {}  # content → the first run that has it
    folded: dict[str, str] = {}
    for label, path in zip(labels, paths):
        if not path.is_file():
            raise InputError("run file not found", path=path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in digests:  # run.txt beside its variant's file: one run, shown once (and tested once)
            folded[label] = digests[digest]
            log.warning("note: %s is a byte copy of %s: shown once", path, paths[labels.index(digests[digest])])
            continue
        digests[digest] = label
        fmt = detect_format(path)
        first = next(iter(formats.items()), None)
        if first is not None and fmt is not first[1]:
            raise InputError(f"this run is a {fmt.name} run, {first[0]} a {first[1].name} run: runs of different "
                             "tasks cannot be compared on one page", path=path)
        formats[path] = fmt
        runs[label] = canonical_topics(valid_rows(path, fmt))
    topic_sets = {label: {r.qid for r in rows} for label, rows in runs.items()}
    kept = list(runs)
    first_label = kept[0]
    for label in kept[1:]:
        if not topic_sets[label] & topic_sets[first_label]:
            raise InputError(f"this run and {paths[0]} have no topic in common (this one: "
                             f"{_sample(topic_sets[label])}; that one: {_sample(topic_sets[first_label])}): "
                             "are they for the same topics?", path=paths[labels.index(label)])
    return LoadedRuns(runs, formats[paths[0]], {label: paths[labels.index(label)] for label in kept}, folded)


def _sample(ids: set[str]) -> str:
    shown = sorted(ids, key=natural_key)
    return ", ".join(shown[:5]) + (f", … ({len(shown)})" if len(shown) > 5 else "")


def check_qrels(qrels: Mapping[str, Path], fmt: RunFormat, runs: Mapping[str, list[RunRow]]) -> dict[str, QrelsKind]:
    """Each qrels file of a kind that fits the runs, and judging at least one of their topics."""
    kinds = {}
    topics = {r.qid for rows in runs.values() for r in rows}
    for name, path in qrels.items():
        judged = cached_qrels(path)
        if fmt not in _KIND_FITS[judged.kind]:
            raise InputError(f"these are {judged.kind.value} qrels, which do not judge {fmt.name} runs (qrels of "
                             "another task?)", path=path)
        if not {canonical_topic(q) for q in judged.topics()} & topics:
            raise InputError(f"these qrels judge none of the runs' topics (qrels: {_sample(set(judged.topics()))}; "
                             f"runs: {_sample(topics)}): qrels of another year or task?", path=path)
        pairs = {(canonical_topic(q), d) for q, docs in judged.judgments.items() for d in docs}
        for run, rows in runs.items():
            if not any((r.qid, r.docid) in pairs for r in rows):
                raise InputError(f"these qrels judge none of the documents of run {run} (its ids: "
                                 f"{_sample({r.docid for r in rows})}): qrels of another task or collection?",
                                 path=path)
        kinds[name] = judged.kind
    return kinds


def default_measures(kinds: Mapping[str, QrelsKind]) -> list[str]:
    return leaderboard_measures(kinds.values())


# --------------------------------------------------------------------------- the page's data
def explorer_data(loaded: LoadedRuns, qrels: Mapping[str, Path], *, topics: Mapping[str, Topic] | None = None,
                  documents: Documents | None = None, baseline: str | None = None, top: int = DEFAULT_TOP,
                  measures: Sequence[str] | None = None, title: str = "Run explorer") -> dict:
    """Everything the page shows, as JSON-ready data (see ``render_explorer``)."""
    if top < 1:
        raise ToucheError(f"--top must be at least 1, got {top}")
    names = list(loaded.runs)
    base = baseline if baseline is not None else names[0]
    if base not in loaded.runs:
        raise ToucheError(f"baseline {base!r} is not one of the runs ({', '.join(names)})")
    kinds = check_qrels(qrels, loaded.format, loaded.runs)
    measures = list(measures) if measures else default_measures(kinds)
    scores = score_runs(loaded.runs, dict(qrels), measures)
    table = experiment(loaded.runs, dict(qrels), measures, baseline=base, scores=scores)
    main = ranking_measure(list(table["measure"]))
    labelled_measures = list(table["measure"].unique())  # the measures as labelled per qrels (relevance:touche.nDCG@5 …)
    per_topic = scores[1]
    judgments = {name: {canonical_topic(q): v for q, v in cached_qrels(path).judgments.items()}
                 for name, path in qrels.items()}
    topics = topics or {}
    by_run_topic: dict[str, dict[str, list[RunRow]]] = {}
    for name, rows in loaded.runs.items():
        grouped: dict[str, list[RunRow]] = {}
        for row in rows:
            grouped.setdefault(row.qid, []).append(row)
        by_run_topic[name] = grouped
    topic_ids = sorted({q for grouped in by_run_topic.values() for q in grouped}, key=natural_key)
    topic_records = []
    thumbnails: dict[str, str] = {}
    for qid in topic_ids:
        topic = topics.get(qid)
        terms = topic_terms(topic.title) if topic else frozenset()
        hits: dict[str, list] = {}
        shown: dict[str, dict] = {}
        rank_in: dict[str, dict[str, int]] = {}
        for name in names:
            ranked = by_run_topic[name].get(qid, [])
            rank_in[name] = {}
            for row in sorted(ranked, key=lambda r: r.rank):
                rank_in[name].setdefault(row.docid, row.rank)
            hits[name] = [[r.docid, r.rank, round(r.score, 6), r.column2] for r in _top_rows(ranked, top, loaded.format)]
            for docid, *_ in hits[name]:
                shown.setdefault(docid, {})
        for docid, record in shown.items():
            record["labels"] = {q: _label(judgments[q].get(qid, {}), docid) for q in qrels}
            doc = documents.get(docid) if documents is not None else None
            if documents is None:
                record["absent"] = None  # no corpus given: nothing to say
            elif doc is None:
                record["absent"] = True
            else:
                record["words"] = doc.words
                record["snippet"] = highlight(snippet(doc.text, terms, SNIPPET_CHARS), terms, frozenset(), frozenset())
                if doc.thumbnail:
                    thumbnails[docid] = doc.thumbnail
            record["ranks"] = {name: rank_in[name].get(docid) for name in names}
        values = {name: {m: _number(per_topic[name].get(m, {}).get(qid)) for m in labelled_measures}
                  for name in names}
        entry = {"id": qid, "title": topic.title if topic else "", "description": topic.description if topic else "",
                 "objects": list(topic.objects) if topic else [], "values": values, "hits": hits, "docs": shown,
                 "judged": {q: len(judgments[q].get(qid, {})) for q in qrels}}
        topic_records.append(entry)
    overview = [{k: _json_value(v) for k, v in row.items()} for row in table.to_dict(orient="records")]
    return {"title": title, "format": loaded.format.name, "runs": names, "baseline": base, "main": main,
            "measures": labelled_measures, "qrels": {n: k.value for n, k in kinds.items()},
            # file names only: a page is shared, the paths of the machine that wrote it are not
            "files": {n: p.name for n, p in loaded.paths.items()},
            "corpus": Path(documents.corpus).name if documents and documents.corpus else None,
            "folded": dict(loaded.folded),
            "top": top, "overview": overview, "topics": topic_records, "thumbnails": thumbnails,
            "created": time.strftime("%Y-%m-%d %H:%M")}


def _label(judged: Mapping, docid: str):
    value = judged.get(docid)
    if value is None:
        return None
    if isinstance(value, Mapping):  # image qrels: aspect → 0/1
        return {k: int(v) for k, v in value.items()}
    return value if isinstance(value, str) else int(value)


def _number(value) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def _json_value(value):
    if value is None:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if hasattr(value, "item"):  # numpy / pandas scalars
        return _json_value(value.item())
    if value is pd.NA:
        return None
    return value


# --------------------------------------------------------------------------- the page
def write_explorer(run_paths: Sequence[str | os.PathLike], qrels: Mapping[str, str | os.PathLike] | Sequence,
                   out_html: str | os.PathLike, *, corpus: str | os.PathLike | None = None,
                   corpus_format: str | None = None, topics: str | os.PathLike | None = None,
                   baseline: str | None = None, top: int = DEFAULT_TOP, names: Sequence[str] | None = None,
                   measures: Sequence[str] | None = None, documents: Documents | None = None,
                   stored=None, progress: bool = False) -> Path:
    """Check the inputs, read what the page shows, and write it atomically; returns its path.
    ``documents``: texts already read (``read_documents``) instead of reading ``corpus``;
    ``stored``: an index's raw records by id (``Searcher.raw``), read instead of the corpus."""
    out = Path(out_html)
    check_writable(out, "explorer page")
    named = {str(n) if n else "relevance": Path(p) for n, p in named_qrels(qrels)}
    check_not_an_input(out, [*run_paths, *named.values(), topics], "explorer page")
    loaded = load_runs(run_paths, names)
    if not named:
        raise ToucheError("give at least one qrels file: the explorer shows what the judgements say")
    topic_map = {canonical_topic(t.number): t for t in read_topics(topics)} if topics else {}
    if documents is None and corpus is not None:
        fmt = corpus_format or corpus_format_of(loaded.format, Path(corpus))
        documents = read_documents(Path(corpus), fmt, shown_docids(loaded.runs, top, loaded.format),
                                   progress=progress, stored=stored)
    title = f"Run explorer · {len(loaded.runs)} runs"
    data = explorer_data(loaded, named, topics=topic_map, documents=documents, baseline=baseline, top=top,
                         measures=measures, title=title)
    return write_text(out, render_explorer(data))


def shown_docids(runs: Mapping[str, list[RunRow]], top: int, fmt: RunFormat) -> set[str]:
    """The documents the page shows: every run's top ``top`` per topic (and stance, for images)."""
    return {h.docid for rows in runs.values() for h in _top_rows(rows, top, fmt)}


def _top_rows(rows: list[RunRow], top: int, fmt: RunFormat) -> list[RunRow]:
    """The rows the page shows, in rank order: the first ``top`` (of each stance, for image runs)."""
    image = fmt is RunFormat.IMAGE
    ranked = sorted(rows, key=lambda r: (r.qid, r.column2 if image else "", r.rank, -r.score))
    out, seen = [], {}
    for row in ranked:
        group = (row.qid, row.column2 if image else "")
        seen[group] = seen.get(group, 0) + 1
        if seen[group] <= top:
            out.append(row)
    return out
