"""Variants, their indexes and runs: ``touche analyze``, ``index``, ``run`` and ``run-all`` as
functions, and run frames (``search``, ``write``)."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Union

import pandas as pd

from touche import guard
from touche.atomic import check_writable
from touche.config import LoadedVariant, load_variant, parse_overrides
from touche.datasets import check_corpus_format
from touche.errors import ConfigError, ToucheError
from touche.indexing.builder import IndexInfo, ensure_index
from touche.indexing.distributed import build_sharded_on_ray
from touche.inputs import parse_named_qrels, resolve_corpus, resolved_qrels, task_of, with_dataset
from touche.paths import DEMO, default_index_root
from touche.retrieval.evaluation.collection import Collection
from touche.retrieval.evaluation.scoring import Evaluation, evaluate_tables
from touche.retrieval.formats.gate import frame_rows, load_run
from touche.retrieval.formats.runfile import RunFormat, RunRow
from touche.retrieval.formats.runwriter import WrittenRun, ranked_rows, write_run
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.preflight import preflight
from touche.retrieval.session import Session, VariantResult
from touche.retrieval.suite import SuiteOutcome, run_suite, suite_for
from touche.retrieval.tasks import handler
from touche.stemming.analyzers import tokens

__all__ = ["RUN_COLUMNS", "DEMO", "variant", "analyze", "index", "search", "run", "run_all", "write", "frame_of_rows"]

RUN_COLUMNS = ["query_id", "doc_id", "score", "stance", "rank"]
PathLike = Union[str, "os.PathLike[str]"]
TopicSpec = Union[str, int, Sequence[Union[int, str]]]
Overrides = Union[Mapping[str, Any], Iterable[str], None]  # {key: value}, or ["KEY=VALUE", …] as --set


def variant(name_or_path: PathLike | LoadedVariant, overrides: Overrides = None, *,
            skip_bad_records: bool = False) -> LoadedVariant:
    """A run variant: a YAML path, or a shipped one by name (``"task1/1-krovetz-smart-lmd2000-quality"``,
    ``"task2/…"``; the names of ``configs/``). ``overrides`` as ``--set`` takes them:
    ``{"retrieval.similarity": {"name": "bm25", "k1": 1.2, "b": 0.75}}`` or ``["retrieval.similarity.k1=1.2"]``;
    ``skip_bad_records``: skip malformed corpus records (counted and listed) instead of stopping."""
    given = parse_overrides(overrides, skip_bad_records)
    if isinstance(name_or_path, LoadedVariant):
        return name_or_path if not given else load_variant(name_or_path.path, given)
    if not str(name_or_path).strip():
        raise ConfigError(f"variant({name_or_path!r}): give a variant YAML path or a shipped name such as "
                          "'task1/1-krovetz-smart-lmd2000-quality'")
    return load_variant(Path(name_or_path), given or None)


def analyze(config: PathLike | LoadedVariant, text: str, *, overrides: Overrides = None,
            skip_bad_records: bool = False) -> list[str]:
    """The tokens the variant's analyzer makes of ``text`` (what its index and queries see)."""
    loaded = variant(config, overrides, skip_bad_records=skip_bad_records)
    # a relative stoplist resolves against the variant's folder, as in every run
    return tokens(loaded.variant.analyzer, text, base_dir=loaded.path.parent)


def index(of: PathLike | LoadedVariant, corpus: PathLike | None = None, *, overrides: Overrides = None,
          skip_bad_records: bool = False, dataset: str | None = None, index_root: PathLike | None = None,
          shards: int | None = None, shard: int | None = None, ray: str | bool | None = None,
          progress: bool = True) -> IndexInfo:
    """Build (or reuse) the variant's index of ``corpus`` (a path or ``irds:<id>``, or ``dataset``'s);
    ``.documents``, ``.meta["stats"]`` and ``.path`` describe it. ``shards``: built as N shards in
    parallel processes, ``shard``: only shard K of them, ``ray``: the shards as Ray tasks (True: on
    a local cluster; else the cluster's address). ``progress``: long steps (indexing) report on
    stderr, as every door of the toolkit does; False silences them."""
    loaded = variant(of, overrides, skip_bad_records=skip_bad_records)
    corpus = with_dataset(dataset, corpus=corpus)[0]
    if not corpus:
        raise ToucheError("no corpus: give one (-i CORPUS) or a dataset (--dataset ID)")
    if ray and (not shards or shards < 2 or shard is not None):
        raise ToucheError("ray builds the shards of shards=N (--shards N, N >= 2) as Ray tasks; it does not go with "
                          "shard=K (--shard K) or without shards")
    resolved = resolve_corpus(corpus, corpus_format=loaded.variant.corpus.format, config=loaded.path,
                              progress=progress)
    check_corpus_format(Path(resolved), loaded.variant.corpus.format, config=loaded.path)
    builder = partial(build_sharded_on_ray, address=None if ray in (True, "local") else str(ray)) if ray else None
    return ensure_index(loaded.variant, resolved, Path(index_root) if index_root else default_index_root(),
                        base_dir=loaded.path.parent, progress=progress, shards=shards, shard=shard,
                        sharded_builder=builder)


