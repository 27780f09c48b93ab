"""The sweep file (retrieval/experiments/sweep/): every error names its key and the file; a bad
value in one point fails before anything runs, naming the point and its base; points are the
product of grid keys and zip groups, keyed by the variant they make (not only its overrides);
paths expand environment variables; the shipped sweep files are valid; a manifest (sweep.json)
whose choice lists do not fit its points is refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.experiments.test_sweep import BASE, DEMO, REPO, write_sweep
from touche.errors import ConfigError, ToucheError
from touche.retrieval.experiments.sweep import (
    SweepSpec,
    expand_points,
    load_sweep,
    run_sweep,
)


# --------------------------------------------------------------------- the sweep file
@pytest.mark.parametrize("change, message", [
    ({"grids": {}}, "unknown key 'grids'"),
    ({"grid": {}}, "nothing to sweep"),
    ({"grid": {"retrieval.similarity.k1": []}}, "give at least one value"),
    ({"grid": {"retrieval.similarity.k1": [1, 1.0]}}, "values repeat"),
    ({"grid": {"Retrieval K1": [1]}}, "is not a dotted config key"),
    ({"zip": [{"retrieval.similarity.k1": [1, 2], "retrieval.similarity.b": [0.5]}]}, "equal lengths"),
    ({"zip": [{"retrieval.similarity.k1": [1, 2]}]}, "at least two keys"),
    ({"zip": [{"analyzer.stemmer": ["none", "porter"], "retrieval.similarity.b": [0.5, 0.6]}]},
     "^[^:]*: key\\(s\\) analyzer.stemmer, retrieval.similarity.b appear more than once"),
    ({"grid": {"retrieval.similarity": [{"name": "bm25"}], "retrieval.similarity.k1": [1]}},
     "'retrieval.similarity.k1' lies inside 'retrieval.similarity'"),
    ({"measure": "touche.nDCG@5"}, "QRELS-NAME:MEASURE"),
    ({"measure": "stance:stance.F1_macro"}, "names qrels 'stance'"),
])
def test_sweep_file_errors_name_the_key(tmp_path: Path, change: dict, message: str) -> None:
    path = write_sweep(tmp_path / "bad.yaml", tmp_path / "out")
    data = {**yaml.safe_load(path.read_text()), **change}
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=message) as info:
        load_sweep(path)
    assert str(path) in str(info.value)


def test_a_bad_value_in_one_point_fails_before_anything_runs(tmp_path: Path) -> None:
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out",
                       grid={"analyzer.stemmer": ["none", "krovetz"], "retrieval.similarity.k1": [0.9, -1]})
    with pytest.raises(ConfigError) as info:
        run_sweep(path, progress=False)
    text = str(info.value)
    assert "point 2 (analyzer.stemmer=none, retrieval.similarity.k1=-1)" in text
    assert "retrieval.similarity.k1" in text and "must be at least 0.0 (got -1)" in text
    assert not (tmp_path / "out").exists()
    # where: the sweep file and its base variant by path ("s.yaml, base None: …" named no base)
    assert text.startswith(f"{path}, base {BASE.resolve()}: point 2") and "base None" not in text


def test_points_are_the_product_of_grid_keys_and_zip_groups() -> None:
    spec = SweepSpec.model_validate({
        "base": "b.yaml", "qrels": {"relevance": "q"},
        "grid": {"analyzer.stemmer": ["none", "krovetz"]},
        "zip": [{"retrieval.similarity.k1": [0.9, 1.2, 1.5], "retrieval.similarity.b": [0.4, 0.75, 0.9]}]})
    points = expand_points(spec)
    assert len(points) == 6
    assert points[0].overrides == {"analyzer.stemmer": "none", "retrieval.similarity.k1": 0.9,
                                   "retrieval.similarity.b": 0.4}
    assert points[4].overrides == {"analyzer.stemmer": "krovetz", "retrieval.similarity.k1": 1.2,
                                   "retrieval.similarity.b": 0.75}
    assert points[4].coordinates == {"analyzer.stemmer": "krovetz",
                                     "retrieval.similarity.k1 + retrieval.similarity.b": (1.2, 0.75)}
    assert [p.number for p in points] == [1, 2, 3, 4, 5, 6]


def test_point_keys_follow_the_variant_not_only_the_overrides(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text(f"extends: {BASE}\ntag: t\n")
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity.k1": [0.9, 1.2]})
    data = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**data, "base": "base.yaml"}))
    first = load_sweep(path).keys
    assert load_sweep(path).keys == first and len(set(first)) == 2  # stable, distinct
    base.write_text(f"extends: {BASE}\ntag: other-tag\ndescription: changed\n")
    assert load_sweep(path).keys == first  # tag and description do not change a run's ranking
    base.write_text(f"extends: {BASE}\ntag: t\nretrieval: {{top_k: 100}}\n")
    assert not set(load_sweep(path).keys) & set(first)  # the base changed: every point reruns


def test_paths_expand_environment_variables(tmp_path: Path, monkeypatch) -> None:
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity.k1": [1.0]},
                       corpus="${TOUCHE_TEST_DEMO:-%s}/args.me" % DEMO)
    (the_set,) = load_sweep(path).sets
    assert the_set.corpus == DEMO / "args.me"
    monkeypatch.setenv("TOUCHE_TEST_DEMO", str(tmp_path))
    with pytest.raises(ToucheError, match="corpus not found"):
        load_sweep(path)
    path.write_text(path.read_text().replace(":-", "_UNSET_NO_DEFAULT}/x/{"))
    with pytest.raises(ConfigError, match="which is not set"):
        load_sweep(path)


def test_shipped_sweep_files_are_valid() -> None:
    demo = load_sweep(REPO / "configs" / "sweeps" / "task1-demo.yaml")
    assert len(demo.points) >= 12 and [d.corpus for d in demo.sets] == [DEMO / "args.me"]
    from tests.shared import require_shared
    require_shared()
    if not (REPO / "configs" / "task2-stance" / "base.yaml").is_file():
        pytest.skip("configs/task2-stance/base.yaml (the passages sweep's base) is not written yet")
    passages = load_sweep(REPO / "configs" / "sweeps" / "task2-2022-passages.yaml")
    (passage_set,) = passages.sets
    assert len(passages.points) >= 12 and passage_set.corpus.name == "task2-2022-passages.sample.jsonl"
    assert set(passage_set.qrels) == {"relevance", "quality", "stance"}
    assert {v.variant.task for v in passages.variants} == {"task2-stance"}


def test_a_grid_repeating_a_value_is_refused(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import load_sweep
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(), "b": demo_set()}, tmp_path / "out",
                      grid={"retrieval.similarity.k1": [1, "1"]})
    with pytest.raises(ConfigError, match="give the same variant once validated"):
        load_sweep(path)


def test_a_manifest_whose_choice_lists_are_short_is_refused(tmp_path):
    from touche.retrieval.experiments.sweep.manifest import read_manifest
    manifest = {"format": 3, "sweep": "s.yaml", "base": "b.yaml", "measure": "m", "measures": ["m"], "criterion": "c",
                "axes": [], "points": [{"point": n, "overrides": {}, "coordinates": {}} for n in (1, 2, 3)],
                "sets": [{"name": s, "corpus": "c", "topics": "t", "qrels": {}, "keys": ["k1", "k2", "k3"]}
                         for s in ("a", "b")], "runs": 6, "finished": 6,
                "choice": {"criterion": "c", "order": [1, 2, 3], "values": [1.0], "means": [[1.0, 1.0]],
                           "intervals": [[[0, 1], [0, 1]]], "pick_share": [1.0], "lead_interval": [0.1, 0.2],
                           "lead_is_noise": False}}
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(manifest))
    with pytest.raises(ToucheError, match="the choice does not fit the points and sets: values has 1, expected 3"):
        read_manifest(path)
