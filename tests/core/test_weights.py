"""Weights of a variant (touche/specs/weights.py): every weight the schema holds is 0 or at least
MIN_WEIGHT, the weights of one formula are not all 0, and rrf's k keeps ranks apart; each refusal
names the key. The schema's weights are found by their type, so a new one is checked too."""
from __future__ import annotations

import typing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from touche.cli import main
from touche.config import StageMarker, VariantSpec, apply_overrides, stage_classes, validate
from touche.errors import ConfigError
from touche.specs import Strict
from touche.specs.weights import FUSED_DEPTH, MIN_WEIGHT, RRF_MAX_K, SCORE_RESOLUTION, WeightKey

# One variant per task section, each holding every stage: the keys below exist in one of them.
BASES = {
    "": {"tag": "t", "rerank": [{"name": "quality_model"}, {"name": "dense"}, {"name": "argument_quality"},
                                {"name": "rm3"}, {"name": "dedup"},
                                {"name": "rrf", "variants": ["other.yaml"], "weights": [1.0, 1.0]}]},
    "task2": {"tag": "t", "task": "task2-stance", "corpus": {"format": "passages"}, "task2": {}},
    "pairs": {"tag": "t", "task": "task1-pairs", "corpus": {"format": "argsme-sentences"}, "pairs": {}},
    "image": {"tag": "t", "task": "image", "corpus": {"format": "images"}, "image": {}},
}


def _marked(field) -> bool:
    def inside(annotation) -> bool:
        return any(isinstance(m, WeightKey) for m in getattr(annotation, "__metadata__", ())) or \
            any(inside(a) for a in typing.get_args(annotation))
    return any(isinstance(m, WeightKey) for m in field.metadata) or inside(field.annotation)


def _models(annotation) -> list[tuple[str, type[BaseModel]]]:
    """(key part, model) of the models a field holds: one, or every stage by its name."""
    if typing.get_origin(annotation) is typing.Annotated and \
            any(isinstance(m, StageMarker) for m in annotation.__metadata__):
        return list(stage_classes().items())
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [("", annotation)]
    found = [m for a in typing.get_args(annotation) for m in _models(a)]
    return found if len(found) == 1 or all(part for part, _ in found) else []  # a tagged union (similarity): none


