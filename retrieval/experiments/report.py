"""Reports people would rather look at than read: per-topic comparisons with significance, plots.

* ``per_topic_scores`` - one run's score per topic for a measure (Touché nDCG@k exactly as
  ``retrieval.evaluation.measures`` computes it, or any trec_eval-style ``trec.<measure>``).
* ``compare_runs`` / ``compare_scores`` - two runs topic by topic: both scores, the difference,
  wins/losses/ties, a paired t-test and a paired randomization test; ``format_comparison``
  prints it as Markdown, ``plot_comparison`` draws the per-topic differences.
* ``plot_sweep`` - a sweep's measure over its parameters (a heatmap for two numeric
  parameters, otherwise one panel per parameter with every point, the best and the mean).

Pairing: Touché's nDCG@5 leaves out a topic whose top 5 holds no judged document, so two runs
may be averaged over different topics. A paired test needs the same topics on both sides: the
comparison uses the topics both runs have a score for and lists the others separately.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from touche.atomic import atomic_open
from touche.guard import OutputFolder
from touche.retrieval.evaluation.significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TIE_TOLERANCE,
    paired_randomization_test,
    paired_t_test,
    per_topic_scores,
)
from touche.retrieval.formats.runfile import natural_key
from touche.retrieval.formats.selection import TopicSelection


# ------------------------------------------------------------------ two runs, topic by topic
@dataclass(frozen=True)
class TopicRow:
    topic: str
    a: float
    b: float

    @property
    def difference(self) -> float:
        return self.b - self.a

    @property
    def outcome(self) -> str:
        if abs(self.difference) <= TIE_TOLERANCE:
            return "tie"
        return "win" if self.difference > 0 else "loss"


@dataclass(frozen=True)
class Comparison:
    """Run B against run A (baseline) on the topics both have a score for."""

    measure: str
    name_a: str
    name_b: str
    rows: tuple[TopicRow, ...]
    only_a: tuple[str, ...] = ()  # topics only A is scored on (B had nothing judged in its cut)
    only_b: tuple[str, ...] = ()
    t_statistic: float = math.nan
    t_p: float = math.nan
    randomization_p: float = math.nan
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    official_means: tuple[float, float] = (math.nan, math.nan)  # each over its own topics, as Touché averages

    @property
    def wins(self) -> int:
        return sum(r.outcome == "win" for r in self.rows)

    @property
    def losses(self) -> int:
        return sum(r.outcome == "loss" for r in self.rows)

    @property
    def ties(self) -> int:
        return sum(r.outcome == "tie" for r in self.rows)

    @property
    def mean_a(self) -> float:
        return float(np.mean([r.a for r in self.rows])) if self.rows else math.nan

    @property
    def mean_b(self) -> float:
        return float(np.mean([r.b for r in self.rows])) if self.rows else math.nan


def compare_scores(a: Mapping[str, float], b: Mapping[str, float], *, measure: str = "touche.nDCG@5",
                   name_a: str = "A", name_b: str = "B", resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED) -> Comparison:
    """Compare two {topic: score} maps (B − A) on their common topics."""
    common = sorted(set(a) & set(b), key=natural_key)
    rows = tuple(TopicRow(t, float(a[t]), float(b[t])) for t in common)
    xs, ys = [r.a for r in rows], [r.b for r in rows]
    t_stat, t_p = paired_t_test(ys, xs)
    official = (float(np.mean(list(a.values()))) if a else math.nan,
                float(np.mean(list(b.values()))) if b else math.nan)
    return Comparison(
        measure=measure, name_a=name_a, name_b=name_b, rows=rows,
        only_a=tuple(sorted(set(a) - set(b), key=natural_key)),
        only_b=tuple(sorted(set(b) - set(a), key=natural_key)),
        t_statistic=t_stat, t_p=t_p,
        randomization_p=paired_randomization_test(ys, xs, resamples=resamples, seed=seed),
        resamples=resamples, seed=seed, official_means=official)


def compare_runs(run_a: str | os.PathLike[str], run_b: str | os.PathLike[str], qrels: str | os.PathLike[str],
                 measure: str = "touche.nDCG@5", *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED, topics: TopicSelection | None = None) -> Comparison:
    """Per-topic comparison of two run files on one qrels file (B − A), on the topics ``topics``
    keeps."""
    return compare_scores(per_topic_scores(run_a, qrels, measure, topics),
                          per_topic_scores(run_b, qrels, measure, topics),
                          measure=measure, name_a=Path(run_a).name, name_b=Path(run_b).name,
                          resamples=resamples, seed=seed)


def format_p(value: float | None, missing: str = "–") -> str:
    """A p-value for a report: ``< 0.001`` below that, else three decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def format_signed(value: float) -> str:
    """A difference with its sign; a difference that rounds to zero has none (±0.000)."""
    text = f"{value:+.3f}"
    return "±0.000" if text in ("+0.000", "-0.000") else text


