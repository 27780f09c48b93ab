"""What `touche choose` proposes and writes (retrieval/experiments/choose/): which sweep folders it
reads and refuses, how many picks it makes and how it keeps them diverse, the pick by a second
measure, several sets, the shipped reference, the suite, corpus and topics it writes and what it
says. Each pick's loss against pick 1: test_choose_loss.py; the variant files' names, tags and
contents: test_choose_variants.py."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml

from tests.shared import REPO
from touche.errors import ToucheError
from touche.guard import OutputFolder
from touche.retrieval.experiments.choose import picks as picks_module
from touche.retrieval.experiments.choose.picks import (
    SweepResults,
    choose,
    load_results,
    pick,
)
from touche.retrieval.experiments.choose.reference import Reference
from touche.retrieval.experiments.sweep import MANIFEST_FILE, RESULTS_FILE, Record
from touche.retrieval.experiments.sweep.manifest import SweepManifest

BASE = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
MEASURE = "relevance:touche.nDCG@5"
QUALITY = "quality:touche.nDCG@5"
TOPICS = [str(t) for t in range(1, 11)]
FLAT = [0.5] * 10  # the same on every topic: a point with these values loses nothing anywhere


def _point(number, overrides, mean, per_topic=FLAT, quality=None, quality_per_topic=None, key=None, run=None):
    measures = {MEASURE: mean}
    topic_values = {MEASURE: dict(zip(TOPICS, per_topic))}
    if quality is not None:
        measures[QUALITY] = quality
        topic_values[QUALITY] = dict(zip(TOPICS, quality_per_topic or FLAT))
    return Record(key=key or f"k{number}", point=number, overrides=overrides, measures=measures,
                  run=run or f"runs/p{number}.txt", seconds=0.0, per_topic=topic_values)


def _manifest(records, axes, qrels, *, sets=None, choice=None, finished=None):
    points = {r.point: r.overrides for r in records}
    sets = sets or [{"name": "", "corpus": "corpus", "topics": "topics.xml", "qrels": qrels,
                     "keys": [r.key for r in records]}]
    runs = len(points) * len(sets)
    return SweepManifest(sweep="s.yaml", base=str(BASE), measure=MEASURE, measures=[MEASURE],
                         criterion="weighted_mean", axes=[{"label": label, "keys": keys} for label, keys in axes],
                         points=[{"point": p, "overrides": o, "coordinates": o} for p, o in points.items()],
                         sets=sets, runs=runs, finished=runs if finished is None else finished, choice=choice)


def _write_files(folder: Path, records, qrels):
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    (folder / "corpus").mkdir(exist_ok=True)
    (folder / "corpus" / "args.jsonl").write_text("{}\n")
    (folder / "topics.xml").write_text("<topics/>\n")
    for path in qrels.values():
        (folder / path).write_text("1 0 d1 1\n")
    for record in records:
        (folder / record.run).write_text(f"1 Q0 d{record.point} 1 1 t\n")  # a ranking of its own


def write_sweep(folder: Path, records, axes=(("k1", ["retrieval.similarity.k1"]),), qrels=None, *, missing=()):
    """A finished one-set sweep's folder as `touche sweep` leaves it (sweep.json, results.jsonl, the
    runs); the points in ``missing`` have not run."""
    qrels = qrels or {"relevance": "qrels.txt"}
    _write_files(folder, records, qrels)
    done = [r for r in records if r.point not in missing]
    manifest = _manifest(records, axes, qrels, finished=len(done))
    (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2))
    (folder / RESULTS_FILE).write_text("".join(r.to_json() + "\n" for r in done))
    return folder


def in_memory(folder: Path, records, axes=(("k1", ["retrieval.similarity.k1"]),), qrels=None) -> SweepResults:
    """The same sweep handed to pick() directly."""
    qrels = qrels or {"relevance": "qrels.txt"}
    _write_files(folder, records, qrels)
    return SweepResults(folder, _manifest(records, axes, qrels), list(records))


SETS = ("full", "part")


def write_sets_sweep(folder: Path, values: dict[int, tuple[float, float]], order: list[int], *,
                     per_topic: dict[int, list[float]] | None = None) -> Path:
    """A finished sweep on two sets (full weighs 1, part 0.5) over k1, ordered by ``order``;
    ``values``: point → its mean on each set."""
    qrels = {"relevance": "qrels.txt"}
    records = []
    for name in SETS:
        for number, means in values.items():
            mean = means[SETS.index(name)]
            records.append(Record(key=f"{name}{number}", point=number,
                                  overrides={"retrieval.similarity.k1": round(0.2 + number / 10, 1)},
                                  measures={MEASURE: mean}, run=f"runs/{name}{number}.txt", seconds=0.0,
                                  per_topic={MEASURE: dict(zip(TOPICS, (per_topic or {}).get(number, FLAT)))},
                                  set=name))
    _write_files(folder, records, qrels)
    for record in records:
        (folder / record.run).write_text(f"1 Q0 d{record.point} 1 1 t\n")
    points = list(values)
    sets = [{"name": name, "corpus": "corpus", "topics": "topics.xml", "qrels": qrels, "weight": weight,
             "keys": [f"{name}{p}" for p in points]} for name, weight in zip(SETS, (1.0, 0.5))]
    means = [list(values[p]) for p in points]
    choice = {"criterion": "weighted_mean", "order": order,
              "values": [(values[p][0] + 0.5 * values[p][1]) / 1.5 for p in points], "means": means,
              "intervals": [[[m - 0.1, m + 0.1] for m in values[p]] for p in points],
              "pick_share": [1.0 if p == order[0] else 0.0 for p in points], "lead_interval": [0.1, 0.2],
              "lead_is_noise": False}
    by_point = {r.point: r.overrides for r in records}
    manifest = SweepManifest(sweep="s.yaml", base=str(BASE), measure=MEASURE, measures=[MEASURE],
                             criterion="weighted_mean", axes=[{"label": "k1", "keys": ["retrieval.similarity.k1"]}],
                             points=[{"point": p, "overrides": by_point[p],
                                      "coordinates": by_point[p]} for p in points],
                             sets=sets, runs=2 * len(points), finished=2 * len(points), choice=choice)
    (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2))
    (folder / RESULTS_FILE).write_text("".join(r.to_json() + "\n" for r in records))
    return folder


def k1_points(count, first_mean=0.8, step=0.01):
    """``count`` points over k1, best first by their stored means, equal topic by topic."""
    return [_point(n, {"retrieval.similarity.k1": round(0.1 * n, 1)}, first_mean - step * (n - 1))
            for n in range(1, count + 1)]


# --------------------------------------------------------------------------- reading the sweep
def test_a_folder_without_the_sweeps_results_is_refused_as_no_sweep_output(tmp_path):
    folder = write_sweep(tmp_path / "sweep", k1_points(2))
    (folder / RESULTS_FILE).unlink()  # sweep.json alone: the sweep never recorded a run
    with pytest.raises(ToucheError, match="not a sweep's output directory: expected sweep.json and results.jsonl"):
        load_results(folder)


def test_an_unfinished_sweep_is_refused_unless_partial_and_then_gives_its_finished_points(tmp_path):
    folder = write_sweep(tmp_path / "sweep", k1_points(3), missing=(3,))
    with pytest.raises(ToucheError, match="the sweep is unfinished: 1 of 3 runs have not run"):
        load_results(folder)
    with pytest.raises(ToucheError, match="the sweep is unfinished"):
        choose(folder, tmp_path / "chosen", reference=False)
    assert [r.point for r in load_results(folder / RESULTS_FILE, partial=True).records] == [1, 2]


def test_choose_refuses_to_write_into_the_sweeps_folder_given_by_a_relative_path(tmp_path, monkeypatch):
    write_sweep(tmp_path / "sweep", k1_points(2))
    monkeypatch.chdir(tmp_path)
    assert load_results("sweep").directory == tmp_path / "sweep"
    with pytest.raises(ToucheError, match="--out is the sweep's own folder"):
        choose("sweep", "sweep", reference=False)


# --------------------------------------------------------------------------- what pick proposes
def test_five_picks_by_default_and_exactly_the_count_asked_for(tmp_path):
    results = in_memory(tmp_path, k1_points(7))
    assert [c.record.point for c in pick(results)] == [1, 2, 3, 4, 5]
    assert [c.record.point for c in pick(results, count=2)] == [1, 2]
    assert pick(results)[0].reason == f"best by {MEASURE}"  # no second measure asked for: said by one


def test_with_three_swept_axes_a_pick_differing_in_two_comes_before_a_better_one_differing_in_one(tmp_path):
    axes = (("k1", ["retrieval.similarity.k1"]), ("b", ["retrieval.similarity.b"]), ("s", ["analyzer.stemmer"]))
    points = [_point(1, {"retrieval.similarity.k1": 1.0, "retrieval.similarity.b": 0.5,
                         "analyzer.stemmer": "krovetz"}, 0.9),
              _point(2, {"retrieval.similarity.k1": 1.2, "retrieval.similarity.b": 0.5,
                         "analyzer.stemmer": "krovetz"}, 0.8),
              _point(3, {"retrieval.similarity.k1": 1.2, "retrieval.similarity.b": 0.7,
                         "analyzer.stemmer": "krovetz"}, 0.7),
              _point(4, {"retrieval.similarity.k1": 1.2, "retrieval.similarity.b": 0.7,
                         "analyzer.stemmer": "none"}, 0.6)]
    chosen = pick(in_memory(tmp_path, points, axes), count=2)
    # the default asks for 2 differing parameters (not all three): point 3 before point 4
    assert [c.record.point for c in chosen] == [1, 3]
    assert chosen[1].reason.startswith(f"next best by {MEASURE} that differs from the picks above in ≥ 2 swept")


def test_the_loss_of_a_pick_is_measured_on_the_measure_the_picks_follow(tmp_path):
    points = [_point(1, {"retrieval.similarity.k1": 0.1}, 0.5, quality=0.9, quality_per_topic=[0.9] * 10),
              _point(2, {"retrieval.similarity.k1": 0.2}, 0.9, quality=0.6, quality_per_topic=[0.6] * 10)]
    chosen = pick(in_memory(tmp_path, points, qrels={"relevance": "qrels.txt", "quality": "q.txt"}),
                  measure=QUALITY, count=2)
    # point 2 loses 0.3 on every quality topic (and nothing on relevance): passed over on quality's loss
    assert [c.record.point for c in chosen] == [1]
    assert [(r.point, round(loss.delta, 3), loss.topics) for r, loss in chosen.skipped] == [(2, -0.3, 10)]


def test_a_second_measure_adds_no_pick_beyond_the_count(tmp_path):
    points = [_point(1, {"retrieval.similarity.k1": 0.1}, 0.9, quality=0.1),
              _point(2, {"retrieval.similarity.k1": 0.2}, 0.5, quality=0.9)]
    results = in_memory(tmp_path, points, qrels={"relevance": "qrels.txt", "quality": "q.txt"})
    assert [(c.record.point, c.reason) for c in pick(results, second=QUALITY, count=1)] == [(1, f"best by {MEASURE}")]


def test_the_best_by_the_second_measure_shows_its_own_loss_on_the_main_measure(tmp_path):
    main_values = [0.9, 0.8, 0.9, 0.8, 0.9, 0.8, 0.9, 0.8, 0.9, 0.8]
    points = [_point(1, {"retrieval.similarity.k1": 0.1}, 0.85, per_topic=main_values, quality=0.2),
              _point(2, {"retrieval.similarity.k1": 0.2}, 0.7, per_topic=[0.7] * 10, quality=0.3),
              _point(3, {"retrieval.similarity.k1": 0.3}, 0.6, per_topic=[0.6] * 10, quality=0.9)]
    chosen = pick(in_memory(tmp_path, points, qrels={"relevance": "qrels.txt", "quality": "q.txt"}),
                  second=QUALITY, count=2)
    assert [c.record.point for c in chosen] == [1, 3]
    assert chosen[1].loss.delta == pytest.approx(0.6 - 0.85)  # point 3 against point 1, by hand


def test_a_second_measures_best_with_the_same_ranking_as_pick_1_is_no_second_pick(tmp_path):
    points = [_point(1, {"retrieval.similarity.k1": 0.1}, 0.9, quality=0.5),
              _point(2, {"retrieval.similarity.k1": 0.2}, 0.8, quality=0.9),  # its run: pick 1's ranking again
              _point(3, {"retrieval.similarity.k1": 0.3}, 0.7, quality=0.1)]
    results = in_memory(tmp_path, points, qrels={"relevance": "qrels.txt", "quality": "q.txt"})
    (tmp_path / "runs" / "p2.txt").write_text((tmp_path / "runs" / "p1.txt").read_text())
    chosen = pick(results, second=QUALITY, count=2)
    assert [c.record.point for c in chosen] == [1, 3]
    assert chosen[0].reason == f"best by {MEASURE} and by {QUALITY}"


def test_points_whose_run_files_are_lost_are_never_taken_for_the_same_ranking(tmp_path):
    results = in_memory(tmp_path, k1_points(3))
    for number in (2, 3):
        (tmp_path / "runs" / f"p{number}.txt").unlink()
    assert [c.record.point for c in pick(results, count=3)] == [1, 2, 3]


def test_distinct_takes_an_axis_label_or_one_of_its_keys(tmp_path):
    axes = (("similarity", ["retrieval.similarity.k1", "retrieval.similarity.b"]), ("s", ["analyzer.stemmer"]))
    points = [_point(1, {"retrieval.similarity.k1": 1.0, "retrieval.similarity.b": 0.5, "analyzer.stemmer": "a"}, 0.9),
              _point(2, {"retrieval.similarity.k1": 1.0, "retrieval.similarity.b": 0.5, "analyzer.stemmer": "b"}, 0.8),
              _point(3, {"retrieval.similarity.k1": 1.2, "retrieval.similarity.b": 0.5, "analyzer.stemmer": "a"}, 0.7)]
    results = in_memory(tmp_path, points, axes)
    for name in ("similarity", "retrieval.similarity.b"):
        assert [c.record.point for c in pick(results, count=3, distinct=name)] == [1, 3]
    with pytest.raises(ToucheError, match=r"--distinct bm25 is not a swept key \(swept: retrieval.similarity.k1, "
                                          r"retrieval.similarity.b, analyzer.stemmer\)"):
        pick(results, distinct="bm25")


def test_a_mapping_value_is_the_same_setting_whatever_the_order_of_its_keys(tmp_path):
    axes = (("similarity", ["retrieval.similarity"]), ("s", ["analyzer.stemmer"]))
    points = [_point(1, {"retrieval.similarity": {"name": "bm25", "k1": 1.0}, "analyzer.stemmer": "a"}, 0.9),
              _point(2, {"retrieval.similarity": {"k1": 1.0, "name": "bm25"}, "analyzer.stemmer": "b"}, 0.8),
              _point(3, {"retrieval.similarity": {"name": "lmdirichlet", "mu": 300}, "analyzer.stemmer": "a"}, 0.7)]
    chosen = pick(in_memory(tmp_path, points, axes), count=3, distinct="similarity")
    assert [c.record.point for c in chosen] == [1, 3]  # point 2 repeats pick 1's similarity


# --------------------------------------------------------------------------- several sets
def test_on_several_sets_pick_1_is_the_criterions_first_and_the_passed_over_follow_its_order(tmp_path):
    worse = [0.1] * 10  # loses 0.4 on every topic of both sets: significantly worse than pick 1
    folder = write_sets_sweep(tmp_path / "sweep", {1: (0.5, 0.4), 2: (0.6, 0.3), 3: (0.2, 0.2), 4: (0.1, 0.1)},
                              order=[2, 4, 3, 1], per_topic={3: worse, 4: worse})
    results = load_results(folder)
    assert results.several
    chosen = pick(results, count=4)
    assert [c.record.point for c in chosen] == [2, 1]
    assert chosen[0].reason == "the most robust across 2 sets by weighted_mean" and chosen[0].loss is None
    assert [record.point for record, _ in chosen.skipped] == [4, 3]  # in the criterion's order
    assert chosen[0].record.set == "full"  # the set that weighs most


def test_choose_on_several_sets_says_each_picks_score_on_every_set_and_how_the_primary_was_chosen(tmp_path):
    folder = write_sets_sweep(tmp_path / "sweep", {1: (0.5, 0.4), 2: (0.6, 0.3)}, order=[2, 1])
    written = choose(folder, tmp_path / "chosen", reference=False)
    assert [c.record.point for c in written] == [2, 1]
    header = written[0].path.read_text().splitlines()[:2]
    assert header[0].startswith(
        "# Chosen by `touche choose` from sweep s.yaml (point 2): the most robust across 2 sets"
    )
    assert header[1] == f"# {MEASURE}: full 0.600; part 0.300"
    suite = (tmp_path / "chosen" / "suite.yaml").read_text()
    assert suite.startswith("# The submissions chosen from sweep s.yaml; primary = the most robust across its 2 sets "
                            "by weighted_mean; its data: set full, which weighs most.\n")
    with pytest.raises(ToucheError, match="a sweep on several sets has no second measure"):
        choose(folder, tmp_path / "other", reference=False, second=QUALITY)


# --------------------------------------------------------------------------- choose: what it writes
def test_choose_writes_five_picks_by_default_with_unique_tags_and_a_suite_listing_them(tmp_path):
    records = k1_points(6)
    records[1] = _point(2, {"retrieval.similarity.k1": 1.0}, 0.79)
    records[2] = _point(3, {"retrieval.similarity.k1": 1}, 0.78)  # reads as k1 1, as point 2 does
    written = choose(write_sweep(tmp_path / "sweep", records), tmp_path / "chosen", reference=False)
    assert [c.record.point for c in written] == [1, 2, 3, 4, 5]
    tags = [c.tag for c in written]
    assert tags[1:3] == ["touche-krovetz-bm25-k1-1", "touche-krovetz-bm25-k1-1-p3"] and len(set(tags)) == 5
    text = (tmp_path / "chosen" / "suite.yaml").read_text()
    assert text.startswith(f"# The submissions chosen from sweep s.yaml; primary = best by {MEASURE}.\n")
    suite = yaml.safe_load(text)
    assert list(suite) == ["variants", "primary", "topics", "corpus", "qrels"]  # as a reader expects them
    assert suite["variants"] == [c.path.name for c in written] and suite["primary"] == written[0].path.name
    first = yaml.safe_load(written[0].path.read_text())
    assert list(first)[:3] == ["extends", "tag", "description"]


def test_choose_proposes_the_best_by_quality_second_by_default_and_not_when_told_none(tmp_path):
    points = [_point(1, {"retrieval.similarity.k1": 0.1}, 0.9, quality=0.2),
              _point(2, {"retrieval.similarity.k1": 0.2}, 0.8, quality=0.3),
              _point(3, {"retrieval.similarity.k1": 0.3}, 0.7, quality=0.9)]
    folder = write_sweep(tmp_path / "sweep", points, qrels={"relevance": "qrels.txt", "quality": "q.txt"})
    by_default = choose(folder, tmp_path / "a", count=2, reference=False)
    assert [(c.record.point, c.reason) for c in by_default] == [(1, f"best by {MEASURE}"), (3, f"best by {QUALITY}")]
    assert by_default[0].path.read_text().splitlines()[1] == f"# {MEASURE} = 0.900; {QUALITY} = 0.200"
    one = choose(folder, tmp_path / "b", count=2, reference=False, second=None)
    assert [c.record.point for c in one] == [1, 2]


def _worse_points():
    """Point 2 loses 0.625 and point 4 0.75 on every topic (significantly worse than point 1);
    point 3 is as good, topic by topic either way (all exact in binary)."""
    close = [1.0, 0.75] * 5
    return [_point(1, {"retrieval.similarity.k1": 0.1}, 0.875, per_topic=[0.875] * 10),
            _point(2, {"retrieval.similarity.k1": 0.2}, 0.87, per_topic=[0.25] * 10),
            _point(3, {"retrieval.similarity.k1": 0.3}, 0.86, per_topic=close),
            _point(4, {"retrieval.similarity.k1": 0.4}, 0.85, per_topic=[0.125] * 10)]


def test_fewer_picks_than_asked_for_are_explained_with_the_max_loss_that_would_let_the_closest_in(tmp_path, caplog):
    folder = write_sweep(tmp_path / "sweep", _worse_points())
    with caplog.at_level(logging.WARNING, logger=picks_module.log.name):
        written = choose(folder, tmp_path / "chosen", count=3, reference=False)
    assert [c.record.point for c in written] == [1, 3]
    assert ("2 of the 3 picks asked for: the other points that differ enough from the picks are significantly worse "
            "than pick 1 (choice.md lists them; the closest, point 2, loses 0.625): --max-loss 0.625 lets such points "
            "in") in caplog.text


def test_no_warning_when_every_pick_asked_for_was_found_though_some_points_were_passed_over(tmp_path, caplog):
    folder = write_sweep(tmp_path / "sweep", _worse_points())
    with caplog.at_level(logging.WARNING, logger=picks_module.log.name):
        written = choose(folder, tmp_path / "chosen", count=2, reference=False)
    assert [c.record.point for c in written] == [1, 3] and "picks asked for" not in caplog.text


class _Shipped:
    """shipped_reference as choose calls it, with the primary's score given; records the call."""

    def __init__(self, value, caveat=""):
        self.value, self.caveat, self.calls = value, caveat, []

    def __call__(self, results, measure, *, index_root=None, progress=False):
        self.calls.append((measure, index_root, progress))
        caveat = self.caveat

        class Shipped(Reference):
            def caveat(self):
                return caveat
        return Shipped(REPO / "configs" / "task1" / "primary.yaml", measure, self.value)


