"""Run-variant configuration: one YAML file per variant, validated on load.

A variant may ``extends:`` another file (path relative to itself); mappings merge key by key,
anything else is replaced. Unknown keys and out-of-range values are errors that name the file
and the key. ``apply_overrides`` sets dotted keys, which is how sweeps and ``--set`` vary a
variant without writing a file.
"""
from __future__ import annotations

import contextlib
import copy
import difflib
import hashlib
import json
import reprlib
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, cast

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, WrapValidator, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from touche import registry
from touche.errors import ConfigError
from touche.paths import CONFIGS, shipped_variant, shipped_variant_names
from touche.specs import Strict
from touche.specs.analyzer import FILLER, AnalyzerSpec, FieldName, IndexSpec, ShingleSpec  # noqa: F401 (re-exported)
from touche.specs.image import ImageSpec
from touche.specs.pairs import PairsSpec
from touche.specs.retrieval import QuerySpec, RetrievalSpec  # noqa: F401 (re-exported)
from touche.specs.similarity import BM25, LMDirichlet, Similarity, bm25_unless_named  # noqa: F401 (re-exported)
from touche.specs.suite import MAX_SUBMISSIONS, RUN_TXT_STEM, Suite, TunedOn  # noqa: F401 (re-exported)
from touche.specs.task2 import Task2Spec
from touche.yamlfiles import load_yaml, read_yaml

# ---------------------------------------------------------------- re-ranking stages
# The stages live in retrieval/stages/, one class each (its parameters and its apply()), keyed by
# the YAML ``name:``. The core names them through this registry string and imports them when a
# variant with ``rerank:`` is validated, never at import time.
STAGE_REGISTRY = "touche.retrieval.stages:STAGES"


def stage_classes() -> dict[str, type[BaseModel]]:
    """``name:`` → stage class, from the stage registry."""
    return registry.load_ref(STAGE_REGISTRY)


def _as_stage(value: Any, handler: Any) -> BaseModel:
    """Validate one ``rerank:`` entry as the stage its ``name:`` selects. Errors carry the name in
    their location, as a pydantic tagged union's do, so messages show the keys the user wrote."""
    stages = stage_classes()
    if isinstance(value, tuple(stages.values())):
        return cast(BaseModel, value)
    if not isinstance(value, dict):
        raise PydanticCustomError("model_type", "a re-ranking stage is a mapping with a 'name:' key")
    name = value.get("name")
    expected = ", ".join(repr(n) for n in stages)
    if name is None:
        raise PydanticCustomError("union_tag_not_found", "each stage needs a 'name:' ({expected})",
                                  {"expected": expected, "discriminator": "'name'"})
    if name not in stages:
        raise PydanticCustomError("union_tag_invalid", "unknown stage name {tag}; expected {expected_tags}",
                                  {"tag": name, "expected_tags": expected, "discriminator": "'name'"})
    try:
        return stages[name].model_validate(value)
    except ValidationError as exc:
        raise ValidationError.from_exception_data(exc.title, [_under(name, e) for e in exc.errors()]) from None


def _under(tag: str, error: Any) -> Any:
    """One error of a stage's own validation, re-located under its tag."""
    detail = {"loc": (tag, *error["loc"]), "input": error["input"]}
    if error["type"] in ("value_error", "assertion_error"):  # raised by a validator: keep its message
        detail["type"] = PydanticCustomError(error["type"], error["msg"].removeprefix("Value error, ")
                                             .removeprefix("Assertion failed, "))
    else:
        detail["type"] = error["type"]
        if "ctx" in error:
            detail["ctx"] = error["ctx"]
    return detail


class StageMarker:
    """Marks the ``rerank`` field for the schema walkers (config errors, the config reference)."""


RerankStage = Annotated[Any, WrapValidator(_as_stage), StageMarker()]


# ---------------------------------------------------------------- corpus and the variant
# The corpus families and tasks are declared in touche/registry.py; their choices, descriptions and
# the tasks' settings sections are set on these models from there (``_follow_registry``), again
# whenever a declaration is added. These tuples are the names at import.
CORPUS_FORMATS = tuple(registry.CORPUS_FAMILIES)
TASKS = tuple(registry.TASKS)