def format_comparison(cmp: Comparison, digits: int = 3) -> str:
    """Markdown: a summary (means, wins/losses/ties, both tests) and the per-topic table."""
    lines = [
        f"## {cmp.name_b} vs {cmp.name_a} ({cmp.measure})",
        "",
        f"| | {cmp.name_a} (A) | {cmp.name_b} (B) | B − A |",
        "|---|---:|---:|---:|",
        (
            f"| mean over the {len(cmp.rows)} common topics | {format_number(cmp.mean_a, digits, missing='-')} |"
            f" {format_number(cmp.mean_b, digits, missing='-')} |"
            f" {format_number(cmp.mean_b - cmp.mean_a, digits, missing='-')} |"
        ),
        (
            "| mean over each run's own scored topics (as the official table) |"
            f" {format_number(cmp.official_means[0], digits, missing='-')} |"
            f" {format_number(cmp.official_means[1], digits, missing='-')} | |"
        ),
        "",
        f"B wins **{cmp.wins}**, loses **{cmp.losses}**, ties **{cmp.ties}** of {len(cmp.rows)} topics.",
        "",
        "| test | statistic | p (two-sided) |",
        "|---|---:|---:|",
        f"| paired t-test | t = {format_number(cmp.t_statistic, missing='-')} | {format_p(cmp.t_p, missing='-')} |",
        (
            f"| paired randomization test ({_resampling(cmp)}) | mean Δ ="
            f" {format_number(cmp.mean_b - cmp.mean_a, digits, missing='-')} |"
            f" {format_p(cmp.randomization_p, missing='-')} |"
        ),
    ]
    if cmp.only_a or cmp.only_b:
        lines += ["", "Not paired (nothing judged in the other run's cut): "
                  + "; ".join(part for part in (
                      f"scored for A only: {', '.join(cmp.only_a)}" if cmp.only_a else "",
                      f"scored for B only: {', '.join(cmp.only_b)}" if cmp.only_b else "") if part) + "."]
    lines += ["", "| topic | A | B | B − A | |", "|---|---:|---:|---:|---|"]
    for row in _by_gain(cmp.rows):
        mark = {"win": "B better", "loss": "A better", "tie": ""}[row.outcome]
        lines.append(
            f"| {row.topic} | {format_number(row.a, digits, missing='-')} | {format_number(row.b, digits, missing='-')}"
            f" | {row.difference:+.{digits}f} | {mark} |"
        )
    return "\n".join(lines)


def _by_gain(rows: Sequence[TopicRow]) -> list[TopicRow]:
    """Biggest gain of B first; equal differences (up to float noise) in topic order."""
    return sorted(rows, key=lambda r: (-round(r.difference, 9), natural_key(r.topic)))


