"""Parameter sweeps: a grid over any config keys, run in one session, evaluated, resumable.

A sweep file (YAML, strict: unknown keys are errors; paths relative to the sweep file, with
``${VAR}`` / ``${VAR:-default}`` expanded)::

    base: ../task1/examples/3-krovetz-lmdirichlet.yaml  # the variant every point starts from
    grid:                                         # cartesian product over dotted config keys
      analyzer.stemmer: [none, krovetz]
      retrieval.similarity.mu: [500, 1000, 2000]
    zip:                                          # groups of keys that vary together (one axis each)
      - {retrieval.similarity.k1: [0.9, 1.2], retrieval.similarity.b: [0.4, 0.75]}
    qrels: {relevance: ../../demo/qrels-relevance.txt, quality: ../../demo/qrels-quality.txt}
    measure: relevance:touche.nDCG@5              # the table's sort key
    measures: [touche.nDCG@5, trec.nDCG@5, trec.Judged@5]   # computed for every qrels they fit
    topics: ../../demo/topics.xml
    corpus: ../../demo/args.me
    output: ../../out/sweeps/demo

Several development sets (``sets:`` instead of ``corpus``/``topics``/``qrels``): every point runs
on each, and the points are ordered by a criterion over all of them (``robust.py``) instead of
the argmax of one set, whose judgements may be biased::

    sets:
      2020:       {corpus: …/sample.json, topics: …/task1-2020.xml, qrels: {relevance: …}}
      2021-dev5:  {corpus: [sample.json, dev-completion.json], topics: …/task1-2021.xml,
                   topics_only: [52, 67, 68, 74, 100], qrels: {relevance: …, quality: …}}
    criterion: calibrated_rank      # or weighted_rank, worst_case, weighted_mean (robust.CRITERIA)

A sweep without ``sets:`` is one set (named ""); every part below treats it as such.

The parts, each a module of this package:

* ``spec``     the schema of the file and its points (every combination of the axes);
* ``sets``     the development sets: materialised, checked before anything runs, their coverage;
* ``loading``  a sweep file read and checked, with the keys of every run;
* ``store``    the results file (one JSON line per finished run, appended and fsync'd);
* ``runners``  running the unfinished runs, here or as Ray tasks (``--ray [ADDRESS]``);
* ``analysis`` what the records say, computed once (order, noise, transfers, effects);
* ``reports``  results.csv, results.md, sweep.png, formatted from the analysis;
* ``manifest`` ``sweep.json``, the validated model ``touche choose`` reads (with the choice).

Resumability: a rerun skips every run whose key is in ``results.jsonl`` and whose run file
exists. A run key hashes the point's overrides and the validated variant they produce (plus the
set's corpus and topics); a result key adds the set's qrels. Editing the base file recomputes the
points it changes; new qrels rescore the run files without running them again.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from touche import guard
from touche.folderlock import folder_lock
from touche.paths import default_index_root
from touche.retrieval.experiments.robust import criterion_named, heaviest
from touche.retrieval.experiments.sweep import runners
from touche.retrieval.experiments.sweep.analysis import SweepAnalysis, analyse, sort_records
from touche.retrieval.experiments.sweep.axes import describe_overrides, grid_edges
from touche.retrieval.experiments.sweep.loading import Sweep, load_sweep
from touche.retrieval.experiments.sweep.manifest import (
    MANIFEST_FILE,
    ManifestAxis,
    ManifestPoint,
    ManifestSet,
    StoredChoice,
    StoredTransfer,
    SweepManifest,
    read_manifest,
    write_manifest,
)
from touche.retrieval.experiments.sweep.reports import format_csv, format_one_set, format_several_sets, plot
from touche.retrieval.experiments.sweep.runners import current_records, is_finished, unfinished
from touche.retrieval.experiments.sweep.spec import SweepSpec, axes_of, expand_points
from touche.retrieval.experiments.sweep.store import RESULTS_FILE, Record, read_records

__all__ = ["run_sweep", "plan_sweep", "SweepPlan", "load_sweep", "Sweep", "SweepSpec", "SweepOutcome", "SweepAnalysis",
           "Record",
           "read_records", "read_manifest", "expand_points", "is_finished", "unfinished", "sort_records",
           "RESULTS_FILE", "MANIFEST_FILE"]


class SweepOutcome:
    """What ``run_sweep`` did and found."""

    def __init__(self, analysis: SweepAnalysis, computed: int, table_csv: Path, table_md: Path, plot: Path | None):
        self.analysis = analysis
        self.sweep = analysis.sweep
        self.records = analysis.records
        self.computed = computed  # runs done in this call
        self.reused = len(analysis.records) - computed  # runs found finished
        self.indexes = analysis.indexes
        self.table_csv, self.table_md, self.plot = table_csv, table_md, plot

    @property
    def choice(self):
        return self.analysis.choice

    def summary(self) -> list[str]:
        """What a sweep says when it is done: the runs finished, the pick (or the best point), a
        grid edge it lies on, the reports written and what is left."""
        sweep, analysis = self.sweep, self.analysis
        runs = len(sweep.jobs())
        unit = f"runs ({len(sweep.points)} points × {len(sweep.sets)} sets)" if sweep.several else "points"
        lines = [f"{len(self.records)} of {runs} {unit} finished ({self.computed} run now, {self.reused} found "
                 f"finished), {self.indexes} distinct index(es)"]
        if sweep.several and analysis.pick is not None:
            choice = self.choice
            pick = sweep.points[choice.pick]
            scores = "; ".join(f"{dev.name} {choice.means[choice.pick, s]:.4f}" for s, dev in enumerate(sweep.sets))
            lines.append(f"pick by {criterion_named(sweep.spec.criterion).name}: point {pick.number} "
                         f"({describe_overrides(pick.overrides)}): {scores}"
                         + (" — within the noise of the runner-up (results.md)" if choice.lead_is_noise else ""))
        elif sweep.several and self.records:
            lines.append(f"no pick: {analysis.why_no_pick}")
        elif self.records:
            best = self.best()
            assert best is not None  # there are records
            value = best.measures.get(sweep.spec.measure, math.nan)
            lines.append(f"best {sweep.spec.measure} = {value:.4f}: point {best.point} "
                         f"({describe_overrides(best.overrides)})")
        edges = grid_edges(sweep.axes, sweep.points[analysis.pick].coordinates) if analysis.pick is not None else []
        if edges:
            lines.append(f"note: the best point lies on the grid's edge ({', '.join(edges)}): a better one may lie "
                         "beyond; extend the grid there")
        lines += [f"wrote {path}" for path in (self.table_md, self.table_csv, self.plot) if path is not None]
        missing = runs - len(self.records)
        if missing:
            lines.append(f"{missing} {'run' if sweep.several else 'point'}(s) left: rerun the same command to continue")
        return lines

    def best(self) -> Record | None:
        """The best point's record: by the measure on one set; with sets the criterion's pick,
        on the set that weighs most in the criterion (None when nothing is picked)."""
        pick = self.analysis.pick
        if pick is None:
            return None
        if not self.sweep.several:
            return self.analysis.ranked[0]
        key = self.sweep.sets[heaviest([s.used_weight for s in self.analysis.sets])].keys[pick]
        return next((r for r in self.records if r.key == key), None)


@dataclass
class SweepPlan:
    """A sweep's runs and which are done (``touche sweep --dry-run``), nothing run."""
    sweep: Sweep
    runs: list[tuple[int, str, str, str]]  # (point number, "done" | "todo", run key, set and settings)
    todo: int

    def lines(self) -> list[str]:
        sets = f" on {len(self.sweep.sets)} sets" if self.sweep.several else ""
        return [f"{number:4d} {state} {key} {what}" for number, state, key, what in self.runs] + \
            [f"{len(self.sweep.points)} points{sets}, {self.todo} to run; output {self.sweep.output}"]