def _choose_against(tmp_path, monkeypatch, caplog, shipped, **kwargs):
    monkeypatch.setattr(picks_module, "shipped_reference", shipped)
    folder = write_sweep(tmp_path / "sweep", k1_points(2, first_mean=0.75, step=0.25))  # picks score 0.75, 0.5
    with caplog.at_level(logging.WARNING, logger=picks_module.log.name):
        return choose(folder, tmp_path / f"chosen{len(shipped.calls)}", count=2, **kwargs)


def test_choose_runs_the_shipped_reference_by_default_without_progress_bars(tmp_path, monkeypatch, caplog):
    shipped = _Shipped(0.5)
    _choose_against(tmp_path, monkeypatch, caplog, shipped, index_root=tmp_path / "indexes")
    assert shipped.calls == [(MEASURE, tmp_path / "indexes", False)]
    _choose_against(tmp_path, monkeypatch, caplog, shipped, reference=False)
    assert len(shipped.calls) == 1  # --no-reference: not run


def test_a_shipped_primary_above_the_best_pick_is_warned_of_with_what_to_submit_instead(tmp_path, monkeypatch, caplog):
    _choose_against(tmp_path, monkeypatch, caplog, _Shipped(0.8))
    assert (f"the best point of the sweep scores {MEASURE} = 0.750, below the shipped suite's primary primary.yaml "
            "(0.800) on the same topics and qrels: submitting `touche run-all --task task1` would score higher"
            ) in caplog.text


