"""Choosing across development sets (a five chosen on 2020 fell below the 2021 winner).

The criteria, their noise and the leave-one-set-out estimate are checked on hand-made per-topic
values where the argmax of one (biased) set is known to be the wrong pick; then a sweep on three
demo sets runs end to end (topic selections that never run a held-out topic, the reports,
`touche choose`), and on a local Ray cluster gives exactly the local sweep's runs and scores.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.shared import DEMO, RELEVANCE, REPO
from touche.errors import ConfigError, InputError, ToucheError
from touche.retrieval.experiments.robust import (
    SetScores,
    agreement,
    choose_robustly,
    coverage,
    criterion_values,
    effects,
    leave_one_set_out,
)
from touche.retrieval.formats.gate import read_run


# --------------------------------------------------------------------------- the criteria, by hand
def _set(name: str, weight: float, means: dict[str, float], topics: int, spread: float = 0.0) -> SetScores:
    """Per-topic values whose mean is ``means[point]`` (± spread alternating by topic)."""
    return SetScores(name, weight, {p: {str(t): m + (spread if t % 2 else -spread) for t in range(topics)}
                                    for p, m in means.items()})


# Two large sets judged a third (biased: they agree with each other) prefer X; the small fully
# judged set prefers Y, the point that wins on topics nobody tuned on.
BIASED_A = _set("2020-sample", 0.33, {"X": 0.80, "Y": 0.70, "Z": 0.75}, topics=40)
BIASED_B = _set("2021-other", 0.10, {"X": 0.55, "Y": 0.45, "Z": 0.50}, topics=40)
FULL = _set("2021-dev5", 1.0, {"X": 0.60, "Y": 0.80, "Z": 0.70}, topics=6, spread=0.02)  # even: ± cancel
SETS = [BIASED_A, BIASED_B, FULL]
POINTS = ["X", "Y", "Z"]


def test_the_argmax_of_one_biased_set_is_the_wrong_pick_and_the_weighted_rank_is_not():
    means = np.array([[s.mean(p) for s in SETS] for p in POINTS])
    assert POINTS[int(np.argmax(means[:, 0]))] == "X"  # what choosing on 2020 alone did
    # ranks X: 1, 1, 3; Y: 3, 3, 1; Z: 2, 2, 2; weights 0.33, 0.10, 1.0 (sum 1.43)
    ranks = -criterion_values(means, [s.weight for s in SETS], "weighted_rank")
    assert ranks == pytest.approx([(0.33 + 0.10 + 3.0) / 1.43, (0.99 + 0.30 + 1.0) / 1.43, 2.0])
    choice = choose_robustly(SETS, POINTS)
    assert POINTS[choice.pick] == "Y"
    # worst case: X min(0.8/0.8, 0.55/0.55, 0.6/0.8) = 0.75; Y min(0.875, 0.818, 1) = 0.818; Z 0.875 → Z
    assert criterion_values(means, [1, 1, 1], "worst_case") == pytest.approx([0.75, 0.45 / 0.55, 0.875])
    # weighted mean: X (0.264 + 0.055 + 0.6) / 1.43
    assert criterion_values(means, [0.33, 0.10, 1.0], "weighted_mean")[0] == pytest.approx(0.919 / 1.43)


def test_calibrated_rank_gives_a_set_that_disagrees_with_the_judged_one_no_vote():
    from touche.retrieval.experiments.robust import effective_weights
    means = np.array([[s.mean(p) for s in SETS] for p in POINTS])
    # both biased sets rank X > Z > Y, the judged set Y > Z > X: Spearman -1, floored at 0
    assert effective_weights(means, [0.33, 0.10, 1.0], "calibrated_rank") == pytest.approx([0.0, 0.0, 1.0])
    assert POINTS[choose_robustly(SETS, POINTS, "calibrated_rank").pick] == "Y"
    # a set that partly agrees (rho 0.6 over four points) keeps 0.6 of its coverage
    agreeing = np.array([[0.9, 0.8], [0.8, 0.9], [0.7, 0.6], [0.6, 0.7]])  # ranks 1,2,3,4 vs 2,1,4,3
    assert effective_weights(agreeing, [0.4, 1.0], "calibrated_rank") == pytest.approx([0.4 * 0.6, 1.0])


def test_leave_one_set_out_shows_what_the_biased_sets_transfer():
    transfers = {t.left_out: t for t in leave_one_set_out(SETS, POINTS)}
    # choosing on the two biased sets alone picks X, which ranks last on the fully judged set
    assert transfers["2021-dev5"].pick == "X" and transfers["2021-dev5"].score == pytest.approx(0.60)
    assert transfers["2021-dev5"].rank == 3 and transfers["2021-dev5"].best == "Y"
    assert transfers["2021-dev5"].naive == {"2020-sample": ("X", pytest.approx(0.60)),
                                            "2021-other": ("X", pytest.approx(0.60))}
    # leaving a biased set out, the fully judged set outweighs the other biased one: Y
    assert transfers["2020-sample"].pick == "Y"


def test_the_biased_sets_agree_with_each_other_and_disagree_with_the_judged_one():
    rho = agreement(SETS, POINTS)
    assert rho[0, 1] == pytest.approx(1.0) and rho[0, 2] == pytest.approx(-1.0)


def test_a_lead_within_the_noise_is_flagged_and_a_clear_one_is_not():
    clear = choose_robustly([_set("a", 1.0, {"X": 0.9, "Y": 0.5}, topics=30, spread=0.05)], ["X", "Y"])
    assert clear.pick_share[clear.pick] == 1.0 and not clear.lead_is_noise
    # X wins three topics by a lot and loses three by nearly as much: the mean lead is noise
    noisy = choose_robustly([SetScores("a", 1.0, {"X": {str(t): (0.9 if t < 3 else 0.32) for t in range(6)},
                                                  "Y": {str(t): (0.3 if t < 3 else 0.9) for t in range(6)}})],
                            ["X", "Y"])
    assert noisy.lead_is_noise and 0 < noisy.pick_share[noisy.pick] < 1
    low, high = noisy.intervals[0, 0]
    assert low < 0.61 < high  # the interval of X's mean holds it


def test_effects_pair_points_that_differ_in_one_value_only():
    coordinates = {"1": {"stem": "none", "mu": 1}, "2": {"stem": "krovetz", "mu": 1},
                   "3": {"stem": "none", "mu": 2}, "4": {"stem": "krovetz", "mu": 2}}
    scores = SetScores("s", 1.0, {"1": {"a": 0.5, "b": 0.5}, "2": {"a": 0.7, "b": 0.6},
                                  "3": {"a": 0.4, "b": 0.4}, "4": {"a": 0.5, "b": 0.6}})
    found = {(e.axis, e.value): e for e in effects([scores], coordinates, [("stem", ["none", "krovetz"]),
                                                                          ("mu", [1, 2])])}
    stem = found[("stem", "krovetz")]
    # pairs (2, 1) and (4, 3): topic a: (0.2 + 0.1) / 2, topic b: (0.1 + 0.2) / 2 → mean 0.15
    assert stem.pairs == 2 and stem.per_set["s"][0] == pytest.approx(0.15)
    assert found[("mu", 2)].per_set["s"][0] == pytest.approx(((-0.1 - 0.2) + (-0.1 + 0.0)) / 4)


def test_judged_coverage_is_the_share_of_judged_documents_the_collection_holds():
    judged = {"1": {"a": 2, "b": 0, "c": 1, "d": 1}, "2": {"e": 1}}
    assert coverage(judged, {"a", "b", "x"}, ["1", "2", "3"]) == {"1": 0.5, "2": 0.0}


# --------------------------------------------------------------------------- a sweep on three demo sets
def write_sets_sweep(tmp_path: Path, output: Path) -> Path:
    """Odd topics, even topics (the demo's topic 6 held out: never run), and all topics."""
    relevance = str(DEMO / "qrels-relevance.txt")
    data = {
        "base": str(REPO / "configs" / "task1" / "base.yaml"),
        "grid": {"analyzer.stemmer": ["none", "krovetz"],
                 "retrieval.similarity": [{"name": "bm25", "k1": 0.9, "b": 0.4}, {"name": "lmdirichlet", "mu": 2000}]},
        "sets": {
            "odd": {"corpus": str(DEMO / "args.me"), "topics": str(DEMO / "topics.xml"), "topics_only": [1, 3, 5],
                    "qrels": {"relevance": relevance}},
            "even": {"corpus": [str(DEMO / "args.me" / "args-demo.json")], "topics": str(DEMO / "topics.xml"),
                     "topics_except": [1, 3, 5, 6], "qrels": {"relevance": relevance}, "weight": 0.5},
            "all": {"corpus": str(DEMO / "args.me"), "topics": str(DEMO / "topics.xml"), "topics_except": [6],
                    "qrels": {"relevance": relevance, "quality": str(DEMO / "qrels-quality.txt")}},
        },
        "measure": "relevance:touche.nDCG@5", "measures": ["touche.nDCG@5", "trec.Judged@5"],
        "output": str(output),
    }
    path = tmp_path / "sets-sweep.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def sets_sweep(jvm_started, tmp_path_factory, index_root):
    from touche.retrieval.experiments.sweep import run_sweep
    root = tmp_path_factory.mktemp("sets-sweep")
    path = write_sets_sweep(root, root / "out")
    return path, run_sweep(path, index_root=index_root, progress=False)


def test_every_point_runs_on_every_set_and_a_held_out_topic_never_runs(sets_sweep):
    _, outcome = sets_sweep
    assert outcome.computed == 12 and len(outcome.records) == 12
    topics = {}
    for record in outcome.records:
        topics.setdefault(record.set, set()).update(r.qid for r in read_run(outcome.sweep.output / record.run))
    assert topics == {"odd": {"1", "3", "5"}, "even": {"2", "4"}, "all": {"1", "2", "3", "4", "5"}}
    corpus = outcome.sweep.output / "sets" / "even" / "corpus" / "args-demo.json"
    assert corpus.is_symlink() and corpus.resolve() == (DEMO / "args.me" / "args-demo.json").resolve()


def test_the_report_shows_each_set_its_coverage_the_pick_and_the_transfer(sets_sweep):
    _, outcome = sets_sweep
    text = outcome.table_md.read_text()
    for heading in ("## The sets", "## The pick", "## Leave one set out", "## Do the sets agree?",
                    "## What each swept value does, per set", "## Every point"):
        assert heading in text
    assert "| odd | 3 | 3 | 1.00, 1.00 | 1.00 |" in text  # the demo judges everything it holds
    even = next(line for line in text.splitlines() if line.startswith("| even |"))
    assert even.split(" | ")[4] == "0.50"  # a weight given is the weight the criterion starts from
    assert outcome.choice is not None and sorted(outcome.choice.sets) == ["all", "even", "odd"]
    rows = outcome.table_csv.read_text().splitlines()
    assert rows[0].startswith("rank,point,analyzer.stemmer,retrieval.similarity,odd,odd_ci_low")
    assert len(rows) == 5


def test_a_rerun_runs_nothing_and_choose_picks_by_the_criterion(sets_sweep, tmp_path):
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    path, outcome = sets_sweep
    again = run_sweep(path, index_root=tmp_path / "unused", progress=False)
    assert again.computed == 0 and again.reused == 12
    picks = choose(outcome.sweep.output, tmp_path / "chosen", count=3, reference=False)
    assert picks[0].record.point == int(outcome.choice.points[outcome.choice.pick])
    assert "the most robust across 3 sets" in picks[0].reason
    text = (tmp_path / "chosen" / "choice.md").read_text()
    assert "## Expected transfer (leave one set out)" in text and "[95 % CI]" in text
    assert (tmp_path / "chosen" / "suite.yaml").is_file()


def test_a_partly_judged_biased_set_is_flagged_weighed_by_coverage_and_outvoted(jvm_started, index_root, tmp_path):
    """End to end on a set whose corpus misses 60 % of the judged documents (dropped at random,
    seed 7): coverage 0.38, flagged mostly unjudged, and since it ranks the points against the
    fully judged set (ρ −0.8) calibrated_rank gives it no vote; its own argmax (point 3) is not
    the pick: the judged set's (point 2) is, in the report and in choose."""
    import json
    import random

    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    arguments = json.loads((DEMO / "args.me" / "args-demo.json").read_text())["arguments"]
    relevance = DEMO / "qrels-relevance.txt"
    judged = sorted({line.split()[2] for line in relevance.read_text().splitlines()})
    rng = random.Random(7)
    dropped = {d for d in judged if rng.random() < 0.6}
    (tmp_path / "partial").mkdir()
    (tmp_path / "partial" / "args.json").write_text(json.dumps({"arguments": [a for a in arguments
                                                                              if a["id"] not in dropped]}))
    data = {"base": str(REPO / "configs" / "task1" / "base.yaml"),
            "grid": {"analyzer.stemmer": ["none", "krovetz"],
                     "retrieval.similarity": [{"name": "bm25", "k1": 0.9, "b": 0.4},
                                              {"name": "lmdirichlet", "mu": 2000}]},
            "sets": {"judged": {"corpus": str(DEMO / "args.me"), "topics": str(DEMO / "topics.xml"),
                                "topics_only": [1, 2, 3], "qrels": {"relevance": str(relevance)}},
                     "partial": {"corpus": str(tmp_path / "partial"), "topics": str(DEMO / "topics.xml"),
                                 "qrels": {"relevance": str(relevance)}}},
            "measure": "relevance:touche.nDCG@5", "measures": ["touche.nDCG@5"], "output": str(tmp_path / "out")}
    path = tmp_path / "biased.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    outcome = run_sweep(path, index_root=index_root, progress=False)
    partial = next(s for s in outcome.analysis.sets if s.name == "partial")
    assert partial.mean_coverage == pytest.approx(0.38, abs=0.01) and partial.mostly_unjudged
    assert partial.weight == pytest.approx(partial.mean_coverage) and partial.used_weight == 0.0
    text = outcome.table_md.read_text()
    assert "| partial | 6 | 6 | 0.38, 0.41 | 0.38 | 0.00 | **mostly unjudged" in text
    own = {r.point: r.measures["relevance:touche.nDCG@5"] for r in outcome.records if r.set == "partial"}
    assert max(own, key=own.get) == 3  # what choosing on the partly judged set alone would take
    assert int(outcome.choice.points[outcome.choice.pick]) == 2
    picks = choose(tmp_path / "out", tmp_path / "chosen", count=2, reference=False)
    assert picks[0].record.point == 2 and picks[0].record.set == "judged"


def test_sets_and_top_level_data_do_not_mix(tmp_path):
    from touche.retrieval.experiments.sweep import load_sweep
    path = write_sets_sweep(tmp_path, tmp_path / "out")
    data = yaml.safe_load(path.read_text())
    data["corpus"] = str(DEMO / "args.me")
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="give corpus inside each of sets"):
        load_sweep(path)
    data.pop("corpus")
    data["sets"]["odd"]["topics_except"] = [2]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="topics_only or topics_except, not both"):
        load_sweep(path)


