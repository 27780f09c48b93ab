"""The same preflight behind every entry (retrieval/preflight.py): a variant whose model file is
missing is refused, naming the variant and the key, before any index is built: by ``touche run``,
``run-all``, a sweep, ``api.search``, ``api.run`` and ``touche.pyterrier.Variant`` alike."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml

from tests.evaluation.test_experiment import T2
from tests.shared import DEMO, REPO, cli
from touche.errors import ToucheError

BASE = REPO / "configs" / "task1" / "base.yaml"
MISSING = "quality model file does not exist"


@pytest.fixture
def broken(tmp_path) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump({"extends": str(BASE), "tag": "broken",
                                    "rerank": [{"name": "quality_model", "model": "missing.json"}]}))
    return path


def _run_cli(variant, corpus, root, tmp):
    code, text = cli("run", "-c", str(variant), "-i", str(corpus), "-t", str(corpus / "topics.xml"), "-o",
                     str(tmp / "run.txt"), "--index-root", str(root))
    assert code == 2
    raise ToucheError(text)


def _run_all(variant, corpus, root, tmp):
    from touche import api
    api.run_all(corpus, tmp / "out", config=variant, index_root=root, progress=False)


def _sweep(variant, corpus, root, tmp):
    from touche import api
    sweep = tmp / "s.yaml"
    sweep.write_text(yaml.safe_dump({"base": str(variant), "grid": {"retrieval.similarity.k1": [0.9, 1.2]},
                                     "corpus": str(corpus), "topics": str(corpus / "topics.xml"),
                                     "qrels": {"relevance": str(REPO / "demo" / "qrels-relevance.txt")},
                                     "measure": "relevance:touche.nDCG@5", "output": str(tmp / "sweep")}))
    api.sweep(sweep, index_root=root, progress=False)


def _api_search(variant, corpus, root, tmp):
    from touche import api
    api.search(variant, corpus / "topics.xml", corpus, index_root=root)


def _api_run(variant, corpus, root, tmp):
    from touche import api
    api.run(variant, corpus, corpus / "topics.xml", tmp / "run.txt", index_root=root, progress=False)


def _pyterrier_variant(variant, corpus, root, tmp):
    tpt = pytest.importorskip("touche.pyterrier")
    tpt.Variant(variant, corpus=corpus, index_root=root, progress=False)


@pytest.mark.parametrize("entry", [_run_cli, _run_all, _sweep, _api_search, _api_run, _pyterrier_variant],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_missing_model_file_is_refused_before_any_index(entry, broken, fixture_corpus, tmp_path):
    root = tmp_path / "indexes"
    with pytest.raises(ToucheError, match=MISSING) as error:
        entry(broken, fixture_corpus, root, tmp_path)
    assert "broken.yaml" in str(error.value)
    assert not root.exists() or not any(root.iterdir())  # no index was built first






# --------------------------------------------------------------------------- model files, checked first
def _stance_variant(tmp_path: Path, model_file: Path) -> Path:
    variant = tmp_path / "v.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(REPO / "configs" / "task2-stance" / "3-rerank.yaml"),
                                       "tag": "bad-model",
                                       "task2": {"stance": {"model": "combined", "model_file": str(model_file)}}}))
    return variant


@pytest.mark.parametrize("damage", ["missing", "empty", "truncated gzip", "wrong sizes", "other features"])
def test_a_bad_stance_model_file_is_found_before_any_index_is_built(tmp_path, damage, monkeypatch):
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE
    model = tmp_path / "model.json.gz"
    raw = gzip.decompress(MODEL_FILE.read_bytes())
    if damage == "empty":
        model.write_bytes(b"")
    elif damage == "truncated gzip":
        model.write_bytes(MODEL_FILE.read_bytes()[:1000])
    elif damage in ("wrong sizes", "other features"):
        data = json.loads(raw)
        if damage == "wrong sizes":
            data["sentences"]["cues"]["mean"] = data["sentences"]["cues"]["mean"][:-1]
        else:
            data["passages"]["all"]["features"] = list(reversed(data["passages"]["all"]["features"]))
        model.write_bytes(gzip.compress(json.dumps(data).encode()))
    variant = _stance_variant(tmp_path, model)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(tmp_path / "indexes"))
    code, out = cli("run", "-c", str(variant), "-i", str(T2 / "passages.jsonl"), "-t", str(T2 / "topics-passages.xml"),
                    "-o", str(tmp_path / "run.txt"), "--index-root", str(tmp_path / "indexes"))
    assert code == 2 and "Traceback" not in out and str(model) in out, out
    assert "task2.stance.model_file" in out
    assert not (tmp_path / "indexes").exists() and not (tmp_path / "run.txt").exists()


def test_a_missing_quality_model_is_found_before_run_all_runs_anything(tmp_path):
    base = REPO / "configs" / "task1" / "1-krovetz-smart-lmd2000-quality.yaml"
    variant = tmp_path / "q.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(base), "tag": "q",
                                       "rerank": [{"name": "quality_model", "model": "nowhere.json"}]}))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "topics.xml").write_text(DEMO.joinpath("topics.xml").read_text())
    (tmp_path / "in" / "args.json").write_text(DEMO.joinpath("args.me", "args-demo.json").read_text())
    code, out = cli("run-all", "-c", str(variant), "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"),
                    "--index-root", str(tmp_path / "indexes"))
    assert code == 2 and "quality model file does not exist" in out and "nowhere.json" in out, out
    assert not (tmp_path / "indexes").exists()


def test_model_files_of_fused_variants_are_checked_first(tmp_path):
    from touche.config import load_variant
    from touche.retrieval.preflight import check_variant_files
    base = REPO / "configs" / "task1" / "base.yaml"
    (tmp_path / "b.yaml").write_text(yaml.safe_dump({"extends": str(base), "tag": "b",
                                                     "rerank": [{"name": "quality_model", "model": "missing.json"}]}))
    (tmp_path / "a.yaml").write_text(yaml.safe_dump({"extends": str(base), "tag": "a",
                                                     "rerank": [{"name": "rrf", "variants": ["b.yaml"]}]}))
    with pytest.raises(ToucheError, match="quality model file does not exist") as error:
        check_variant_files(load_variant(tmp_path / "a.yaml"))
    assert "b.yaml" in str(error.value)


# --------------------------------------------------------------------------- model files by value
def _stance_model() -> dict:
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE
    return json.loads(gzip.decompress(MODEL_FILE.read_bytes()))


def test_the_shipped_models_pass_their_own_checks():
    from touche.retrieval.stages.quality import model as quality_model
    from touche.retrieval.tasks.task2.stance import learned as stance_model
    stance_model.check_model_data(_stance_model())
    quality_model.check_model_values(json.loads(quality_model.MODEL_FILE.read_text()))
