"""Argument-quality re-ranking stages: ``length`` (``argument_quality``, a length prior) and
``model`` (``quality_model``, learned from Webis-ArgQuality-20, with its training)."""
from touche.retrieval.stages.quality.length import ArgumentQuality
from touche.retrieval.stages.quality.model import QualityModel

__all__ = ["ArgumentQuality", "QualityModel"]