def plan_sweep(path: str | Path, *, corpus: Path | None = None, topics: Path | None = None,
               qrels: dict[str, Path] | None = None, output: Path | None = None) -> SweepPlan:
    """The sweep's runs, each done or to do, as a rerun would find them."""
    sweep = load_sweep(path, corpus=corpus, topics=topics, qrels=qrels, output=output)
    records = read_records(sweep.output / RESULTS_FILE)
    runs = []
    for dev, i in sweep.jobs():
        point, key = sweep.points[i], dev.keys[i]
        where = f"{dev.name}: " if dev.name else ""
        runs.append((point.number, "done" if is_finished(sweep, records, key) else "todo", key,
                     f"{where}{point.describe()}"))
    return SweepPlan(sweep, runs, len(unfinished(sweep, records)))


# what a sweep writes in its output folder (runs/ and sets/ hold only what it names by key)
SWEEP_ENTRIES = ("runs", "sets", RESULTS_FILE, "results.csv", "results.md", "sweep.png", MANIFEST_FILE)


def run_sweep(path: str | Path, *, corpus: Path | None = None, topics: Path | None = None,
              qrels: dict[str, Path] | None = None, output: Path | None = None, index_root: Path | None = None,
              progress: bool = True, limit: int | None = None, ray: str | bool | None = None) -> SweepOutcome:
    """Run every unfinished point of a sweep (on every set), then write the reports.

    ``limit``: run at most this many unfinished runs in this call (the rest stay for a rerun).
    ``ray``: run them as Ray tasks: True (or "local") on a local cluster, else the address of one.
    """
    sweep = load_sweep(path, corpus=corpus, topics=topics, qrels=qrels, output=output)
    if ray:
        runners.check_ray()  # before anything is written
    guard.check(guard.Files.of(
        reads=[("sweep", sweep.path), ("base variant", sweep.base)]
        + [(f"corpus of set {dev.label}", f) for dev in sweep.sets for f in dev.corpus_files or [dev.corpus]]
        + [(f"topics of set {dev.label}", dev.source_topics or dev.topics) for dev in sweep.sets]
        + [(f"qrels of set {dev.label}", q) for dev in sweep.sets for q in dev.qrels.values()],
        folders=[("sweep output folder", sweep.output)]))
    out = sweep.folder()
    with folder_lock(sweep.output, LOCK_FILE, "another sweep is writing to this output directory (lock "
                           f"{LOCK_FILE} held)"):
        # before anything is written: every entry a sweep writes here is its own or absent, and
        # nothing else may pass for its results (an index root inside the folder is left alone)
        index_inside = (
            [Path(index_root).name] if index_root and Path(index_root).parent.resolve() == sweep.output else []
        )
        out.claim(SWEEP_ENTRIES, refuse=lambda entry: entry.name not in index_inside,
                  because="a sweep's folder holds its own results only")
        sweep.folder("runs").claim((), refuse=lambda entry: True,
                                   because="they would pass for the sweep's runs")
        for dev in sweep.sets:
            dev.prepare(sweep.set_folder(dev))
        write_manifest(out, manifest_of(sweep, None))
        root = Path(index_root) if index_root else default_index_root()
        try:
            if ray:
                computed = runners.run_on_ray(sweep, root, progress, limit, None if ray is True else str(ray))
            else:
                computed = runners.run_here(sweep, root, progress, limit)
        except BaseException:
            # interrupted (Ctrl-C, a failed run): what finished stays reported, and choose --partial
            # can choose among it; the original error is what the user sees
            with contextlib.suppress(Exception):
                write_reports(sweep, 0)
            raise
        return write_reports(sweep, computed)


