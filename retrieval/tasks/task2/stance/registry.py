"""The stance models of Task 2 2022, one registered class per ``task2.stance.model`` name.

A model names the ``task2.stance`` settings it reads (``settings``): a setting it would ignore
is refused when the variant loads (touche/specs/task2.py asks this registry), and so is a name
no class is registered under. A model that reads a file (``uses_file``) has it loaded before
any index is built and counted in the sweep keys (handlers.py).

Adding one: subclass ``StanceModel``, give it a ``name``, its ``settings`` and ``labeller``, and
call ``register_stance_model`` (docs/architecture.md, "How to add a stance model").
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, ClassVar

from touche import registry
from touche.specs.task2 import StanceSpec

# What the models run is named here and imported when a variant labels passages: checking a
# variant's config (which asks this registry) loads no model code (numpy, the sentence splitter).
MODEL_FILE = Path(__file__).resolve().parent / "data" / "stance_model.json.gz"
_LOAD = "touche.retrieval.tasks.task2.stance.learned:load"

# (passage text, the topic's comparison, the topic's key) → FIRST, SECOND, NEUTRAL or NO
Labeller = Callable[[str, object, "str | None"], str]


class StanceModel:
    name: ClassVar[str]
    settings: ClassVar[frozenset[str]] = frozenset()  # the task2.stance keys it reads besides method, model
    uses_file: ClassVar[bool] = False  # reads ``model_file`` (default: the shipped one)

    def labeller(self, spec: StanceSpec, model_file: Path) -> Labeller:
        raise NotImplementedError

    def check_file(self, model_file: Path) -> None:
        """Load the model file now (a located InputError when it is missing or damaged)."""
        if self.uses_file:
            registry.load_ref(_LOAD)(model_file)


STANCE_MODELS: dict[str, StanceModel] = {}


def register_stance_model(model: type[StanceModel]) -> type[StanceModel]:
    """Make a model selectable as ``task2.stance.model`` (usable as a decorator)."""
    STANCE_MODELS[model.name] = model()
    return model


def model_file(spec: StanceSpec, variant_dir: Path) -> Path:
    return MODEL_FILE if spec.model_file is None else variant_dir / spec.model_file


@register_stance_model
class Patterns(StanceModel):
    """Comparative patterns + VADER sentiment + a gate, hand-set (patterns.py)."""
    name = "patterns"
    settings = frozenset({"gate", "gate_min_prose", "comparative_weight", "sentiment_weight", "margin",
                          "min_evidence", "neutral_needs_both"})

    def labeller(self, spec, model_file):
        label_stance = registry.load_ref("touche.retrieval.tasks.task2.stance.patterns:label_stance")
        return lambda text, comp, key: label_stance(text, comp, spec)


class FileModel(StanceModel):
    """A model read from ``model_file``: its labeller is made by ``factory`` (``"module:function"``,
    model file → labeller), imported when a run labels passages."""
    settings = frozenset({"model_file"})
    uses_file = True
    factory: ClassVar[str]

    def labeller(self, spec, model_file):
        return registry.load_ref(self.factory)(model_file)


@register_stance_model
class Learned(FileModel):
    """The CompSent-19 sentence classifier's votes alone (learned.py)."""
    name = "learned"
    factory = "touche.retrieval.tasks.task2.stance.learned:learned_labeller"


@register_stance_model
class Combined(FileModel):
    """A passage model over the votes and the patterns' evidence, cross-fitted by topic."""
    name = "combined"
    factory = "touche.retrieval.tasks.task2.stance.learned:combined_labeller"