def _resampling(cmp: Comparison) -> str:
    n = len(cmp.rows)
    if n < 2:
        return "needs two or more common topics"
    if 2 ** n <= cmp.resamples:
        return f"exact, all {2 ** n} sign flips"
    return f"{cmp.resamples} random sign flips, seed {cmp.seed}"


# ------------------------------------------------------------------ plots
def _pyplot():
    import matplotlib
    matplotlib.use("Agg")  # files only: no display on TIRA, CI or a server
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path: Path, into: OutputFolder | None = None) -> Path:
    """Write a PNG atomically (temp file + rename): a reader never sees half an image. ``into``:
    the output folder ``path`` lies in (a sweep's), which writes it only where it may."""
    path = Path(path)
    try:
        with (into.open(path.name, "wb") if into is not None else atomic_open(path, "wb")) as handle:
            fig.savefig(handle, format="png", dpi=110, bbox_inches="tight")
    finally:
        _pyplot().close(fig)
    return path


def plot_comparison(cmp: Comparison, path: str | os.PathLike[str]) -> Path:
    """Bar chart of B − A per topic, sorted, wins green and losses red."""
    plt = _pyplot()
    rows = _by_gain(cmp.rows)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.22 * len(rows) + 2), 4))
    colors = ["#2a9d4a" if r.outcome == "win" else "#c0392b" if r.outcome == "loss" else "#999999" for r in rows]
    ax.bar(range(len(rows)), [r.difference for r in rows], color=colors)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)), [r.topic for r in rows], rotation=90, fontsize=8)
    ax.set_xlabel("topic")
    ax.set_ylabel(f"Δ {cmp.measure} (B − A)")
    ax.set_title(f"{cmp.name_b} (B) vs {cmp.name_a} (A): {cmp.wins} wins, {cmp.losses} losses, {cmp.ties} ties; "
                 f"randomization p = {format_p(cmp.randomization_p, missing='-')}", fontsize=9)
    return save_figure(fig, Path(path))


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


@dataclass
class PlotPoint:
    coordinates: dict[str, Any]  # axis label → value
    value: float
    extra: dict[str, Any] = field(default_factory=dict)


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


def rank_of(rank: float | None, points: int) -> str:
    """``3 of 12``; ``–`` for a point without a rank (no score there)."""
    return "–" if rank is None or math.isnan(rank) else f"{rank:.0f} of {points}"