class CorpusSpec(Strict):
    format: str = Field("argsme")  # Literal of the declared families: _follow_registry
    path: str | None = Field(None, description="corpus file or directory; the CLI's -i sets it")
    skip_bad_records: bool = Field(False, description="skip malformed records (counted) instead of failing")


class VariantSpec(Strict):
    """One run variant = one submission."""

    task: str = Field(registry.DEFAULT_TASK)  # Literal of the declared tasks: _follow_registry
    tag: str = Field(..., pattern=r"^[A-Za-z0-9_.+-]{1,80}$", description="run tag written in the last column")
    description: str = Field("", description="free text shown in reports")
    corpus: CorpusSpec = Field(default_factory=CorpusSpec)
    analyzer: AnalyzerSpec = Field(default_factory=AnalyzerSpec)
    index: IndexSpec = Field(default_factory=IndexSpec)
    query: QuerySpec = Field(default_factory=QuerySpec)
    retrieval: RetrievalSpec = Field(default_factory=RetrievalSpec)
    rerank: tuple[RerankStage, ...] = Field((), description="stages applied in order after retrieval")
    # Task-specific settings follow, one section per task family (registry.TASK_SECTIONS, schemas in
    # touche/specs/), added by _follow_registry; typed here for the type checker only.
    if typing.TYPE_CHECKING:
        task2: Task2Spec | None = None
        pairs: PairsSpec | None = None
        image: ImageSpec | None = None

    @model_validator(mode="after")
    def _weights_need_indexed_fields(self):
        missing = [f for f in self.query.field_weights if f not in self.index.fields]
        if missing:
            raise ValueError(f"query.field_weights names {', '.join(missing)} but index.fields is "
                             f"[{', '.join(self.index.fields)}]")
        return self

    @model_validator(mode="after")
    def _handler_builds_its_own_queries(self):
        # A task whose handler formulates the queries (Task 2: from task2.query, objects and
        # comparative terms): these keys would silently do nothing there.
        queries_from = registry.TASKS[self.task].queries_from
        if queries_from:
            for key in ("text", "drop_question_words", "stance_neutral"):
                if getattr(self.query, key) != QuerySpec.model_fields[key].default:
                    raise ValueError(f"query.{key} has no effect in {self.task} variants: their queries come from "
                                     f"{queries_from}")
        return self

    def index_key(self) -> str:
        """Hash of what determines the index: variants that agree here share one index."""
        analyzer = self.analyzer.model_dump(mode="json")
        if analyzer.get("shingles") and analyzer["shingles"]["filler"] == FILLER:
            del analyzer["shingles"]["filler"]  # the default keeps the keys indexes had before it was a setting
        payload = {"format": 1, "corpus": self.corpus.format, "analyzer": analyzer,
                   "index": self.index.model_dump(mode="json", exclude={"threads", "ram_buffer_mb"})}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


def _follow_registry() -> None:
    """The schema's choices of ``task`` and ``corpus.format``, their descriptions and the tasks'
    settings sections, as touche/registry.py declares them (pydantic's field table, rebuilt)."""
    families = registry.CORPUS_FAMILIES
    formats: Any = Literal[tuple(families)]
    CorpusSpec.__pydantic_fields__["format"] = FieldInfo.from_annotated_attribute(
        formats, Field("argsme", description="corpus family: " + ", ".join(
            family.description for family in families.values())))
    CorpusSpec.model_rebuild(force=True)
    fields = VariantSpec.__pydantic_fields__
    tasks: Any = Literal[tuple(registry.TASKS)]
    fields["task"] = FieldInfo.from_annotated_attribute(
        tasks, Field(registry.DEFAULT_TASK, description="; ".join(
            f"{name}: {task.description}" for name, task in registry.TASKS.items())))
    for name in [n for n in fields if n in _SECTIONS_ADDED and n not in registry.TASK_SECTIONS]:
        del fields[name]
        _SECTIONS_ADDED.discard(name)
    for name, section in registry.TASK_SECTIONS.items():
        fields[name] = FieldInfo.from_annotated_attribute(
            registry.load_ref(section.spec) | None, Field(None, description=section.description))
        _SECTIONS_ADDED.add(name)
    VariantSpec.model_rebuild(force=True)


_SECTIONS_ADDED: set[str] = set()
_follow_registry()
registry.on_change(_follow_registry)


