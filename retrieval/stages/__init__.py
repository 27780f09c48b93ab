"""Re-ranking stages: the YAML ``rerank:`` list, applied in order after retrieval.

Each stage is ONE class (retrieval/stages/base.py's ``Stage``): its parameters as a strict
pydantic spec, with ``name: Literal["…"]`` the key a variant writes, and
``apply(ranking, ctx) -> Ranking``. To add one: a module here with the class, and one line in
``STAGES`` below (or ``register_stage`` from anywhere). The config loader (touche/config.py)
validates ``rerank:`` entries against these classes, the config reference lists them, and the
session applies them — no other place knows a stage by name.
"""
from __future__ import annotations

from touche.retrieval.stages.base import Stage, StageContext
from touche.retrieval.stages.dedup import NearDuplicates
from touche.retrieval.stages.dense import DenseSimilarity
from touche.retrieval.stages.fusion import ReciprocalRankFusion
from touche.retrieval.stages.quality import ArgumentQuality, QualityModel
from touche.retrieval.stages.rm3 import RM3

STAGES: dict[str, type[Stage]] = {
    cls.model_fields["name"].default: cls
    for cls in (
        ArgumentQuality,
        ReciprocalRankFusion,
        NearDuplicates,
        RM3,
        QualityModel,
        DenseSimilarity,
    )
}



def register_stage(stage: type[Stage]) -> type[Stage]:
    """Make a stage selectable as ``rerank: [{name: …}]`` (usable as a decorator)."""
    STAGES[stage.model_fields["name"].default] = stage
    return stage


__all__ = ["STAGES", "Stage", "StageContext", "register_stage"]