LOCK_FILE = ".sweep.lock"


def write_reports(sweep: Sweep, computed: int = 0) -> SweepOutcome:
    """Analyse the finished runs and write results.csv, results.md, sweep.png and the manifest."""
    out = sweep.folder()
    analysis = analyse(sweep, current_records(sweep))
    csv_path = out.write_text("results.csv", format_csv(analysis.header, analysis.rows))
    figure = plot(analysis)
    text = format_several_sets(analysis, figure) if sweep.several else format_one_set(analysis, figure)
    md_path = out.write_text("results.md", text)
    write_manifest(out, manifest_of(sweep, analysis))
    return SweepOutcome(analysis, computed, csv_path, md_path, figure)


def _where(path: Path, output: Path) -> str:
    """A path as the manifest stores it: relative to the output folder when it lies inside it (a
    set's materialised corpus and topics), so a moved sweep folder still names them."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(output.resolve()))
    except ValueError:
        return str(path)


def _number(value) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def manifest_of(sweep: Sweep, analysis: SweepAnalysis | None) -> SweepManifest:
    """The manifest of a loaded sweep; with its analysis, the finished counts, weights and choice."""
    summaries = {s.name: s for s in analysis.sets} if analysis else {}
    sets = []
    for dev in sweep.sets:
        summary = summaries.get(dev.name)
        sets.append(ManifestSet(
            name=dev.name, corpus=_where(dev.corpus, sweep.output), topics=_where(dev.topics, sweep.output),
            corpus_files=[str(f) for f in dev.corpus_files] if dev.corpus_files is not None else None,
            source_topics=str(dev.source_topics) if dev.source_topics else None,
            qrels={n: str(q) for n, q in dev.qrels.items()}, given_weight=dev.weight,
            coverage=_number(summary.mean_coverage) if summary and summary.coverage else None,
            weight=_number(summary.weight) if summary else None,
            used_weight=_number(summary.used_weight) if summary else None,
            description=dev.description, keys=dev.keys, finished=summary.finished if summary else 0))
    choice = None
    if analysis is not None and sweep.several:
        choice = stored_choice(sweep, analysis)
    return SweepManifest(
        sweep=str(sweep.path), base=str(sweep.base), description=sweep.spec.description, measure=sweep.spec.measure,
        measures=sweep.measures, criterion=sweep.spec.criterion,
        axes=[ManifestAxis(label=axis.label, keys=list(keys)) for axis, keys in axes_of(sweep.spec)],
        points=[ManifestPoint(point=p.number, overrides=p.overrides,
                              coordinates={label: list(v) if isinstance(v, tuple) else v
                                           for label, v in p.coordinates.items()}) for p in sweep.points],
        sets=sets, runs=len(sweep.jobs()), finished=len(analysis.records) if analysis else 0, choice=choice)


def stored_choice(sweep: Sweep, analysis: SweepAnalysis) -> StoredChoice:
    criterion = criterion_named(sweep.spec.criterion)
    choice = analysis.choice
    if choice is None:
        n, k = len(sweep.points), len(sweep.sets)  # every list shaped as a choice's (the manifest checks it)
        return StoredChoice(criterion=criterion.name, order=[], values=[None] * n, means=[[None] * k for _ in range(n)],
                            intervals=[[[None, None] for _ in range(k)] for _ in range(n)],
                            pick_share=[0.0] * n, lead_interval=[None, None], lead_is_noise=False,
                            why_none=analysis.why_no_pick)
    return StoredChoice(
        criterion=criterion.name, order=[int(choice.points[i]) for i in choice.order],
        values=[_number(criterion.shown(v)) for v in choice.values],
        means=[[_number(v) for v in row] for row in choice.means],
        intervals=[[[_number(v) for v in pair] for pair in row] for row in choice.intervals],
        pick_share=[float(v) for v in choice.pick_share],
        lead_interval=[_number(v) for v in choice.lead_interval], lead_is_noise=bool(choice.lead_is_noise),
        transfers=[StoredTransfer(left_out=t.left_out, pick=int(t.pick), score=_number(t.score), rank=_number(t.rank),
                                  best=int(t.best), best_score=_number(t.best_score)) for t in analysis.transfers],
        why_none=analysis.why_no_pick)
