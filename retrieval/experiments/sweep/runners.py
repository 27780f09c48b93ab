"""Running a sweep's unfinished runs: in this process (one session per set), or as Ray tasks.

Both append one record per finished run to the results file as it finishes, so either resumes
the other. A run file is named by its run key: sets that share corpus and topics share it, and
a record missing for a run file that exists (new qrels, a new set) is scored, not run again.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

from touche import jvm
from touche.config import LoadedVariant
from touche.errors import ToucheError
from touche.indexing import distributed
from touche.progress import fit_label, progress_bar
from touche.retrieval.evaluation.measures import evaluate
from touche.retrieval.evaluation.significance import per_topic_scores, split_measure
from touche.retrieval.experiments.sweep.axes import point_slug
from touche.retrieval.experiments.sweep.loading import Sweep, load_sweep
from touche.retrieval.experiments.sweep.sets import DevSet
from touche.retrieval.experiments.sweep.spec import Point
from touche.retrieval.experiments.sweep.store import RESULTS_FILE, Record, append_record, compact, load_records
from touche.retrieval.session import Session
from touche.stemming.analyzers import content_key

RAY_RETRIES = 2  # a batch whose worker process died is run again this many times


def run_file(sweep: Sweep, dev: DevSet, i: int) -> Path:
    """``runs/<settings>--<key>.txt``: the key names what the run depends on; the settings say
    which point it is wherever the file is shown (``touche compare`` labels runs by their files)."""
    settings = point_slug(sweep.points[i].overrides)[:60].rstrip("-._") or f"point{i + 1}"
    return sweep.output / "runs" / f"{settings}--{dev.run_keys[i]}.txt"


def cost_file(run: Path) -> Path:
    """What a run file cost (its index, its seconds), written before the run file itself: a run
    whose record was lost (interrupted between the file and its record, on a worker or here)
    is scored again with its real index and time, not as a run of index "" in 0 s."""
    return run.with_suffix(".cost.json")


def run_cost(run: Path) -> tuple[float, str] | None:
    try:
        data = json.loads(cost_file(run).read_text(encoding="utf-8"))
        return float(data["seconds"]), str(data["index"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_finished(sweep: Sweep, records: dict[str, Record], key: str) -> bool:
    record = records.get(key)
    return record is not None and (sweep.output / record.run).is_file()


def unfinished(sweep: Sweep, records: dict[str, Record]) -> list[tuple[DevSet, int]]:
    return [(dev, i) for dev, i in sweep.jobs() if not is_finished(sweep, records, dev.keys[i])]


def current_records(sweep: Sweep) -> list[Record]:
    """The records of this sweep's runs, set by set in point order (finished runs only)."""
    records = load_records(sweep.output / RESULTS_FILE, warn=False).by_key
    return [records[k] for k in sweep.keys if is_finished(sweep, records, k)]


def score(sweep: Sweep, dev: DevSet, point: Point, run: Path, seconds: float = 0.0, index: str = "") -> Record:
    """A run file scored with the set's qrels."""
    return Record(key=dev.keys[point.number - 1], point=point.number, overrides=point.overrides,
                  measures=evaluate(run, dev.qrels, sweep.measures_for(dev)), run=str(run.relative_to(sweep.output)),
                  seconds=seconds, index=index, per_topic=main_per_topic(sweep, dev, run),
                  qrels=dev.qrels_fingerprint(), set=dev.name)


def main_per_topic(sweep: Sweep, dev: DevSet, run: Path) -> dict[str, dict[str, float]]:
    """Per-topic values of the sort measure, for the significance column (when it has them)."""
    qrels_name, measure = split_measure(sweep.spec.measure)
    assert qrels_name is not None  # the spec's measure is QRELS-NAME:MEASURE (validated)
    try:
        return {sweep.spec.measure: per_topic_scores(run, dev.qrels[qrels_name], measure)}
    except ToucheError:
        return {}  # stance F1 and image precision are not per-topic: no p-values then


