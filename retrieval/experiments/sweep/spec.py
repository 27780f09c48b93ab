"""The sweep file: its schema (strict, validated on load) and its points.

A set's name becomes a folder (``sets/<name>/``) and CSV columns (``<name>_ci_low``), so it is
checked like an identifier: no path separators, no dots alone, no column name of the tables.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from touche.errors import ConfigError, ToucheError
from touche.retrieval.evaluation.significance import split_measure
from touche.retrieval.experiments.robust import CRITERIA, DEFAULT_CRITERION
from touche.retrieval.experiments.sweep.axes import Axis, describe_overrides
from touche.retrieval.formats.selection import TopicSelection
from touche.specs import Strict

DEFAULT_MEASURES = ("touche.nDCG@5", "trec.nDCG@5", "trec.Judged@5")
DottedKey = str
_KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")
SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
# columns of results.csv a set's name (or its name + a suffix) must not shadow
RESERVED_COLUMNS = {"rank", "point", "pick_share", "p_vs_best", "index", "seconds", "run", "key"}


class DevSetSpec(Strict):
    """One development set: a corpus, topics and qrels the points are scored on."""

    corpus: str | Annotated[list[str], Field(min_length=1)] = Field(
        ..., description="corpus file or folder, or a list of files read as one corpus (relative to the sweep file)")
    topics: str = Field(..., description="topics file (relative to the sweep file)")
    qrels: dict[str, str] = Field(..., min_length=1, description="name → qrels file")
    topics_only: list[int] | str | None = Field(
        None, description="run only these topic numbers: a list, or as --topics-only takes them (\"51,55,57-60\")")
    topics_except: list[int] | str | None = Field(
        None, description="never run these topic numbers (e.g. a held-out test set): a list, or \"51,55,57,73,80\"")
    weight: float | None = Field(None, ge=0, allow_inf_nan=False,
                                 description="the set's weight in the criterion (default: its judged coverage)")
    description: str = Field("", description="free text shown in the reports")

    @model_validator(mode="after")
    def _one_selection(self):
        try:
            TopicSelection.of(self.topics_only, self.topics_except, names=("topics_only", "topics_except"))
        except ToucheError as exc:
            raise ValueError(exc.message) from None
        return self

    def selection(self) -> TopicSelection | None:
        return TopicSelection.of(self.topics_only, self.topics_except, names=("topics_only", "topics_except"))


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
                                                        "point runs on each (instead of corpus/topics/qrels); a name "
                                                        "is letters, digits and . _ + - (it names a folder)")
    criterion: str = Field(
        DEFAULT_CRITERION, description="how the sets' scores order the points: "
                                       + "; ".join(f"{name}: {rule.description}" for name, rule in CRITERIA.items()))

    @field_validator("criterion")
    @classmethod
    def _known_criterion(cls, value):
        if value not in CRITERIA:
            raise ValueError(f"unknown criterion {value!r}; expected one of {', '.join(CRITERIA)}")
        return value

    @field_validator("sets")
    @classmethod
    def _set_names(cls, sets):
        for name in sets:
            if not SET_NAME.fullmatch(str(name)) or name in (".", ".."):
                raise ValueError(f"set name {name!r}: use letters, digits and . _ + - (up to 64, not starting with "
                                 "a dot or dash): it names the set's folder and its columns")
            if name in RESERVED_COLUMNS or name in CRITERIA:
                raise ValueError(f"set name {name!r} is a column of the results table: choose another")
        return sets

    @field_validator("grid")
    @classmethod
    def _grid_values(cls, grid):
        for key, values in grid.items():
            check_axis(key, values)
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
                check_axis(key, values, unique=False)
            combos = list(zip(*([canonical(numbers_alike(x)) for x in v] for v in group.values())))
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
            columns = several_sets_columns(keys, list(self.sets), self.criterion)
            clashing = sorted({c for c in columns if columns.count(c) > 1})
            if clashing:
                raise ValueError(f"set name(s) make the results table's column(s) {', '.join(clashing)} twice (a swept "
                                 "key, another set's interval column): name the sets apart")
            mixed = [k for k in ("corpus", "topics") if getattr(self, k)] + (["qrels"] if self.qrels else [])
            if mixed:
                raise ValueError(f"give {', '.join(mixed)} inside each of sets:, not beside them")
            for name, dev in self.sets.items():
                if qrels_name not in dev.qrels:
                    raise ValueError(f"measure '{self.measure}' names qrels '{qrels_name}', but set '{name}' has "
                                     f"{', '.join(dev.qrels)}")
            given = [dev.weight for dev in self.sets.values()]
            if all(w is not None for w in given) and not any(w > 0 for w in given if w is not None):
                raise ValueError("every set has weight 0: the criterion would order nothing (give one set a "
                                 "positive weight)")
        elif not self.qrels:
            raise ValueError("give qrels: (name → qrels file), or sets: with qrels each")
        elif qrels_name not in self.qrels:
            raise ValueError(f"measure '{self.measure}' names qrels '{qrels_name}', but qrels has "
                             f"{', '.join(self.qrels)}")
        return self


def several_sets_columns(keys: list[str], set_names: list[str], criterion: str) -> list[str]:
    """The results table of a sweep on several sets: its header, checked for clashes when the
    sweep file loads and written by the analysis."""
    return ["rank", "point", *keys, *(f"{name}{suffix}" for name in set_names
                                      for suffix in ("", "_ci_low", "_ci_high", "_topics")), criterion, "pick_share"]


def check_axis(key: str, values: list, unique: bool = True) -> None:
    if not _KEY.fullmatch(key):
        raise ValueError(f"'{key}' is not a dotted config key (e.g. retrieval.similarity.k1)")
    if not values:
        raise ValueError(f"{key}: give at least one value")
    if unique:
        canon = [canonical(numbers_alike(v)) for v in values]
        if len(set(canon)) != len(canon):
            raise ValueError(f"{key}: values repeat")


def numbers_alike(value: Any) -> Any:
    """1 and 1.0 are the same setting (for spotting repeated values)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, dict):
        return {k: numbers_alike(v) for k, v in value.items()}
    if isinstance(value, list):
        return [numbers_alike(v) for v in value]
    return value


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()[:16]


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
    out: list[tuple[Axis, tuple[str, ...]]] = [(Axis(key, tuple(values)), (key,)) for key, values in spec.grid.items()]
    for group in spec.zip:
        keys = tuple(group)
        out.append((Axis(" + ".join(keys), tuple(zip(*group.values()))), keys))
    return out


def swept_keys(spec: SweepSpec) -> list[str]:
    return [k for _, keys in axes_of(spec) for k in keys]


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
