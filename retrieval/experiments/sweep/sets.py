"""Development sets: where a sweep's points run and are scored, checked before anything runs.

A sweep without ``sets:`` has one set, named "" (its corpus, topics and qrels); every part of
the sweep treats it like any other. A set whose corpus is a list of files, or whose topics are
a selection, is materialised under ``<output>/sets/<name>/`` (a folder of links, a topics file).

Everything a set's scores depend on is checked when the sweep loads: the files exist, the topic
selection names topics the file has, the sort measure's qrels judge at least one of the set's
topics (the wrong year's qrels would otherwise score every point 0 and, through the coverage
fallback, outweigh a judged set), and the corpus is of the family the variants read (a
passage file given to an args.me sweep fails in a moment, not after the earlier sets ran).
"""
from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from touche.errors import ConfigError, InputError, ToucheError
from touche.guard import LinkFolder, OutputFolder
from touche.indexing.corpora import check_corpus_files, first_document, held_documents, open_corpus
from touche.inputs import distinct_labels
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.experiments.robust import coverage
from touche.retrieval.experiments.sweep.spec import DevSetSpec, canonical, digest, expand_path
from touche.retrieval.fingerprint import data_fingerprint
from touche.retrieval.formats.gate import load_qrels, load_topics
from touche.retrieval.formats.runfile import canonical_topic
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.formats.topics import Topic, topics_xml

log = logging.getLogger(__name__)

COVERAGE_FILE = "coverage.json"
MOSTLY_UNJUDGED = 0.5  # a set whose topics' judged documents are mostly missing from its corpus


@dataclass
class DevSet:
    """Where the points run and are scored: a corpus, topics and qrels."""
    name: str
    corpus: Path                       # what the session reads
    topics: Path                       # what the session reads
    qrels: dict[str, Path]
    folder: Path                       # <output>/sets/<name>: what is materialised, the coverage cache
    corpus_files: list[Path] | None = None  # a list of files: linked into ``corpus``
    source_topics: Path | None = None  # the topics file ``topics`` selects from
    selection: TopicSelection | None = None  # the set's topics_only / topics_except
    weight: float | None = None        # as the sweep file gives it (None: the judged coverage)
    description: str = ""
    run_keys: list[str] = field(default_factory=list)  # per point: what its run file depends on
    keys: list[str] = field(default_factory=list)      # per point: the run key and the qrels scored with

    @property
    def label(self) -> str:
        return self.name or "the sweep's set"

    @property
    def materialised(self) -> bool:
        return self.corpus_files is not None or self.selection is not None

    def link_names(self) -> list[str]:
        """A distinct name per corpus file: files that share a base name (``a/args.json``,
        ``b/args.json``) are told apart by their folders, not linked over each other."""
        files = self.corpus_files or []
        return [label.replace("/", "-") for label in distinct_labels(files, what=f"corpus file of set {self.label}")]

    def prepare(self, folder: OutputFolder) -> None:
        """Link the corpus files and write the selected topics into ``folder`` (the set's, or
        choose's; idempotent; links it made of files no longer listed are removed: they would be
        read as part of the corpus)."""
        if self.corpus_files is not None:  # only the links it made are replaced or removed
            links = folder.folder(self.corpus.name, f"corpus folder of set {self.label}")
            LinkFolder(links, f"corpus folder of set {self.label}").sync(dict(zip(self.link_names(),
                                                                             self.corpus_files)))
        if self.source_topics is not None:
            folder.write_text(self.topics.name, topics_xml(self.selected_topics()))

    def selected_topics(self) -> list[Topic]:
        topics = load_topics(self.source_topics or self.topics)
        if self.selection is None:
            return topics
        try:  # the one rule every command applies to a selection
            chosen = self.selection.checked_against((t.number for t in topics), f"{self.source_topics}")
        except ToucheError as exc:
            raise ConfigError(f"set {self.name}: {exc.message}") from None
        return [t for t in topics if chosen.keeps(t.number)]

    def data_fingerprints(self) -> tuple[str, str, str, str]:
        """(corpus label, topics label, corpus digest, topics digest): what the set's runs read.
        A materialised set is labelled by what it is made of, not where it lies, so a moved or
        resumed sweep keeps its keys."""
        if not self.materialised:
            return (str(self.corpus), str(self.topics), data_fingerprint(self.corpus), data_fingerprint(self.topics))
        files = self.corpus_files if self.corpus_files is not None else [self.corpus]
        names = self.link_names() if self.corpus_files is not None else [f.name for f in files]
        corpus = hashlib.sha256("".join(f"{n}\0{data_fingerprint(f)}\n" for n, f in zip(names, files)).encode()
                                ).hexdigest()[:16]
        topics = hashlib.sha256(topics_xml(self.selected_topics()).encode()).hexdigest()[:16]
        label = "\0".join(str(f) for f in files)
        return (label, f"{self.source_topics or self.topics}#{self.selection.kind if self.selection else ''}",
                corpus, topics)

    def qrels_fingerprint(self) -> str:
        return hashlib.sha256("".join(f"{n}\0{data_fingerprint(q)}\n" for n, q in sorted(self.qrels.items()))
                              .encode()).hexdigest()[:16]


