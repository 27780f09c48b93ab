"""A task's submissions in one go: every variant of a suite, run.txt, and an evaluation table.

This is what ``run_all.sh`` calls, on TIRA (``-i $inputDataset -o $outputDir``, offline) and on
the demo data (no ``-i``: the suite's own corpus, topics and qrels).
"""
from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from touche.retrieval.evaluation.measures import evaluate, format_table
from touche.retrieval.experiments.explorer import EXPLORER_FILE, write_explorer
from touche.retrieval.formats.qrels import QrelsKind, detect_qrels_kind
from touche.retrieval.fingerprint import check_fusion_cycles
from touche.retrieval.preflight import check_variant_files
from touche.retrieval.session import Session, VariantResult
from touche import guard
from touche.atomic import copy_file, prepare_output_directory, write_text
from touche.config import load_suite, load_variant
from touche.errors import ConfigError, ToucheError
from touche.inputs import resolve_input, resolve_named_qrels, resolve_topics
from touche.paths import default_index_root

log = logging.getLogger(__name__)

# The suite's table: Touché's nDCG@5 for every qrels file, the trec_eval-style one beside it
# (unjudged = 0), and how much of the top 5 is judged at all.
SUITE_MEASURES = ["touche.nDCG@5", "trec.nDCG@5", "trec.Judged@5"]


def run_suite(suite_path: Path, input_dir: Path | None, output_dir: Path, *, only_config: Path | None = None,
              index_root: Path | None = None, qrels: dict[str, Path] | None = None,
              overrides: dict | None = None, progress: bool = True) -> "SuiteOutcome":
    suite_file, suite = load_suite(suite_path)
    base = suite_file.parent
    if input_dir is not None:
        # a TIRA input directory, or irds:<id> (corpus, topics and the qrels that can be had)
        inputs = resolve_input(input_dir)
        corpus, topics = inputs.corpus, inputs.topics
        if qrels is None and inputs.qrels:
            qrels = inputs.qrels
    else:
        if not (suite.corpus and suite.topics):
            raise ToucheError("this suite has no default corpus/topics: pass -i INPUT_DIR", path=suite_file)
        corpus, topics = suite.corpus, resolve_topics(suite.topics, base_dir=base)  # paths or irds:<id>
        corpus = corpus if corpus.startswith("irds:") else base / corpus
        if qrels is None:
            qrels = resolve_named_qrels(suite.qrels, base_dir=base)
    variant_paths = [only_config] if only_config else [base / v for v in suite.variants]
    primary = only_config if only_config else base / suite.primary
    names = check_variants(variant_paths, overrides)  # all of them, before the first index is built
    guard.check(guard.Files.of(
        reads=[("suite", suite_file), ("corpus", corpus), ("topics", topics)]
        + [("variant", p) for p in variant_paths] + [("qrels", q) for q in (qrels or {}).values()],
        writes=[("run file", output_dir / f"{name}.txt") for name in names] + [("run.txt", output_dir / "run.txt")]
        + [("evaluation table", output_dir / EVALUATION_FILE), ("explorer page", output_dir / EXPLORER_FILE)],
        folders=[("output folder", output_dir)]))
    prepare_output_directory(output_dir)
    # TIRA uploads the whole folder: a run file run-all did not make there would pass for one of ours
    claim = guard.own_folder(output_dir, [f"{name}.txt" for name in names] + ["run.txt", EVALUATION_FILE, EXPLORER_FILE],
                             considered=lambda entry: entry.suffix == ".txt" and entry.is_file())
    # the reports written after the runs: a folder in their place is said now, not after
    for name, what in ((EVALUATION_FILE, "evaluation table"), (EXPLORER_FILE, "explorer page")):
        if (name == EXPLORER_FILE or qrels) and (output_dir / name).is_dir():
            raise ToucheError(f"is a directory, where run-all writes its {what} ({name}) after the runs; "
                              "remove or rename it", path=output_dir / name)
    with _output_lock(output_dir):
        try:
            return _run_variants(suite_file, variant_paths, primary, corpus, topics, output_dir, index_root, qrels,
                                 overrides, progress)
        finally:
            claim.record()  # also what an interrupted call wrote: a rerun finishes it