def _walk(model: type[BaseModel], prefix: str):
    """(dotted key, model, field name, field) of every field under ``model``."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        yield key, model, name, field
        for part, inner in _models(field.annotation):
            yield from _walk(inner, f"{key}.{part + '.' if part else ''}")


FIELDS = list(_walk(VariantSpec, ""))
WEIGHTS = [(key, field) for key, _, _, field in FIELDS if _marked(field)]
FORMULAS = sorted({(key.rsplit(".", 1)[0], model) for key, model, _, _ in FIELDS
                   if getattr(model, "formula", ())}, key=lambda pair: pair[0])


def _base(key: str) -> dict:
    return BASES[key.split(".", 1)[0] if key.split(".", 1)[0] in BASES else ""]


def _set(key: str, value) -> dict:
    base = _base(key)
    existing = _present(base, key)
    if isinstance(existing, dict):  # field → weight: each of its entries
        return apply_overrides(base, {f"{key}.{name}": value for name in existing} or {f"{key}.contents": value})
    if isinstance(existing, (list, tuple)):
        return apply_overrides(base, {f"{key}.0": value})
    return apply_overrides(base, {key: value})


def _as_written(key: str) -> str:
    """The key as an error names it: a stage by its place in ``rerank:``."""
    parts = key.split(".")
    if parts[0] == "rerank":
        parts[1] = str([stage["name"] for stage in BASES[""]["rerank"]].index(parts[1]))
    return ".".join(parts)


def _present(base: dict, key: str):
    """The value a key has in the base variant once validated (defaults included)."""
    node = validate(base, Path("v.yaml")).model_dump()
    for part in key.split("."):
        if isinstance(node, (list, tuple)):
            node = next(s for s in node if s.get("name") == part)
        else:
            node = node[part]
    return node


def _bounds(field) -> tuple[float, float]:
    low, high = -np.inf, np.inf
    for m in field.metadata:
        low = max(low, getattr(m, "ge", None) if getattr(m, "ge", None) is not None else -np.inf)
        high = min(high, getattr(m, "le", None) if getattr(m, "le", None) is not None else np.inf)
    return low, high


def test_the_schema_holds_the_weights_each_task_has():
    """The walk finds the weights of every section: a weight missed here would go unchecked."""
    keys = {key for key, _ in WEIGHTS}
    assert {"query.field_weights", "rerank.rrf.weights", "rerank.quality_model.weight", "rerank.dense.weight",
            "rerank.argument_quality.length_weight", "rerank.rm3.original_weight", "task2.rerank.weights.retrieval",
            "task2.query.object_weight", "task2.stance.sentiment_weight", "pairs.relevance.sentence",
            "pairs.score.coherence", "image.stance.text_weights", "image.argumentative.chart_weight",
            "image.crawl_weight"} <= keys
    assert len(keys) >= 50


def test_every_field_named_as_a_weight_is_a_weight():
    """A field whose name or section says it is a weight has the weight type, so the rule reaches it."""
    loose = [key for key, model, name, field in FIELDS
             if ("weight" in name or model.__name__.endswith("Weights")) and not _marked(field)
             and not _models(field.annotation)]
    assert loose == []


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_weight_too_small_to_count_is_refused_naming_its_key(data):
    key, field = data.draw(st.sampled_from(WEIGHTS))
    if typing.get_args(field.annotation) == () and field.annotation is int:
        return  # a whole weight (repeat count) cannot be small
    low, _ = _bounds(field)
    size = data.draw(st.floats(min_value=5e-324, max_value=MIN_WEIGHT, exclude_max=True))
    value = -size if -np.inf < low < 0 and data.draw(st.booleans()) else size
    with pytest.raises(ConfigError) as refused:
        validate(_set(key, value), Path("v.yaml"))
    assert _as_written(key) in str(refused.value) and "too small to weigh anything" in str(refused.value)
    # the smallest weight that counts, and the term switched off, are both accepted
    validate(_set(key, MIN_WEIGHT if value > 0 else -MIN_WEIGHT), Path("v.yaml"))


@pytest.mark.parametrize("where,model", FORMULAS, ids=[key for key, _ in FORMULAS])
def test_a_formula_whose_weights_are_all_zero_is_refused_naming_them(where, model):
    base = _base(where)
    zeros = {f"{where}.{name}": (False if isinstance(_present(base, f"{where}.{name}"), bool) else 0)
             for name in model.formula}
    with pytest.raises(ConfigError) as refused:
        validate(apply_overrides(base, zeros), Path("v.yaml"))
    message = str(refused.value)
    assert _as_written(where) in message and all(name in message for name in model.formula) and "are 0" in message
    # one of them given a weight (the last, often 0 by default) and the formula orders again
    validate(apply_overrides(base, {**zeros, f"{where}.{model.formula[0]}": 1}), Path("v.yaml"))


@pytest.mark.parametrize("key,value", [("image.stance.text_weights", {"alt_text": 0, "ocr_text": 0}),
                                       ("rerank.rrf.weights", [0, 0])])
def test_a_mapping_or_list_of_weights_all_zero_is_refused(key, value):
    with pytest.raises(ConfigError, match=r"\b0\b.*(every|all)"):
        validate(apply_overrides(_base(key), {key: value}), Path("v.yaml"))


def test_every_formula_model_is_strict_and_names_fields_it_has():
    for _, model in FORMULAS:
        assert issubclass(model, Strict) and set(model.formula) <= set(model.model_fields)


def test_rrf_k_keeps_consecutive_ranks_apart_in_a_32_bit_score_up_to_its_bound():
    """At the largest k allowed, 1/(k + rank) as a 32-bit float falls at every rank to the
    deepest a run holds, by several float steps; at 2^26 (past the bound) ranks tie."""
    ranks = np.arange(1, FUSED_DEPTH + 2, dtype=np.float64)
    scores = (1.0 / (RRF_MAX_K + ranks)).astype(np.float32)
    steps = (scores[:-1] - scores[1:]) / np.spacing(scores[1:])
    assert steps.min() >= 7.5
    tied = (1.0 / (2 ** 26 + ranks)).astype(np.float32)
    assert (tied[:-1] == tied[1:]).any()
    assert SCORE_RESOLUTION == np.finfo(np.float32).eps and MIN_WEIGHT == SCORE_RESOLUTION


@pytest.mark.parametrize("k", [RRF_MAX_K + 1, 10 ** 7, 10 ** 24])
def test_an_rrf_k_that_ties_ranks_is_refused_naming_the_key(k):
    with pytest.raises(ConfigError, match=r"rerank\.0\.k: must be at most"):
        validate({"tag": "t", "rerank": [{"name": "rrf", "variants": ["o.yaml"], "k": k}]}, Path("v.yaml"))
    validate({"tag": "t", "rerank": [{"name": "rrf", "variants": ["o.yaml"], "k": RRF_MAX_K}]}, Path("v.yaml"))


@pytest.mark.parametrize("text,key", [
    ("query:\n  field_weights: {contents: 1e-320}\n", "query.field_weights.contents"),
    ("rerank:\n  - {name: rrf, variants: [o.yaml], weights: [0, 0]}\n", "rerank.0.weights"),
    ("rerank:\n  - {name: rrf, variants: [o.yaml], k: 1000000000000000000000000}\n", "rerank.0.k"),
])
def test_the_run_command_refuses_a_degenerate_variant_before_any_work(tmp_path, capsys, text, key):
    variant = tmp_path / "v.yaml"
    variant.write_text("tag: t\n" + text)
    (tmp_path / "o.yaml").write_text("tag: o\n")
    out = tmp_path / "run.txt"
    code = main(["run", "-c", str(variant), "-i", str(tmp_path / "corpus"), "-t", str(tmp_path / "topics.xml"),
                 "-o", str(out)])
    assert code == ConfigError.exit_code and not out.exists()
    assert key in capsys.readouterr().err
