"""Lazy "module:attribute" registries: a corpus family's or task's code (and its dependencies)
is imported only when a variant uses it."""
from __future__ import annotations

import importlib
from typing import Any

from touche.errors import ConfigError

# corpus.format → its reader ("module:class"), imported on first use: a family's dependencies
# load only when a variant reads it. One line here (and the reader module) adds a family.
CORPUS_FAMILIES: dict[str, str] = {
    "argsme": "touche.indexing.corpora:ArgsMeSource",
    "argsme-sentences": "touche.indexing.sentences:SentenceSource",
    "clueweb12": "touche.indexing.clueweb:ClueWebSource",
    "passages": "touche.indexing.passages:PassageSource",
    "images": "touche.indexing.images:ImageSource",
}

# task → its handler ("module:attribute"); one line here (and the handler module) adds a task.
TASKS: dict[str, str] = {
    "task1": "touche.retrieval.tasks.task1.handlers:ARGUMENTS_HANDLER",
    "task1-pairs": "touche.retrieval.tasks.task1.handlers:PAIRS_HANDLER",
    "task2": "touche.retrieval.tasks.task2.handlers:DOCUMENTS_HANDLER",
    "task2-stance": "touche.retrieval.tasks.task2.handlers:PASSAGES_HANDLER",
    "image": "touche.retrieval.tasks.image.handlers:HANDLER",
}


def load(registry: dict[str, str], key: str, what: str) -> Any:
    try:
        module_name, attribute = registry[key].split(":")
    except KeyError:
        raise ConfigError(f"unknown {what} '{key}' (valid: {', '.join(registry)})") from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ConfigError(f"{what} '{key}' is declared but not implemented yet") from None
    return getattr(module, attribute)


def load_ref(ref: str) -> Any:
    """The object a ``"module:attribute"`` string names, imported now."""
    module_name, attribute = ref.split(":")
    return getattr(importlib.import_module(module_name), attribute)