def test_a_shipped_primary_tuned_on_these_judgements_is_warned_of_with_its_caveat(tmp_path, monkeypatch, caplog):
    _choose_against(tmp_path, monkeypatch, caplog, _Shipped(0.8, caveat="it was tuned on these"))
    assert "(0.800) on the same topics and qrels. But it was tuned on these" in caplog.text
    assert "would score higher" not in caplog.text


@pytest.mark.parametrize("value", [0.75, 0.6])
def test_no_warning_when_the_best_pick_scores_at_least_the_shipped_primary(tmp_path, monkeypatch, caplog, value):
    _choose_against(tmp_path, monkeypatch, caplog, _Shipped(value))  # pick 2 (0.5) is below: it does not count
    assert "below the shipped suite's primary" not in caplog.text


def test_a_corpus_of_listed_files_is_linked_beside_the_suite_and_its_folder_guarded(tmp_path):
    folder = write_sweep(tmp_path / "sweep", k1_points(2))
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    manifest["sets"][0]["corpus_files"] = [str(folder / "corpus" / "args.jsonl")]
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
    choose(folder, tmp_path / "chosen", count=1, reference=False)
    suite = yaml.safe_load((tmp_path / "chosen" / "suite.yaml").read_text())
    assert suite["corpus"] == "corpus" and (tmp_path / "chosen" / "corpus").is_dir()
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "corpus").write_text("mine\n")
    with pytest.raises(ToucheError, match=r"would replace but did not make \(corpus\)"):
        choose(folder, blocked, count=1, reference=False)
    assert sorted(p.name for p in blocked.iterdir()) == ["corpus"]  # refused before anything was written


