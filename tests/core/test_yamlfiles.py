"""YAML as the toolkit reads it (touche/yamlfiles.py): YAML 1.2's core schema, nothing of YAML 1.1's
other types."""
from __future__ import annotations

import pytest
import yaml

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
