"""A task's suite: its five submissions and which one becomes run.txt (the schema of a suite
file; ``touche/config.py``'s ``load_suite`` reads one)."""
from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator

from touche.specs import Strict

RUN_TXT_STEM = "run"  # run.txt: the primary's copy, as TIRA expects it
MAX_SUBMISSIONS = 5  # runs a team may hand in per task


class TunedOn(Strict):
    """Where a suite's primary was tuned (its weights, or its choice among a sweep's points): a
    score on the same judgements is in-sample and reads higher than new topics will."""

    data: str = Field(..., description="what it was tuned on, in words")
    qrels: dict[str, str] = Field(..., min_length=1, description="name → the judgements' digest (Qrels.digest)")
    cross_validated: dict[str, float] = Field({}, description="measure → the figure out of sample, where one exists")
    source: str = Field("", description="the command or document the figures come from")


class Suite(Strict):
    """A task's submissions: the variant files and which one becomes run.txt on TIRA."""

    variants: tuple[str, ...] = Field(..., min_length=1, max_length=MAX_SUBMISSIONS,
                                      description="variant files, relative to the suite")
    primary: str = Field(..., description="the variant written to run.txt")
    topics: str | None = Field(None, description="default topics file (demo), relative to the suite")
    qrels: dict[str, str] = Field({}, description="name → qrels file for the evaluation table (demo)")
    corpus: str | None = Field(None, description="default corpus path (demo), relative to the suite")
    tuned_on: TunedOn | None = Field(None, description="the judgements the primary was tuned on")

    @model_validator(mode="after")
    def _primary_listed(self):
        if self.primary not in self.variants:
            raise ValueError(f"primary '{self.primary}' is not among variants {list(self.variants)}")
        # Each variant's run is written to <file name>.txt beside run.txt: two variants of one
        # name (a/v.yaml, b/v.yaml) would overwrite each other, one named run the primary's copy.
        stems = [Path(v).stem for v in self.variants]
        for stem in dict.fromkeys(stems):
            clashing = [v for v, s in zip(self.variants, stems) if s == stem]
            if len(clashing) > 1:
                raise ValueError(f"variants {', '.join(clashing)} would both write {stem}.txt: "
                                 "give them distinct file names")
            if stem == RUN_TXT_STEM:
                raise ValueError(f"variant {clashing[0]} would write run.txt, where the primary's run goes: "
                                 "rename it")
        return self