def run_point(sweep: Sweep, session: Session, point: Point, loaded: LoadedVariant, dev: DevSet) -> Record:
    started = time.perf_counter()
    result = session.run(loaded)
    run = run_file(sweep, dev, point.number - 1)
    seconds, index = round(time.perf_counter() - started, 3), result.index.path.name
    runs = sweep.folder("runs")
    runs.write_text(cost_file(run).name, json.dumps({"seconds": seconds, "index": index}) + "\n")
    session.write(result, run, into=runs)
    # The session keeps every result for fusion stages to reuse; a sweep never reuses its own
    # points, and keeping hundreds of rankings in memory is what would stop a long sweep.
    session.forget(result)
    return score(sweep, dev, point, run, seconds, index)


def todo(sweep: Sweep, limit: int | None) -> tuple[list[tuple[DevSet, int]], int]:
    """The runs still to do (at most ``limit``) and how many are finished, after scoring the
    run files that lack a record (or a measure added since) and dropping torn lines."""
    stored = load_records(sweep.output / RESULTS_FILE)
    compact(sweep.folder(), stored)
    _complete_measures(sweep, stored.by_key)
    left = unfinished(sweep, stored.by_key)
    done = len(sweep.jobs()) - len(left)
    return (left[:limit] if limit is not None else left), done


def _complete_measures(sweep: Sweep, records: dict[str, Record]) -> None:
    """Runs whose file exists but whose record is missing (other qrels, a new set on the same
    data) or lacks a measure added since are scored from the file, which is cheap; retrieval
    is not repeated."""
    by_run = {record.run: record for record in records.values()}  # what a shared run file cost, where
    for dev in sweep.sets:
        expected: set[str] | None = None  # the measure names every record should have
        per_topic_possible = False
        for i, key in enumerate(dev.keys):
            run = run_file(sweep, dev, i)
            if not run.is_file():
                continue
            record = records.get(key)
            if record is not None and (sweep.output / record.run).is_file():
                if expected is None:
                    expected = set(evaluate(run, dev.qrels, sweep.measures_for(dev)))
                    per_topic_possible = bool(main_per_topic(sweep, dev, run))
                if expected <= set(record.measures) and (sweep.spec.measure in record.per_topic
                                                         or not per_topic_possible):
                    continue
            known = record or by_run.get(str(run.relative_to(sweep.output)))
            seconds, index = (known.seconds, known.index) if known else run_cost(run) or (math.nan, "")
            rescored = score(sweep, dev, sweep.points[i], run, seconds, index)
            records[key] = rescored
            append_record(sweep.folder(), rescored)


def run_here(sweep: Sweep, index_root: Path, progress: bool, limit: int | None) -> int:

    left, done = todo(sweep, limit)
    if not left:
        return 0
    bar = progress_bar(total=len(sweep.jobs()), initial=done, desc=f"sweep {sweep.name} ({sweep.spec.measure})",
               unit=" run", disable=not progress, dynamic_ncols=True)
    done_runs: dict[str, Record] = {}  # run key → its record, for sets that share a run file
    try:
        for dev in sweep.sets:
            mine = [i for d, i in left if d is dev]
            if not mine:
                continue
            session = Session(dev.corpus, dev.topics, index_root, progress=progress)
            try:
                for i in mine:
                    point = sweep.points[i]
                    bar.set_postfix_str(fit_label(f"{dev.name + ': ' if dev.name else ''}{point.describe()}"))
                    shared = done_runs.get(dev.run_keys[i])
                    if shared is not None:  # another set on the same corpus and topics ran it in this call
                        record = score(sweep, dev, point, run_file(sweep, dev, i), shared.seconds, shared.index)
                    else:
                        record = run_point(sweep, session, point, sweep.variants[i], dev)
                        done_runs[dev.run_keys[i]] = record
                    append_record(sweep.folder(), record)
                    bar.update(1)
            finally:
                session.close()
    finally:
        bar.close()
    return len(left)


# --------------------------------------------------------------------------- on a Ray cluster
def check_ray() -> None:
    """Ray must be importable before the sweep writes anything (``pip install ray``)."""
    distributed.ray_module()


