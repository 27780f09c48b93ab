"""A task's submissions in one go: every variant of a suite, run.txt, and an evaluation table.

This is what ``run_all.sh`` calls, on TIRA (``-i $inputDataset -o $outputDir``, offline) and on
the demo data (no ``-i``: the suite's own corpus, topics and qrels).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from filelock import FileLock, Timeout

from retrieval.session import Session
from touche.datasets import default_index_root
from touche.config import load_suite, load_variant
from touche.errors import ToucheError

# The suite's table: Touché's nDCG@5 for every qrels file, the trec_eval-style one beside it
# (unjudged = 0), and how much of the top 5 is judged at all.
SUITE_MEASURES = ["touche.nDCG@5", "trec.nDCG@5", "trec.Judged@5"]


def run_suite(suite_path: Path, input_dir: Path | None, output_dir: Path, *, only_config: Path | None = None,
              index_root: Path | None = None, qrels: dict[str, Path] | None = None,
              overrides: dict | None = None, progress: bool = True) -> int:
    suite_file, suite = load_suite(suite_path)
    base = suite_file.parent
    if input_dir is not None:
        # a TIRA input directory, or irds:<id> (corpus, topics and the qrels that can be had)
        from touche.datasets import resolve_input
        corpus, topics, dataset_qrels = resolve_input(input_dir)
        if qrels is None and dataset_qrels:
            qrels = dataset_qrels
    else:
        if not (suite.corpus and suite.topics):
            raise ToucheError("this suite has no default corpus/topics: pass -i INPUT_DIR", path=suite_file)
        from touche.datasets import resolve_named_qrels, resolve_topics
        corpus, topics = suite.corpus, resolve_topics(suite.topics, base_dir=base)  # paths or irds:<id>
        corpus = corpus if corpus.startswith("irds:") else base / corpus
        if qrels is None:
            qrels = resolve_named_qrels(suite.qrels, base_dir=base)
    variant_paths = [only_config] if only_config else [base / v for v in suite.variants]
    primary = only_config if only_config else base / suite.primary
    _prepare_output(output_dir)
    with _output_lock(output_dir):
        return _run_variants(suite_file, variant_paths, primary, corpus, topics, output_dir, index_root, qrels,
                             overrides, progress)


@contextlib.contextmanager
def _output_lock(output_dir: Path):
    """One writer per output directory: a second process fails at once with a clear message
    instead of interleaving its run files with the first one's. The lock file is removed after,
    so a finished output directory holds only runs (TIRA uploads the whole directory)."""
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


def _run_variants(suite_file, variant_paths, primary, corpus, topics, output_dir, index_root, qrels, overrides,
                  progress) -> int:
    session = Session(corpus, topics, index_root or default_index_root(), progress=progress)
    results = []
    try:
        for path in variant_paths:
            loaded = load_variant(path, overrides)
            result = session.run(loaded)
            session.write(result, output_dir / f"{loaded.name}.txt")
            results.append(result)
            print(f"wrote {result.run_path} ({sum(len(r) for r in result.rows.values())} rows, "
                  f"{len(result.rows)} topics, {result.seconds:.1f} s)", flush=True)
    finally:
        session.close()
    primary_result = next(r for r in results if r.loaded.path == Path(primary).resolve())
    _copy_atomic(primary_result.run_path, output_dir / "run.txt")
    print(f"wrote {output_dir / 'run.txt'} (primary: {primary_result.loaded.name})")

    if qrels:
        from retrieval.evaluation.measures import evaluate_run, format_table
        from retrieval.formats.qrels import QrelsKind, detect_qrels_kind
        # graded qrels get the compact set; stance and image qrels their own measures
        graded = all(detect_qrels_kind(path) is QrelsKind.GRADED for path in qrels.values())
        measures = SUITE_MEASURES if graded else None
        table = {r.loaded.name: evaluate_run(r.run_path, qrels, measures) for r in results}
        text = format_table(table)
        print()
        print(text)
        (output_dir / "evaluation.md").write_text(text + "\n")
    return 0


def _prepare_output(output_dir: Path) -> None:
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToucheError(f"cannot create the output directory: {exc.strerror}", path=output_dir) from None
    if not os.access(output_dir, os.W_OK):
        raise ToucheError("the output directory is not writable", path=output_dir)


def _copy_atomic(source: Path, target: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    os.close(fd)
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def detect_task(input_dir: Path) -> str:
    """The task a TIRA input directory is for, from what it holds (checked shallowly: corpora are
    large). An explicit --task, --suite or -c always wins over this."""
    def has(*patterns: str) -> bool:
        return any(next(input_dir.glob(p), None) is not None for p in patterns)

    if has("images/I*", "I??/I*"):
        return "image"
    if has("ClueWeb12_*", "*.warc.gz", "*/*.warc.gz", "*/*/*.warc.gz"):
        return "task2"
    if has("*.jsonl", "*.jsonl.gz"):
        return "task2-stance"
    if has("*.csv"):
        return "task1-pairs"
    return "task1"

