"""A schema field in words, as docs/config-reference.md states it (``touche/cli/docs.py``): its
type, its default, and the values or range it allows, read from the pydantic models."""
from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

import annotated_types
import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from touche.config import StageMarker, stage_classes
from touche.specs.weights import WeightKey


# ---------------------------------------------------------------- types
def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    args = typing.get_args(annotation)
    if _is_union(annotation) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        return (rest[0] if len(rest) == 1 else Union[rest]), True  # noqa: UP007 (a runtime Union)
    return annotation, False


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (Union, types.UnionType)


def _unannotated(annotation: Any) -> tuple[Any, list]:
    """(inner type, metadata) of Annotated[...]; metadata holds Field(...) constraints."""
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *meta = typing.get_args(annotation)
        found = []
        for m in meta:
            found.extend(m.metadata if isinstance(m, FieldInfo) else [m])
        inner, more = _unannotated(inner)
        return inner, found + more
    return annotation, []


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The section models an annotation holds (directly, optional, a union of them, a list of them;
    the re-ranking stages of the stage registry)."""
    annotation, meta = _unannotated(_strip_optional(annotation)[0])
    if any(isinstance(m, StageMarker) for m in meta):
        return list(stage_classes().values())
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if _is_union(annotation) or origin in (tuple, list):
        return [m for a in typing.get_args(annotation) if a is not Ellipsis for m in _models_in(a)]
    if origin is dict:  # name → section (a sweep's sets)
        return _models_in(typing.get_args(annotation)[1])
    return []


def _tag(model: type[BaseModel]) -> str | None:
    """The ``name:`` value that selects this model in a discriminated union."""
    f = model.model_fields.get("name")
    if f is not None and typing.get_origin(f.annotation) is Literal:
        return str(typing.get_args(f.annotation)[0])
    return None


def type_name(annotation: Any) -> str:
    annotation, optional = _strip_optional(annotation)
    annotation, _ = _unannotated(annotation)
    origin = typing.get_origin(annotation)
    if origin is Literal:
        text = "string" if all(isinstance(v, str) for v in typing.get_args(annotation)) else "value"
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        text = "section"
    elif _is_union(annotation):
        models = _models_in(annotation)
        if models and all(_tag(m) for m in models):
            text = "section, by `name`"
        else:
            text = " or ".join(type_name(a) for a in typing.get_args(annotation))
    elif origin in (tuple, list):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        if origin is tuple and Ellipsis not in typing.get_args(annotation):
            text = "[" + ", ".join(type_name(a) for a in args) + "]"
        else:
            inner = args[0] if args else Any
            text = "list of sections, by `name`" if _models_in(inner) else f"list of {type_name(inner)}"
    elif origin is dict:
        key, value = typing.get_args(annotation)
        text = f"mapping {type_name(key)} → {type_name(value)}"
    elif annotation is Any:
        text = "any"
    else:
        text = {int: "integer", float: "number", bool: "boolean", str: "string"}.get(
            annotation, getattr(annotation, "__name__", str(annotation))
        )
    return text + (" or null" if optional else "")


# ---------------------------------------------------------------- values and constraints
def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json"))
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _yaml(value: Any) -> str:
    text = yaml.safe_dump(_plain(value), default_flow_style=True, allow_unicode=True, width=10**6).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def default_text(info: FieldInfo, is_section: bool) -> str:
    if info.default is PydanticUndefined and info.default_factory is None:
        return "**required**"
    value = info.get_default(call_default_factory=True)
    if is_section and isinstance(value, BaseModel):
        return "(its defaults)"
    return f"`{_yaml(value)}`"


def allowed_text(info: FieldInfo) -> str:
    annotation, _ = _strip_optional(info.annotation)
    annotation, meta = _unannotated(annotation)
    meta = list(info.metadata) + meta
    parts: list[str] = []
    if typing.get_origin(annotation) is Literal:
        parts.append(" \\| ".join(f"`{v}`" for v in typing.get_args(annotation)))
    elif _is_union(annotation) and _models_in(annotation) and all(_tag(m) for m in _models_in(annotation)):
        parts.append("`name`: " + " \\| ".join(f"`{_tag(m)}`" for m in _models_in(annotation)))
    elif typing.get_origin(annotation) in (tuple, list):
        inner = _models_in(annotation)
        if inner and all(_tag(m) for m in inner):
            parts.append("`name`: " + " \\| ".join(f"`{_tag(m)}`" for m in inner))
    low = next(((m.ge, "[") for m in meta if isinstance(m, annotated_types.Ge)), None) or \
        next(((m.gt, "(") for m in meta if isinstance(m, annotated_types.Gt)), None)
    high = next(((m.le, "]") for m in meta if isinstance(m, annotated_types.Le)), None) or \
        next(((m.lt, ")") for m in meta if isinstance(m, annotated_types.Lt)), None)
    if low and high:
        parts.append(f"{low[1]}{low[0]}, {high[0]}{high[1]}")
    elif low:
        parts.append(f"{'≥' if low[1] == '[' else '>'} {low[0]}")
    elif high:
        parts.append(f"{'≤' if high[1] == ']' else '<'} {high[0]}")
    if any(isinstance(m, WeightKey) for m in meta):
        parts.append("weight")
    for m in meta:
        if isinstance(m, annotated_types.MinLen) and m.min_length:
            parts.append(f"at least {m.min_length} item{'s' if m.min_length > 1 else ''}")
        if isinstance(m, annotated_types.MaxLen):
            parts.append(f"at most {m.max_length} items")
        pattern = getattr(m, "pattern", None)
        if pattern:
            parts.append(f"pattern `{pattern}`")
    return "; ".join(parts)
