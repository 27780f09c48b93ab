"""Every extension point is a registry a newcomer can add to without editing the product: a toy
measure, a toy stance model, a toy sweep criterion and a toy re-ranking stage are registered from
this module alone and run end to end through the API or the command line (docs/architecture.md,
"How to add …")."""
from __future__ import annotations

import re

import numpy as np
import pytest
import yaml

from tests.shared import DEMO, REPO, cli
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.qrels import QrelsKind


# --------------------------------------------------------------------------- a measure
@pytest.fixture()
def toy_measure():
    from touche.retrieval.evaluation import registry

    class JudgedRelevantAtK(registry.MeasureFamily):
        """toy.Rel@k: how many of the top k are judged relevant (label > 0), per topic."""
        prefixes = ("toy.",)
        pattern = re.compile(r"toy\.Rel@(\d+)")
        qrels_kind = QrelsKind.GRADED
        names = "toy.Rel@k"

        def per_topic(self, measures, rows, judgments):
            out = {}
            for m in measures:
                k = int(m.groups[0])
                by_topic = {}
                for row in sorted(rows, key=lambda r: (r.qid, r.rank)):
                    by_topic.setdefault(row.qid, []).append(row)
                out[m.name] = {q: float(sum(1 for r in topic[:k] if judgments.get(q, {}).get(r.docid, 0) > 0))
                               for q, topic in by_topic.items() if q in judgments}
            return out

        def means(self, measures, rows, judgments):
            return {
                name: float(np.mean(list(v.values()))) for name, v in self.per_topic(measures, rows, judgments).items()
            }

    registry.register_measure_family(JudgedRelevantAtK)
    yield
    registry.MEASURE_FAMILIES[:] = [f for f in registry.MEASURE_FAMILIES if not isinstance(f, JudgedRelevantAtK)]


def test_a_registered_measure_is_scored_by_evaluate_compare_and_experiment(toy_measure, tmp_path):
    from touche import api
    qrels = DEMO / "qrels-relevance.txt"
    judged = {}
    for line in qrels.read_text().splitlines():
        q, _, d, g = line.split()
        judged.setdefault(q, {})[d] = int(g)
    topic1 = list(judged["1"])
    run_a, run_b = tmp_path / "a.txt", tmp_path / "b.txt"
    run_a.write_text("".join(f"1 Q0 {d} {i} {20 - i} a\n" for i, d in enumerate(topic1[:5], 1)))
    run_b.write_text("".join(f"1 Q0 {d} {i} {20 - i} b\n" for i, d in enumerate(topic1[5:10], 1)))
    expected = sum(1 for d in topic1[:3] if judged["1"][d] > 0)
    assert api.evaluate(run_a, qrels, ["toy.Rel@3"]) == {"toy.Rel@3": expected}
    code, text = cli("evaluate", str(run_a), f"relevance={qrels}", "--measures", "toy.Rel@3,touche.nDCG@5")
    assert code == 0 and "relevance:toy.Rel@3" in text, text
    table = api.experiment({"a": run_a, "b": run_b}, qrels, ["toy.Rel@5"])
    assert set(table["measure"]) == {"toy.Rel@5"} and table["topics"].tolist() == [1, 1]


# --------------------------------------------------------------------------- a stance model
@pytest.fixture()
def toy_stance():
    from touche.retrieval.tasks.task2.stance import registry as stance_models

    class AlwaysFirst(stance_models.StanceModel):
        name = "always-first"

        def labeller(self, spec, model_file):
            return lambda text, comp, key: "FIRST"

    stance_models.register_stance_model(AlwaysFirst)
    yield
    stance_models.STANCE_MODELS.pop("always-first", None)


def test_a_registered_stance_model_labels_a_task2_run(toy_stance, jvm_started, index_root, tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(REPO / "configs" / "task2-stance" / "1-bm25.yaml"),
                                       "tag": "toy-stance", "task2": {"stance": {"model": "always-first"}}}))
    code, text = cli("run", "-c", str(variant), "-i", str(DEMO / "task2" / "passages.jsonl"),
                     "-t", str(DEMO / "task2" / "topics-passages.xml"), "-o", str(tmp_path / "run.txt"),
                     "--index-root", str(index_root))
    assert code == 0, text
    assert {row.column2 for row in read_run(tmp_path / "run.txt")} == {"FIRST"}
    # it reads no pattern setting, so a variant giving one is refused when it loads
    variant.write_text(variant.read_text().replace("model: always-first", "model: always-first\n    margin: 0.2"))
    code, text = cli("run", "-c", str(variant), "-i", str(DEMO / "task2" / "passages.jsonl"),
                     "-t", str(DEMO / "task2" / "topics-passages.xml"), "-o", str(tmp_path / "run2.txt"))
    assert code == 2 and "does not read margin" in text


