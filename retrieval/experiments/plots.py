"""Figures written as PNG files: matplotlib without a display, saved whole or not at all."""
from __future__ import annotations

from pathlib import Path

from touche.atomic import atomic_open
from touche.guard import OutputFolder


def pyplot():
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
        pyplot().close(fig)
    return path


