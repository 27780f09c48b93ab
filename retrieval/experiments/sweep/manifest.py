"""``sweep.json``: what ``touche sweep`` tells ``touche choose``, as a validated model.

The sweep writes it before the first run (without a choice) and again with every report; choose
reads it and refuses a file of another format. It holds the robust choice as the sweep computed
it (order, each set's raw and effective weight, the pick's share of topic resamples), so choose
never recomputes it and the two can never disagree.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from touche.config import describe_validation_error
from touche.errors import ToucheError
from touche.guard import OutputFolder
from touche.specs import Strict

MANIFEST_FILE = "sweep.json"
MANIFEST_FORMAT: Literal[3] = 3


class Loose(Strict):
    """Strict about keys; numbers may be NaN (an unscored point), stored as null."""
    model_config = {**Strict.model_config, "ser_json_inf_nan": "null", "allow_inf_nan": True}


class ManifestAxis(Strict):
    label: str
    keys: list[str]


class ManifestPoint(Strict):
    point: int
    overrides: dict[str, Any]
    coordinates: dict[str, Any]


class ManifestSet(Strict):
    """One development set as the sweep ran it; ``keys`` are the result keys, point by point."""
    name: str
    corpus: str
    corpus_files: list[str] | None = None  # the files a materialised corpus folder links
    topics: str
    source_topics: str | None = None  # the topics file a selection was taken from
    qrels: dict[str, str]
    given_weight: float | None = None  # as the sweep file gives it
    coverage: float | None = None  # the mean judged coverage (None: not computed)
    weight: float | None = None  # what the criterion starts from: given_weight, else coverage
    used_weight: float | None = None  # what the criterion gave it (calibrated_rank: times its agreement)
    description: str = ""
    keys: list[str]
    finished: int = 0  # of its runs


class StoredTransfer(Loose):
    """Choosing on every set but ``left_out``: the pick and what it scores there."""
    left_out: str
    pick: int
    score: float | None
    rank: float | None  # None: the pick has no score on the left-out set (not run there yet)
    best: int
    best_score: float | None


class StoredChoice(Loose):
    """The order of the points by the criterion over the sets, with its noise."""
    criterion: str
    order: list[int]  # point numbers, best first (empty: nothing could be ordered)
    values: list[float | None]  # the criterion per point (in point order), as the reports show it
    means: list[list[float | None]]  # point × set
    intervals: list[list[list[float | None]]]  # point × set × (low, high)
    pick_share: list[float]  # per point
    lead_interval: list[float | None]  # the pick's lead over the runner-up, 95 % of the resamples
    lead_is_noise: bool
    transfers: list[StoredTransfer] = []
    why_none: str = ""  # when order is empty: why


class SweepManifest(Strict):
    format: Literal[3] = MANIFEST_FORMAT
    sweep: str
    base: str
    description: str = ""
    measure: str
    measures: list[str]
    criterion: str
    axes: list[ManifestAxis]
    points: list[ManifestPoint]
    sets: list[ManifestSet] = Field(..., min_length=1)
    runs: int  # points × sets
    finished: int  # runs with a record and a run file
    choice: StoredChoice | None = None  # with sets: (None until the sweep has reported)

    @property
    def several(self) -> bool:
        return any(entry.name != "" for entry in self.sets)  # a sweep without sets: has one, named ""

    @model_validator(mode="after")
    def _shapes_agree(self):
        """Every list of the choice has one entry per point (and per set): choose indexes them by
        point (a manifest with short lists passed, and choose died of an IndexError)."""
        points, sets = len(self.points), len(self.sets)
        if any(len(s.keys) != points for s in self.sets):
            raise ValueError(f"each set's keys must list its {points} points")
        if self.runs != points * sets:
            raise ValueError(f"runs is {self.runs}, not points × sets = {points * sets}")
        choice = self.choice
        if choice is None:
            return self
        shapes = {"values": (len(choice.values), points), "means": (len(choice.means), points),
                  "intervals": (len(choice.intervals), points), "pick_share": (len(choice.pick_share), points),
                  "means per point": ({len(m) for m in choice.means} or {sets}, {sets}),
                  "intervals per point": ({len(i) for i in choice.intervals} or {sets}, {sets}),
                  "interval bounds": ({len(b) for i in choice.intervals for b in i} or {2}, {2}),
                  "lead_interval": (len(choice.lead_interval), 2)}
        wrong = [f"{name} has {found}, expected {expected}" for name, (found, expected) in shapes.items()
                 if found != expected]
        numbers = {p.point for p in self.points}
        if any(n not in numbers for n in choice.order) or len(set(choice.order)) != len(choice.order):
            wrong.append("order names points the sweep does not have, or one twice")
        if wrong:
            raise ValueError("the choice does not fit the points and sets: " + "; ".join(wrong))
        return self


def write_manifest(folder: OutputFolder, manifest: SweepManifest) -> Path:
    """``sweep.json`` in the sweep's output folder."""
    return folder.write_text(MANIFEST_FILE, manifest.model_dump_json(indent=2) + "\n")


def read_manifest(path: Path) -> SweepManifest:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ToucheError(f"cannot read the sweep's manifest: {exc}", path=path) from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise ToucheError(f"the manifest is of format {found!r}, not {MANIFEST_FORMAT}: written by another version "
                          "of `touche sweep`: run the sweep again with this version", path=path)
    try:
        return SweepManifest.model_validate(data)
    except ValidationError as exc:
        raise ToucheError(f"not a valid sweep manifest: {describe_validation_error(exc, SweepManifest)}",
                          path=path) from None