def _selection(topics_only, topics_except) -> TopicSelection | None:
    return TopicSelection.of(topics_only, topics_except, names=("topics_only", "topics_except"))


def search(of: PathLike | LoadedVariant, topics: PathLike | pd.DataFrame | None, corpus: PathLike, *,
           query: str | None = None, index_root: PathLike | None = None, progress: bool = True,
           topics_only: TopicSpec | None = None, topics_except: TopicSpec | None = None) -> pd.DataFrame:
    """Run the variant (index, first stage, its task's and its stages' re-ranking) on topics: a
    topics file, ``irds:<id>``, a queries frame (PyTerrier's ``qid, query``, or Touché's ``title``
    …), or ``topics=None, query="…"`` for one query (topic 1); the run as a frame (see the module
    docstring). ``topics_only``/``topics_except``: a selection of the topics by number, as
    ``--topics-only`` takes it (``"51,55,57-60"`` or a list). Its model files are checked first,
    as every entry checks them (``preflight``). ``progress``: long steps (indexing, a dense
    re-ranker's first encoding, which takes minutes, stance labelling) report on stderr; False
    silences them."""
    loaded = variant(of)
    preflight(loaded)  # as every entry does, before the index: also what a session would check
    if topics is None:
        if not (isinstance(query, str) and query.strip()):
            raise ConfigError("search(): give topics (a file, irds:<id> or a queries frame) or query='…'")
        topics = pd.DataFrame({"qid": ["1"], "query": [query]})
    elif query is not None:
        raise ConfigError("search(): give topics or query, not both")
    session = Session(corpus, topics, index_root=Path(index_root) if index_root else default_index_root(),
                      progress=progress, selection=_selection(topics_only, topics_except))
    try:
        result = session.run(loaded)
    finally:
        session.close()
    run_format = handler(loaded.variant.task).run_format
    return frame_of_rows(ranked_rows(result.rows, run_format, loaded.variant.tag, untie=True), run_format)


@dataclass
class RunOutcome:
    """What ``run`` wrote: the run file (``-``: standard output), the variant's result and, with
    qrels, its evaluation."""
    output: str
    result: VariantResult
    evaluation: Evaluation | None
    topic_ids: tuple[str, ...] = ()  # the topics run (the session's, after any selection)

    @property
    def hits(self) -> int:
        return sum(len(h) for h in self.result.ranking.values())

    @property
    def topics(self) -> int:
        """The topics with hits."""
        return sum(1 for t in self.topic_ids if self.result.ranking.get(t)) if self.topic_ids \
            else len(self.result.ranking)

    def summary(self) -> str:
        """"OUT: H hits for N of M topics[; none for topic …] in S s": a topic without hits is named
        ("69 hits for 2 topics" hid one with none)."""
        empty = [t for t in self.topic_ids if not self.result.ranking.get(t)]
        missing = f"; none for topic {', '.join(empty)}" if empty else ""
        return (f"{self.output}: {self.hits} hits for {self.topics} of {len(self.topic_ids) or self.topics} "
                f"topics{missing} in {self.result.seconds:.1f} s")