class LoadedVariant(BaseModel):
    """A validated variant with the file it came from (fusion paths resolve against it)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    path: Path
    variant: VariantSpec
    merged: dict

    @property
    def name(self) -> str:
        return self.path.stem


# ---------------------------------------------------------------- loading
def _merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        # A tagged choice (similarity, re-ranking stage) that changes its name starts afresh:
        # BM25's k1 and b must not leak into an LM-Dirichlet similarity.
        switches_kind = (isinstance(value, dict) and isinstance(out.get(key), dict)
                         and "name" in value and value.get("name") != out[key].get("name"))
        if isinstance(value, dict) and isinstance(out.get(key), dict) and not switches_kind:
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def resolve_raw(path: Path) -> dict:
    """The variant's YAML with its ``extends`` chain merged in (not yet validated). The chain is
    followed in a loop, not by recursion: a chain thousands of files long is merged, not a
    RecursionError."""
    chain: list[Path] = []  # the variant first, then what it extends, …
    layers: list[dict] = []
    extended: str | None = None  # the last extends: as written
    current: Path | None = Path(path)
    while current is not None:
        try:
            current = current.resolve()
        except (OSError, ValueError, RuntimeError) as exc:  # a NUL byte in the name, a symlink loop
            where = f"extended by {chain[-1]}" if chain else None
            raise ConfigError(f"not a usable file name: {exc}", path=repr(str(current)), where=where) from None
        if current in chain:
            raise ConfigError("extends forms a cycle: " + " → ".join(p.name for p in (*chain, current)), path=current)
        if chain and not current.is_file():  # name the variant whose `extends:` is wrong, not only its target
            raise ConfigError(f"extends: {current} is not a file, and {extended!r} is no shipped variant's name "
                              f"(shipped: {', '.join(shipped_variant_names())})", path=chain[-1])
        data = read_yaml(current)
        parent = data.pop("extends", None)
        if parent is not None and not isinstance(parent, str):
            raise ConfigError("'extends' must be a path to another YAML file", path=current)
        chain.append(current)
        layers.append(data)
        extended = parent
        current = None if parent is None else variant_file(parent, current.parent) or current.parent / parent
    merged = layers.pop()
    while layers:
        merged = _merge(merged, layers.pop())
    return merged


def parse_overrides(given: Mapping[str, Any] | Iterable[str] | None, skip_bad_records: bool = False) -> dict[str, Any]:
    """Overrides as ``--set KEY=VALUE`` gives them (a list of such texts) or as a mapping ({key:
    value}), with ``skip_bad_records`` as ``corpus.skip_bad_records``; a text without ``=`` is
    an error naming it."""
    out: dict[str, Any] = {"corpus.skip_bad_records": "true"} if skip_bad_records else {}
    if isinstance(given, Mapping):
        out.update((str(key), value) for key, value in given.items())
        return out
    for pair in given or []:
        if not isinstance(pair, str) or "=" not in pair:
            raise ConfigError(f"--set expects KEY=VALUE (e.g. retrieval.similarity.k1=1.2), got {pair!r}")
        key, value = pair.split("=", 1)
        out[key.strip()] = value
    return out


def apply_overrides(data: dict, overrides: dict[str, Any]) -> dict:
    """Set dotted keys (``retrieval.similarity.k1: 1.2``); values are YAML-parsed strings or objects.
    A list is entered by position or, for the ``rerank:`` stages, by a stage's name
    (``rerank.0.weight``, ``rerank.quality_model.weight``): every stage a parameter."""
    out = copy.deepcopy(data)
    for dotted, value in overrides.items():
        if isinstance(value, str) and value != "":
            try:
                value = load_yaml(value)
            except yaml.YAMLError as exc:
                shown = value if len(value) <= 60 else value[:60] + "…"
                raise ConfigError(f"the value of {dotted} is not valid YAML: {getattr(exc, 'problem', exc)}",
                                  where=f"--set {dotted}={shown}") from None
        node: Any = out
        parts = dotted.split(".")
        for depth, part in enumerate(parts[:-1]):
            if isinstance(node, list):
                node = node[_list_place(node, part, ".".join(parts[:depth]), dotted)]
                continue
            if not isinstance(node.get(part), (dict, list)):
                following = parts[depth + 1]
                if following.isascii() and following.isdigit():  # a position in a list that is not there
                    raise ConfigError(f"{dotted}: {'.'.join(parts[:depth + 1])} is not set in this variant, so it "
                                      f"has no entry {following} to set (give the whole list instead)",
                                      where=f"--set {dotted}")
                node[part] = {}
            node = node[part]
        last = parts[-1]
        if isinstance(node, list):
            node[_list_place(node, last, ".".join(parts[:-1]), dotted)] = copy.deepcopy(value)
        else:
            node[last] = copy.deepcopy(value)  # a later key inside it must not change the caller's object
    return out


def _list_place(items: list, part: str, where: str, dotted: str) -> int:
    """The position ``part`` names in a list: a number from 0, or the name of exactly one of its
    entries (a stage's ``name:``)."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    if part.isascii() and part.isdigit():
        if int(part) < len(items):
            return int(part)
    elif names.count(part) == 1:
        return names.index(part)
    shown = ", ".join(str(n) for n in names if n) or "none"
    why = "names two of them" if names.count(part) > 1 else "is neither a position nor a name there"
    held = (f"holds {len(items)} entr{'y' if len(items) == 1 else 'ies'} (positions 0-{len(items) - 1}; names: "
            f"{shown})") if items else "is empty"
    raise ConfigError(f"{dotted}: {where} {held}, and {part!r} {why}", where=f"--set {dotted}")


def dotted_get(data: Any, dotted: str, missing: Any = None) -> Any:
    """The value at a dotted key, lists entered as ``apply_overrides`` enters them (``missing``
    where there is none)."""
    node = data
    for part in dotted.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list):
            names = [item.get("name") if isinstance(item, dict) else None for item in node]
            if part.isascii() and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            elif names.count(part) == 1:
                node = node[names.index(part)]
            else:
                return missing
        else:
            return missing
    return node


