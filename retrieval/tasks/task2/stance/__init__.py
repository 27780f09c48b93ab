"""Stance of a Task 2 2022 passage toward a topic's objects: the models a variant names
(``registry``: patterns, learned, combined), the hand-set ``patterns``, the ``learned`` classifier
and its ``training`` (``touche train-stance``). Only the registry is imported here: a model's
code (and scikit-learn, for training) loads when a variant uses it."""
from touche.retrieval.tasks.task2.stance.registry import MODEL_FILE, STANCE_MODELS, StanceModel, register_stance_model

__all__ = ["MODEL_FILE", "STANCE_MODELS", "StanceModel", "register_stance_model"]
