"""The run explorer: several runs of one task, their judgements (if any) and texts, as one HTML file.

``touche explore RUN... [--qrels Q] [-i CORPUS] [-t TOPICS] -o explore.html`` (and ``run-all``
beside its runs) writes a page that answers what the mean tables cannot: where two runs differ
(before any judgement exists: RBO, Jaccard and rank correlations of their rankings, topic by
topic, ``evaluation.agreement``), which topics a variant lost against the baseline, and which
documents did it. The numbers are computed in ``data``; the exports (Markdown, LaTeX,
CSV) in ``export``; the page in ``page`` and its templates.

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

import dataclasses
import hashlib
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from touche import guard, sources
from touche.atomic import check_writable, write_text
from touche.errors import InputError, ToucheError
from touche.guard import OutputFolder
from touche.indexing.corpora import document_texts, open_corpus
from touche.inputs import distinct_labels, printable_label, resolve_input
from touche.progress import progress_bar
from touche.retrieval.evaluation.agreement import AGREEMENT_DEPTH, DEFAULT_PERSISTENCE, check_persistence, pair_count
from touche.retrieval.evaluation.collection import Collection, on_collection
from touche.retrieval.evaluation.measures import QrelsArg, QrelsSource, checked_selection, named_qrels
from touche.retrieval.evaluation.significance import DEFAULT_RESAMPLES, check_correction, check_resamples, check_test
from touche.retrieval.experiments.contact_sheet import ImageRecords, thumbnail
from touche.retrieval.experiments.explorer.data import explorer_data
from touche.retrieval.experiments.explorer.export import EXPORTS
from touche.retrieval.experiments.explorer.page import render_explorer
from touche.retrieval.formats.gate import is_frame, load_qrels, load_run, load_topics
from touche.retrieval.formats.qrels import QrelsKind
from touche.retrieval.formats.runfile import RunFormat, canonical_topic, detect_format, natural_key
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.runwriter import WrittenRun
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.tasks import corpus_format_of

log = logging.getLogger(__name__)

__all__ = ["write_explorer", "explorer_data", "render_explorer", "read_documents", "AGREEMENT_DEPTH"]

DEFAULT_TOP = 10
EXPLORER_FILE = "explore.html"
# 300 runs are 44,850 pairs: with 6 topics the page is 5 MB; 1,000 runs would be 499,500 pairs
MAX_RUNS = 300
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
        for docid in progress_bar(sorted(docids), desc="images", unit=" image", disable=not progress):
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
    runs: dict[str, RunTable]  # name → its rows as columns (topic ids canonical)
    format: RunFormat
    paths: dict[str, Path]
    folded: dict[str, str] = field(default_factory=dict)  # a byte copy's name → the run it copies


def load_runs(paths: Sequence[str | os.PathLike | pd.DataFrame], names: Sequence[str] | None = None) -> LoadedRuns:
    """Validated runs of one format under distinct names, with at least one topic in common; a run
    may be a frame (the Python API's, PyTerrier's), read by the same gate."""
    if not paths:
        raise ToucheError("give at least one run file")
    if any(is_frame(p) or isinstance(p, WrittenRun) for p in paths):
        return _load_frames(paths, names)
    files = [Path(p) for p in paths]
    labels = [printable_label(n) for n in names] if names else \
        distinct_labels(files, label=lambda p: p.stem, what="run file")
    formats: dict[Path, RunFormat] = {}
    runs: dict[str, RunTable] = {}
    digests: dict[str, str] = {}  # content → the first run that has it
    folded: dict[str, str] = {}
    for path in files:
        if not sources.exists(path):  # a file, or a pipe (read once: sources.reading)
            raise InputError("run file not found", path=path)
    sizes = [len(sources.read_bytes(path)) if sources.is_stream(path) else path.stat().st_size for path in files]
    for label, path, size in zip(labels, files, sizes):
        # only a file of another's size can be its copy: the others are not hashed
        digest = hashlib.sha256(sources.read_bytes(path)).hexdigest() if sizes.count(size) > 1 else f"size {size}"
        if digest in digests:  # run.txt beside its variant's file: one run, shown once (and tested once)
            folded[label] = digests[digest]
            log.warning("note: %s is a byte copy of %s: shown once", path, files[labels.index(digests[digest])])
            continue
        digests[digest] = label
        fmt = detect_format(path)
        first = next(iter(formats.items()), None)
        if first is not None and fmt is not first[1]:
            raise InputError(f"this run is a {fmt.name} run, {first[0]} a {first[1].name} run: runs of different "
                             "tasks cannot be compared on one page", path=path)
        formats[path] = fmt
        runs[label] = load_run(path, fmt)
    topic_sets = {label: table.topics() for label, table in runs.items()}
    kept = list(runs)
    first_label = kept[0]
    for label in kept[1:]:
        if not topic_sets[label] & topic_sets[first_label]:
            raise InputError(f"this run and {files[0]} have no topic in common (this one: "
                             f"{_sample(topic_sets[label])}; that one: {_sample(topic_sets[first_label])}): "
                             "are they for the same topics?", path=files[labels.index(label)])
    return LoadedRuns(runs, formats[files[0]], {label: files[labels.index(label)] for label in kept}, folded)


def _load_frames(sources, names) -> LoadedRuns:
    if not names or len(names) != len(sources) or len(set(names)) != len(names):
        raise ToucheError("runs given as frames need distinct names, one per run")
    runs = {printable_label(str(name)): load_run(source, name=str(name)) for name, source in zip(names, sources)}
    paths = {printable_label(str(name)): source.path if isinstance(source, WrittenRun) else Path(str(name))
             for name, source in zip(names, sources)}
    formats = {table.format for table in runs.values()}
    if len(formats) > 1:
        raise InputError(f"the runs are of {len(formats)} tasks ({', '.join(sorted(f.name for f in formats))}): "
                         "runs of different tasks cannot be compared on one page")
    first = next(iter(runs))
    for label, table in runs.items():
        if not table.topics() & runs[first].topics():
            raise InputError(f"run {label} and run {first} have no topic in common")
    return LoadedRuns(runs, formats.pop(), paths)


def _sample(ids: set[str]) -> str:
    shown = sorted(ids, key=natural_key)
    return ", ".join(shown[:5]) + (f", … ({len(shown)})" if len(shown) > 5 else "")


def check_qrels(qrels: Mapping[str, QrelsSource], fmt: RunFormat, runs: Mapping[str, RunTable]) -> dict[str, QrelsKind]:
    """Each qrels file of a kind that fits the runs, judging at least one of their topics and at
    least one document of each run."""
    kinds = {}
    topics = set().union(*(table.topics() for table in runs.values()))
    for name, path in qrels.items():
        judged = load_qrels(path)
        if fmt not in _KIND_FITS[judged.kind]:
            raise InputError(f"these are {judged.kind.value} qrels, which do not judge {fmt.name} runs (qrels of "
                             "another task?)", path=str(path))
        if not judged.topics() & topics:
            raise InputError(f"these qrels judge none of the runs' topics (qrels: {_sample(set(judged.topics()))}; "
                             f"runs: {_sample(topics)}): qrels of another year or task?", path=str(path))
        for run, table in runs.items():
            if not table.judged_mask(judged.judgments).any():
                raise InputError(f"these qrels judge none of the documents of run {run} (its ids: "
                                 f"{_sample(set(table.frame['docid'].head(5).tolist()))}): qrels of another task "
                                 "or collection?", path=str(path))
        kinds[name] = judged.kind
    return kinds


# --------------------------------------------------------------------------- the page
def write_explorer(run_paths: Sequence[str | os.PathLike | WrittenRun],
                   qrels: QrelsArg | None,
                   out_html: str | os.PathLike, *, corpus: str | os.PathLike | None = None,
                   corpus_format: str | None = None, topics: str | os.PathLike | None = None,
                   baseline: str | None = None, top: int = DEFAULT_TOP, names: Sequence[str] | None = None,
                   measures: Sequence[str] | None = None, documents: Documents | None = None,
                   stored=None, progress: bool = False, test: str = "randomization", correction: str = "holm",
                   rbo_p: float = DEFAULT_PERSISTENCE, exports: Mapping[str, str | os.PathLike] | None = None,
                   resamples: int = DEFAULT_RESAMPLES, into: OutputFolder | None = None,
                   selection: TopicSelection | None = None, restrict: bool = False,
                   collection: Collection | None = None,
                   headers: Mapping[str, str] | Sequence[str] | None = None) -> Path:
    """Check the inputs, read what the page shows, and write it atomically; returns its path.
    ``qrels``: none (the runs compared by how their rankings agree), or named files;
    ``documents``: texts already read (``read_documents``) instead of reading ``corpus``;
    ``stored``: an index's raw records by id (``Searcher.raw``), read instead of the corpus;
    ``exports``: {"markdown" | "latex" | "csv": path} files to write beside the page (against the
    baseline); ``into``: the output folder the page lies in (run-all's), which writes it only
    where it may and records it; ``selection``: the topics the page shows (checked against the
    topics file, else the runs and qrels). ``corpus`` may be a TIRA input folder (its topics and
    the qrels it holds are then the defaults). A run holding documents the corpus lacks is
    cautioned on the page and in the log; ``restrict`` (or a ``collection`` that restricts) shows
    every run on the corpus's documents only; ``baseline`` names a run by its name, file name or
    path. ``headers``: measure → its header in the LaTeX export (default
    ``report.readable_header``)."""
    out = Path(out_html)
    if corpus is not None and Path(corpus).is_dir() and (Path(corpus) / "topics.xml").is_file() and topics is None:
        inputs = resolve_input(Path(corpus))  # a TIRA input folder: its corpus, its topics, qrels it holds
        topics = inputs.topics
        qrels = qrels if qrels else (dict(inputs.qrels) or None)
    if collection is None and corpus is not None and restrict:
        collection = Collection.of(corpus, True, corpus_format=corpus_format)
    elif restrict and collection is None:
        raise ToucheError("restrict needs the corpus the runs are restricted to (-i CORPUS, corpus=)")
    if into is None:
        check_writable(out, "explorer page")
    else:
        into.check_writable(out.name)
    check_test(test)
    check_correction(correction)
    check_resamples(resamples)
    check_persistence(rbo_p)
    exports = {kind: Path(path) for kind, path in (exports or {}).items()}
    unknown = sorted(set(exports) - {"markdown", "latex", "csv"})
    if unknown:
        raise ToucheError(f"unknown export {', '.join(unknown)}: markdown, latex or csv")
    given = qrels is not None and (is_frame(qrels) or not isinstance(qrels, (Mapping, list, tuple)) or len(qrels) > 0)
    named = {str(n) if n else "relevance": p for n, p in named_qrels(qrels)} if given else {}
    if measures and not named:
        raise ToucheError("measures need qrels (--qrels [NAME=]FILE, qrels=): without judgements the page compares "
                          "the runs by how their rankings agree")
    for kind, path in exports.items():
        check_writable(Path(path), f"{kind} export")
    guard.check(
        guard.Files.of(
            reads=[("run", p) for p in run_paths if not (is_frame(p) or isinstance(p, WrittenRun))]
            + [("qrels", p) for p in named.values() if isinstance(p, Path)]
            + [("topics", topics), ("corpus", corpus)],
            writes=[("explorer page", out)] + [(f"{kind} export", path) for kind, path in exports.items()],
        )
    )
    if len(run_paths) > MAX_RUNS:  # refused at once: not after minutes of work on a page no browser opens
        raise ToucheError(f"{len(run_paths):,} runs are {pair_count(len(run_paths)):,} pairs: the page "
                          f"compares every pair (any run the baseline, the agreement heat map) and takes at most "
                          f"{MAX_RUNS} runs. Give a subset: one team's or one approach's runs, or a shortlist with the "
                          "run to compare them with first (--baseline)")
    loaded = load_runs(run_paths, names)
    baseline = baseline_named(baseline, loaded)
    topic_map = {canonical_topic(t.number): t for t in load_topics(topics)} if topics else {}
    selection = checked_selection(selection, loaded.runs.values(), named or None,
                                  topics=topic_map if topics else None,
                                  what=f"the topics file {topics}" if topics else None)
    if selection is not None:
        loaded = dataclasses.replace(loaded, runs={name: table.restricted(selection.keeps)
                                                   for name, table in loaded.runs.items()})
    runs, cautions = on_collection(loaded.runs, collection)
    loaded = dataclasses.replace(loaded, runs=runs)
    kinds = check_qrels(named, loaded.format, loaded.runs)
    if documents is None and corpus is not None:
        fmt = corpus_format or corpus_format_of(loaded.format, Path(corpus))
        documents = read_documents(Path(corpus), fmt, shown_docids(loaded.runs, top), progress=progress,
                                   stored=stored)
    title = f"Run explorer · {len(loaded.runs)} runs" + ("" if named else " · no judgements") + \
        (f" · {selection.describe()}" if selection is not None else "")
    if collection is None and documents is not None:
        cautions += absent_from_corpus(loaded.runs, documents, top)
    data = explorer_data(loaded, named, kinds, topics=topic_map, documents=documents, baseline=baseline, top=top,
                         measures=measures, title=title, test=test, correction=correction, rbo_p=rbo_p,
                         resamples=resamples, headers=headers)
    data["notes"] = [*cautions, *data["notes"]]
    for kind, path in exports.items():
        write_text(path, EXPORTS[kind](data))  # the page's export of its first view, byte for byte
    page = render_explorer(data)
    return into.write_text(out.name, page) if into is not None else write_text(out, page)


def shown_docids(runs: Mapping[str, RunTable], top: int) -> set[str]:
    """The documents the page shows: every run's top ``top`` per topic (and stance, for images)."""
    return {d for table in runs.values() for d in table.head(top)["docid"].tolist()}


def absent_from_corpus(runs: Mapping[str, RunTable], documents: Documents, top: int) -> list[str]:
    """A caution for each run whose shown documents (its top ``top``) the corpus lacks: it was
    retrieved from another collection, and a measure of its top k beside runs on this corpus (a
    Judged@5 of 1.000 above all) compares collections, not systems. Read from what the page
    reads anyway: no pass over the corpus."""
    out = []
    for name, table in runs.items():
        shown = set(table.head(top)["docid"].tolist())
        absent = {d for d in shown if documents.get(d) is None}
        if absent:
            text = (f"caution: {name} holds {len(absent):,} of its {len(shown):,} shown documents that "
                    f"{documents.corpus or 'the corpus'} lacks: it was retrieved from another collection, and its "
                    "scores (Judged@k above all) are not comparable with runs on this one (restrict shows every run "
                    "on the corpus's documents only: --restrict, restrict=True)")
            log.warning("%s", text)
            out.append(text)
    return out


def baseline_named(baseline: str | None, loaded: LoadedRuns) -> str | None:
    """The run ``baseline`` names: by the name the page gives it, its file name, stem or path (a
    byte copy shown once: the run it copies); an error naming the runs otherwise."""
    if baseline is None:
        return None
    if printable_label(baseline) in loaded.runs:
        return printable_label(baseline)
    if printable_label(baseline) in loaded.folded:
        return loaded.folded[printable_label(baseline)]
    for name, path in loaded.paths.items():
        if baseline in (str(path), path.name, path.stem) or Path(baseline).resolve() == Path(path).resolve():
            return name
    raise ToucheError(f"the baseline {baseline} is not one of the runs ({', '.join(loaded.runs)})")