# --------------------------------------------------------------------------- on a Ray cluster
def test_a_sweep_on_a_local_ray_cluster_gives_the_local_sweeps_runs_and_scores(sets_sweep, tmp_path, index_root):
    pytest.importorskip("ray", reason="Ray is the optional extra [distributed]; run_tests.sh installs it")
    from touche.indexing.distributed import connect, disconnect
    from touche.retrieval.experiments.sweep import run_sweep
    path, local = sets_sweep
    connect(None, cpus=2)
    try:
        on_ray = run_sweep(path, output=tmp_path / "ray-out", index_root=index_root, progress=False, ray=True)
    finally:
        disconnect()
    assert on_ray.computed == 12
    mine = {r.key: r for r in on_ray.records}
    for record in local.records:
        other = mine[record.key]
        assert other.measures == record.measures and other.per_topic == record.per_topic
        assert (on_ray.sweep.output / other.run).read_bytes() == (local.sweep.output / record.run).read_bytes()
    assert math.isclose(on_ray.choice.values[on_ray.choice.pick], local.choice.values[local.choice.pick])


def test_choose_distinct_gives_each_pick_another_value_of_the_key(sets_sweep, tmp_path):
    from touche.errors import ToucheError
    from touche.retrieval.experiments.choose.picks import load_results, pick
    _, outcome = sets_sweep
    results = load_results(outcome.sweep.output)
    picks = pick(results, count=5, distinct="retrieval.similarity")
    assert len(picks) == 2  # two similarities swept: two picks that differ in it
    assert picks[0].record.overrides["retrieval.similarity"] != picks[1].record.overrides["retrieval.similarity"]
    with pytest.raises(ToucheError, match="--distinct rerank is not a swept key"):
        pick(results, distinct="rerank")