def _batches(sweep: Sweep, left: list[tuple[DevSet, int]], cpus: int) -> list[tuple[DevSet, list[int]]]:
    """The runs grouped by set and by the index they search (a batch opens its index once), the
    groups cut so that the cluster's cores have work: at least two batches per core when there
    are runs enough."""
    groups: dict[tuple[str, str], list[int]] = {}
    by_set = {}
    for dev, i in left:
        variant = sweep.variants[i]
        index = variant.variant.index_key() + content_key(variant.variant.analyzer, variant.path.parent)
        groups.setdefault((dev.name, index), []).append(i)
        by_set[dev.name] = dev
    size = max(1, math.ceil(len(left) / max(1, 2 * cpus)))
    return [(by_set[name], indices[start:start + size]) for (name, _), indices in groups.items()
            for start in range(0, len(indices), size)]


def _sweep_batch(sweep_path: str, inputs: dict, set_name: str, indices: list[int], index_root: str,
                 heap: str) -> list[dict]:
    """Runs of one set, in a Ray worker process of its own (its own JVM): the records, as JSON."""
    jvm.start(heap)
    sweep = load_sweep(sweep_path, **_inputs_from_json(inputs))
    dev = next(d for d in sweep.sets if d.name == set_name)
    session = Session(dev.corpus, dev.topics, Path(index_root), progress=False)
    try:
        return [json.loads(run_point(sweep, session, sweep.points[i], sweep.variants[i], dev).to_json())
                for i in indices]
    finally:
        session.close()


def _inputs_to_json(sweep: Sweep) -> dict:
    """What the workers need to load the same sweep: the output, and for a sweep without sets:
    its one set's inputs (they may come from the command line)."""
    if sweep.several:
        return {"output": str(sweep.output)}
    (dev,) = sweep.sets
    return {"output": str(sweep.output), "corpus": str(dev.corpus), "topics": str(dev.topics),
            "qrels": {n: str(q) for n, q in dev.qrels.items()}}


def _inputs_from_json(inputs: dict) -> dict:
    return {"output": Path(inputs["output"]),
            **({"corpus": Path(inputs["corpus"]), "topics": Path(inputs["topics"]),
                "qrels": {n: Path(q) for n, q in inputs["qrels"].items()}} if "corpus" in inputs else {})}


def run_on_ray(sweep: Sweep, index_root: Path, progress: bool, limit: int | None, address: str | None) -> int:
    """The unfinished runs as Ray tasks; the driver appends each record as its batch returns, so
    an interrupted Ray sweep resumes like a local one. Needs a sweep from a file (the workers
    load it) and, on a cluster, the output folder, index root and data on a shared file system."""

    left, done = todo(sweep, limit)
    if not left:
        return 0
    ray = distributed.ray_module()
    ours = not ray.is_initialized()
    distributed.connect(address)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        threads = max(1, min(max(v.variant.retrieval.threads for v in sweep.variants), cpus))
        heap = distributed.worker_heap(address, cpus, threads)
        task = distributed.remote_task(_sweep_batch, threads, retries=RAY_RETRIES)
        inputs = _inputs_to_json(sweep)
        pending = {task.remote(str(sweep.path), inputs, dev.name, indices, str(index_root.resolve()), heap):
                   (dev, indices) for dev, indices in _batches(sweep, left, cpus)}
        with progress_bar(total=len(sweep.jobs()), initial=done, desc=f"sweep {sweep.name} on Ray ({cpus} CPUs)",
                  unit=" run", disable=not progress, dynamic_ncols=True) as bar:
            def finished(job, records: list[dict]) -> None:
                for data in records:
                    append_record(sweep.folder(), Record.from_json(data))
                bar.update(len(records))

            distributed.collect(pending, finished, lambda job: f"points {', '.join(str(i + 1) for i in job[1])}",
                                RAY_RETRIES)
    finally:
        if ours:
            distributed.disconnect()
    return len(left)