def validate(data: dict, path: Path, overrides: dict[str, Any] | None = None) -> VariantSpec:
    """The variant ``data`` holds, or a ConfigError naming where the wrong value came from: the
    ``--set KEY=VALUE`` that set it (``overrides``), else the file."""
    try:
        return VariantSpec.model_validate(data)
    except ValidationError as exc:
        message = describe_validation_error(exc, VariantSpec)
        given = _overrides_behind(exc, overrides or {})
        if given:
            raise ConfigError(f"{message} (in variant {path})", where=given) from None
        raise ConfigError(message, path=path) from None


def _overrides_behind(exc: ValidationError, overrides: dict[str, Any]) -> str | None:
    """``--set KEY=VALUE`` for the overrides every error of ``exc`` lies under, or None when one
    of them comes from the file."""
    if not overrides:
        return None
    found: list[str] = []
    for err in exc.errors():
        loc = _readable(err["loc"], VariantSpec)[0]
        keys = _culprits(loc, err, overrides)
        if not keys:
            return None
        found += [k for k in keys if k not in found]
    return ", ".join(f"--set {k}={_shown(overrides[k], 60) if not isinstance(overrides[k], str) else overrides[k][:60]}"
                     for k in found)


def _culprits(loc: str, err: Mapping[str, Any], overrides: dict[str, Any]) -> list[str]:
    """The overrides an error at ``loc`` comes from: the one that set that key or a section holding
    it; else those set inside it, the one that chose a tagged section's kind (``name``) alone when
    the kind is what is wrong (``--set …k1=1.2 --set …name=foo`` is name's fault, not k1's)."""
    above = [k for k in overrides if loc == k or loc.startswith(k + ".")]
    if above:
        return above[-1:]  # the innermost given last wins, as it was applied last
    inside = [k for k in overrides if k.startswith(loc + ".")]
    if err.get("type") in ("union_tag_invalid", "union_tag_not_found") and f"{loc}.name" in inside:
        return [f"{loc}.name"]
    return inside


# pydantic's error types in the words of a variant's author (its own messages name Python types)
_WORDS = {
    "float_parsing": "expected a number", "float_type": "expected a number",
    "int_parsing": "expected a whole number", "int_type": "expected a whole number",
    "int_from_float": "expected a whole number", "finite_number": "expected a finite number (not .nan or .inf)",
    "bool_parsing": "expected true or false", "bool_type": "expected true or false",
    "string_type": "expected text", "list_type": "expected a list", "tuple_type": "expected a list",
    "dict_type": "expected a mapping of keys", "none_required": "expected null",
}
_BOUNDS = {"greater_than": "greater than", "greater_than_equal": "at least", "less_than": "less than",
           "less_than_equal": "at most"}


