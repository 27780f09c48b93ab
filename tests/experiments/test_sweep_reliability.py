"""Sweeps and choose over several sets: sets that cannot mix up their scores, names that cannot
leave the output folder, errors found before the first run, reports that do not change between
calls (docs/reliability.md, "Several development sets cannot mix up their scores")."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.shared import DEMO, REPO
from touche.errors import ConfigError, ToucheError
from touche.retrieval.experiments.robust import SetScores, choose_robustly

BASE = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
RELEVANCE = DEMO / "qrels-relevance.txt"
QUALITY = DEMO / "qrels-quality.txt"


def demo_set(**extra) -> dict:
    return {"corpus": str(DEMO / "args.me"), "topics": str(DEMO / "topics.xml"),
            "qrels": {"relevance": str(RELEVANCE)}, **extra}


def write_sets(path: Path, sets: dict, output: Path, **extra) -> Path:
    data = {"base": str(BASE), "grid": {"retrieval.similarity.k1": [0.9, 1.2]}, "sets": sets,
            "measure": "relevance:touche.nDCG@5", "measures": ["touche.nDCG@5"], "output": str(output), **extra}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# --------------------------------------------------------------------------- distinct qrels
def test_two_sets_on_the_same_data_with_other_qrels_keep_their_own_scores(jvm_started, index_root, tmp_path):
    from touche.retrieval.evaluation.measures import evaluate
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"rel": demo_set(), "qual": demo_set(qrels={"relevance": str(QUALITY)})},
                      tmp_path / "out")
    outcome = run_sweep(path, index_root=index_root, progress=False)
    assert outcome.computed == 4 and len({r.key for r in outcome.records}) == 4
    for record in outcome.records:
        qrels = RELEVANCE if record.set == "rel" else QUALITY
        expected = evaluate(outcome.sweep.output / record.run, {"relevance": qrels}, ["touche.nDCG@5"])
        assert record.measures["relevance:touche.nDCG@5"] == expected["relevance:touche.nDCG@5"]
    by_set = {(r.set, r.point): r.measures["relevance:touche.nDCG@5"] for r in outcome.records}
    assert by_set[("rel", 1)] != by_set[("qual", 1)]
    # the two sets share the run files (same corpus and topics): nothing is searched twice
    assert len({r.run for r in outcome.records}) == 2
    lines = (outcome.sweep.output / "results.jsonl").read_text().splitlines()
    again = run_sweep(path, index_root=index_root, progress=False)
    assert again.computed == 0 and (outcome.sweep.output / "results.jsonl").read_text().splitlines() == lines


# --------------------------------------------------------------------------- 2, 3: weights
def test_qrels_that_judge_none_of_a_sets_topics_are_refused_before_anything_runs(tmp_path):
    from touche.retrieval.experiments.sweep import load_sweep
    other_year = tmp_path / "qrels-2021.txt"
    other_year.write_text("".join(f"{int(q) + 50} 0 {d} {g}\n" for q, _, d, g in
                                  (line.split() for line in RELEVANCE.read_text().splitlines())))
    path = write_sets(tmp_path / "s.yaml", {"judged": demo_set(),
                                            "wrong": demo_set(qrels={"relevance": str(other_year)})}, tmp_path / "out")
    with pytest.raises(ConfigError, match="set wrong: its relevance qrels .* judge none of its 6 topics"):
        load_sweep(path)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("weights, message", [
    ([float("inf"), 1.0], "finite number"),
    ([0.0, 0.0], "every set has weight 0"),
])
def test_weights_that_order_nothing_are_refused(tmp_path, weights, message):
    from touche.retrieval.experiments.sweep import load_sweep
    sets = {"a": demo_set(weight=weights[0]), "b": demo_set(topics_only=[1, 2], weight=weights[1])}
    with pytest.raises(ConfigError, match=message):
        load_sweep(write_sets(tmp_path / "s.yaml", sets, tmp_path / "out"))


def test_a_criterion_that_orders_nothing_picks_nothing():
    scores = [SetScores("a", 0.0, {"X": {"1": 0.5}, "Y": {"1": 0.4}}), SetScores("b", 0.0, {"X": {"1": 0.1}})]
    choice = choose_robustly(scores, ["X", "Y"])
    assert choice.order == [] and not choice.pick_share.any() and np.isnan(choice.lead_interval).all()
    infinite = choose_robustly([SetScores("a", float("inf"), {"X": {"1": 0.5}, "Y": {"1": 0.4}})], ["X", "Y"])
    assert infinite.order == []


def test_a_huge_weight_is_printed_short():
    from touche.render import number as format_number
    assert format_number(1e308, 2) == "1e+308" and format_number(0.5, 2) == "0.50"
    assert format_number(float("nan")) == "–"


# --------------------------------------------------------------------------- corpus files
def test_corpus_files_that_share_a_name_are_all_linked(tmp_path):
    from touche.retrieval.experiments.sweep import load_sweep
    arguments = json.loads((DEMO / "args.me" / "args-demo.json").read_text())["arguments"]
    for part, chunk in (("a", arguments[: len(arguments) // 2]), ("b", arguments[len(arguments) // 2:])):
        (tmp_path / "split" / part).mkdir(parents=True)
        (tmp_path / "split" / part / "args.json").write_text(json.dumps({"arguments": chunk}))
    files = [str(tmp_path / "split" / p / "args.json") for p in "ab"]
    sweep = load_sweep(write_sets(tmp_path / "s.yaml", {"halves": demo_set(corpus=files)}, tmp_path / "out"))
    (dev,) = sweep.sets
    dev.prepare(sweep.set_folder(dev))
    linked = sorted(p.resolve() for p in dev.corpus.iterdir() if p.is_symlink())
    assert linked == sorted(Path(f).resolve() for f in files)
    # a file dropped from the list is no longer read as part of the corpus
    sweep = load_sweep(write_sets(tmp_path / "s.yaml", {"halves": demo_set(corpus=files[:1])}, tmp_path / "out"))
    sweep.sets[-1].prepare(sweep.set_folder(sweep.sets[-1]))
    assert [p.resolve() for p in sweep.sets[-1].corpus.iterdir() if p.is_symlink()] == [Path(files[0]).resolve()]


# --------------------------------------------------------------------------- same bytes
EFFECTS = """
import json
from touche.retrieval.experiments.robust import SetScores, effects
topics = [f"t{n}" for n in range(40)]
per_topic = {p: {t: ((n * 7 + int(p) * 3) % 11) / 10 for n, t in enumerate(topics)} for p in "1234"}
coordinates = {"1": {"s": "a", "m": 1}, "2": {"s": "b", "m": 1}, "3": {"s": "a", "m": 2}, "4": {"s": "b", "m": 2}}
found = effects([SetScores("x", 1.0, per_topic)], coordinates, [("s", ["a", "b"]), ("m", [1, 2])])
print(json.dumps([e.per_set for e in found]))
"""


def test_effect_intervals_do_not_depend_on_the_hash_seed():
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.add(subprocess.run([sys.executable, "-c", EFFECTS], env=env, capture_output=True, text=True,
                                   check=True).stdout)
    assert len(outputs) == 1


# --------------------------------------------------------------------------- unfinished
def test_choose_refuses_an_unfinished_sweep_and_says_so_with_partial(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    data = {"base": str(BASE), "grid": {"retrieval.similarity.k1": [0.9, 1.2, 1.5]},
            "qrels": {"relevance": str(RELEVANCE)}, "measure": "relevance:touche.nDCG@5",
            "measures": ["touche.nDCG@5"], "topics": str(DEMO / "topics.xml"), "corpus": str(DEMO / "args.me"),
            "output": str(tmp_path / "out")}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    outcome = run_sweep(tmp_path / "s.yaml", index_root=index_root, progress=False, limit=1)
    assert "**unfinished: 2 of 3 points have not run**" in outcome.table_md.read_text()
    with pytest.raises(ToucheError, match="the sweep is unfinished: 2 of 3 runs have not run"):
        choose(tmp_path / "out", tmp_path / "chosen", reference=False)
    choose(tmp_path / "out", tmp_path / "chosen", reference=False, partial=True, count=1)
    assert "**2 of 3 points have not run**" in (tmp_path / "chosen" / "choice.md").read_text()


def test_a_set_without_a_finished_run_makes_no_pick(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"first": demo_set(topics_only=[1, 2, 3]),
                                            "second": demo_set(topics_only=[4, 5])}, tmp_path / "out")
    outcome = run_sweep(path, index_root=index_root, progress=False, limit=2)  # the first set only
    assert outcome.analysis.pick is None and "second have no finished run" in outcome.analysis.why_no_pick
    assert "No pick" in outcome.table_md.read_text() and "picked in 100" not in outcome.table_md.read_text()
    with pytest.raises(ToucheError, match="unfinished"):
        choose(tmp_path / "out", tmp_path / "chosen", reference=False)
    with pytest.raises(ToucheError, match="the sweep picked nothing: set\\(s\\) second"):
        choose(tmp_path / "out", tmp_path / "chosen", reference=False, partial=True)


# --------------------------------------------------------------------------- set names
@pytest.mark.parametrize("name", ["../../evil", "/abs", "a/b", "", ".", "..", "rank", "calibrated_rank", "-x"])
def test_a_set_name_that_is_no_plain_name_is_refused(tmp_path, name):
    from touche.retrieval.experiments.sweep import load_sweep
    path = write_sets(tmp_path / "s.yaml", {name: demo_set(), "ok": demo_set()}, tmp_path / "out")
    with pytest.raises(ConfigError, match="set name"):
        load_sweep(path)


# --------------------------------------------------------------------------- another task
def test_a_set_whose_corpus_belongs_to_another_task_fails_before_the_first_run(tmp_path):
    from touche.retrieval.experiments.sweep import load_sweep
    passages = demo_set(corpus=str(DEMO / "task2" / "passages.jsonl"))
    path = write_sets(tmp_path / "s.yaml", {"ok": demo_set(), "passages": passages}, tmp_path / "out")
    with pytest.raises(ConfigError, match="set passages: its corpus is not what the variants read"):
        load_sweep(path)


# --------------------------------------------------------------------------- smaller ones
@pytest.mark.parametrize("selection, message", [
    ({"topics_only": [1, 99]}, "set a: topics_only 1,99: topic\\(s\\) 99 is not among them"),
    ({"topics_except": [2, 2]}, "topics_except: topic\\(s\\) 2 given twice"),
    ({"topics_only": "1,3-2"}, "topics_only: the range 3-2 runs backwards"),
    ({"topics_only": "1,3", "topics_except": [2]}, "give topics_only or topics_except, not both"),
])
def test_a_topic_selection_that_names_absent_or_repeated_topics_is_refused(tmp_path, selection, message):
    from touche.retrieval.experiments.sweep import load_sweep
    with pytest.raises(ConfigError, match=message):
        load_sweep(write_sets(tmp_path / "s.yaml", {"a": demo_set(**selection)}, tmp_path / "out"))


def test_ray_missing_leaves_nothing_behind(tmp_path, monkeypatch):
    from touche.errors import EnvironmentProblem
    from touche.indexing import distributed
    from touche.retrieval.experiments.sweep import run_sweep

    def no_ray():
        raise EnvironmentProblem("Ray is not installed")
    monkeypatch.setattr(distributed, "ray_module", no_ray)
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set()}, tmp_path / "out")
    with pytest.raises(EnvironmentProblem):
        run_sweep(path, ray=True, progress=False)
    assert not (tmp_path / "out").exists()


def test_the_suite_choose_writes_outlives_the_sweep(jvm_started, index_root, tmp_path):
    """A suite from a multi-set sweep pointed into the sweep's folder (its selected topics, its
    corpus links): deleting the sweep broke it."""
    from touche.config import load_suite
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    corpus_list = [str(DEMO / "args.me" / "args-demo.json")]
    path = write_sets(tmp_path / "s.yaml", {"odd": demo_set(topics_only=[1, 3, 5], corpus=corpus_list),
                                            "even": demo_set(topics_only=[2, 4], weight=0.2)}, tmp_path / "out")
    run_sweep(path, index_root=index_root, progress=False)
    choose(tmp_path / "out", tmp_path / "chosen", reference=False, count=1)
    shutil.rmtree(tmp_path / "out")
    suite_path, suite = load_suite(tmp_path / "chosen" / "suite.yaml")
    topics = (suite_path.parent / suite.topics).resolve()
    corpus = (suite_path.parent / suite.corpus).resolve()
    assert topics.is_file() and tmp_path / "out" not in topics.parents
    assert [p.resolve() for p in corpus.iterdir() if p.is_symlink()] == [
        (DEMO / "args.me" / "args-demo.json").resolve()
    ]
    from touche.retrieval.formats.topics import read_topics
    assert [t.number for t in read_topics(topics)] == ["1", "3", "5"]  # the set the choice leans on


# --------------------------------------------------------------------------- found in review
def test_sets_on_the_same_data_search_once(jvm_started, index_root, tmp_path, monkeypatch):
    import touche.retrieval.experiments.sweep.runners as runners
    from tests.experiments.test_sweep import CountingRuns
    from touche.retrieval.experiments.sweep import run_sweep
    counting = CountingRuns(runners.run_point)
    monkeypatch.setattr(runners, "run_point", counting)
    path = write_sets(tmp_path / "s.yaml", {"rel": demo_set(), "qual": demo_set(qrels={"relevance": str(QUALITY)})},
                      tmp_path / "out")
    outcome = run_sweep(path, index_root=index_root, progress=False)
    assert len(counting.keys) == 2 and len(outcome.records) == 4
    assert all(r.index for r in outcome.records)  # the scored copies name the index their run used


def test_choose_reads_a_moved_sweep_folder(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import run_sweep
    corpus_list = [str(DEMO / "args.me" / "args-demo.json")]
    path = write_sets(tmp_path / "s.yaml", {"odd": demo_set(topics_only=[1, 3, 5], corpus=corpus_list),
                                            "even": demo_set(topics_only=[2, 4])}, tmp_path / "out")
    run_sweep(path, index_root=index_root, progress=False)
    (tmp_path / "out").rename(tmp_path / "moved")
    picks = choose(tmp_path / "moved", tmp_path / "chosen", reference=False, count=1)
    assert picks and (tmp_path / "chosen" / "topics.xml").is_file()


def test_an_interrupted_sweep_still_reports_what_finished(jvm_started, index_root, tmp_path, monkeypatch):
    import touche.retrieval.experiments.sweep.runners as runners
    from tests.experiments.test_sweep import CountingRuns
    from touche.retrieval.experiments.choose.picks import choose
    from touche.retrieval.experiments.sweep import read_manifest, run_sweep
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(topics_only=[1, 2, 3]), "b": demo_set(topics_only=[4, 5])},
                      tmp_path / "out", grid={"retrieval.similarity.k1": [0.6, 0.9, 1.2]})
    run_sweep(path, index_root=index_root, progress=False, limit=5)
    monkeypatch.setattr(runners, "run_point", CountingRuns(runners.run_point, stop_after=0))
    with pytest.raises(KeyboardInterrupt):
        run_sweep(path, index_root=index_root, progress=False)
    manifest = read_manifest(tmp_path / "out" / "sweep.json")
    assert manifest.finished == 5 and manifest.choice is not None and manifest.choice.order
    picks = choose(tmp_path / "out", tmp_path / "chosen", reference=False, partial=True, count=1)
    assert picks


def test_a_set_named_like_a_swept_key_or_another_sets_column_is_refused(tmp_path):
    from touche.retrieval.experiments.sweep import load_sweep
    for sets in ({"retrieval.similarity.k1": demo_set(), "b": demo_set()},
                 {"a": demo_set(), "a_ci_low": demo_set()}):
        with pytest.raises(ConfigError, match="column\\(s\\) .* twice"):
            load_sweep(write_sets(tmp_path / "s.yaml", sets, tmp_path / "out"))


def test_sigterm_during_a_sweep_stops_it_with_a_message_and_leaves_no_lock(tmp_path):
    """A scheduler's kill (SIGTERM) once ended a sweep where it stood: no word, and its lock left
    behind for the next run to take over. Now it unwinds as Ctrl-C does: reports of what finished,
    the lock removed, a message and exit 143."""
    import subprocess
    import sys
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set()}, tmp_path / "out")
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import os, signal, sys, time\n"
        "import touche.retrieval.experiments.sweep.runners as runners\n"
        "def killed(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(30)\n"
        "    raise SystemExit('SIGTERM did not stop the sweep')\n"
        "runners.run_point = killed\n"
        "from touche.cli import main\n"
        f"sys.exit(main(['sweep', {str(path)!r}, '--quiet']))\n")
    done = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 143, done.stderr
    assert "terminated (SIGTERM): touche sweep stopped; nothing half-written was left in place" in done.stderr
    assert not (tmp_path / "out" / ".sweep.lock").exists()
    assert (tmp_path / "out" / "results.md").is_file()  # what finished (nothing yet) is still reported
