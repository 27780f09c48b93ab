"""Lazy "module:attribute" registries: a corpus family's or task's code (and its dependencies)
is imported only when a variant uses it."""
from __future__ import annotations

import importlib
from typing import Any

from touche.errors import ConfigError


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