# --------------------------------------------------------------------------- a sweep criterion
@pytest.fixture()
def toy_criterion():
    from touche.retrieval.experiments import robust

    class FirstSetOnly(robust.Criterion):
        name = "first_set_only"
        description = "the score on the first set alone"

        def values(self, means, weights):
            return np.where(np.isnan(means[:, 0]), -np.inf, means[:, 0])

    robust.register_criterion(FirstSetOnly)
    yield
    robust.CRITERIA.pop("first_set_only", None)


def test_a_registered_criterion_orders_a_sweep_and_choose_follows_it(toy_criterion, jvm_started, index_root,
                                                                     tmp_path):
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    demo = {"corpus": str(DEMO / "args.me"), "topics": str(DEMO / "topics.xml"),
            "qrels": {"relevance": str(DEMO / "qrels-relevance.txt")}}
    sweep = tmp_path / "s.yaml"
    sweep.write_text(yaml.safe_dump({
        "base": str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"),
        "grid": {"retrieval.similarity.k1": [0.3, 0.9, 1.5]},
        "sets": {"first": {**demo, "topics_only": [1, 2, 3]}, "second": {**demo, "topics_only": [4, 5, 6]}},
        "measure": "relevance:touche.nDCG@5", "measures": ["touche.nDCG@5"], "criterion": "first_set_only",
        "output": str(tmp_path / "out")}))
    outcome = run_sweep(sweep, index_root=index_root, progress=False)
    first = {r.point: r.measures["relevance:touche.nDCG@5"] for r in outcome.records if r.set == "first"}
    best = max(sorted(first), key=lambda p: first[p])
    assert int(outcome.choice.points[outcome.choice.pick]) == best
    assert "ordered by **first_set_only**" in outcome.table_md.read_text()
    picks = choose(tmp_path / "out", tmp_path / "chosen", count=2, reference=False)
    assert picks[0].record.point == best and "first_set_only" in picks[0].reason


# --------------------------------------------------------------------------- a re-ranking stage
@pytest.fixture()
def toy_stage():
    from typing import Literal

    from touche.retrieval.stages import STAGES, Stage, register_stage

    class Reverse(Stage):
        """Puts each topic's ranking upside down (scores kept consistent with the order)."""
        name: Literal["reverse"] = "reverse"

        def apply(self, ranking, ctx):
            return {qid: [(docid, float(len(hits) - i)) for i, (docid, _) in enumerate(reversed(hits))]
                    for qid, hits in ranking.items()}

    register_stage(Reverse)
    yield
    STAGES.pop("reverse", None)


def test_a_registered_stage_reranks_a_run(toy_stage, jvm_started, index_root, tmp_path):
    base = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
    variant = tmp_path / "reversed.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(base), "tag": "reversed", "retrieval": {"top_k": 5},
                                       "rerank": [{"name": "reverse"}]}))
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump({"extends": str(base), "tag": "plain", "retrieval": {"top_k": 5}}))
    for path, out in ((variant, "r.txt"), (plain, "p.txt")):
        code, text = cli("run", "-c", str(path), "-i", str(DEMO / "args.me"), "-t", str(DEMO / "topics.xml"),
                         "-o", str(tmp_path / out), "--index-root", str(index_root))
        assert code == 0, text
    reversed_rows, plain_rows = read_run(tmp_path / "r.txt"), read_run(tmp_path / "p.txt")
    for qid in {r.qid for r in plain_rows}:
        mine = [r.docid for r in sorted(reversed_rows, key=lambda r: r.rank) if r.qid == qid]
        theirs = [r.docid for r in sorted(plain_rows, key=lambda r: r.rank) if r.qid == qid]
        assert mine == theirs[::-1]