def dev_set(name: str, spec: DevSetSpec, here: Path, sweep_file: Path, output: Path) -> DevSet:
    files = [
        expand_path(c, here, sweep_file) for c in (spec.corpus if isinstance(spec.corpus, list) else [spec.corpus])
    ]
    topics = expand_path(spec.topics, here, sweep_file)
    for what, found in [("corpus", f) for f in files] + [("topics", topics)]:
        if not found.exists():
            raise InputError(f"set {name}: {what} not found: {found}", path=sweep_file)
    folder = set_folder(output, name)
    listed = isinstance(spec.corpus, list)
    selection = spec.selection()
    return DevSet(name, folder / "corpus" if listed else files[0], folder / "topics.xml" if selection else topics,
                  {n: expand_path(q, here, sweep_file) for n, q in spec.qrels.items()}, folder,
                  corpus_files=files if listed else None, source_topics=topics if selection else None,
                  selection=selection, weight=spec.weight, description=spec.description)


def set_folder(output: Path, name: str) -> Path:
    """``<output>/sets/<name>`` (``_`` for the one set of a sweep without sets:), refused when the
    name would lead outside it (the schema already allows no separator; this is the last guard).
    Nothing is resolved: a ``sets`` link is refused where the sweep opens the folder, never
    followed (a sweep once wrote a user's topics.xml through one)."""
    name = name or "_"
    if name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ConfigError(f"set name {name!r} does not name a folder inside {output / 'sets'}")
    return output / "sets" / name


def check_set(dev: DevSet, qrels_name: str, formats: set[str], measures: Sequence[str] = ()) -> None:
    """What can be checked before the first run (see the module docstring); ``measures``: the
    ones the sweep file names, each of which must fit one of the set's qrels files."""
    topics = [canonical_topic(t.number) for t in dev.selected_topics()]
    kinds = {name: load_qrels(path).kind for name, path in dev.qrels.items()}  # a bad file fails now
    unfit = [m for m in measures if not any(parse_measure(m).applies_to(n, k) for n, k in kinds.items())]
    if unfit:
        raise ConfigError(f"set {dev.label}: measures {', '.join(unfit)} fit none of its qrels ("
                          + ", ".join(f"{n}: {k.value}" for n, k in kinds.items()) + "); every run would fail to "
                          "be scored: remove them or give qrels they fit")
    judged = set(load_qrels(dev.qrels[qrels_name]).judgments)
    if not judged & set(topics):
        raise ConfigError(f"set {dev.label}: its {qrels_name} qrels ({dev.qrels[qrels_name]}) judge none of its "
                          f"{len(topics)} topics (qrels of another year or task?): every point would score nothing")
    for fmt in sorted(formats):
        try:
            if dev.corpus_files is not None:  # every listed file, not the first, as the folder will be read
                check_corpus_files(dict(zip(dev.link_names(), dev.corpus_files)), fmt)
            else:
                first_document(open_corpus(fmt, dev.corpus))
        except ToucheError as exc:
            raise ConfigError(f"set {dev.label}: its corpus is not what the variants read (corpus.format {fmt}): "
                              f"{exc}") from None


# --------------------------------------------------------------------------- judged coverage
def set_coverage(dev: DevSet, qrels_name: str, fmt: str, cache: OutputFolder | None = None) -> dict[str, float]:
    """Per topic of the set: the share of its judged documents (the sort measure's qrels) that
    the set's corpus holds; cached in the set's folder (``cache``) by the data it was computed
    from."""
    qrels_path = dev.qrels[qrels_name]
    try:
        fingerprint = digest([data_fingerprint(dev.corpus), data_fingerprint(dev.topics), data_fingerprint(qrels_path)])
    except OSError:
        return {}
    stored_file = cache.path / COVERAGE_FILE if cache is not None else None
    if stored_file is not None and cache is not None and cache.ours(COVERAGE_FILE):
        try:
            stored = json.loads(stored_file.read_text(encoding="utf-8"))
            if stored.get("fingerprint") == fingerprint:
                return stored["coverage"]
        except (ValueError, KeyError, AttributeError):
            pass  # a damaged cache is computed again
    judged = load_qrels(qrels_path).judgments
    try:
        held = held_documents(open_corpus(fmt, dev.corpus), {d for docs in judged.values() for d in docs})
    except ToucheError as exc:
        log.warning("warning: cannot read %s for the judged coverage of %s: %s", dev.corpus, dev.label, exc)
        return {}
    topics = [canonical_topic(t.number) for t in load_topics(dev.topics)]
    shares = coverage(judged, held, topics)
    if cache is not None:
        cache.write_text(COVERAGE_FILE, json.dumps({"fingerprint": fingerprint, "coverage": shares}, indent=1) + "\n")
    return shares


def mean_coverage(shares: dict[str, float]) -> float:
    return float(np.mean(list(shares.values()))) if shares else float("nan")


__all__ = ["DevSet", "dev_set", "set_folder", "check_set", "set_coverage", "mean_coverage", "MOSTLY_UNJUDGED",
           "canonical"]
