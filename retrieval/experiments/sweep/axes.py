"""A sweep's axes and points as people and file names read them: the swept dimensions (``Axis``),
where a point sits on the grid's edge, a point's short name (``point_slug``) and a swept value's
label (``format_value``)."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Axis:
    """One swept dimension: a grid key, or a zip group of keys that vary together."""

    label: str
    values: tuple[Any, ...]  # in the sweep file's order

    @property
    def numeric(self) -> bool:
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.values)

    @property
    def logarithmic(self) -> bool:
        """Drawn on a log scale: positive values spanning ten times or more (μ from 500 to 8,000
        drawn linearly crowded its small values into overlapping labels)."""
        return self.numeric and len(self.values) > 1 and min(self.values) > 0 \
            and max(self.values) >= 10 * min(self.values)


def grid_edges(axes: Sequence[Axis], coordinates: Mapping[str, Any]) -> list[str]:
    """Where a point sits at an end of the grid: for each numeric axis of three or more values
    whose smallest or largest value the point has, ``k1 = 1.7 (the largest tried)``. The best
    point there may be beaten beyond the grid."""
    found = []
    for axis in axes:
        value = coordinates.get(axis.label)
        if not axis.numeric or len(axis.values) < 3 or value is None:
            continue
        if value == max(axis.values):
            found.append(f"{axis.label} = {format_value(value)} (the largest tried)")
        elif value == min(axis.values):
            found.append(f"{axis.label} = {format_value(value)} (the smallest tried)")
    return found


def describe_overrides(overrides: Mapping[str, Any]) -> str:
    """``retrieval.similarity.k1=1.2, analyzer.stemmer=krovetz``"""
    return ", ".join(f"{key}={format_value(value)}" for key, value in overrides.items())


def slug(text: str) -> str:
    """Text as a file name or run tag: letters, digits and ``.+-`` only."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-.")


def point_slug(overrides: dict[str, Any]) -> str:
    """A short name of a point: words stand for themselves, numbers keep their key's last part.

    ``analyzer.stemmer: krovetz, retrieval.similarity.k1: 1.2`` → ``krovetz_k1-1.2``;
    ``retrieval.similarity: {name: lmdirichlet, mu: 300}`` → ``lmdirichlet-mu-300``.
    """
    parts = []
    for key, value in overrides.items():
        label = format_value(value)
        if not isinstance(value, (str, dict)) or label in ("none", "null", "true", "false", ""):
            label = f"{key.rsplit('.', 1)[-1]}-{label}"  # 1.2 or none alone would say nothing
        parts.append(slug(label))
    return "_".join(parts)


def format_value(value: Any) -> str:
    """Short readable label of a swept value (dicts as ``name k=v``, tuples as ``a / b``)."""
    if isinstance(value, tuple):
        return " / ".join(format_value(v) for v in value)
    if isinstance(value, dict):
        head = [str(value["name"])] if "name" in value else []
        return " ".join(head + [f"{k}={format_value(v)}" for k, v in value.items() if k != "name"]) or "{}"
    if isinstance(value, list):
        return ",".join(format_value(v) for v in value) if value else "[]"  # an empty stage list: none
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