def _words(err: Any, model: Any) -> str:
    """One problem in our words."""
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind in _BOUNDS:
        bound = next(iter(ctx.values()), "?")
        return f"must be {_BOUNDS[kind]} {bound}"
    if kind in ("too_short", "too_long"):
        limit = ctx.get("min_length" if kind == "too_short" else "max_length")
        return f"needs {'at least' if kind == 'too_short' else 'at most'} {limit} item(s)"
    if kind in ("model_type", "model_attributes_type") or (kind == "dict_type" and isinstance(model, type)):
        keys = sorted(getattr(model, "model_fields", {}))
        return "expected a mapping" + (f" of the keys {', '.join(keys)}" if keys else "")
    if kind == "string_pattern_mismatch":
        return f"does not match the pattern {ctx.get('pattern')}"
    return _WORDS.get(kind) or _message(err)


def describe_validation_error(exc: ValidationError, root: type[BaseModel] | None = None) -> str:
    """One line per problem, in the keys the user wrote and in our words; ``root`` (the validated
    model) lets unknown-key messages list the valid keys."""
    lines = []
    for err in exc.errors():
        loc, parent = _readable(err["loc"], root)
        kind = err["type"]
        if kind == "extra_forbidden":
            valid = sorted(getattr(parent, "model_fields", {}))
            lines.append(f"unknown key '{loc}'" + (f" (valid keys here: {', '.join(valid)})" if valid else "")
                         + _other_kinds(loc, err["loc"], root))
        elif kind == "literal_error":
            lines.append(f"{loc}: {err['input']!r} is not allowed; expected {err['ctx']['expected']}")
        elif kind == "union_tag_invalid":
            lines.append(f"{loc}: unknown name {err['ctx']['tag']!r}; expected {err['ctx']['expected_tags']}")
        elif kind == "missing":
            lines.append(f"missing required key '{loc}'")
        else:
            words = _words(err, _model_at(err["loc"], root))
            shown = "input" in err and not isinstance(err["input"], dict) and repr(err["input"]) not in words
            lines.append(f"{loc or 'config'}: {words}" + (f" (got {_shown(err['input'])})" if shown else ""))
    return "; ".join(lines)


def _other_kinds(loc: str, raw: tuple, root: Any) -> str:
    """For a key unknown to a tagged section's kind (``mu`` of a bm25 similarity, ``weight`` of a
    stage without one): which kinds have it, and that ``name:`` chooses the kind."""
    key = str(raw[-1])
    section, _, _ = loc.rpartition(".")
    model: Any = root
    for part in raw[:-1]:
        if isinstance(model, dict):  # a tagged union: ``part`` is the kind chosen
            others = sorted(tag for tag, m in model.items() if tag != part and key in getattr(m, "model_fields", {}))
            if others and len(raw) and part == raw[-2]:
                kinds = " or ".join(f"name: {t}" for t in others)
                return (f"; {key} is a key of {' and '.join(others)}, not of {part}: {kinds} makes {key} one "
                        f"(--set {section}.name={others[0]})")
            model = model.get(part)
            continue
        if isinstance(part, int):
            continue
        fields = getattr(model, "model_fields", None)
        if not fields or part not in fields:
            return ""
        model = _models_of(fields[part].annotation)
    return ""


def _model_at(loc: tuple, root: Any) -> Any:
    """The model a location's value should be (a nested section), if any."""
    model = root
    for part in loc:
        fields = getattr(model, "model_fields", None)
        if isinstance(part, int) or fields is None:
            continue
        if part in fields:
            model = _models_of(fields[part].annotation)
        elif isinstance(model, dict) and part in model:
            model = model[part]
        else:
            return None
    return model if isinstance(model, type) else None


def _shown(value: Any, limit: int = 80) -> str:
    """A value as a message quotes it: its repr, cut (an expanded alias once made a 39 MB message)."""
    text = reprlib.repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _message(err: dict) -> str:
    """pydantic's message without its "Value error, " prefix (our validators' own words)."""
    return err["msg"].removeprefix("Value error, ")


