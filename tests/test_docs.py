"""The documentation cannot drift from the code.

The config reference and the generated blocks of the guides (each suite's variants, the
ir_datasets ids, the CLI's help) are rendered from the code: a stale page fails here. The
guides have the sections the issue asks for, the README starts with its two commands, and every
``touche`` command shown in the docs is accepted by the parser.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from touche.cli import build_parser, docs
from touche.config import BM25

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
GUIDES = {"task1": "task1.md", "task1-pairs": "task1-pairs.md", "task2": "task2.md", "task2-stance": "task2.md",
          "image": "image.md"}


def test_generated_pages_are_up_to_date(capsys):
    code = docs.main(["--check"])
    assert code == 0, capsys.readouterr().err + "\n(run `python -m touche.cli.docs` and commit the result)"


def test_a_schema_change_makes_the_reference_stale(monkeypatch, tmp_path, capsys):
    """The page comes from the schema: change a description, a range, a default and the
    rendering changes with it, and --check reports the committed page as stale."""
    before = docs.render()
    field = BM25.model_fields["k1"]
    monkeypatch.setattr(field, "description", "saturation, as changed by this test")
    monkeypatch.setattr(field, "default", 1.7)
    after = docs.render()
    assert after != before
    assert "| `k1` | number | `1.7` | [0, 10] | saturation, as changed by this test |" in after
    monkeypatch.setattr(docs, "REFERENCE", tmp_path / "config-reference.md")
    (tmp_path / "config-reference.md").write_text(before)
    monkeypatch.setattr(docs, "generated_pages", lambda: {docs.REFERENCE: docs.render()})
    assert docs.main(["--check"]) == 1
    assert "config-reference.md is stale" in capsys.readouterr().err


def _reference_keys() -> dict[str, set[str]]:
    """{section path: keys} as the reference lists them, per file kind."""
    out: dict[str, set[str]] = {}
    section = None
    for line in (DOCS / "config-reference.md").read_text().splitlines():
        if m := re.match(r"### (Run variant|Suite|Sweep): (?:top level|`([^`]+)`)", line):
            section = f"{m.group(1)}:{m.group(2) or ''}"
            out.setdefault(section, set())
        elif section and (m := re.match(r"\| `([a-z0-9_]+)` \|", line)):
            out[section].add(m.group(1))
    return out


def _dotted_keys(data, prefix: str = ""):
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        yield prefix, key
        if key == "sets" and not prefix and isinstance(value, dict):  # a sweep's sets: name → section
            for item in value.values():
                yield from _dotted_keys(item, "sets.<name>")
        elif isinstance(value, dict) and key not in ("field_weights", "qrels", "grid",
                                                     "text_weights", "cross_validated"):
            yield from _dotted_keys(value, path)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value) and key == "rerank":
            for item in value:
                yield from _dotted_keys(item, f"{path}[]")


def test_every_key_our_configs_use_is_in_the_reference():
    listed = _reference_keys()
    checked = 0
    for path in sorted((REPO / "configs").rglob("*.yaml")):
        if path.name == "regression.yaml":
            continue  # pinned figures written by `touche regressions`, not a config
        data = yaml.safe_load(path.read_text()) or {}
        kind = "Suite" if path.name == "suite.yaml" else "Sweep" if "sweeps" in path.parts else "Run variant"
        for section, key in _dotted_keys(data):
            if kind == "Run variant" and key == "extends" and not section:
                continue  # the loader's own key, documented in the reference's introduction
            if kind == "Sweep" and section.startswith(("grid", "zip")):
                continue
            assert key in listed.get(f"{kind}:{section}", set()), f"{path.relative_to(REPO)}: {section}.{key}"
            checked += 1
    assert checked > 50


def test_readme_starts_with_the_two_commands():
    text = (REPO / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["./run_all.sh", "./run_tests.sh"]


@pytest.mark.parametrize("task", sorted(GUIDES))
def test_each_task_has_a_guide_with_the_asked_sections(task):
    text = (DOCS / GUIDES[task]).read_text()
    for heading in ("## Input layout", "## The five default variants", "## Write your own variant", "## Sweep",
                    "## Read the report"):
        assert heading in text, f"{GUIDES[task]}: {heading}"
    assert f"<!-- generated: variants configs/{task}/suite.yaml -->" in text


def test_each_guide_lists_its_suites_variants():
    for task, page in GUIDES.items():
        suite = REPO / "configs" / task / "suite.yaml"
        block = re.search(
            rf"<!-- generated: variants configs/{re.escape(task)}/suite.yaml -->\n(.*?)<!-- /generated -->",
            (DOCS / page).read_text(),
            re.S,
        ).group(1)
        if not suite.is_file():
            assert "is not written yet" in block
            continue
        for name in yaml.safe_load(suite.read_text())["variants"]:
            assert f"configs/{task}/{name}" in block, f"{page} does not list {name}"


def _shown_commands() -> list[tuple[str, str]]:
    """(page, command) for every `touche …` line in a bash block of the docs and the README."""
    found = []
    for page in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #")[0].strip()
                if line.startswith("touche "):
                    found.append((page.name, line))
    return found


def test_every_touche_command_in_the_docs_parses():
    shown = _shown_commands()
    assert len(shown) >= 10
    parser = build_parser()
    for page, line in shown:
        argv = shlex.split(line)[1:]
        try:
            parser.parse_args(argv)
        except SystemExit as exc:
            raise AssertionError(f"{page}: `{line}` is not accepted by the CLI") from exc


def test_leaderboard_explains_its_reproduction():
    text = (DOCS / "leaderboard.md").read_text()
    assert "python -m touche.cli.docs --leaderboard" in text
    names = re.findall(r"<!-- generated: leaderboard ([\w-]+) -->", text)
    assert names == [b.name for b in docs.BOARDS]
    task1 = re.search(r"<!-- generated: leaderboard task1-demo -->\n(.*?)<!-- /generated -->", text, re.S).group(1)
    for name in yaml.safe_load((REPO / "configs/task1/suite.yaml").read_text())["variants"]:
        assert Path(name).stem in task1, f"the Task 1 demo table lacks {name}"
