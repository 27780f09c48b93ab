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

Several development sets (``sets:`` instead of ``corpus``/``topics``/``qrels``): every point runs
on each, and the points are ordered by a criterion over all of them (retrieval/experiments/robust.py)
instead of the argmax of one set, whose judgements may be biased::

    sets:
      2020:       {corpus: …/sample.json, topics: …/task1-2020.xml, qrels: {relevance: …}}
      2021-dev5:  {corpus: [sample.json, dev-completion.json], topics: …/task1-2021.xml,
                   topics_only: [52, 67, 68, 74, 100], qrels: {relevance: …, quality: …}}
      2021-other: {corpus: [...], topics: …/task1-2021.xml, topics_except: [51, 55, 57, 73, 80, 52, 67, 68, 74, 100],
                   qrels: {relevance: …}}
    criterion: calibrated_rank      # or weighted_rank, worst_case, weighted_mean

A set's corpus may be a list of files (read as one corpus, as a TIRA folder holding them);
``topics_only`` / ``topics_except`` select topics (a held-out test set is never run). Each set
is weighted by its judged coverage (the share of its topics' judged documents the corpus holds)
unless it gives ``weight:``. ``results.md`` then shows every set's score with its interval, the
sets' coverage and agreement, the pick's stability under topic resampling, what choosing on all
sets but one scores on the one left out, and every swept value's effect per set.

``--ray [ADDRESS]`` runs the points as Ray tasks (a local cluster, or the one ``touche index
--ray`` joins): the same records, run files and reports as a local sweep, resumable the same way.

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
from typing import Any, Literal

import numpy as np
from pydantic import Field, ValidationError, field_validator, model_validator

from touche.retrieval.evaluation.measures import canonical_topic, evaluate
from touche.retrieval.evaluation.significance import paired_randomization_test, per_topic_scores, split_measure
from touche.retrieval.experiments.report import Axis, PlotPoint, describe_overrides, format_value, plot_sweep
from touche.retrieval.experiments.robust import (CRITERIA, DEFAULT_CRITERION, STABILITY_RESAMPLES, SetScores, agreement,
                                                choose_robustly, coverage, criterion_values, effective_weights,
                                                effects, leave_one_set_out)
from touche.retrieval.formats.qrels import read_qrels
from touche.retrieval.formats.topics import Topic, read_topics, topics_xml
from touche.retrieval.session import Session
from touche.stemming.analyzers import content_key
from touche.indexing import distributed
from touche.indexing.corpora import open_corpus
from touche.retrieval.fingerprint import data_fingerprint, variant_fingerprint
from touche import jvm
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


class DevSetSpec(Strict):
    """One development set: a corpus, topics and qrels the points are scored on."""

    corpus: str | list[str] = Field(..., description="corpus file or folder, or a list of files read as one corpus "
                                                     "(relative to the sweep file)")
    topics: str = Field(..., description="topics file (relative to the sweep file)")
    qrels: dict[str, str] = Field(..., min_length=1, description="name → qrels file")
    topics_only: list[int] | None = Field(None, min_length=1, description="run only these topic numbers")
    topics_except: list[int] | None = Field(None, min_length=1,
                                            description="never run these topic numbers (e.g. a held-out test set)")
    weight: float | None = Field(None, ge=0, description="the set's weight in the criterion (default: its judged "
                                                         "coverage)")
    description: str = Field("", description="free text shown in the reports")

    @model_validator(mode="after")
    def _one_selection(self):
        if self.topics_only and self.topics_except:
            raise ValueError("give topics_only or topics_except, not both")
        return self


class SweepSpec(Strict):
    """A sweep: a base variant, the values to try, the qrels to score them on."""

    base: str = Field(..., description="run-variant YAML every point starts from (relative to the sweep file)")
    description: str = Field("", description="free text shown in the reports")
    grid: dict[DottedKey, list[Any]] = Field({}, description="dotted config key → values; all combinations are run")
    zip: list[dict[DottedKey, list[Any]]] = Field(
        [], description="groups of dotted keys whose value lists (of equal length) vary together; "
                        "each group is one more axis of the product")
    qrels: dict[str, str] = Field({}, description="name → qrels file (relative to the sweep file); with sets: each "
                                                 "set's own")
    measure: str = Field("relevance:touche.nDCG@5", description="qrels-name:measure the results are sorted by")
    measures: list[str] = Field(list(DEFAULT_MEASURES), min_length=1,
                                description="measures computed for every qrels file they apply to")
    topics: str | None = Field(None, description="topics XML (relative to the sweep file); the CLI's -t overrides")
    corpus: str | None = Field(None, description="corpus file or directory; the CLI's -i overrides")
    output: str | None = Field(None, description="output directory (relative to the sweep file); "
                                                 "default out/sweeps/<sweep name> in the current directory")
    sets: dict[str, DevSetSpec] = Field({}, description="development sets, each a corpus, topics and qrels: every "
                                                        "point runs on each (instead of corpus/topics/qrels)")
    criterion: Literal["calibrated_rank", "weighted_rank", "worst_case", "weighted_mean"] = Field(
        DEFAULT_CRITERION, description="how the sets' scores order the points: calibrated_rank (mean rank, each set "
                                       "weighted by its judged coverage times its agreement with the most completely "
                                       "judged set), weighted_rank (coverage alone), worst_case (smallest score / "
                                       "set's best), weighted_mean")

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
        if self.sets:
            mixed = [k for k in ("corpus", "topics") if getattr(self, k)] + (["qrels"] if self.qrels else [])
            if mixed:
                raise ValueError(f"give {', '.join(mixed)} inside each of sets:, not beside them")
            for name, dev in self.sets.items():
                if qrels_name not in dev.qrels:
                    raise ValueError(f"measure '{self.measure}' names qrels '{qrels_name}', but set '{name}' has "
                                     f"{', '.join(dev.qrels)}")
        elif not self.qrels:
            raise ValueError("give qrels: (name → qrels file), or sets: with qrels each")
        elif qrels_name not in self.qrels:
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


def point_key(point: Point, variant: str, corpus: Path, topics: Path, data: list[str]) -> str:
    """What decides a point's run: its overrides, the variant they produce with the contents of
    every file it reads (``variant``: retrieval/fingerprint.py's digest of it, its stoplists,
    models and fused variants), the corpus and topics it reads (``data``: their fingerprints)."""
    payload = {"format": 3, "overrides": point.overrides, "variant": variant,
               "corpus": str(corpus), "topics": str(topics), "data": data}
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()[:16]


def qrels_fingerprint(qrels: dict[str, Path]) -> str:
    return hashlib.sha256("".join(f"{n}\0{data_fingerprint(q)}\n" for n, q in sorted(qrels.items())).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- development sets
@dataclass
class DevSet:
    """Where the points run and are scored: a corpus, topics and qrels (a sweep without ``sets:``
    has one, named ""). A list of corpus files and a topic selection are materialised under the
    output folder (``sets/<name>/``) before the first run: a folder of links, a topics file."""
    name: str
    corpus: Path                       # what the session reads
    topics: Path                       # what the session reads
    qrels: dict[str, Path]
    keys: list[str]                    # one per point
    corpus_files: list[Path] | None = None  # a list of files: linked into ``corpus``
    source_topics: Path | None = None  # the topics file ``topics`` selects from
    selection: tuple[str, frozenset[str]] | None = None  # ("only" | "except", topic numbers)
    weight: float | None = None
    description: str = ""

    @property
    def label(self) -> str:
        return self.name or "the sweep's set"

    def prepare(self) -> None:
        """Link the corpus files and write the selected topics (idempotent)."""
        if self.corpus_files is not None:
            self.corpus.mkdir(parents=True, exist_ok=True)
            for file in self.corpus_files:
                link = self.corpus / file.name
                if link.is_symlink() and link.resolve() == file.resolve():
                    continue
                if link.exists() or link.is_symlink():
                    link.unlink()
                link.symlink_to(file.resolve())
        if self.source_topics is not None:
            write_text(self.topics, topics_xml(self.selected_topics()))

    def selected_topics(self) -> list[Topic]:
        topics = read_topics(self.source_topics or self.topics)
        if self.selection is None:
            return topics
        kind, numbers = self.selection
        keep = [t for t in topics if (canonical_topic(t.number) in numbers) == (kind == "only")]
        if not keep:
            raise ConfigError(f"set {self.name}: topics_{kind} leaves no topic of {self.source_topics}")
        return keep

    def data_fingerprints(self) -> list[str]:
        files = self.corpus_files if self.corpus_files is not None else [self.corpus]
        corpus = hashlib.sha256("".join(f"{f.name}\0{data_fingerprint(f)}\n" for f in files).encode()).hexdigest()[:16]
        topics = hashlib.sha256(topics_xml(self.selected_topics()).encode()).hexdigest()[:16]
        return [corpus, topics]


def _dev_set(name: str, spec: DevSetSpec, here: Path, sweep_file: Path, output: Path) -> DevSet:
    files = [expand_path(c, here, sweep_file) for c in (spec.corpus if isinstance(spec.corpus, list) else [spec.corpus])]
    topics = expand_path(spec.topics, here, sweep_file)
    for what, found in [("corpus", f) for f in files] + [("topics", topics)]:
        if not found.exists():
            raise InputError(f"set {name}: {what} not found: {found}", path=sweep_file)
    folder = output / "sets" / name
    listed = isinstance(spec.corpus, list)
    selection = None
    if spec.topics_only or spec.topics_except:
        kind = "only" if spec.topics_only else "except"
        selection = (kind, frozenset(str(n) for n in (spec.topics_only or spec.topics_except)))
    return DevSet(name, folder / "corpus" if listed else files[0], folder / "topics.xml" if selection else topics,
                  {n: expand_path(q, here, sweep_file) for n, q in spec.qrels.items()}, [],
                  corpus_files=files if listed else None, source_topics=topics if selection else None,
                  selection=selection, weight=spec.weight, description=spec.description)


# --------------------------------------------------------------------------- a loaded sweep
@dataclass
class Sweep:
    path: Path
    spec: SweepSpec
    base: Path
    sets: list[DevSet]
    output: Path
    points: list[Point]
    variants: list[LoadedVariant]

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def several(self) -> bool:
        """Whether the sweep has development sets of its own (``sets:``)."""
        return bool(self.spec.sets)

    # The one set of a sweep without ``sets:`` (what single-set code paths read).
    @property
    def corpus(self) -> Path:
        return self.sets[0].corpus

    @property
    def topics(self) -> Path:
        return self.sets[0].topics

    @property
    def qrels(self) -> dict[str, Path]:
        return self.sets[0].qrels

    @property
    def keys(self) -> list[str]:
        return [key for dev in self.sets for key in dev.keys]

    @property
    def measures(self) -> list[str]:
        """The configured measures plus the sort measure's own (it must be computed)."""
        _, sort_measure = split_measure(self.spec.measure)
        return list(dict.fromkeys([*self.spec.measures, sort_measure]))

    @property
    def axes(self) -> list[Axis]:
        return [axis for axis, _ in axes_of(self.spec)]

    def jobs(self) -> list[tuple[DevSet, int]]:
        """(set, point index) of every run the sweep holds, set by set."""
        return [(dev, i) for dev in self.sets for i in range(len(self.points))]


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
    out = Path(output).resolve() if output else (expand_path(spec.output, here, path) if spec.output
                                                  else Path.cwd() / "out" / "sweeps" / path.stem)
    qrels_name, _ = split_measure(spec.measure)
    if spec.sets:
        if corpus or topics or qrels:
            raise ConfigError("this sweep has sets: (each with its corpus, topics and qrels); -i, -t and --qrels "
                              "do not apply: change the sets in the file", path=path)
        sets = [_dev_set(name, dev, here, path, out) for name, dev in spec.sets.items()]
    else:
        corpus_path = Path(corpus).resolve() if corpus else (expand_path(spec.corpus, here, path) if spec.corpus else None)
        topics_path = Path(topics).resolve() if topics else (expand_path(spec.topics, here, path) if spec.topics else None)
        if corpus_path is None or topics_path is None:
            raise ConfigError("the sweep needs a corpus and topics: set corpus: and topics: or pass -i and -t", path=path)
        for what, p in (("corpus", corpus_path), ("topics", topics_path)):
            if not p.exists():
                raise InputError(f"{what} not found: {p}", path=path)
        named_qrels = {n: Path(q).resolve() for n, q in qrels.items()} if qrels else \
            {n: expand_path(q, here, path) for n, q in spec.qrels.items()}
        if qrels_name not in named_qrels:
            raise ConfigError(f"measure '{spec.measure}' names qrels '{qrels_name}', which is not given", path=path)
        sets = [DevSet("", corpus_path, topics_path, named_qrels, [])]
    for dev in sets:
        for q in dev.qrels.values():
            read_qrels(q)  # a bad qrels file fails now, not after the first hour of runs
    points = expand_points(spec)
    variants = []
    for point in points:
        try:
            loaded = load_variant(base, point.overrides)
        except ConfigError as exc:
            raise ConfigError(f"point {point.number} ({point.describe()}) of the sweep gives an invalid variant: "
                              f"{exc.message}", path=path, where=f"base {exc.path}") from None
        variants.append(loaded)
    # each variant and each set's data fingerprinted once: the keys combine them
    fingerprints = [variant_fingerprint(loaded) for loaded in variants]
    for dev in sets:
        if dev.corpus_files is not None or dev.selection:
            # materialised under the output folder: keyed by what they are made of, not where they lie
            corpus_label = Path(os.pathsep.join(str(f) for f in (dev.corpus_files or [dev.corpus])))
            topics_label = Path(f"{dev.source_topics or dev.topics}#{dev.selection[0] if dev.selection else ''}")
            data = dev.data_fingerprints()
        else:
            corpus_label, topics_label = dev.corpus, dev.topics
            data = [data_fingerprint(dev.corpus), data_fingerprint(dev.topics)]
        dev.keys = [point_key(point, fingerprint, corpus_label, topics_label, data)
                    for point, fingerprint in zip(points, fingerprints)]
    return Sweep(path, spec, base, sets, out, points, variants)


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
    set: str = ""  # the development set (sets:) the point ran on

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
    choice: Any = None  # with sets: the robust ordering (robust.Choice)

    def best(self) -> Record:
        """The best record: by the measure, or with sets the criterion's pick (its run on the first set)."""
        if self.choice is not None and self.choice.order:
            key = self.sweep.sets[0].keys[self.choice.pick]
            return next((r for r in self.records if r.key == key), self.records[0])
        return sort_records(self.records, self.sweep.spec.measure)[0]


def run_sweep(path: str | Path, *, corpus: Path | None = None, topics: Path | None = None,
              qrels: dict[str, Path] | None = None, output: Path | None = None, index_root: Path | None = None,
              progress: bool = True, limit: int | None = None, ray: str | bool | None = None) -> SweepOutcome:
    """Run every unfinished point of a sweep (on every set), then write the reports.

    ``limit``: run at most this many unfinished runs in this call (the rest stay for a rerun).
    ``ray``: run them as Ray tasks: True (or "local") on a local cluster, else the address of one.
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
        for dev in sweep.sets:
            dev.prepare()
        write_text(sweep.output / MANIFEST_FILE, json.dumps(_manifest(sweep), indent=2) + "\n")
        root = Path(index_root) if index_root else default_index_root()
        if ray:
            computed = _run_on_ray(sweep, root, progress, limit, None if ray is True else str(ray))
        else:
            computed = _run_points(sweep, root, progress, limit)
        records = _current_records(sweep)
        return _write_reports(sweep, records, computed, root)
    finally:
        lock.release()


def _manifest(sweep: Sweep) -> dict:
    first = sweep.sets[0]
    return {
        "format": 2,
        "sweep": str(sweep.path),
        "base": str(sweep.base),
        "description": sweep.spec.description,
        "measure": sweep.spec.measure,
        "measures": sweep.measures,
        "criterion": sweep.spec.criterion,
        "axes": [{"label": axis.label, "keys": list(keys)} for axis, keys in axes_of(sweep.spec)],
        "corpus": str(first.corpus),
        "topics": str(first.topics),
        "qrels": {n: str(q) for n, q in first.qrels.items()},
        "sets": [{"name": dev.name, "corpus": str(dev.corpus), "topics": str(dev.topics),
                  "qrels": {n: str(q) for n, q in dev.qrels.items()}, "weight": dev.weight,
                  "description": dev.description, "keys": dev.keys} for dev in sweep.sets],
        "points": [{"point": p.number, "key": first.keys[i], "overrides": p.overrides,
                    "coordinates": {label: _canonical_value(v) for label, v in p.coordinates.items()}}
                   for i, p in enumerate(sweep.points)],
    }


def _canonical_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def is_finished(sweep: Sweep, records: dict[str, Record], key: str) -> bool:
    record = records.get(key)
    return record is not None and (sweep.output / record.run).is_file()


def unfinished(sweep: Sweep, records: dict[str, Record]) -> list[tuple[DevSet, int]]:
    return [(dev, i) for dev, i in sweep.jobs() if not is_finished(sweep, records, dev.keys[i])]


def _todo(sweep: Sweep, limit: int | None) -> tuple[list[tuple[DevSet, int]], int]:
    """The runs still to do (at most ``limit``) and how many are finished, after re-scoring the
    finished ones that lack a measure or were scored with other qrels."""
    records = read_records(sweep.output / RESULTS_FILE)
    _complete_measures(sweep, records)
    todo = unfinished(sweep, records)
    done = len(sweep.jobs()) - len(todo)
    return (todo[:limit] if limit is not None else todo), done


def _run_points(sweep: Sweep, index_root: Path, progress: bool, limit: int | None) -> int:
    from tqdm import tqdm

    results_path = sweep.output / RESULTS_FILE
    todo, done = _todo(sweep, limit)
    if not todo:
        return 0
    bar = tqdm(total=len(sweep.jobs()), initial=done, desc=f"sweep {sweep.name} ({sweep.spec.measure})",
               unit=" run", disable=not progress, dynamic_ncols=True)
    try:
        for dev in sweep.sets:
            mine = [i for d, i in todo if d is dev]
            if not mine:
                continue
            session = Session(dev.corpus, dev.topics, index_root, progress=progress)
            try:
                for i in mine:
                    point = sweep.points[i]
                    bar.set_postfix_str(f"{dev.name + ': ' if dev.name else ''}{point.describe()}"[:90])
                    record = _run_point(sweep, session, point, sweep.variants[i], dev.keys[i], dev)
                    append_record(results_path, record)
                    bar.update(1)
            finally:
                session.close()
    finally:
        bar.close()
    return len(todo)


def _run_point(sweep: Sweep, session, point: Point, loaded: LoadedVariant, key: str, dev: DevSet) -> Record:
    started = time.perf_counter()
    result = session.run(loaded)
    run_rel = f"runs/{key}.txt"
    session.write(result, sweep.output / run_rel)
    # The session keeps every result for fusion stages to reuse; a sweep never reuses its own
    # points, and keeping hundreds of rankings in memory is what would stop a long sweep.
    session.forget(result)
    measures = evaluate(sweep.output / run_rel, dev.qrels, sweep.measures)
    return Record(key=key, point=point.number, overrides=point.overrides, measures=measures, run=run_rel,
                  seconds=round(time.perf_counter() - started, 3), index=result.index.path.name,
                  per_topic=_main_per_topic(sweep, dev, sweep.output / run_rel), qrels=qrels_fingerprint(dev.qrels),
                  set=dev.name)


def _main_per_topic(sweep: Sweep, dev: DevSet, run: Path) -> dict[str, dict[str, float]]:
    """Per-topic values of the sort measure, for the significance column (when it has them)."""
    qrels_name, measure = split_measure(sweep.spec.measure)
    try:
        return {sweep.spec.measure: per_topic_scores(run, dev.qrels[qrels_name], measure)}
    except ToucheError:
        return {}  # stance F1 and image precision are not per-topic: no p-values then


def _complete_measures(sweep: Sweep, records: dict[str, Record]) -> None:
    """Finished points lacking a measure added since (or a new qrels) are re-scored from their
    run files, which is cheap; retrieval is not repeated."""
    for dev in sweep.sets:
        expected: set[str] | None = None  # the measure names every record should have
        per_topic_possible = False
        qrels_now = qrels_fingerprint(dev.qrels)
        for key in dev.keys:
            record = records.get(key)
            if record is None or not (sweep.output / record.run).is_file():
                continue
            run = sweep.output / record.run
            if expected is None:
                expected = set(evaluate(run, dev.qrels, sweep.measures))
                per_topic_possible = bool(_main_per_topic(sweep, dev, run))
            same_qrels = record.qrels == qrels_now
            if same_qrels and expected <= set(record.measures) and (sweep.spec.measure in record.per_topic
                                                                     or not per_topic_possible):
                continue
            record.measures = evaluate(run, dev.qrels, sweep.measures)
            record.per_topic = _main_per_topic(sweep, dev, run)
            record.qrels = qrels_now
            record.set = dev.name
            append_record(sweep.output / RESULTS_FILE, record)


def _current_records(sweep: Sweep) -> list[Record]:
    """The records of this sweep's runs, set by set in point order (finished runs only)."""
    records = read_records(sweep.output / RESULTS_FILE)
    return [records[k] for k in sweep.keys if is_finished(sweep, records, k)]


# --------------------------------------------------------------------------- on a Ray cluster
RAY_RETRIES = 2  # a batch whose worker process died is run again this many times


def _batches(sweep: Sweep, todo: list[tuple[DevSet, int]], cpus: int) -> list[tuple[DevSet, list[int]]]:
    """The runs grouped by set and by the index they search (a batch opens its index once), the
    groups cut so that the cluster's cores have work: at least two batches per core when there
    are runs enough."""
    groups: dict[tuple[str, str], list[int]] = {}
    by_set = {}
    for dev, i in todo:
        variant = sweep.variants[i]
        index = variant.variant.index_key() + content_key(variant.variant.analyzer, variant.path.parent)
        groups.setdefault((dev.name, index), []).append(i)
        by_set[dev.name] = dev
    size = max(1, math.ceil(len(todo) / max(1, 2 * cpus)))
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
        return [json.loads(_run_point(sweep, session, sweep.points[i], sweep.variants[i], dev.keys[i], dev).to_json())
                for i in indices]
    finally:
        session.close()


def _inputs_to_json(sweep: Sweep) -> dict:
    if sweep.several:
        return {"output": str(sweep.output)}
    return {"output": str(sweep.output), "corpus": str(sweep.corpus), "topics": str(sweep.topics),
            "qrels": {n: str(q) for n, q in sweep.qrels.items()}}


def _inputs_from_json(inputs: dict) -> dict:
    return {"output": Path(inputs["output"]),
            **({"corpus": Path(inputs["corpus"]), "topics": Path(inputs["topics"]),
                "qrels": {n: Path(q) for n, q in inputs["qrels"].items()}} if "corpus" in inputs else {})}


def _run_on_ray(sweep: Sweep, index_root: Path, progress: bool, limit: int | None, address: str | None) -> int:
    """The unfinished runs as Ray tasks; the driver appends each record as its batch returns, so
    an interrupted Ray sweep resumes like a local one. Needs a sweep from a file (the workers
    load it) and, on a cluster, the output folder, index root and data on a shared file system."""
    from tqdm import tqdm

    todo, done = _todo(sweep, limit)
    if not todo:
        return 0
    ray = distributed._ray()
    ours = not ray.is_initialized()
    distributed.connect(address)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        threads = max(1, min(max(v.variant.retrieval.threads for v in sweep.variants), cpus))
        heap = distributed.worker_heap(address, cpus, threads)
        task = distributed.remote_task(_sweep_batch, threads, retries=RAY_RETRIES)
        inputs = _inputs_to_json(sweep)  # the workers load the same sweep, with the same -i/-t/--qrels
        pending = {task.remote(str(sweep.path), inputs, dev.name, indices, str(index_root.resolve()), heap):
                   (dev, indices) for dev, indices in _batches(sweep, todo, cpus)}
        with tqdm(total=len(sweep.jobs()), initial=done, desc=f"sweep {sweep.name} on Ray ({cpus} CPUs)",
                  unit=" run", disable=not progress, dynamic_ncols=True) as bar:
            def finished(job, records: list[dict]) -> None:
                for data in records:
                    append_record(sweep.output / RESULTS_FILE, Record.from_json(data))
                bar.update(len(records))

            distributed.collect(pending, finished, lambda job: f"points {', '.join(str(i + 1) for i in job[1])}",
                                RAY_RETRIES)
    finally:
        if ours:
            distributed.disconnect()
    return len(todo)


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
                    plot: Path | None, covered: dict[str, float] | None = None) -> str:
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
    if covered:
        mean_cov = float(np.mean(list(covered.values())))
        lines.append(f"- judged coverage: the corpus holds {mean_cov:.0%} of the topics' judged documents (mean over "
                     f"{len(covered)} topics)" + (": **mostly unjudged: the best point here is the best at finding "
                                                  "what other systems found; check it on a fully judged set "
                                                  "(sets:)**" if mean_cov < MOSTLY_UNJUDGED else ""))
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


def _write_reports(sweep: Sweep, records: list[Record], computed: int, index_root: Path | None = None) -> SweepOutcome:
    coverages = {dev.name: set_coverage(sweep, dev) for dev in sweep.sets}
    choice = None
    if sweep.several:
        header, rows, choice, analysis = several_sets_table(sweep, records, coverages)
    else:
        header, rows = table_rows(sweep, records)
    csv_path = write_text(sweep.output / "results.csv", format_csv(header, rows))
    plot = None
    if records:
        plot = _plot(sweep, records, choice)
    if sweep.several:
        text = format_several_sets(sweep, records, header, rows, choice, analysis, coverages, plot)
        manifest = _manifest(sweep)  # the weights the criterion used, for `touche choose`
        for entry, scores in zip(manifest["sets"], analysis.scores):
            entry["used_weight"] = scores.weight
        write_text(sweep.output / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
    else:
        text = format_markdown(sweep, records, header, rows, plot, coverages.get(""))
    md_path = write_text(sweep.output / "results.md", text)
    return SweepOutcome(sweep, records, computed, len(records) - computed, len({r.index for r in records}),
                        csv_path, md_path, plot, choice)


def _plot(sweep: Sweep, records: list[Record], choice) -> Path | None:
    """The sort measure over the swept parameters; with sets, each point's coverage-weighted mean."""
    by_key = {r.key: r for r in records}
    if choice is None:
        points = [PlotPoint(p.coordinates, by_key[k].measures.get(sweep.spec.measure, math.nan))
                  for p, k in zip(sweep.points, sweep.sets[0].keys) if k in by_key]
        label = sweep.spec.measure
    else:
        weighted = criterion_values(choice.means, choice.weights, "weighted_mean")
        points = [PlotPoint(p.coordinates, float(weighted[i])) for i, p in enumerate(sweep.points)
                  if not np.isnan(choice.means[i]).all()]
        label = f"{sweep.spec.measure}, weighted mean over {len(sweep.sets)} sets"
    return plot_sweep(sweep.axes, points, label, sweep.output / "sweep.png",
                      title=f"sweep {sweep.name} ({len(points)} points, base {_base_label(sweep)})")


# --------------------------------------------------------------------------- several sets
COVERAGE_FILE = "coverage.json"
MOSTLY_UNJUDGED = 0.5  # a set whose topics' judged documents are mostly missing from its corpus


def set_coverage(sweep: Sweep, dev: DevSet) -> dict[str, float]:
    """Per topic of the set: the share of its judged documents (the sort measure's qrels) that
    the set's corpus holds; cached in the output folder by the data it was computed from."""
    qrels_name, _ = split_measure(sweep.spec.measure)
    qrels_path = dev.qrels.get(qrels_name) or next(iter(dev.qrels.values()))
    try:
        fingerprint = hashlib.sha256(_canonical([data_fingerprint(dev.corpus), data_fingerprint(dev.topics),
                                                 data_fingerprint(qrels_path)]).encode()).hexdigest()[:16]
    except OSError:
        return {}
    cache = sweep.output / "sets" / (dev.name or "_") / COVERAGE_FILE
    if cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if stored.get("fingerprint") == fingerprint:
            return stored["coverage"]
    fmt = sweep.variants[0].variant.corpus.format if sweep.variants else "argsme"
    try:
        ids = corpus_ids(fmt, dev.corpus)
    except ToucheError as exc:
        log.warning("warning: cannot read %s for the judged coverage of %s: %s", dev.corpus, dev.label, exc)
        return {}
    judged = {canonical_topic(q): v for q, v in read_qrels(qrels_path).judgments.items()}
    if fmt == "argsme-sentences":  # pairs are judged: a pair is there when both its sentences are
        sentences = ids
        ids = {d for docs in judged.values() for d in docs if all(s in sentences for s in d.split(","))}
    topics = [canonical_topic(t.number) for t in read_topics(dev.topics)]
    shares = coverage(judged, ids, topics)
    write_text(cache, json.dumps({"fingerprint": fingerprint, "coverage": shares}, indent=1) + "\n")
    return shares


def corpus_ids(fmt: str, path: Path) -> set[str]:
    """Every document id of a corpus, read through its cheapest field (no OCR for images; the
    sentences of a sentence corpus)."""
    source = open_corpus(fmt, path)
    cheap = {"images": "page_title", "argsme-sentences": "sentence", "argsme": "conclusion", "clueweb12": "title"}
    field_name = cheap.get(fmt, source.fields[0])
    return {docid for docid, _, _ in source.documents([field_name])}


def _set_scores(sweep: Sweep, records: list[Record], coverages: dict[str, dict[str, float]]) -> list[SetScores]:
    by_key = {r.key: r for r in records}
    out = []
    for dev in sweep.sets:
        per_topic = {}
        for point, key in zip(sweep.points, dev.keys):
            record = by_key.get(key)
            if record is not None and sweep.spec.measure in record.per_topic:
                per_topic[str(point.number)] = record.per_topic[sweep.spec.measure]
        covered = coverages.get(dev.name) or {}
        weight = dev.weight if dev.weight is not None else (float(np.mean(list(covered.values()))) if covered else 1.0)
        out.append(SetScores(dev.name, weight, per_topic))
    return out


@dataclass(frozen=True)
class SetsAnalysis:
    scores: list[SetScores]
    transfers: list
    agreement: Any
    effects: list


def several_sets_table(sweep: Sweep, records: list[Record], coverages: dict[str, dict[str, float]]):
    """Header and rows (ordered by the criterion) of a sweep on several sets, with the choice."""
    scores = _set_scores(sweep, records, coverages)
    numbers = [str(p.number) for p in sweep.points]
    choice = choose_robustly(scores, numbers, sweep.spec.criterion)
    keys = [k for _, ks in axes_of(sweep.spec) for k in ks]
    header = ["rank", "point", *keys]
    for dev in sweep.sets:
        header += [f"{dev.name}", f"{dev.name}_ci_low", f"{dev.name}_ci_high", f"{dev.name}_topics"]
    header += [sweep.spec.criterion, "pick_share"]
    rows = []
    for rank, i in enumerate(choice.order, 1):
        point = sweep.points[i]
        if np.isnan(choice.means[i]).all():
            continue
        row = [rank, point.number, *(point.overrides.get(k) for k in keys)]
        for s, dev in enumerate(sweep.sets):
            row += [choice.means[i, s], choice.intervals[i, s, 0], choice.intervals[i, s, 1],
                    len(scores[s].per_topic.get(str(point.number), {}))]
        value = choice.values[i]
        row += [-value if sweep.spec.criterion.endswith("_rank") else value, choice.pick_share[i]]
        rows.append(row)
    coordinates = {str(p.number): dict(p.coordinates) for p in sweep.points}
    analysis = SetsAnalysis(scores, leave_one_set_out(scores, numbers, sweep.spec.criterion),
                            agreement(scores, numbers),
                            effects(scores, coordinates, [(a.label, a.values) for a in sweep.axes]))
    return header, rows, choice, analysis


def _cell(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def format_several_sets(sweep: Sweep, records: list[Record], header: list[str], rows: list[list[Any]], choice,
                        analysis: SetsAnalysis, coverages: dict[str, dict[str, float]], plot: Path | None) -> str:
    main = sweep.spec.measure
    keys = [k for _, ks in axes_of(sweep.spec) for k in ks]
    lines = [f"# Sweep {sweep.name}: {main} on {len(sweep.sets)} development sets", ""]
    if sweep.spec.description:
        lines += [sweep.spec.description, ""]
    lines += [f"- base: `{_base_label(sweep)}`; {len(records)} of {len(sweep.jobs())} runs finished "
              f"({len(sweep.points)} points × {len(sweep.sets)} sets), {len({r.index for r in records})} distinct index(es)",
              f"- points ordered by **{sweep.spec.criterion}**: {CRITERIA[sweep.spec.criterion]}", "", "## The sets", "",
              "| set | topics | scored (best point) | judged coverage: mean, median | weight | used weight | |",
              "|---|---:|---:|---:|---:|---:|---|"]
    used = effective_weights(choice.means, choice.weights, sweep.spec.criterion)
    for s, dev in enumerate(sweep.sets):
        covered = list((coverages.get(dev.name) or {}).values())
        mean_cov = float(np.mean(covered)) if covered else math.nan
        median_cov = float(np.median(covered)) if covered else math.nan
        scored = len(analysis.scores[s].per_topic.get(str(sweep.points[choice.pick].number), {})) if choice.order else 0
        warning = ("**mostly unjudged: its scores rank what other systems found, not what is relevant**"
                   if covered and mean_cov < MOSTLY_UNJUDGED else "")
        lines.append(f"| {dev.name} | {len(dev.selected_topics())} | {scored} | {_cell(mean_cov, 2)}, "
                     f"{_cell(median_cov, 2)} | {choice.weights[s]:.2f} | {used[s]:.2f} | {warning} |")
    lines += ["", "Judged coverage: per topic, the share of its judged documents the set's corpus holds (1.0: a "
              "perfect ranking of the corpus scores 1.0). Unless a set gives `weight:`, its weight is its mean "
              "coverage; the used weight is what the criterion gives it"
              + (" (calibrated_rank: the weight times the set's agreement, Spearman's ρ floored at 0, with the most "
                 "completely judged set)" if sweep.spec.criterion == "calibrated_rank" else "") + ".", ""]
    if choice.order:
        pick = sweep.points[choice.pick]
        lines += ["## The pick", "", f"Point {pick.number} ({describe_overrides(pick.overrides)}): "
                  + "; ".join(f"{dev.name} {_cell(choice.means[choice.pick, s])} "
                              f"[{_cell(choice.intervals[choice.pick, s, 0])}, {_cell(choice.intervals[choice.pick, s, 1])}]"
                              for s, dev in enumerate(sweep.sets)) + ".", "",
                  f"Drawing each set's topics again with replacement ({STABILITY_RESAMPLES} times), the criterion picks "
                  f"it in {choice.pick_share[choice.pick]:.0%} of the draws."]
        if choice.runner_up is not None:
            runner = sweep.points[choice.runner_up]
            lead = choice.lead_interval
            lines.append(f"Its lead over the runner-up, point {runner.number} ({describe_overrides(runner.overrides)}), "
                         f"lies in [{lead[0]:+.3f}, {lead[1]:+.3f}] (95 % of the draws, in {sweep.spec.criterion}'s "
                         f"units{': ranks' if sweep.spec.criterion.endswith('_rank') else ''})"
                         + (": **within the noise: these sets cannot tell the two apart**." if choice.lead_is_noise
                            else "."))
        lines.append("")
    if analysis.transfers:
        lines += ["## Leave one set out: what the choice transfers", "",
                  "Choosing on all sets but one, and scoring the pick on the one left out: the expected transfer to "
                  "topics the choice did not see, beside the best the left-out set allows and what the argmax of each "
                  "single other set would have given.", "",
                  "| left out | pick (on the others) | its score there | its rank there | best there | "
                  "argmax of one other set → score there |", "|---|---|---:|---:|---:|---|"]
        for t in analysis.transfers:
            naive = "; ".join(f"{name}: p{point} → {_cell(score)}" for name, (point, score) in t.naive.items())
            lines.append(f"| {t.left_out} | p{t.pick} | {_cell(t.score)} | {t.rank:.0f} of {len(sweep.points)} | "
                         f"{_cell(t.best_score)} (p{t.best}) | {naive} |")
        lines.append("")
        names = [d.name for d in sweep.sets]
        lines += ["## Do the sets agree?", "", "Spearman's ρ of the points' scores between sets (two biased sets "
                  "that agree are no evidence: compare with the most completely judged set).", "",
                  "| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for a, name in enumerate(names):
            lines.append(f"| {name} | " + " | ".join(_cell(float(analysis.agreement[a, b]), 2)
                                                    for b in range(len(names))) + " |")
        lines.append("")
    if analysis.effects:
        lines += ["## What each swept value does, per set", "",
                  "The mean per-topic difference of the points with the value against those with the axis' first "
                  "value that agree on every other axis; [95 % topic-bootstrap interval]; **bold** where the "
                  "interval excludes 0.", "",
                  "| key | value (against) | pairs | " + " | ".join(d.name for d in sweep.sets) + " |",
                  "|---|---|---:|" + "---|" * len(sweep.sets)]
        for e in analysis.effects:
            cells = []
            for dev in sweep.sets:
                found = e.per_set.get(dev.name)
                if found is None:
                    cells.append("–")
                    continue
                mean, low, high, _ = found
                text = f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"
                cells.append(f"**{text}**" if (low > 0 or high < 0) else text)
            lines.append(f"| {e.axis} | {format_value(e.value)} (vs {format_value(e.reference)}) | {e.pairs} | "
                         + " | ".join(cells) + " |")
        lines.append("")
    if plot is not None:
        lines += [f"![{main} over the swept parameters]({plot.name})", ""]
    lines += ["## Every point", "", "| rank | point | " + " | ".join(keys) + " | "
              + " | ".join(f"{d.name} [95 % CI]" for d in sweep.sets) + f" | {sweep.spec.criterion} | picked |",
              "|---:|---:|" + "---|" * len(keys) + "---:|" * len(sweep.sets) + "---:|---:|"]
    index = {name: header.index(name) for name in header}
    for row in rows:
        sets_cells = " | ".join(f"{_cell(row[index[d.name]])} [{_cell(row[index[d.name + '_ci_low']], 2)}, "
                                f"{_cell(row[index[d.name + '_ci_high']], 2)}]" for d in sweep.sets)
        lines.append(f"| {row[0]} | {row[1]} | " + " | ".join(format_value(row[index[k]]) for k in keys) + " | "
                     + sets_cells + f" | {_cell(row[index[sweep.spec.criterion]], 2)} | "
                     f"{row[index['pick_share']]:.0%} |")
    return "\n".join(lines) + "\n"
