"""YAML as the toolkit reads it (touche/yamlfiles.py): YAML 1.2's core schema, nothing of YAML 1.1's
other types; a key given twice named with both lines; an alias bomb refused before it is built."""
from __future__ import annotations

import re
import time

import pytest
import yaml

from tests.shared import REPO, cli
from touche.config import load_variant
from touche.errors import ConfigError
from touche.yamlfiles import load_yaml


@pytest.mark.parametrize("tag,value", [("binary", "aGVsbG8="), ("timestamp", "2001-12-14"), ("set", "{a: null}"),
                                       ("omap", "[{a: 1}]"), ("pairs", "[{a: 1}]")])
def test_a_yaml_1_1_type_is_refused_naming_it(tag, value):
    with pytest.raises(yaml.YAMLError, match=rf"!!{tag} is a YAML 1.1 type"):
        load_yaml(f"x: !!{tag} {value}")


def test_a_binary_tag_is_no_run_tag(tmp_path):
    """``tag: !!binary aGVsbG8=`` was the tag "hello": bytes that pydantic read as text."""
    variant = tmp_path / "v.yaml"
    variant.write_text("tag: !!binary aGVsbG8=\n")
    with pytest.raises(ConfigError, match=r"line 1, column 6: not valid YAML: !!binary is a YAML 1.1 type"):
        load_variant(variant)


def test_the_core_schema_tags_are_read(tmp_path):
    assert load_yaml("a: !!str 5\nb: !!int 0x1f\nc: !!float 2.5\nd: !!bool true\ne: !!null ''\nf: !!seq [1]\n"
                     "g: !!map {h: 1}") == {"a": "5", "b": 31, "c": 2.5, "d": True, "e": None, "f": [1], "g": {"h": 1}}


# --------------------------------------------------------------------------- YAML within a budget
def _bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "tag: t\ndescription:\n  " + "\n  ".join(lines) + "\n"


@pytest.mark.parametrize("text, said", [
    (_bomb(), "aliases expanded"),  # 72 aliases: ran 90 s and 2.4 GB
    ("tag: t\nx: [" + ",".join(["0"] * 1_500_000) + "]\n", "characters: a configuration has at most"),  # 3 MB
    ("tag: t\nx: [" + ",".join(["0"] * 30_000) + "]\n", "more than 20,000 values"),
    ("tag: t\nretrieval: {top_k: !!int 0b1}\n", "'0b1' is not an integer"),
    ("tag: t\nretrieval: {top_k: !!int abc}\n", "'abc' is not an integer"),
    ("tag: t\nretrieval: {top_k: " + "9" * 5000 + "}\n", "an integer of 5,000 digits"),
    ("tag: t\nx: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 64 levels"),
    ("base: &b {top_k: 10}\nretrieval:\n  <<: *b\n", "merge key (<<) is YAML 1.1"),
    ("tag: t\nx: !!float abc\n", "'abc' is not a number in the digits 0-9"),
])
def test_yaml_beyond_its_budget_is_a_located_config_error(tmp_path, text, said):
    from touche.config import load_variant
    path = tmp_path / "v.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(said)) as refused:
        load_variant(path)
    assert str(path) in str(refused.value) and len(str(refused.value)) < 500
    code, printed = cli("analyze", "-c", str(path), "x")
    assert code == 2 and said in printed and "Traceback" not in printed


def test_a_yaml_document_within_the_budget_still_reads():
    from touche.config import load_yaml
    nested: list = []
    for _ in range(59):
        nested = [nested]
    assert load_yaml("a: &a [1, 2]\nb: *a\nc: " + "[" * 60 + "]" * 60 + "\nd: 0x1f\ne: 010\n") == {
        "a": [1, 2], "b": [1, 2], "c": nested, "d": 31, "e": 10}


def test_a_key_given_twice_in_a_yaml_file_is_an_error_naming_both_lines(tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(f"extends: {REPO / 'configs' / 'task1' / 'base.yaml'}\ntag: first\ntag: second\n")
    code, text = cli("analyze", "-c", str(variant), "x")
    assert code == 2 and "line 3" in text and "the key 'tag' is given twice in one mapping (first on line 2)" in text


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\ntag: x\nquery:\n  field_weights: *a11\n")
    started = time.perf_counter()
    code, text = cli("analyze", "-c", str(bomb), "x")
    # round 6: the expanded size is counted too, and reaches its budget before the alias cap
    assert code == 2 and ("refused as an alias bomb" in text or "(aliases expanded)" in text)
    assert time.perf_counter() - started < 10