def format_number(value: Any, digits: int = 3, missing: str = "–") -> str:
    """A score, weight or share for a report: ``digits`` decimals, ``missing`` for None or NaN,
    and huge magnitudes in short exponent form (a weight of 1e308 is not 309 digits)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value) and abs(value) >= 1e6:
            return f"{value:.3g}"
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    return str(value)


def sweep_layout(axes: Sequence[Axis]) -> str:
    """``heatmap`` for exactly two numeric parameters with several values each, else ``panels``."""
    return "heatmap" if len(axes) == 2 and all(a.numeric and len(a.values) > 1 for a in axes) else "panels"


def plot_sweep(axes: Sequence[Axis], points: Sequence[PlotPoint], measure: str, path: str | os.PathLike[str],
               title: str | None = None, into: OutputFolder | None = None) -> Path:
    """The measure over the swept parameters.

    Two numeric parameters and nothing else: a heatmap with the values written in (best
    framed). Otherwise one panel per parameter: every point (grey), the best point for each
    value (the line that matters when picking), and the mean.
    """
    return save_figure(sweep_figure(axes, points, measure, title), Path(path), into)


def sweep_figure(axes: Sequence[Axis], points: Sequence[PlotPoint], measure: str, title: str | None = None):
    """The matplotlib figure ``plot_sweep`` saves."""
    plt = _pyplot()
    finite = [p for p in points if not math.isnan(p.value)]
    if sweep_layout(axes) == "heatmap":
        fig = _heatmap(plt, axes, finite, measure)
    else:
        fig = _panels(plt, axes, finite, measure)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def _heatmap(plt, axes: Sequence[Axis], points: Sequence[PlotPoint], measure: str):
    x_axis, y_axis = axes
    grid = np.full((len(y_axis.values), len(x_axis.values)), np.nan)
    for p in points:
        row = y_axis.values.index(p.coordinates[y_axis.label])
        grid[row, x_axis.values.index(p.coordinates[x_axis.label])] = p.value
    fig, ax = plt.subplots(figsize=(1.0 * len(x_axis.values) + 2.5, 0.6 * len(y_axis.values) + 2),
                           layout="constrained")
    image = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
    fig.colorbar(image, ax=ax, label=measure)
    ax.set_xticks(range(len(x_axis.values)), [format_value(v) for v in x_axis.values])
    ax.set_yticks(range(len(y_axis.values)), [format_value(v) for v in y_axis.values])
    ax.set_xlabel(x_axis.label)
    ax.set_ylabel(y_axis.label)
    if np.isfinite(grid).any():
        best = np.unravel_index(np.nanargmax(grid), grid.shape)
        middle = np.nanmin(grid) + (np.nanmax(grid) - np.nanmin(grid)) / 2
        for (i, j), value in np.ndenumerate(grid):
            if np.isfinite(value):
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", fontsize=8,
                        color="black" if value > middle else "white")
        ax.add_patch(plt.Rectangle((best[1] - 0.5, best[0] - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2))
    ax.set_title(f"{measure} (best framed)", fontsize=9)
    return fig


def _panels(plt, axes: Sequence[Axis], points: Sequence[PlotPoint], measure: str):
    columns = 2 if len(axes) == 4 else min(3, len(axes))  # 2 × 2 rather than 3 + 1
    rows = math.ceil(len(axes) / columns)
    fig, grid = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), squeeze=False, sharey=True,
                             layout="constrained")
    for panel, axis in zip(grid.flat, axes):
        # Numeric values keep their spacing; anything else sits at evenly spaced categories.
        positions = list(axis.values) if axis.numeric else list(range(len(axis.values)))
        by_value: dict[int, list[float]] = {i: [] for i in range(len(axis.values))}
        for p in points:
            by_value[axis.values.index(p.coordinates[axis.label])].append(p.value)
        xs = [positions[i] for i, vs in by_value.items() for _ in vs]
        ys = [v for vs in by_value.values() for v in vs]
        panel.scatter(xs, ys, color="#9a9a9a", s=14, alpha=0.7, label="every point", zorder=2)
        filled = [i for i, vs in by_value.items() if vs]
        # A line between values says "in between lies this": true of numbers, false of stemmers
        # or similarity functions, whose values are drawn as unconnected markers.
        best_style, mean_style = ("o-", "s--") if axis.numeric else ("o", "s")
        panel.plot([positions[i] for i in filled], [max(by_value[i]) for i in filled], best_style, color="#1f6fb4",
                   label="best with this value", zorder=3)
        panel.plot([positions[i] for i in filled], [float(np.mean(by_value[i])) for i in filled], mean_style,
                   color="#e07b22", markersize=4, label="mean", zorder=3)
        labels = [format_value(v) for v in axis.values]
        crowded = sum(map(len, labels)) > 40  # long labels side by side would overlap
        if axis.logarithmic:
            panel.set_xscale("log")
            panel.minorticks_off()
        panel.set_xticks(positions, labels, rotation=30 if crowded else 0, ha="right" if crowded else "center",
                         fontsize=8)
        panel.margins(x=0.12)
        panel.set_xlabel(axis.label)
        panel.grid(alpha=0.3)
    for panel in list(grid.flat)[len(axes):]:
        panel.set_visible(False)
    for panel in grid[:, 0]:
        panel.set_ylabel(measure)
    grid.flat[0].legend(fontsize=7, loc="best")
    return fig


# ------------------------------------------------------------------ command line