def _readable(loc: tuple, root: type[BaseModel] | None) -> tuple[str, Any]:
    """The dotted key a user wrote (pydantic's loc also holds the tags of tagged unions, which
    are not keys), and the model that holds the last key (to list the valid keys there)."""
    parts: list[str] = []
    model: Any = root
    parent: Any = root
    if root is None:
        return ".".join(str(p) for p in loc), None
    for part in loc:
        if isinstance(part, int):
            parts.append(str(part))
            continue
        fields = getattr(model, "model_fields", {})
        if part in fields:
            parts.append(part)
            parent = model
            model = _models_of(fields[part].annotation)
        elif isinstance(model, dict) and part in model:  # the tag of a tagged union: not a key
            parent = model = model[part]
        else:
            parts.append(str(part))
            parent, model = model, None
    if isinstance(parent, dict):
        parent = None
    return ".".join(parts), parent


def _models_of(annotation: Any) -> Any:
    """The model behind a field: one model, or {tag: model} for a tagged union (the ``rerank``
    stages included)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) is Annotated and any(isinstance(m, StageMarker) for m in annotation.__metadata__):
        return stage_classes()
    found = [m for arg in typing.get_args(annotation) if (m := _models_of(arg)) is not None]
    models = [m for m in found if isinstance(m, type) and issubclass(m, BaseModel)]
    if len(models) > 1:  # tagged union: models keyed by their literal "name"
        return {typing.get_args(m.model_fields["name"].annotation)[0]: m for m in models if "name" in m.model_fields}
    return found[0] if found else None


def missing_variant(name: str | Path) -> str:
    """What to say of a variant that is neither a file nor a shipped name: the nearest shipped
    names (a typo's intended variant), and where the shipped ones are listed."""
    text = str(name).removesuffix(".yaml").removesuffix(".yml").removeprefix("configs/")
    with contextlib.suppress(ValueError):  # a path into configs/ is read as the name it would have
        text = str(Path(text).resolve().relative_to(CONFIGS.resolve()))
    names = shipped_variant_names()

    def likeness(shipped: str) -> float:  # by the whole name, or by the file name in another folder
        return max(difflib.SequenceMatcher(None, text, shipped).ratio(),
                   difflib.SequenceMatcher(None, Path(text).name, Path(shipped).name).ratio())
    near = [n for n in sorted(names, key=likeness, reverse=True)[:3] if likeness(n) >= 0.75]
    hint = f"; did you mean {' or '.join(near)}?" if near else f" (shipped: {', '.join(names)})"
    return f"no variant file of this name, and no shipped variant{hint}"
def variant_file(reference: str | Path, base: Path | None = None) -> Path | None:
    """The file a variant reference names, the one rule for every door (``touche run -c``,
    ``api.variant``, ``tpt.Variant``, a YAML's ``extends:``): a YAML file (relative to ``base``,
    the extending file's folder, for ``extends:``), else a shipped variant's name
    (``task2-stance/1-bm25``: its path under ``configs/``, from any folder and from the installed
    wheel); None when it is neither."""
    path = Path(base, reference) if base is not None else Path(reference)
    if path.is_file():
        return path
    return None if path.exists() else shipped_variant(reference)


def load_variant(path: str | Path, overrides: dict[str, Any] | None = None) -> LoadedVariant:
    """A variant from its YAML file, or a shipped variant by name (``task1/examples/2-krovetz-bm25``)
    where no file of that name exists (``variant_file``); neither is named with the nearest
    shipped names (``missing_variant``)."""
    found = variant_file(path)
    if found is None and not Path(path).exists():
        raise ConfigError(missing_variant(path), path=Path(path))
    path = Path(found or path).resolve()
    data = resolve_raw(path)
    if overrides:
        data = apply_overrides(data, overrides)
    return LoadedVariant(path=path, variant=validate(data, path, overrides), merged=data)


def load_suite(path: str | Path) -> tuple[Path, Suite]:
    """A suite file (``specs/suite.py``'s schema), validated."""
    path = Path(path).resolve()
    data = read_yaml(path)
    try:
        return path, Suite.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, Suite), path=path) from None