def test_choose_keeps_a_set_weight_of_zero():
    """A set given `weight: 0` (or of coverage 0) has no vote in `touche choose` either; a falsy
    weight once fell back to 1."""
    from touche.retrieval.experiments.choose.picks import set_weight
    from touche.retrieval.experiments.sweep.manifest import ManifestSet
    sets = [ManifestSet(name="a", corpus="c", topics="t", qrels={}, keys=[], weight=0, used_weight=0.0),
            ManifestSet(name="b", corpus="c", topics="t", qrels={}, keys=[], weight=None, used_weight=0.4),
            ManifestSet(name="c", corpus="c", topics="t", qrels={}, keys=[], weight=0.0),
            ManifestSet(name="d", corpus="c", topics="t", qrels={}, keys=[])]
    assert [set_weight(e) for e in sets] == [0.0, 0.4, 0.0, 1.0]


def test_results_hold_every_measure_of_every_set_at_every_point(sets_sweep):
    """results.csv and results.md held only the criterion's measure per set; the others (quality,
    Judged@5) had to be read back from results.jsonl."""
    _, outcome = sets_sweep
    rows = list(csv.DictReader(io.StringIO(outcome.table_csv.read_text())))
    records = {(r.set, r.point): r for r in outcome.records}
    columns = {"relevance:touche.nDCG@5 (odd)", "relevance:trec.Judged@5 (even)", "quality:touche.nDCG@5 (all)",
               "quality:trec.Judged@5 (all)", "relevance:touche.nDCG@5 (all)"}
    assert columns <= set(rows[0]) and "quality:touche.nDCG@5 (odd)" not in rows[0]
    for row in rows:
        for column in columns:
            measure, name = column[:-1].split(" (")
            assert float(row[column]) == pytest.approx(records[(name, int(row["point"]))].measures[measure])
    text = outcome.table_md.read_text()
    assert "## Every measure at every point" in text and "| quality:trec.Judged@5 (all) |" in text






