"""The argument-quality stages (retrieval/stages/quality/): a model file refused when it cannot score finitely;
`touche train-quality` writes a user's file and never replaces the shipped model unasked."""
from __future__ import annotations

import json
import re

import pytest

from tests.shared import cli
from touche.errors import InputError


@pytest.mark.parametrize("change, named", [
    ({"coef": [float("nan")] * 14}, "coef"), ({"std": [0.0] * 14}, "std"), ({"coef": [0.1] * 3}, "coef has shape"),
    ({"features": ["log_words", "nonsense"]}, "features"), ({"intercept": float("inf")}, "intercept"),
    ({"target_std": 0}, "target_std"), ({"mean": ["1"] * 14}, "mean holds '1'"),
])
def test_a_quality_model_with_values_out_of_range_is_refused(tmp_path, change, named):
    from touche.retrieval.stages.quality import model as quality_model
    model = {**json.loads(quality_model.MODEL_FILE.read_text()), **change}
    path = tmp_path / "quality_model.json"
    path.write_text(json.dumps(model))
    with pytest.raises(InputError, match=re.escape(named)):
        quality_model.load(path)


def _quality_model() -> dict:
    from touche.retrieval.stages.quality.model import MODEL_FILE
    return json.loads(MODEL_FILE.read_text())


@pytest.mark.parametrize("change, message", [
    ({"intercept": 10 ** 400}, r"intercept holds 1000.*\(401 characters\), which is no finite number"),
    ({"coef": [10 ** 400] + _quality_model()["coef"][1:]}, r"coef holds .* which is no finite number"),
    ({"std": [1e-300] + _quality_model()["std"][1:]}, r"can score .*e\+30\d on a text of up to 10\^8 characters"),
    ({"std": [1e-20] + _quality_model()["std"][1:]}, r"a deviation or scale that small"),
])
def test_a_quality_model_that_cannot_score_finitely_is_refused_at_load(tmp_path, change, message):
    from touche.retrieval.stages.quality.model import load
    path = tmp_path / "quality_model.json"
    path.write_text(json.dumps({**_quality_model(), **change}))
    with pytest.raises(InputError, match=message):
        load(path)


def test_train_quality_writes_a_user_file_and_keeps_the_shipped_model(tmp_path, monkeypatch):
    from touche.paths import shared_touche_dir
    from touche.retrieval.stages.quality.model import MODEL_FILE
    csv = shared_touche_dir() / "corpora" / "webis-argquality20-full.csv"
    if not csv.is_file():
        pytest.skip(f"Webis-ArgQuality-20 not found at {csv}")
    shipped = MODEL_FILE.read_bytes()
    monkeypatch.chdir(tmp_path)
    code, text = cli("train-quality", str(csv))
    assert code == 0 and (tmp_path / "quality_model.json").read_bytes() == shipped
    code, text = cli("train-quality", str(csv), "-o", str(MODEL_FILE))
    assert code == 2 and "--replace-shipped" in text
    assert MODEL_FILE.read_bytes() == shipped
