"""Stance labelling at full size on English text: each model on a variant's 50,000 retrieved rows.

Run after ``python -m bench.fullsize --only task2-2022`` (it reads that run's index and variant 3's
run file): ``python -m bench.stance_fullsize``. Prints, per model, the seconds for the 50,000 rows
with an empty evidence cache (cold: the first variant to label them) and a full one (warm)."""
import time
from collections import Counter
from pathlib import Path

from touche.config import load_variant
from touche.indexing.builder import ensure_index
from touche.jvm import start
from touche.retrieval.formats.runfile import read_run
from touche.retrieval.formats.topics import read_topics
from touche.retrieval.session import Session
from touche.retrieval.tasks.task2.handlers import _texts
from touche.retrieval.tasks.task2.objects import comparison
from touche.retrieval.tasks.task2.stance import learned as stance_model
from touche.retrieval.tasks.task2.stance.learned import topic_key
from touche.retrieval.tasks.task2.stance.registry import MODEL_FILE, STANCE_MODELS
from touche.specs.task2 import StanceSpec

start()  # no module above touches Java at import: the JVM starts here, before the first index opens
ROOT = Path(__file__).resolve().parent.parent
data = ROOT / "bench" / "data"
work = data / "fullsize-work-task2-2022"
collection = data / "task2-2022-english-868655"
variant = load_variant(ROOT / "configs" / "task2-stance" / "3-rerank.yaml")
session = Session(collection, collection / "topics.xml", work / "indexes", progress=False)
rows = read_run(work / "out" / "3-rerank.txt")
ranking = {}
for r in rows:
    ranking.setdefault(r.qid, []).append((r.docid, r.score))

info = ensure_index(variant.variant, collection, work / "indexes", base_dir=variant.path.parent, progress=False)
searcher = session.searcher(info, variant)
t = time.perf_counter()
texts = _texts(searcher, ranking, 1000)
print(f"texts of {len(texts)} passages: {time.perf_counter() - t:.1f} s")
spec = variant.variant.task2
topics = {t.number: t for t in read_topics(collection / "topics.xml")}
comps = {q: comparison(topics[q], spec.objects) for q in ranking}
keys = {q: topic_key(topics[q].title, comps[q].objects) for q in ranking}
for name in ("patterns", "learned", "combined"):
    stance_model._EVIDENCE.clear()
    label = STANCE_MODELS[name].labeller(StanceSpec(model=name), MODEL_FILE)
    t = time.perf_counter()
    labels = [label(texts.get(d, ""), comps[q], keys[q]) for q, hits in ranking.items() for d, _ in hits]
    cold = time.perf_counter() - t
    t = time.perf_counter()
    labels = [label(texts.get(d, ""), comps[q], keys[q]) for q, hits in ranking.items() for d, _ in hits]
    warm = time.perf_counter() - t
    print(
        f"{name}: {len(labels)} rows, cold {cold:.1f} s ({cold / len(labels) * 1000:.2f} ms a row), warm {warm:.1f} s;"
        f" labels {dict(Counter(labels))}"
    )