def test_choose_says_its_counts_the_lowered_min_diff_and_tags_with_the_picks_own_settings(tmp_path):
    from tests.experiments.test_sweep import fake_results
    from touche.config import load_variant
    from touche.retrieval.experiments.choose.picks import own_tag, pick
    from touche.retrieval.experiments.choose.report import format_choices
    base = load_variant(REPO / "configs" / "task1" / "4-smart-lmd4000.yaml")
    assert base.variant.tag == "touche-smart-lmd4000"
    assert own_tag(base.variant.tag, base.merged, {"retrieval.similarity.mu": 2000}) == "touche-smart"
    assert own_tag(base.variant.tag, base.merged, {"analyzer.stemmer": "krovetz"}) == "touche-smart-lmd4000"
    results = fake_results(tmp_path, [
        ({"a": 1, "b": "x"}, .80, .50, "1 Q0 d1 1 1 t\n"),
        ({"a": 1, "b": "y"}, .79, .60, "1 Q0 d2 1 1 t\n"),
        ({"a": 2, "b": "x"}, .78, .40, "1 Q0 d3 1 1 t\n"),
        ({"a": 3, "b": "z"}, .60, .40, "1 Q0 d6 1 1 t\n"),
    ])
    picks = pick(results, second="quality:touche.nDCG@5", count=4)
    assert "lowered" not in picks[2].reason  # point 4 differs from both picks in both parameters
    assert "(--min-diff lowered from 2, the default, to 1: no finished point left differs in 2)" in picks[3].reason
    assert "4 pick(s) from the sweep's 4 finished point(s)" in format_choices(
        results, picks, ["relevance:touche.nDCG@5"]
    )


