"""The modules the mutation run covers, each with why it is there, and those it leaves out with
why (docs/testing.md prints both). Every mutation site of a listed module is run; the tests a
mutant runs are those that execute its lines (bench/mutation/lines.py). ``tests`` names the
test files for the few sites executed at import only (a module-level table, a function called
while the module loads): those run in a copy of the checkout against these files."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Listed:
    why: str
    tests: tuple[str, ...] = ()


MODULES: dict[str, Listed] = {
    # --- what a score is: the readers of runs and qrels, the measures, the tests and intervals
    "touche.retrieval.formats.gate": Listed(
        "the one reader of every run, qrels and topics input (files, frames): what is scored",
        ("tests/formats/test_gate.py",)),
    "touche.retrieval.formats.qrels": Listed(
        "reads the judgements every score is computed from",
        ("tests/formats/test_qrels.py", "tests/indexing/test_readers.py")),
    "touche.retrieval.formats.runfile": Listed(
        "the run-file validator: whether a submission is valid, and the topic order",
        ("tests/formats/test_runfile.py",)),
    "touche.retrieval.formats.runwriter": Listed(
        "the one run-file writer: ranks, ties (untie), the line format TIRA receives",
        ("tests/formats/test_runfile.py",)),
    "touche.retrieval.formats.runtable": Listed(
        "the columnar fast path every run is scored through: which rows each measure reads",
        ("tests/formats/test_gate.py",)),
    "touche.retrieval.formats.topics": Listed(
        "the topics reader (XML, BEIR, frames): which queries are searched, hardened XML parsing",
        ("tests/formats/test_topics.py", "tests/indexing/test_readers.py")),
    "touche.retrieval.formats.selection": Listed(
        "--topics-only/--topics-except: which topics a score is taken over",
        ("tests/formats/test_selection.py",)),
    "touche.retrieval.evaluation.registry": Listed(
        "every measure name parsed in one place: which scorer, qrels and depth a name means",
        ("tests/evaluation/test_evaluate.py",)),
    "touche.retrieval.evaluation.scorers": Listed(
        "the scorers: Touché's nDCG (2021 and 2022 orders), stance F1, image precision",
        ("tests/evaluation/test_evaluate.py",)),
    "touche.retrieval.evaluation.measures": Listed(
        "means, per-topic values, the topics each is over, the score tables users read",
        ("tests/evaluation/test_evaluate.py",)),
    "touche.retrieval.evaluation.significance": Listed(
        "paired tests and corrections: which differences are called significant", ("tests/evaluation/test_report.py",)),
    "touche.retrieval.evaluation.pooled": Listed(
        "pooled measures (stance F1) resampled and tested", ("tests/evaluation/test_pooled.py",)),
    "touche.retrieval.evaluation.agreement": Listed(
        "ranking agreement without qrels (RBO, Jaccard, τ): the explorer's first view",
        ("tests/evaluation/test_agreement.py",)),
    "touche.retrieval.evaluation.resampling": Listed(
        "bootstrap intervals around every mean the explorer and reports show", ("tests/evaluation/test_report.py",)),
    # --- what a participant chooses and sees
    "touche.retrieval.experiments.choose.loss": Listed(
        "each pick's loss against pick 1: what choose.md reports", ("tests/experiments/test_choose_trust.py",)),
    "touche.retrieval.experiments.choose.picks": Listed(
        "which five variants `touche choose` proposes", ("tests/experiments/test_choose_trust.py",)),
    "touche.retrieval.experiments.robust": Listed(
        "criteria over several development sets: which point is best",
        ("tests/experiments/test_sweep_reliability.py",)),
    "touche.retrieval.experiments.sweep.analysis": Listed(
        "a sweep's best point, its noise and its edges", ("tests/experiments/test_sweep_sets.py",)),
    "touche.retrieval.experiments.explorer.data": Listed(
        "every number the run explorer shows, stored once per pair of runs", ("tests/experiments/test_explorer.py",)),
    "touche.retrieval.stages.fusion": Listed(
        "reciprocal rank fusion: the ranking a fused variant submits", ("tests/stages/test_task1_stages.py",)),
    "touche.pyterrier.frames": Listed(
        "PyTerrier frames to run files and back: stance, tie order and ranks written",
        ("tests/pyterrier/test_pyterrier.py",)),
    # --- what a corpus holds: the readers of the files a user gives, each within its budget
    "touche.indexing.argsme": Listed(
        "the args.me JSON reader: which arguments are indexed, bad records, nesting and size budgets",
        ("tests/core/test_budgets.py", "tests/indexing/test_readers.py")),
    "touche.indexing.clueweb": Listed(
        "the ClueWeb12 WARC reader: which pages are indexed and their text, a record's budget",
        ("tests/core/test_budgets.py", "tests/tasks/test_task2.py")),
    "touche.indexing.passages": Listed(
        "the Task 2 2022 passage JSONL reader, a line's budget",
        ("tests/core/test_budgets.py", "tests/indexing/test_readers.py")),
    "touche.indexing.sentences": Listed(
        "the 2022 sentence CSV reader and our splitting of the 2020 JSON: which sentences pairs are made of",
        ("tests/core/test_budgets.py", "tests/tasks/test_pairs.py")),
    "touche.indexing.images": Listed(
        "the image collection reader: an image's texts (pages, near text, alt text) and its files' budget",
        ("tests/core/test_budgets.py", "tests/tasks/test_images.py", "tests/tasks/test_image_pages.py")),
    "touche.indexing.beir": Listed(
        "args.me in BEIR's layout, a line's budget", ("tests/core/test_budgets.py", "tests/indexing/test_beir.py")),
    "touche.budgets": Listed(
        "what every corpus reader takes in at once: a record to one past its budget, a line, a parser's reads",
        ("tests/core/test_budgets.py",)),
    # --- what guards a user's data
    "touche.atomic": Listed(
        "the writer: every output whole or not at all, temporaries cleaned, a live writer's kept",
        ("tests/guard/test_atomic.py",)),
    "touche.guard": Listed(
        "the output guard and the one owner of every output folder and every location a user names",
        ("tests/guard/test_guard.py", "tests/guard/test_owned_locations.py")),
    "touche.record": Listed(
        "the record of what a command made: what licenses a replacement or a deletion",
        ("tests/guard/test_record.py",)),
    # --- the locations a user names: index roots, shards, caches, the helper jar
    "touche.indexing.builder": Listed(
        "builds, keys, reuses, shards and places every index in the index root a user names",
        ("tests/indexing/test_builder.py", "tests/indexing/test_index_places.py")),
    "touche.indexing.distributed": Listed(
        "shard tasks on Ray: which cluster, what each task asks for, where its shard goes",
        ("tests/indexing/test_ray_tasks.py",)),
    "touche.datasets": Listed(
        "irds: ids: which files are read, the datasets cache's corpus links and extracted collections",
        ("tests/core/test_datasets.py",)),
    "touche.jvm": Listed(
        "the JVM's start and the helper jar compiled into the place a setting names", ("tests/core/test_jvm.py",)),
    "touche.processes": Listed(
        "the toolkit's worker processes never run the caller's script again", ("tests/core/test_processes.py",)),
    "touche.folderlock": Listed(
        "one command at a time in a folder, no one else's file taken for a lock",
        ("tests/guard/test_folderlock.py",)),
    "touche.settings": Listed(
        "environment variables, each parsed once, a bad value named", ("tests/core/test_settings.py",)),
    "touche.bounds": Listed(
        "the range of every number an input may hold", ("tests/core/test_bounds.py", "tests/stages/test_quality.py")),
}

LEFT_OUT: dict[str, str] = {
    "touche.retrieval.session": "runs a variant through Lucene; its result is pinned by every demo suite's "
                                "regression figures (tests/experiments/test_regressions.py), a mutant costs the demo "
                                "runs of its tests in Java (one to two minutes): left to the regressions",
    "touche.retrieval.search": "a thin bridge to the Java BatchSearcher (its scores are Lucene's); pinned by the "
                               "regressions and the re-ranking tests",
    "touche.indexing.* (but the builder, its Ray tasks and the corpus readers, listed)": "the index's other "
        "helpers, checked by the pinned index statistics of every suite (documents, terms per field) rather than per "
        "line",
    "touche.retrieval.tasks.*": "task re-ranking features: their effect is pinned by the regressions; the stance "
                                "models' files are checked by bounds and preflight (listed)",
    "touche.cli.*": "argument plumbing over the modules above; its messages are tested command by command",
    "touche.retrieval.experiments.explorer.page/build/export": "the page's rendering is held byte-equal by the "
                                                               "browser tests; the numbers come from data (listed)",
}


def fallback_tests(module: str, root: Path) -> tuple[str, ...]:
    """The test files a module-level site of ``module`` runs against: those listed for it, and
    every test file beside them (in their folders of tests/, which mirror the product's packages)
    that imports it (``from touche.settings import ...``, ``from touche import settings``): a
    constant at module level is judged by the tests written against its module."""
    parent, _, last = module.rpartition(".")
    imports = re.compile(rf"^\s*(?:from {re.escape(module)} import|import {re.escape(module)}\b"
                         rf"|from {re.escape(parent)} import \(?[\w, ]*\b{last}\b)", re.M)
    listed = MODULES[module].tests
    folders = sorted({(root / test).parent for test in listed})
    found = [str(path.relative_to(root)) for folder in folders for path in sorted(folder.glob("test_*.py"))
             if imports.search(path.read_text(encoding="utf-8"))]
    return tuple(dict.fromkeys([*listed, *found]))
