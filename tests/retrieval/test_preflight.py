"""The same preflight behind every entry (retrieval/preflight.py): a variant whose model file is
missing is refused, naming the variant and the key, before any index is built: by ``touche run``,
``run-all``, a sweep, ``api.search``, ``api.run`` and ``touche.pyterrier.Variant`` alike."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.shared import cli
from touche.errors import ToucheError

REPO = Path(__file__).resolve().parents[2]
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