def _two_measures(tmp_path, quality_values):
    """The three points of test_choose_trust, with a quality mean per point and quality qrels."""
    from tests.experiments.test_choose_trust import _three
    results = _three(tmp_path)
    results.manifest.sets[0].qrels["quality"] = "q"
    for record, value in zip(results.records, quality_values):
        record.measures[QUALITY] = value
    return results


def test_the_second_measure_is_the_quality_one_on_another_qrels_file(tmp_path):
    from touche.retrieval.experiments.choose.picks import default_second_measure
    results = _two_measures(tmp_path, [0.5, 0.4, 0.3])
    assert default_second_measure(results, "relevance:touche.nDCG@5") == QUALITY
    assert default_second_measure(results, QUALITY) == "relevance:touche.nDCG@5"
    results.manifest.sets[0].qrels.pop("quality")
    assert default_second_measure(results, "relevance:touche.nDCG@5") is None


def test_the_best_by_the_second_measure_is_the_second_pick_or_shares_the_first(tmp_path):
    from touche.retrieval.experiments.choose.picks import pick
    other = pick(_two_measures(tmp_path / "a", [0.3, 0.4, 0.9]), second=QUALITY, count=2)
    assert [c.record.point for c in other] == [1, 3] and other[1].reason == f"best by {QUALITY}"
    assert other[1].loss is not None  # shown with its loss on the main measure
    same = pick(_two_measures(tmp_path / "b", [0.9, 0.4, 0.3]), second=QUALITY, count=2)
    assert same[0].reason == f"best by relevance:touche.nDCG@5 and by {QUALITY}"
    assert same[1].reason.startswith(f"next best by {QUALITY} that differs")