# --------------------------------------------------------------------------- corpus lists
@pytest.mark.parametrize("second", ["args.JSON", "passages.jsonl"])
def test_every_listed_corpus_file_is_checked_before_anything_runs(tmp_path, second):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import load_sweep
    first = tmp_path / "a" / "args.json"
    first.parent.mkdir()
    first.write_bytes((DEMO / "args.me" / "args-demo.json").read_bytes())
    other = tmp_path / second
    other.write_bytes(first.read_bytes() if second == "args.JSON" else
                      next((DEMO / "task2").rglob("*.jsonl")).read_bytes())
    path = write_sets(tmp_path / "s.yaml", {"one": demo_set(), "two": demo_set(corpus=[str(first), str(other)])},
                      tmp_path / "out")
    with pytest.raises(ConfigError, match=f"set two: its corpus is not what the variants read.*{second}"):
        load_sweep(path)


# --------------------------------------------------------------------------- sweeps and choose
def test_measures_that_fit_none_of_a_sets_qrels_are_refused_when_the_sweep_loads(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import load_sweep
    stance = tmp_path / "stance.qrels"
    stance.write_text("1 0 x FIRST\n")
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(), "b": demo_set(qrels={"relevance": str(RELEVANCE),
                                                                                 "stance": str(stance)})},
                      tmp_path / "out", measures=["touche.nDCG@5", "stance.F1_macro"])
    with pytest.raises(ConfigError, match="set a: measures stance.F1_macro fit none of its qrels"):
        load_sweep(path)
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- a stance-only set
def test_a_stance_only_set_is_scored_with_the_default_measures_that_fit_it(tmp_path):
    """The default measures (nDCG) fit no stance qrels: the sweep failed after its first run, on
    every rerun; config-reference.md says measures are computed for every qrels file they fit."""
    from touche.retrieval.experiments.sweep import load_sweep
    task2 = DEMO / "task2"
    sweep_file = tmp_path / "s.yaml"
    sweep_file.write_text(yaml.safe_dump({
        "base": str(REPO / "configs" / "task2-stance" / "1-bm25.yaml"), "grid": {"retrieval.similarity.k1": [0.9, 1.2]},
        "corpus": str(task2 / "passages.jsonl"), "topics": str(task2 / "topics-passages.xml"),
        "qrels": {"stance": str(task2 / "qrels-passages-stance.txt")}, "measure": "stance:stance.F1_macro",
        "output": str(tmp_path / "out")}))
    sweep = load_sweep(sweep_file)
    assert sweep.measures_for(sweep.sets[0]) == ["stance.F1_macro"]


# --------------------------------------------------------------------------- messages
def test_a_sweep_measure_without_its_qrels_name_says_what_it_got_once(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep.loading import load_sweep
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(), "b": demo_set()}, tmp_path / "out",
                      measure="touche.nDCG@5")
    with pytest.raises(ToucheError) as refused:
        load_sweep(path)
    assert str(refused.value).count("got 'touche.nDCG@5'") == 1


def test_an_empty_corpus_list_is_refused_before_the_output_folder_is_made(tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set(corpus=[])}, tmp_path / "out")
    with pytest.raises(ToucheError, match="corpus"):
        run_sweep(path, progress=False)
    assert not (tmp_path / "out").exists()
    from touche.indexing.corpora import check_corpus_files
    with pytest.raises(InputError, match="corpus list is empty"):
        check_corpus_files({}, "argsme")
