"""A task's submissions in one go: every variant of a suite, run.txt, and an evaluation table.

This is what ``run_all.sh`` calls, on TIRA (``-i $inputDataset -o $outputDir``, offline) and on
the demo data (no ``-i``: the suite's own corpus, topics and qrels).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from touche import guard
from touche.atomic import prepare_output_directory
from touche.config import load_suite, load_variant
from touche.errors import ConfigError, ToucheError
from touche.folderlock import folder_lock
from touche.inputs import resolve_input, resolve_named_qrels, resolve_topics
from touche.paths import CONFIGS, default_index_root
from touche.render import escape
from touche.retrieval.evaluation.collection import Collection
from touche.retrieval.evaluation.scoring import evaluate_tables
from touche.retrieval.experiments.explorer import EXPLORER_FILE, write_explorer
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.qrels import QrelsKind, detect_qrels_kind
from touche.retrieval.formats.selection import TopicSelection
from touche.retrieval.preflight import preflight
from touche.retrieval.session import Session, VariantResult

log = logging.getLogger(__name__)

# The suite's table: Touché's nDCG@5 for every qrels file, the trec_eval-style one beside it
# (unjudged = 0), and how much of the top 5 is judged at all.
SUITE_MEASURES = ["touche.nDCG@5", "trec.nDCG@5", "trec.Judged@5"]


def run_suite(suite_path: Path, input_dir: Path | None, output_dir: Path, *, only_config: Path | None = None,
              index_root: Path | None = None, qrels: dict[str, Path] | None = None,
              overrides: dict | None = None, progress: bool = True, topics_file: Path | None = None,
              selection: TopicSelection | None = None, collection: Collection | None = None) -> "SuiteOutcome":
    """Every variant of the suite (or ``only_config``) on the input's topics (those ``selection``
    keeps; ``topics_file`` where the input folder's topics file has another name), run.txt, the
    evaluation table when qrels are known (on ``collection``, a sample, when given), and the
    explorer page. A rerun that changes run.txt's primary says which it was and is, and run files
    of an earlier call this one did not write are named (``SuiteOutcome``)."""
    suite_file, suite = load_suite(suite_path)
    base = suite_file.parent
    corpus: str | Path  # a path, or irds:<id>
    if input_dir is not None:
        # a TIRA input directory, or irds:<id> (corpus, topics and the qrels that can be had)
        inputs = resolve_input(input_dir, topics_file)
        corpus, topics = inputs.corpus, inputs.topics
        if qrels is None and inputs.qrels:
            qrels = inputs.qrels
    else:
        if not (suite.corpus and suite.topics):
            raise ToucheError("this suite has no default corpus/topics: pass -i INPUT_DIR", path=suite_file)
        topics = resolve_topics(topics_file or suite.topics, base_dir=base)  # paths or irds:<id>
        corpus = suite.corpus if suite.corpus.startswith("irds:") else base / suite.corpus
        if qrels is None:
            qrels = resolve_named_qrels(suite.qrels, base_dir=base)
    variant_paths = [only_config] if only_config else [base / v for v in suite.variants]
    primary = only_config if only_config else base / suite.primary
    try:
        names = check_variants(variant_paths, overrides)  # all of them, before the first index is built
    except ToucheError as exc:  # a typo in the suite is named with the suite, whose line it is
        if only_config is not None or not any(exc.path == str(p) or exc.path == str(Path(p).resolve())
                                               for p in variant_paths):
            raise
        raise ConfigError(f"{exc.message} (listed in the suite {suite_file})", path=exc.path, where=exc.where) from None
    guard.check(guard.Files.of(
        reads=[("suite", suite_file), ("corpus", corpus), ("topics", topics)]
        + [("variant", p) for p in variant_paths] + [("qrels", q) for q in (qrels or {}).values()],
        writes=[("run file", output_dir / f"{name}.txt") for name in names] + [("run.txt", output_dir / "run.txt")]
        + [("evaluation table", output_dir / EVALUATION_FILE), ("explorer page", output_dir / EXPLORER_FILE)],
        folders=[("output folder", output_dir)]))
    prepare_output_directory(output_dir)
    out = guard.OutputFolder(output_dir, "output folder", command="touche run-all")
    with folder_lock(output_dir, LOCK_FILE, "another touche process is writing to this output directory; "
                           "wait for it to finish or choose another -o"):
        # TIRA uploads the whole folder: a run file run-all did not make there would be handed in with
        # its own; the reports it writes after the runs are claimed with the runs, before any work
        reports = ([EVALUATION_FILE] if qrels else []) + ([EXPLORER_FILE] if qrels or len(names) > 1 else [])
        out.claim([f"{name}.txt" for name in names] + ["run.txt", *reports],
                  refuse=lambda entry: entry.suffix == ".txt",
                  because="TIRA uploads the folder whole, so they would be handed in with its runs")
        previous = primary_copied(out)
        outcome = _run_variants(suite_file, variant_paths, primary, corpus, topics, out, index_root, qrels,
                                overrides, progress, selection, collection)
        outcome.previous_primary = previous
        outcome.stale = sorted(name for name in out.made if name.endswith(".txt") and name != "run.txt"
                               and name.removesuffix(".txt") not in names and out.ours(name))
        now = outcome.primary
        if previous is not None and previous != now:
            log.warning("note: run.txt was %s's run and is now %s's (the primary of %s)", previous, now,
                        only_config or suite_file)
        if outcome.stale:
            log.warning("note: %s in %s %s run-all's from an earlier call and no longer of these runs (%s): TIRA "
                        "uploads the folder whole; remove %s, or run the whole suite into it",
                        ", ".join(outcome.stale), output_dir, "is" if len(outcome.stale) == 1 else "are",
                        ", ".join(f"{n}.txt" for n in names), "it" if len(outcome.stale) == 1 else "them")
        return outcome


def primary_copied(out: guard.OutputFolder) -> str | None:
    """The variant whose run run.txt copies, by content, among the runs run-all made in the folder
    (None: no run.txt of run-all's, or a copy of none of them)."""
    if not out.ours("run.txt"):
        return None
    text = (out.path / "run.txt").read_bytes()
    for name in sorted(out.made):
        path = out.path / name
        if name != "run.txt" and name.endswith(".txt") and out.ours(name) and path.stat().st_size == len(text) \
                and path.read_bytes() == text:
            return name.removesuffix(".txt")
    return None


def suite_for(suite: str | Path | None, config: str | Path | None = None, task: str | None = None) -> Path:
    """--suite wins; then the task of a single variant (-c: its own task's demo data and qrels);
    otherwise the default suite of ``task`` (configs/<task>/suite.yaml)."""
    if suite:
        return Path(suite)
    task = (load_variant(config).variant.task if config else None) or task or "task1"
    path = CONFIGS / task / "suite.yaml"
    if not path.is_file():
        known = sorted(p.parent.name for p in CONFIGS.glob("*/suite.yaml"))
        raise ToucheError(f"no suite for task '{task}' (tasks with suites: {', '.join(known)})", path=path)
    return path


def check_variants(paths: list[Path], overrides: dict | None) -> list[str]:
    """Load every variant with the overrides now: a --set that does not fit the third variant
    once failed after two runs were written (the error names the --set or the file that holds the
    wrong value). Returns their names."""
    names = []
    for path in paths:
        loaded = load_variant(path, overrides)
        preflight(loaded)
        names.append(loaded.name)
    return names


LOCK_FILE = ".touche.lock"  # one writer per output folder; removed when it is done


@dataclass
class SuiteOutcome:
    results: list[VariantResult]
    run_txt: Path
    scores: dict[str, dict[str, float]]  # variant → measure → value (empty without qrels)
    table: str | None  # the evaluation table (Markdown), when qrels were known
    primary: str = ""  # the variant run.txt copies
    previous_primary: str | None = None  # the one it copied before this call, when run-all wrote it
    stale: list[str] = field(default_factory=list)  # run files of an earlier call this one did not write
    cautions: list[str] = field(default_factory=list)  # runs holding documents the collection lacks


def suite_measures(qrels: dict[str, Path]) -> list[str] | None:
    """The table's measures: graded qrels get the compact set, stance and image qrels their own."""
    graded = all(detect_qrels_kind(path) is QrelsKind.GRADED for path in qrels.values())
    return SUITE_MEASURES if graded else None


def _run_variants(suite_file, variant_paths, primary, corpus, topics, out: guard.OutputFolder, index_root, qrels,
                  overrides, progress, selection=None, collection: Collection | None = None) -> SuiteOutcome:
    output_dir = out.path
    session = Session(corpus, topics, index_root or default_index_root(), progress=progress, selection=selection)
    results = []
    try:
        for path in variant_paths:
            loaded = load_variant(path, overrides)
            result = session.run(loaded)
            session.write(result, output_dir / f"{loaded.name}.txt", into=out)
            results.append(result)
            log.info("wrote %s (%d rows, %d topics, %.1f s)", result.run_path,
                     sum(len(r) for r in result.rows.values()), len(result.rows), result.seconds)
        corpus_read = session.corpus(results[0].loaded)  # resolved (an irds: id is a path now)
        primary_result = next(r for r in results if r.loaded.path == Path(primary).resolve())
        # run.txt from the text written, not read back: a run file is never a stream here, and never re-read
        assert primary_result.written is not None  # session.write above
        out.write_bytes("run.txt", primary_result.written.text)
        log.info("wrote %s (primary: %s)", output_dir / "run.txt", primary_result.loaded.name)
        text, scores, cautions = None, {}, []
        if qrels:  # the selection as the session checked it against the topics file
            evaluation = evaluate_tables({r.loaded.name: load_run(r.written) for r in results}, qrels,
                                         suite_measures(qrels), selection=session.selection, collection=collection)
            scores, cautions = evaluation.means, evaluation.cautions
            text = evaluation.table()
            if session.selection is not None:
                text += f"\n\nScored on {session.selection.describe()}."
            text += "".join(f"\n\n{escape(caution, 'markdown')}" for caution in cautions)
            out.write_text(EVALUATION_FILE, text + "\n")
        else:
            remove_stale_report(out, EVALUATION_FILE,
                                "it scored the runs this call replaced, and no qrels were given now")
        # written with or without qrels (without: the runs compared by how their rankings agree,
        # what a participant looks at before judgements exist; one run alone has nothing to
        # compare); while the session is open, so the page's documents come from the primary's
        # index, not from a pass over the corpus
        if qrels or len(results) > 1:
            written = [r.written for r in results if r.written]  # every one: written above
            explorer = write_explorer(written, qrels or None, output_dir / EXPLORER_FILE,
                                      names=[r.loaded.name for r in results], corpus=corpus_read,
                                      corpus_format=results[0].loaded.variant.corpus.format,
                                      stored=session.searcher(primary_result.index, primary_result.loaded).raw,
                                      topics=session.topics_path, baseline=primary_result.loaded.name,
                                      progress=progress, into=out, collection=collection)
            log.info("wrote %s: open it in a browser to compare the runs topic by topic%s", explorer,
                     "" if qrels else " (no qrels: by how their rankings agree)")
        else:
            remove_stale_report(out, EXPLORER_FILE, "it showed runs this call replaced")
    finally:
        session.close()
    return SuiteOutcome(results, output_dir / "run.txt", scores, text, primary=primary_result.loaded.name,
                        cautions=cautions)


EVALUATION_FILE = "evaluation.md"


def remove_stale_report(out: guard.OutputFolder, name: str, because: str) -> None:
    """A report an earlier call wrote that this one does not (the evaluation without qrels now,
    the explorer page of one run) would describe runs just replaced: it goes, if it is the one
    run-all wrote, unchanged; a file of someone else's under that name is left as it is."""
    if out.remove(name):
        log.info("removed %s: %s", out.path / name, because)
    elif (out.path / name).exists() or (out.path / name).is_symlink():
        log.info("note: left %s as it is: run-all did not write it (%s)", out.path / name,
                 out.foreign(name) or "its own")
