"""YAML as the toolkit reads it (variants, suites, sweeps, ``--set`` values): YAML 1.2's core schema,
no key twice, no merge keys, and a budget of size, expanded nodes and depth that a document is
refused beyond before it is built (docs/config-reference.md, "How YAML is read")."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from touche.budgets import MAX_ALIASES, MAX_INT_DIGITS, MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES
from touche.errors import ConfigError

# YAML 1.2's core schema for plain scalars, instead of PyYAML's YAML 1.1: there ``010`` is octal 8,
# ``12:30`` the sexagesimal 750 and ``yes``/``off`` booleans, so ``topics_except: [010, 020]`` held
# out topics 8 and 16 and ran the ones meant to be held out, silently. Here 010 is 10, 12:30 and
# yes are strings, 0o17 and 0x1f are octal and hexadecimal, and no timestamps are made.
_CORE_SCHEMA = {
    "tag:yaml.org,2002:bool": (r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    "tag:yaml.org,2002:int": (r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    "tag:yaml.org,2002:float": (r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                                r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    "tag:yaml.org,2002:null": (r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
}


def _core_resolvers() -> dict:
    resolvers: dict = {}
    for tag, (pattern, first) in _CORE_SCHEMA.items():
        for char in first:
            resolvers.setdefault(char or None, []).append((tag, re.compile(pattern)))
    resolvers["<"] = list(yaml.SafeLoader.yaml_implicit_resolvers["<"])  # the merge key <<
    return resolvers


_CORE_INT = re.compile(_CORE_SCHEMA["tag:yaml.org,2002:int"][0])
_CORE_FLOAT = re.compile(_CORE_SCHEMA["tag:yaml.org,2002:float"][0])
# YAML 1.1's types beyond the core schema: SafeLoader makes bytes, dates, sets and pair lists of
# them, which pydantic then read as text (``tag: !!binary aGVsbG8=`` became the tag "hello").
_NOT_CORE = ("binary", "timestamp", "set", "omap", "pairs")


def _refuse(message: str, mark) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, message, mark)


def _construct_core_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    if not _CORE_INT.match(text):  # an explicit !!int tag skips the resolver's pattern
        raise _refuse(f"{text[:40]!r} is not an integer", node.start_mark)
    if len(text) > MAX_INT_DIGITS:
        raise _refuse(f"an integer of {len(text):,} digits: at most {MAX_INT_DIGITS} are read", node.start_mark)
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)  # 010 is ten: YAML 1.2 has no leading-zero octal


def _construct_core_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = loader.construct_scalar(node)
    if not _CORE_FLOAT.match(text):  # an explicit !!float: float("١") is 1.0, float("1_0") 10.0
        raise _refuse(f"{text[:40]!r} is not a number in the digits 0-9", node.start_mark)
    return loader.construct_yaml_float(node)


def _refuse_not_core(loader: yaml.SafeLoader, node: yaml.Node):
    raise _refuse(f"!!{node.tag.rpartition(':')[2]} is a YAML 1.1 type, not one of YAML 1.2's core schema: write the "
                  "value as text, a number, a list or a mapping", node.start_mark)


class _StrictLoader(yaml.SafeLoader):
    """yaml.safe_load, stricter: plain scalars resolved by YAML 1.2's core schema (``_CORE_SCHEMA``),
    a key given twice in one mapping is an error (PyYAML keeps the last silently), merge keys
    (``<<``, YAML 1.1 only) are refused, and a document is refused before it is built when it
    holds more than MAX_ALIASES aliases, more than MAX_YAML_NODES nodes once its aliases are
    expanded, or nests deeper than MAX_YAML_DEPTH."""

    yaml_implicit_resolvers = _core_resolvers()

    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0
        self._nodes = 0  # nodes composed so far, an alias counted as the size of what it names
        self._depth = 0
        self._sizes: dict[str, int] = {}  # anchor → nodes of its subtree (its aliases' cost)

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _refuse(f"more than {MAX_ALIASES} aliases (*name): refused as an alias bomb", event.start_mark)
            self._count(self._sizes.get(event.anchor, 1), event.start_mark)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise _refuse(f"nested more than {MAX_YAML_DEPTH} levels deep", event.start_mark)
        before = self._nodes
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._count(1, event.start_mark)
        if getattr(event, "anchor", None):
            self._sizes[event.anchor] = self._nodes - before
        return node

    def _count(self, nodes: int, mark) -> None:
        self._nodes += nodes
        if self._nodes > MAX_YAML_NODES:
            raise _refuse(f"more than {MAX_YAML_NODES:,} values (aliases expanded): no configuration is this "
                          "large; refused before it is built", mark)

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _refuse("a merge key (<<) is YAML 1.1, not 1.2, and is not read: put the shared settings in "
                              "a file of their own and name it with extends:", key_node.start_mark)
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise _refuse(f"the key '{key}' is given twice in one mapping (first on line {seen[key] + 1})",
                              key_node.start_mark)
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_core_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_core_float)
for _tag in _NOT_CORE:
    _StrictLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse_not_core)


def load_yaml(text: str):
    """Parse YAML text the strict way (see _StrictLoader); every failure is a yaml.YAMLError."""
    if len(text) > MAX_YAML_BYTES:
        raise _refuse(f"{len(text):,} characters: a configuration has at most {MAX_YAML_BYTES:,}", None)
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # a constructor's own failure
        raise _refuse(f"a value cannot be read: {str(exc)[:200]}", None) from None


def read_yaml(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("file not found", path=path) from None
    except (OSError, ValueError) as exc:  # a directory, a name with a NUL byte, not UTF-8 text
        reason = f"not UTF-8 text ({exc.reason})" if isinstance(exc, UnicodeDecodeError) else str(exc)
        raise ConfigError(f"cannot read the YAML file: {reason}", path=path) from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        raise ConfigError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path=path, where=where) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"expected a mapping of keys at the top level, got {type(data).__name__}", path=path)
    return data
