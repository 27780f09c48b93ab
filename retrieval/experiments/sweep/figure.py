"""A sweep's figure, ``sweep.png``: its measure over the swept parameters."""
from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from touche.guard import OutputFolder
from touche.retrieval.experiments.plots import pyplot, save_figure
from touche.retrieval.experiments.sweep.axes import Axis, format_value


@dataclass
class PlotPoint:
    coordinates: dict[str, Any]  # axis label → value
    value: float
    extra: dict[str, Any] = field(default_factory=dict)


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
    plt = pyplot()
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