def run(config: PathLike | LoadedVariant, corpus: PathLike | None = None, topics: PathLike | None = None,
        output: PathLike = "-", *, overrides: Overrides = None, skip_bad_records: bool = False,
        dataset: str | None = None, qrels: Iterable[str] | Mapping[str, PathLike] | None = None,
        index_root: PathLike | None = None, topics_only: TopicSpec | None = None,
        topics_except: TopicSpec | None = None, progress: bool = True) -> RunOutcome:
    """``touche run``: one variant on a corpus and topics (or ``dataset``'s), its run file written
    whole (``output``; ``-`` standard output) and, with ``qrels`` (``[NAME=]PATH`` items or
    {name: path}), scored as written."""
    loaded = variant(config, overrides, skip_bad_records=skip_bad_records)
    corpus, topics, qrels, from_dataset = with_dataset(dataset, corpus=corpus, topics=topics, qrels=qrels)
    if not (corpus and topics):
        raise ToucheError("no corpus or topics: give both (-i CORPUS -t TOPICS) or a dataset (--dataset ID)")
    named = qrels if isinstance(qrels, Mapping) else \
        parse_named_qrels(resolved_qrels(qrels, required=not from_dataset) or [])
    guard.check(guard.Files.of(reads=[("variant", loaded.path), ("corpus", corpus), ("topics", topics)]
                               + [("qrels", q) for q in named.values()], writes=[("run file", output)]))
    check_writable(Path(output))  # before minutes of indexing and search
    preflight(loaded)
    session = Session(corpus, topics, Path(index_root) if index_root else default_index_root(),
                      selection=_selection(topics_only, topics_except), progress=progress)
    try:
        result = session.run(loaded)
        session.write(result, Path(output))
    finally:
        session.close()
    evaluation = None
    if named:  # scored as written, from memory: a pipe or standard output is never read back
        evaluation = evaluate_tables({loaded.name: load_run(result.written)}, named, selection=session.selection)
    return RunOutcome(str(output), result, evaluation, tuple(t.number for t in session.topics))


def run_all(input: PathLike | None = None, output: PathLike = "out", *, dataset: str | None = None,
            config: PathLike | None = None, overrides: Overrides = None, skip_bad_records: bool = False,
            task: str | None = None, suite: PathLike | None = None,
            qrels: Iterable[str] | Mapping[str, PathLike] | None = None, topics: PathLike | None = None,
            index_root: PathLike | None = None, topics_only: TopicSpec | None = None,
            topics_except: TopicSpec | None = None, corpus: PathLike | None = None, restrict: bool = False,
            progress: bool = True) -> SuiteOutcome:
    """``touche run-all``: a task's five variants (the TIRA entry point) into ``output``: their run
    files, run.txt (the primary's), and with qrels the evaluation table and the explorer page.
    ``input``: a TIRA input folder or ``irds:<id>`` (default: the suite's demo data); the suite is
    ``suite``, else ``config``'s task's, else ``task``'s, else the task the input holds.
    ``corpus``/``restrict``: the collection the evaluation is meant for (a sample), as in
    ``evaluate``. The outcome says what run.txt copied before this call, if another variant, and
    which run files of an earlier call it left (``previous_primary``, ``stale``)."""
    input, _, qrels, from_dataset = with_dataset(dataset, corpus=input, qrels=qrels)
    config = variant(config).path if config else None  # a shipped name too
    chosen = suite_for(Path(suite) if suite else None, config,
                       task_of(task, str(input) if input else None, suite=suite, config=config))
    named = qrels if isinstance(qrels, Mapping) or qrels is None else \
        parse_named_qrels(resolved_qrels(qrels, required=not from_dataset) or [])
    return run_suite(chosen, Path(input) if input else None, Path(output), only_config=Path(config) if config else None,
                     index_root=Path(index_root) if index_root else None,
                     qrels={n: Path(p) for n, p in named.items()} if named else None,
                     overrides=parse_overrides(overrides, skip_bad_records), progress=progress,
                     topics_file=Path(topics) if topics else None, selection=_selection(topics_only, topics_except),
                     collection=Collection.of(corpus, restrict))


def frame_of_rows(rows: Sequence[RunRow], run_format: RunFormat | str | None = None) -> pd.DataFrame:
    """Run rows as a run frame (``frame.attrs["run_format"]`` keeps the format when known)."""
    frame = pd.DataFrame({"query_id": [r.qid for r in rows], "doc_id": [r.docid for r in rows],
                          "score": [r.score for r in rows], "stance": [r.column2 for r in rows],
                          "rank": [r.rank for r in rows]}, columns=RUN_COLUMNS)
    if run_format is not None:
        frame.attrs["run_format"] = RunFormat.parse(run_format).value
    return frame


def write(run: pd.DataFrame, path: PathLike, tag: str, *, run_format: RunFormat | str | None = None) -> Path:
    """A run frame as a valid run file (written whole or not at all, validated)."""
    return write_frame(run, path, tag, run_format).path


def write_frame(frame: pd.DataFrame, path: PathLike, tag: str, run_format: RunFormat | str | None = None
                ) -> WrittenRun:
    """The one way a run frame becomes a run file (``api.write``, ``touche.pyterrier.write_run``):
    ranked as its file is read (equal scores in the frame's rank order), then the run-file writer's
    (validated; on an invalid run it raises and the file stays as it was)."""
    rows, fmt = frame_rows(frame, run_format, name=str(path), tag=tag)
    return write_run(path, rows, fmt, tag, ties="given")
