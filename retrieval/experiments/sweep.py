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

Each point's overrides go through ``touche.config.load_variant(base, overrides)``: any key can
be swept, and a bad value is the usual ConfigError naming the key. All points are validated
before anything runs. All points run in ONE ``retrieval.session.Session``: indexes are shared
by their hash, so points that change only search-time keys cost no indexing.

Resumability: ``<output>/results.jsonl`` gets one JSON line per finished point (its overrides,
its key, its measures, its run file), appended with a single write and fsync'd. A rerun skips
every point whose key is there and whose run file exists. The key hashes the point's overrides
and the validated variant they produce (plus corpus and topics), so editing the base file
recomputes the points it changes. A line torn by a crash is ignored (that point reruns).

Reports (rewritten after every sweep, also when nothing was left to run): ``results.csv``,
``results.md`` (sorted by the measure, with the paired randomization p of each point against
the best), ``sweep.png``; ``sweep.json`` records what ``touche choose`` needs (base, axes,
measure).
"""
from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import logging
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator

from touche.retrieval.evaluation.measures import evaluate
from touche.retrieval.evaluation.significance import paired_randomization_test, per_topic_scores, split_measure
from touche.retrieval.experiments.report import Axis, PlotPoint, describe_overrides, format_value, plot_sweep
from touche.retrieval.formats.qrels import read_qrels
from touche.retrieval.session import Session
from touche.retrieval.fingerprint import data_fingerprint, variant_fingerprint
from touche.atomic import write_text
from touche.config import LoadedVariant, _describe, load_variant, read_yaml
from touche.errors import ConfigError, InputError, ToucheError
from touche.paths import default_index_root
from touche.specs import Strict

log = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "sweep.json"
DEFAULT_MEASURES = ("touche.nDCG@5", "trec.nDCG@5", "trec.Judged@5")

# --------------------------------------------------------------------------- the sweep file
DottedKey = str
_KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")


class SweepSpec(Strict):
    """A sweep: a base variant, the values to try, the qrels to score them on."""

    base: str = Field(..., description="run-variant YAML every point starts from (relative to the sweep file)")
    description: str = Field("", description="free text shown in the reports")
    grid: dict[DottedKey, list[Any]] = Field({}, description="dotted config key → values; all combinations are run")
    zip: list[dict[DottedKey, list[Any]]] = Field(
        [], description="groups of dotted keys whose value lists (of equal length) vary together; "
                        "each group is one more axis of the product")
    qrels: dict[str, str] = Field(..., min_length=1, description="name → qrels file (relative to the sweep file)")
    measure: str = Field("relevance:touche.nDCG@5", description="qrels-name:measure the results are sorted by")
    measures: list[str] = Field(list(DEFAULT_MEASURES), min_length=1,
                                description="measures computed for every qrels file they apply to")
    topics: str | None = Field(None, description="topics XML (relative to the sweep file); the CLI's -t overrides")
    corpus: str | None = Field(None, description="corpus file or directory; the CLI's -i overrides")
    output: str | None = Field(None, description="output directory (relative to the sweep file); "
                                                 "default out/sweeps/<sweep name> in the current directory")

    @field_validator("grid")
    @classmethod
    def _grid_values(cls, grid):
        for key, values in grid.items():
            _check_axis(key, values)
        return grid

    @field_validator("zip")
    @classmethod
    def _zip_groups(cls, groups):
        for number, group in enumerate(groups, 1):
            if len(group) < 2:
                raise ValueError(f"zip group {number} needs at least two keys (one key belongs in grid)")
            lengths = {key: len(values) for key, values in group.items()}
            if len(set(lengths.values())) != 1:
                raise ValueError(f"zip group {number}: value lists must have equal lengths, got "
                                 + ", ".join(f"{k}: {n}" for k, n in lengths.items()))
            for key, values in group.items():
                _check_axis(key, values, unique=False)
            combos = list(zip(*([_canonical(_numbers_alike(x)) for x in v] for v in group.values())))
            if len(set(combos)) != len(combos):
                raise ValueError(f"zip group {number} repeats a combination of values")
        return groups

    @field_validator("measure")
    @classmethod
    def _measure_named(cls, value):
        if ":" not in value:
            raise ValueError(f"measure must be QRELS-NAME:MEASURE, e.g. relevance:touche.nDCG@5 (got {value!r})")
        return value

    @model_validator(mode="after")
    def _consistent(self):
        keys = list(self.grid) + [k for group in self.zip for k in group]
        if not keys:
            raise ValueError("nothing to sweep: give grid (and/or zip) at least one key")
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"key(s) {', '.join(repeated)} appear more than once across grid and zip")
        nested = [(a, b) for a in keys for b in keys if b.startswith(a + ".")]
        if nested:
            a, b = nested[0]
            raise ValueError(f"'{b}' lies inside '{a}': sweep one or the other")
        qrels_name, _ = split_measure(self.measure)
        if qrels_name not in self.qrels:
            raise ValueError(f"measure '{self.measure}' names qrels '{qrels_name}', but qrels has "
                             f"{', '.join(self.qrels)}")
        return self


def _check_axis(key: str, values: list, unique: bool = True) -> None:
    if not _KEY.fullmatch(key):
        raise ValueError(f"'{key}' is not a dotted config key (e.g. retrieval.similarity.k1)")
    if not values:
        raise ValueError(f"{key}: give at least one value")
    if unique:
        canon = [_canonical(_numbers_alike(v)) for v in values]
        if len(set(canon)) != len(canon):
            raise ValueError(f"{key}: values repeat")


def _numbers_alike(value: Any) -> Any:
    """1 and 1.0 are the same setting (for spotting repeated values)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, dict):
        return {k: _numbers_alike(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_alike(v) for v in value]
    return value


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_path(text: str, base: Path, sweep_file: Path) -> Path:
    """``${VAR}`` / ``${VAR:-default}`` expanded, then relative to ``base``."""
    def substitute(match: re.Match) -> str:
        value = os.environ.get(match.group(1))
        if value is None:
            if match.group(2) is None:
                raise ConfigError(f"path '{text}' uses ${{{match.group(1)}}}, which is not set "
                                  f"(write ${{{match.group(1)}:-default}} to give a default)", path=sweep_file)
            return match.group(2)
        return value
    return (base / _VAR.sub(substitute, text)).resolve()


# --------------------------------------------------------------------------- points
@dataclass(frozen=True)
class Point:
    number: int  # 1-based, in the sweep file's order
    overrides: dict[str, Any]  # dotted key → value
    coordinates: dict[str, Any]  # axis label → value (a zip group's value is a tuple)

    def describe(self) -> str:
        return describe_overrides(self.overrides)


def axes_of(spec: SweepSpec) -> list[tuple[Axis, tuple[str, ...]]]:
    """The sweep's axes with the dotted keys each sets: one per grid key, one per zip group."""
    out = [(Axis(key, tuple(values)), (key,)) for key, values in spec.grid.items()]
    for group in spec.zip:
        keys = tuple(group)
        out.append((Axis(" + ".join(keys), tuple(zip(*group.values()))), keys))
    return out


def expand_points(spec: SweepSpec) -> list[Point]:
    """Every combination of the axes' values (the last axis varies fastest)."""
    axes = axes_of(spec)
    points = []
    for number, combo in enumerate(itertools.product(*(axis.values for axis, _ in axes)), 1):
        overrides: dict[str, Any] = {}
        coordinates: dict[str, Any] = {}
        for (axis, keys), value in zip(axes, combo):
            coordinates[axis.label] = value
            for key, part in zip(keys, value if len(keys) > 1 else (value,)):
                overrides[key] = part
        points.append(Point(number, overrides, coordinates))
    return points


def point_key(point: Point, loaded: LoadedVariant, corpus: Path, topics: Path) -> str:
    """What decides a point's run: its overrides, the variant they produce with the contents of
    every file it reads (stoplists, models, fused variants: retrieval/fingerprint.py), the corpus
    and topics it reads."""
    payload = {"format": 3, "overrides": point.overrides, "variant": variant_fingerprint(loaded),
               "corpus": str(corpus), "topics": str(topics),
               "data": [data_fingerprint(corpus), data_fingerprint(topics)]}
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()[:16]


def qrels_fingerprint(qrels: dict[str, Path]) -> str:
    return hashlib.sha256("".join(f"{n}\0{data_fingerprint(q)}\n" for n, q in sorted(qrels.items())).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- a loaded sweep
@dataclass
class Sweep:
    path: Path
    spec: SweepSpec
    base: Path
    corpus: Path
    topics: Path
    qrels: dict[str, Path]
    output: Path
    points: list[Point]
    variants: list[LoadedVariant]
    keys: list[str]

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def measures(self) -> list[str]:
        """The configured measures plus the sort measure's own (it must be computed)."""
        _, sort_measure = split_measure(self.spec.measure)
        return list(dict.fromkeys([*self.spec.measures, sort_measure]))

    @property
    def axes(self) -> list[Axis]:
        return [axis for axis, _ in axes_of(self.spec)]


def load_sweep(path: str | Path, *, corpus: Path | None = None, topics: Path | None = None,
               qrels: dict[str, Path] | None = None, output: Path | None = None) -> Sweep:
    """Read and check a sweep file and every one of its points (nothing runs yet)."""
    path = Path(path).resolve()
    data = read_yaml(path)
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as exc:
        message = _describe(exc).replace("Value error, ", "").replace("config: ", "")
        raise ConfigError(message, path=path) from None
    here = path.parent
    base = expand_path(spec.base, here, path)
    if not base.is_file():
        raise ConfigError(f"base variant not found: {base}", path=path)
    corpus_path = Path(corpus).resolve() if corpus else (expand_path(spec.corpus, here, path) if spec.corpus else None)
    topics_path = Path(topics).resolve() if topics else (expand_path(spec.topics, here, path) if spec.topics else None)
    if corpus_path is None or topics_path is None:
        raise ConfigError("the sweep needs a corpus and topics: set corpus: and topics: or pass -i and -t", path=path)
    for what, p in (("corpus", corpus_path), ("topics", topics_path)):
        if not p.exists():
            raise InputError(f"{what} not found: {p}", path=path)
    named_qrels = {n: Path(q).resolve() for n, q in qrels.items()} if qrels else \
        {n: expand_path(q, here, path) for n, q in spec.qrels.items()}
    qrels_name, _ = split_measure(spec.measure)
    if qrels_name not in named_qrels:
        raise ConfigError(f"measure '{spec.measure}' names qrels '{qrels_name}', which is not given", path=path)
    for q in named_qrels.values():
        read_qrels(q)  # a bad qrels file fails now, not after the first hour of runs
    out = Path(output).resolve() if output else (expand_path(spec.output, here, path) if spec.output
                                                  else Path.cwd() / "out" / "sweeps" / path.stem)
    points = expand_points(spec)
    variants, keys = [], []
    for point in points:
        try:
            loaded = load_variant(base, point.overrides)
        except ConfigError as exc:
            raise ConfigError(f"point {point.number} ({point.describe()}) of the sweep gives an invalid variant: "
                              f"{exc.message}", path=path, where=f"base {exc.path}") from None
        variants.append(loaded)
        keys.append(point_key(point, loaded, corpus_path, topics_path))
    return Sweep(path, spec, base, corpus_path, topics_path, named_qrels, out, points, variants, keys)


# --------------------------------------------------------------------------- the results file
@dataclass
class Record:
    key: str
    point: int
    overrides: dict[str, Any]
    measures: dict[str, float]
    run: str  # relative to the output directory
    seconds: float
    index: str = ""
    per_topic: dict[str, dict[str, float]] = field(default_factory=dict)  # measure → topic → value
    qrels: str = ""  # fingerprint of the qrels the measures were computed with

    def to_json(self) -> str:
        data = {**self.__dict__, "measures": {k: _json_number(v) for k, v in self.measures.items()}}
        return json.dumps(data, sort_keys=False)

    @classmethod
    def from_json(cls, data: dict) -> "Record":
        data = dict(data)
        data["measures"] = {k: (math.nan if v is None else float(v)) for k, v in data["measures"].items()}
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def _json_number(value: float) -> float | None:
    return None if isinstance(value, float) and math.isnan(value) else value


def read_records(path: Path) -> dict[str, Record]:
    """Finished points by key (the last line of a key wins). Torn or foreign lines are skipped
    with a warning: the point they describe is simply run again."""
    records: dict[str, Record] = {}
    if not path.is_file():
        return records
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = Record.from_json(json.loads(line))
            except (json.JSONDecodeError, TypeError, KeyError, ValueError, AttributeError):
                log.warning("warning: %s, line %d: not a complete result record (interrupted write?); "
                            "that point will be run again", path, number)
                continue
            records[record.key] = record
    return records


def append_record(path: Path, record: Record) -> None:
    """One O_APPEND write of a whole line, then fsync: a crash leaves at most one torn last line."""
    data = (record.to_json() + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        # A torn line from an earlier crash must not swallow this record: start on a fresh line.
        if os.fstat(fd).st_size and not _ends_with_newline(path):
            data = b"\n" + data
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"




# --------------------------------------------------------------------------- running
@dataclass
class SweepOutcome:
    sweep: Sweep
    records: list[Record]  # one per point, in point order
    computed: int  # points run in this call
    reused: int  # points found finished
    indexes: int  # distinct indexes the points use
    table_csv: Path
    table_md: Path
    plot: Path | None

    def best(self) -> Record:
        return sort_records(self.records, self.sweep.spec.measure)[0]


def run_sweep(path: str | Path, *, corpus: Path | None = None, topics: Path | None = None,
              qrels: dict[str, Path] | None = None, output: Path | None = None, index_root: Path | None = None,
              progress: bool = True, limit: int | None = None) -> SweepOutcome:
    """Run every unfinished point of a sweep, then write the reports.

    ``limit``: run at most this many unfinished points in this call (the rest stay for a rerun).
    """
    from filelock import FileLock, Timeout

    sweep = load_sweep(path, corpus=corpus, topics=topics, qrels=qrels, output=output)
    try:
        sweep.output.mkdir(parents=True, exist_ok=True)
        (sweep.output / "runs").mkdir(exist_ok=True)
    except OSError as exc:
        raise ToucheError(f"cannot create the output directory: {exc.strerror}", path=sweep.output) from None
    lock = FileLock(str(sweep.output / ".sweep.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ToucheError("another sweep is writing to this output directory (lock .sweep.lock held)",
                          path=sweep.output) from None
    try:
        write_text(sweep.output / MANIFEST_FILE, json.dumps(_manifest(sweep), indent=2) + "\n")
        computed = _run_points(sweep, index_root, progress, limit)
        records = _current_records(sweep)
        return _write_reports(sweep, records, computed)
    finally:
        lock.release()


def _manifest(sweep: Sweep) -> dict:
    return {
        "format": 1,
        "sweep": str(sweep.path),
        "base": str(sweep.base),
        "description": sweep.spec.description,
        "measure": sweep.spec.measure,
        "measures": sweep.measures,
        "axes": [{"label": axis.label, "keys": list(keys)} for axis, keys in axes_of(sweep.spec)],
        "corpus": str(sweep.corpus),
        "topics": str(sweep.topics),
        "qrels": {n: str(q) for n, q in sweep.qrels.items()},
        "points": [{"point": p.number, "key": k, "overrides": p.overrides} for p, k in zip(sweep.points, sweep.keys)],
    }


def is_finished(sweep: Sweep, records: dict[str, Record], key: str) -> bool:
    record = records.get(key)
    return record is not None and (sweep.output / record.run).is_file()


def _run_points(sweep: Sweep, index_root: Path | None, progress: bool, limit: int | None) -> int:
    from tqdm import tqdm

    results_path = sweep.output / RESULTS_FILE
    records = read_records(results_path)
    _complete_measures(sweep, records)
    todo = [i for i, key in enumerate(sweep.keys) if not is_finished(sweep, records, key)]
    if limit is not None:
        todo = todo[:limit]
    if not todo:
        return 0
    bar = tqdm(total=len(sweep.points), initial=len(sweep.points) - len(unfinished(sweep, records)),
               desc=f"sweep {sweep.name} ({sweep.spec.measure})", unit=" point", disable=not progress,
               dynamic_ncols=True)
    session = Session(sweep.corpus, sweep.topics, Path(index_root) if index_root else default_index_root(),
                      progress=progress)
    best = max((r.measures.get(sweep.spec.measure, math.nan) for r in records.values()), default=math.nan)
    try:
        for i in todo:
            point, loaded, key = sweep.points[i], sweep.variants[i], sweep.keys[i]
            bar.set_postfix_str(f"best {best:.3f} | now {point.describe()}"[:90])
            record = _run_point(sweep, session, point, loaded, key)
            append_record(results_path, record)
            value = record.measures.get(sweep.spec.measure, math.nan)
            best = value if math.isnan(best) or value > best else best
            bar.update(1)
    finally:
        bar.close()
        session.close()
    return len(todo)


def unfinished(sweep: Sweep, records: dict[str, Record]) -> list[int]:
    return [i for i, key in enumerate(sweep.keys) if not is_finished(sweep, records, key)]


def _run_point(sweep: Sweep, session, point: Point, loaded: LoadedVariant, key: str) -> Record:

    started = time.perf_counter()
    result = session.run(loaded)
    run_rel = f"runs/{key}.txt"
    session.write(result, sweep.output / run_rel)
    # The session keeps every result for fusion stages to reuse; a sweep never reuses its own
    # points, and keeping hundreds of rankings in memory is what would stop a long sweep.
    session.forget(result)
    measures = evaluate(sweep.output / run_rel, sweep.qrels, sweep.measures)
    return Record(key=key, point=point.number, overrides=point.overrides, measures=measures, run=run_rel,
                  seconds=round(time.perf_counter() - started, 3), index=result.index.path.name,
                  per_topic=_main_per_topic(sweep, sweep.output / run_rel), qrels=qrels_fingerprint(sweep.qrels))


def _main_per_topic(sweep: Sweep, run: Path) -> dict[str, dict[str, float]]:
    """Per-topic values of the sort measure, for the significance column (when it has them)."""
    qrels_name, measure = split_measure(sweep.spec.measure)
    try:
        return {sweep.spec.measure: per_topic_scores(run, sweep.qrels[qrels_name], measure)}
    except ToucheError:
        return {}  # stance F1 and image precision are not per-topic: no p-values then


def _complete_measures(sweep: Sweep, records: dict[str, Record]) -> None:
    """Finished points lacking a measure added since (or a new qrels) are re-scored from their
    run files, which is cheap; retrieval is not repeated."""
    expected: set[str] | None = None  # the measure names every record should have
    per_topic_possible = False
    for key in sweep.keys:
        record = records.get(key)
        if record is None or not (sweep.output / record.run).is_file():
            continue
        run = sweep.output / record.run
        if expected is None:
            expected = set(evaluate(run, sweep.qrels, sweep.measures))
            per_topic_possible = bool(_main_per_topic(sweep, run))
        same_qrels = record.qrels == qrels_fingerprint(sweep.qrels)
        if same_qrels and expected <= set(record.measures) and (sweep.spec.measure in record.per_topic
                                                                 or not per_topic_possible):
            continue
        record.measures = evaluate(run, sweep.qrels, sweep.measures)
        record.per_topic = _main_per_topic(sweep, run)
        record.qrels = qrels_fingerprint(sweep.qrels)
        append_record(sweep.output / RESULTS_FILE, record)


def _current_records(sweep: Sweep) -> list[Record]:
    """The records of this sweep's points, in point order (finished points only)."""
    records = read_records(sweep.output / RESULTS_FILE)
    return [records[k] for k in sweep.keys if is_finished(sweep, records, k)]


# --------------------------------------------------------------------------- reports
def sort_records(records: list[Record], measure: str) -> list[Record]:
    """Best first by ``measure``; undefined values last; ties in point order."""
    def key(record: Record):
        value = record.measures.get(measure, math.nan)
        return (math.isnan(value), -value if not math.isnan(value) else 0.0, record.point)
    return sorted(records, key=key)


def p_values_against_best(records: list[Record], measure: str) -> dict[str, float]:
    """Paired randomization p of each point against the best point, on their common topics."""
    ordered = sort_records(records, measure)
    if not ordered or measure not in ordered[0].per_topic:
        return {}
    best = ordered[0].per_topic[measure]
    out = {}
    for record in ordered[1:]:
        other = record.per_topic.get(measure)
        if other is None:
            continue
        common = sorted(set(best) & set(other))
        out[record.key] = paired_randomization_test([best[t] for t in common], [other[t] for t in common])
    return out


def _measure_columns(records: list[Record], main: str) -> list[str]:
    columns = list(dict.fromkeys(m for r in records for m in r.measures))
    return [main] + [c for c in columns if c != main]


def table_rows(sweep: Sweep, records: list[Record]) -> tuple[list[str], list[list[Any]]]:
    """Header and rows (sorted by the measure) shared by the CSV and the Markdown table."""
    main = sweep.spec.measure
    keys = [k for _, ks in axes_of(sweep.spec) for k in ks]
    measures = _measure_columns(records, main)
    p_values = p_values_against_best(records, main)
    header = ["rank", "point", *keys, *measures, "p_vs_best", "index", "seconds", "run", "key"]
    rows = []
    for rank, record in enumerate(sort_records(records, main), 1):
        rows.append([rank, record.point, *(record.overrides.get(k) for k in keys),
                     *(record.measures.get(m, math.nan) for m in measures),
                     p_values.get(record.key, math.nan), record.index, record.seconds, record.run, record.key])
    return header, rows


def format_csv(header: list[str], rows: list[list[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if isinstance(v, float) and math.isnan(v) else
                         json.dumps(v) if isinstance(v, (dict, list)) else v for v in row])
    return buffer.getvalue()


def format_markdown(sweep: Sweep, records: list[Record], header: list[str], rows: list[list[Any]],
                    plot: Path | None) -> str:
    main = sweep.spec.measure
    keys = [k for _, ks in axes_of(sweep.spec) for k in ks]
    measures = _measure_columns(records, main)
    shown = ["rank", "point", *keys, *measures, "p_vs_best", "seconds"]
    index = {name: header.index(name) for name in shown}
    distinct_indexes = len({r.index for r in records})

    def cell(name: str, value: Any) -> str:
        if isinstance(value, float) and math.isnan(value):
            return "-"
        if name == "p_vs_best":
            return "< 0.001" if value < 0.001 else f"{value:.3f}"
        if name in measures:
            return f"{value:.3f}" if isinstance(value, float) else str(value)
        if name == "seconds":
            return f"{value:.1f}"
        return format_value(value)

    lines = [f"# Sweep {sweep.name}: {main}", ""]
    if sweep.spec.description:
        lines += [sweep.spec.description, ""]
    lines += [f"- base: `{_base_label(sweep)}`; {len(records)} of {len(sweep.points)} points finished, "
              f"{distinct_indexes} distinct index(es)",
              f"- corpus: `{sweep.corpus.name}`, topics: `{sweep.topics.name}`, qrels: "
              + ", ".join(f"{n} = `{q.name}`" for n, q in sweep.qrels.items())]
    if records:
        best = sort_records(records, main)[0]
        lines.append(f"- best: point {best.point} ({describe_overrides(best.overrides)}) "
                     f"with {main} = {cell(main, best.measures.get(main, math.nan))}")
    lines += ["- p_vs_best: paired randomization test of each point against the best on the topics both are "
              "scored on (two-sided, not corrected for multiple comparisons; p ≥ 0.05 means these topics "
              "cannot tell the point from the best)", ""]
    if plot is not None:
        lines += [f"![{main} over the swept parameters]({plot.name})", ""]
    lines.append("| " + " | ".join(shown) + " |")
    lines.append("|" + "|".join("---:" if n in measures or n in ("rank", "point", "p_vs_best", "seconds") else "---"
                                for n in shown) + "|")
    for row in rows:
        lines.append("| " + " | ".join(cell(n, row[index[n]]) for n in shown) + " |")
    return "\n".join(lines) + "\n"


def _base_label(sweep: Sweep) -> str:
    return f"{sweep.base.parent.name}/{sweep.base.name}"  # base.yaml alone would not say which task


def _write_reports(sweep: Sweep, records: list[Record], computed: int) -> SweepOutcome:
    header, rows = table_rows(sweep, records)
    csv_path = write_text(sweep.output / "results.csv", format_csv(header, rows))
    plot = None
    if records:
        by_key = {r.key: r for r in records}
        points = [PlotPoint(p.coordinates, by_key[k].measures.get(sweep.spec.measure, math.nan))
                  for p, k in zip(sweep.points, sweep.keys) if k in by_key]
        plot = plot_sweep(sweep.axes, points, sweep.spec.measure, sweep.output / "sweep.png",
                          title=f"sweep {sweep.name} ({len(records)} points, base {_base_label(sweep)})")
    md_path = write_text(sweep.output / "results.md", format_markdown(sweep, records, header, rows, plot))
    return SweepOutcome(sweep, records, computed, len(records) - computed, len({r.index for r in records}),
                        csv_path, md_path, plot)