def test_a_max_loss_of_zero_is_allowed():
    from touche.retrieval.experiments.choose.picks import pick
    with pytest.raises(Exception) as raised:
        pick(None, max_loss=0)  # past the check: fails on the missing results, not on --max-loss
    assert "--max-loss" not in str(raised.value)


def test_a_selection_of_topics_is_copied_beside_the_suite_and_guarded_as_an_output(tmp_path):
    from types import SimpleNamespace

    from touche.retrieval.experiments.choose.picks import Pick, _files, suite_inputs
    from touche.retrieval.experiments.sweep import Record
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "topics.xml").write_text("<topics/>")
    entry = SimpleNamespace(name="dev", corpus="corpus", topics="topics.xml", corpus_files=None,
                            source_topics="all-topics.xml", qrels={"relevance": "q.txt"})
    results = SimpleNamespace(main_set=entry, directory=sweep, path=lambda stored: sweep / stored)
    folder = OutputFolder(tmp_path / "chosen")
    out = folder.path
    corpus, topics = suite_inputs(results, entry, folder)
    assert topics == out / "topics.xml" and topics.read_text() == "<topics/>" and corpus == sweep / "corpus"
    picks = [Pick(Record("k", 1, {"a": 1}, {}, "r", 0.0), "best")]
    assert ("topics copy", out / "topics.xml") in _files(results, picks, tmp_path / "base.yaml", out).writes
    whole = SimpleNamespace(**{**vars(entry), "source_topics": None})
    assert suite_inputs(results, whole, folder)[1] == sweep / "topics.xml"
    assert all(what != "topics copy" for what, _ in _files(SimpleNamespace(**{**vars(results), "main_set": whole}),
                                                           picks, tmp_path / "base.yaml", out).writes)


def test_choose_checks_the_count_before_writing_anything(tmp_path):
    from touche.errors import ToucheError
    from touche.retrieval.experiments.choose.picks import choose
    for count in (50, 0, -1):
        with pytest.raises(ToucheError, match="between 1 and 5"):
            choose(tmp_path / "no-sweep", tmp_path / f"out{count}", count=count)
        assert not (tmp_path / f"out{count}").exists()