def check_variants(paths: list[Path], overrides: dict | None) -> list[str]:
    """Load every variant with the overrides now: a --set that does not fit the third variant
    once failed after two runs were written, and blamed that variant's file. Returns their names."""
    names = []
    for path in paths:
        try:
            loaded = load_variant(path, overrides)
            check_fusion_cycles(loaded)
            check_variant_files(loaded)
            names.append(loaded.name)
        except ConfigError as exc:
            if not overrides:
                raise
            given = ", ".join(f"{key}={value}" for key, value in overrides.items()
                              if key != "corpus.skip_bad_records")
            raise ConfigError(f"the override --set {given} does not fit this variant: {exc.message}",
                              path=exc.path, where=exc.where) from None
    return names


@contextlib.contextmanager
def _output_lock(output_dir: Path):
    """One writer per output directory: a second process fails at once with a clear message
    instead of interleaving its run files with the first one's. The lock file is removed after,
    so a finished output directory holds its runs, the reports and ``.touche-made`` (the names it
    wrote, by which a later call tells its own runs from a user's) only (TIRA uploads it whole)."""
    path = output_dir / ".touche.lock"
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ToucheError("another touche process is writing to this output directory; wait for it to finish "
                          "or choose another -o", path=output_dir) from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        lock.release()


@dataclass
class SuiteOutcome:
    results: list[VariantResult]
    run_txt: Path
    scores: dict[str, dict[str, float]]  # variant → measure → value (empty without qrels)
    table: str | None  # the evaluation table (Markdown), when qrels were known


def suite_measures(qrels: dict[str, Path]) -> list[str] | None:
    """The table's measures: graded qrels get the compact set, stance and image qrels their own."""
    graded = all(detect_qrels_kind(path) is QrelsKind.GRADED for path in qrels.values())
    return SUITE_MEASURES if graded else None


def _run_variants(suite_file, variant_paths, primary, corpus, topics, output_dir, index_root, qrels, overrides,
                  progress) -> SuiteOutcome:
    session = Session(corpus, topics, index_root or default_index_root(), progress=progress)
    results = []
    try:
        for path in variant_paths:
            loaded = load_variant(path, overrides)
            result = session.run(loaded)
            session.write(result, output_dir / f"{loaded.name}.txt")
            results.append(result)
            log.info("wrote %s (%d rows, %d topics, %.1f s)", result.run_path,
                     sum(len(r) for r in result.rows.values()), len(result.rows), result.seconds)
        corpus_read = session.corpus(results[0].loaded)  # resolved (an irds: id is a path now)
        primary_result = next(r for r in results if r.loaded.path == Path(primary).resolve())
        copy_file(primary_result.run_path, output_dir / "run.txt")
        log.info("wrote %s (primary: %s)", output_dir / "run.txt", primary_result.loaded.name)
        text, scores = None, {}
        if qrels:
            measures = suite_measures(qrels)
            scores = {r.loaded.name: evaluate(r.run_path, qrels, measures) for r in results}
            text = format_table(scores)
            write_text(output_dir / EVALUATION_FILE, text + "\n")
        else:
            remove_stale_reports(output_dir)
        # written with or without qrels (without: the runs compared by how their rankings agree,
        # what a participant looks at before judgements exist; one run alone has nothing to
        # compare); while the session is open, so the page's documents come from the primary's
        # index, not from a pass over the corpus
        if qrels or len(results) > 1:
            explorer = write_explorer([r.run_path for r in results], qrels or None, output_dir / EXPLORER_FILE,
                                      names=[r.loaded.name for r in results], corpus=corpus_read,
                                      corpus_format=results[0].loaded.variant.corpus.format,
                                      stored=session.searcher(primary_result.index, primary_result.loaded).raw,
                                      topics=session.topics_path, baseline=primary_result.loaded.name,
                                      progress=progress)
            log.info("wrote %s: open it in a browser to compare the runs topic by topic%s", explorer,
                     "" if qrels else " (no qrels: by how their rankings agree)")
        elif (output_dir / EXPLORER_FILE).is_file():  # an earlier call's page shows runs just replaced
            (output_dir / EXPLORER_FILE).unlink()
    finally:
        session.close()
    return SuiteOutcome(results, output_dir / "run.txt", scores, text)


EVALUATION_FILE = "evaluation.md"
REPORT_FILES = (EVALUATION_FILE,)  # what only a run with qrels writes beside the runs


def remove_stale_reports(output_dir: Path) -> None:
    """Without qrels no evaluation table is written; one left by an earlier run with qrels would
    score runs that were just replaced, so it goes (the explorer page is always rewritten)."""
    for name in REPORT_FILES:
        stale = output_dir / name
        if stale.is_file():
            stale.unlink()
            log.info("removed %s: it scored the runs this call replaced, and no qrels were given now", stale)
