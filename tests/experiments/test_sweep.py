"""Sweeps (one session, shared indexes, resumable), their reports, and choosing five submissions
from a finished sweep. The sweep file and its points: test_sweep_file.py."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import shutil
from pathlib import Path

import pytest
import yaml
from PIL import Image

import touche.retrieval.experiments.sweep.runners as runners
from tests.shared import DEMO, REPO, cli, yaml_dump
from touche.config import load_suite, load_variant
from touche.errors import ToucheError
from touche.guard import OutputFolder
from touche.retrieval.experiments.choose.picks import (
    Pick,
    SweepResults,
    choose,
    load_results,
    pick,
    rebase_paths,
    write_choice,
)
from touche.retrieval.experiments.sweep import (
    RESULTS_FILE,
    Record,
    read_records,
    run_sweep,
)
from touche.retrieval.experiments.sweep.manifest import SweepManifest
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.runfile import RunFormat, run_file_problems

BASE = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
MEASURE = "relevance:touche.nDCG@5"

GRID = {"analyzer.stemmer": ["none", "krovetz"], "retrieval.similarity.k1": [0.9, 1.2],
        "retrieval.similarity.b": [0.4, 0.75]}


def write_sweep(path: Path, output: Path, grid=None, **extra) -> Path:
    data = {"base": str(BASE), "grid": GRID if grid is None else grid,
            "qrels": {"relevance": str(DEMO / "qrels-relevance.txt"), "quality": str(DEMO / "qrels-quality.txt")},
            "measure": MEASURE, "topics": str(DEMO / "topics.xml"), "corpus": str(DEMO / "args.me"),
            "output": str(output), **extra}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


class CountingRuns:
    """Wraps the sweep's per-point runner: counts calls, optionally stops after some."""

    def __init__(self, real, stop_after: int | None = None):
        self.real, self.stop_after, self.keys = real, stop_after, []

    def __call__(self, sweep, session, point, loaded, dev):
        if self.stop_after is not None and len(self.keys) >= self.stop_after:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C in the middle of the sweep
        self.keys.append(dev.keys[point.number - 1])
        return self.real(sweep, session, point, loaded, dev)


@pytest.fixture(scope="module")
def finished(jvm_started, tmp_path_factory):
    """The 8-point demo sweep, run once on a fresh index root, counting index builds."""
    import touche.indexing.builder as builder
    root = tmp_path_factory.mktemp("sweep")
    builds = []
    real_build = builder.build_index
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(builder, "build_index", lambda *a, **k: builds.append(a[3]) or real_build(*a, **k))
        sweep_file = write_sweep(root / "demo-sweep.yaml", root / "out")
        outcome = run_sweep(sweep_file, index_root=root / "indexes", progress=False)
    return {"outcome": outcome, "builds": builds, "file": sweep_file, "root": root}


# --------------------------------------------------------------------- running a sweep
def test_each_distinct_index_is_built_once(finished) -> None:
    outcome = finished["outcome"]
    assert outcome.computed == 8 and outcome.reused == 0
    assert len(finished["builds"]) == 2  # stemmer none and krovetz; k1 and b are search-time keys
    assert outcome.indexes == 2 and len({r.index for r in outcome.records}) == 2


def test_table_is_sorted_by_the_measure_and_reports_are_written(finished) -> None:
    out = finished["root"] / "out"
    with (out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 8
    values = [float(r[MEASURE]) for r in rows]
    assert values == sorted(values, reverse=True) and [r["rank"] for r in rows] == [str(i) for i in range(1, 9)]
    assert {r["analyzer.stemmer"] for r in rows} == {"none", "krovetz"}
    assert rows[0]["p_vs_best"] == "" and all(0 <= float(r["p_vs_best"]) <= 1 for r in rows[1:])
    md = (out / "results.md").read_text()
    best = rows[0]
    assert f"with {MEASURE} = {float(best[MEASURE]):.3f}" in md and "![" in md
    assert md.count("\n| ") == 9  # header + 8 points
    with Image.open(out / "sweep.png") as image:
        assert image.format == "PNG" and image.width > 600
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["measure"] == MEASURE and len(manifest["points"]) == 8


def test_each_point_is_a_valid_run_scored_like_a_single_run(finished, tmp_path: Path) -> None:
    from touche.retrieval.evaluation.measures import evaluate
    from touche.retrieval.session import Session
    outcome = finished["outcome"]
    out = finished["root"] / "out"
    for record in outcome.records:
        run = out / record.run
        assert [p for p in run_file_problems(run, RunFormat.Q0) if p.is_error] == []
        assert evaluate(run, {"relevance": DEMO / "qrels-relevance.txt"}, ["touche.nDCG@5"])[MEASURE] \
            == pytest.approx(record.measures[MEASURE])
        assert sum(record.per_topic[MEASURE].values()) / len(record.per_topic[MEASURE]) \
            == pytest.approx(record.measures[MEASURE])
    record = outcome.records[5]
    session = Session(DEMO / "args.me", DEMO / "topics.xml", finished["root"] / "indexes", progress=False)
    try:
        session.write(session.run(load_variant(BASE, record.overrides)), tmp_path / "alone.txt")
    finally:
        session.close()
    assert (out / record.run).read_bytes() == (tmp_path / "alone.txt").read_bytes()  # as `touche run` writes it


def test_interrupted_sweep_resumes_with_only_the_rest(finished, tmp_path: Path, monkeypatch) -> None:
    real = runners.run_point
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out")
    stopping = CountingRuns(real, stop_after=3)
    monkeypatch.setattr(runners, "run_point", stopping)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(path, index_root=finished["root"] / "indexes", progress=False)
    assert len(read_records(tmp_path / "out" / RESULTS_FILE)) == 3
    assert not (tmp_path / "out" / ".sweep.lock").exists() or _lock_free(tmp_path / "out")

    resuming = CountingRuns(real)
    monkeypatch.setattr(runners, "run_point", resuming)
    outcome = run_sweep(path, index_root=finished["root"] / "indexes", progress=False)
    assert (outcome.computed, outcome.reused) == (5, 3)
    assert set(resuming.keys).isdisjoint(stopping.keys) and len(set(resuming.keys + stopping.keys)) == 8
    # the same points give the same measures as the uninterrupted sweep
    done = {r.key: r.measures for r in finished["outcome"].records}
    assert {r.key: r.measures for r in outcome.records} == done

    again = CountingRuns(real)
    monkeypatch.setattr(runners, "run_point", again)
    assert run_sweep(path, index_root=finished["root"] / "indexes", progress=False).computed == 0
    assert again.keys == []


def _lock_free(out: Path) -> bool:
    from touche.folderlock import folder_lock
    with folder_lock(out, ".sweep.lock", "held"):
        return True


def test_torn_record_and_lost_run_file_are_rerun(finished, tmp_path: Path, monkeypatch, caplog) -> None:
    out = tmp_path / "out"
    shutil.copytree(finished["root"] / "out", out)
    path = write_sweep(tmp_path / "s.yaml", out)
    lines = (out / RESULTS_FILE).read_text().splitlines(keepends=True)
    torn_key = json.loads(lines[-1])["key"]
    (out / RESULTS_FILE).write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # crash mid-write
    lost = json.loads(lines[0])
    (out / lost["run"]).unlink()
    counting = CountingRuns(runners.run_point)
    monkeypatch.setattr(runners, "run_point", counting)
    with caplog.at_level("WARNING"):
        outcome = run_sweep(path, index_root=finished["root"] / "indexes", progress=False)
    # the lost run file is run again; the torn record's run file is still there: it is scored
    assert counting.keys == [lost["key"]]
    assert "not a complete result record" in caplog.text
    assert len(outcome.records) == 8
    assert set(read_records(out / RESULTS_FILE)) >= {torn_key, lost["key"]}
    # the torn line is gone from the file: a later call has nothing to warn about
    assert all(json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines())
    caplog.clear()
    with caplog.at_level("WARNING"):
        run_sweep(path, index_root=finished["root"] / "indexes", progress=False)
    assert "not a complete result record" not in caplog.text


def test_a_measure_added_later_is_scored_without_rerunning(finished, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out"
    shutil.copytree(finished["root"] / "out", out)
    path = write_sweep(tmp_path / "s.yaml", out, measures=["touche.nDCG@5", "trec.P@10"])
    counting = CountingRuns(runners.run_point)
    monkeypatch.setattr(runners, "run_point", counting)
    outcome = run_sweep(path, index_root=finished["root"] / "indexes", progress=False)
    assert counting.keys == [] and outcome.computed == 0
    assert all("relevance:trec.P@10" in r.measures and "quality:trec.P@10" in r.measures for r in outcome.records)
    assert "relevance:trec.P@10" in (out / "results.csv").read_text().splitlines()[0]


def test_a_second_sweep_on_the_same_output_is_refused(finished, tmp_path: Path) -> None:
    from touche.folderlock import folder_lock
    out = tmp_path / "out"
    out.mkdir()
    path = write_sweep(tmp_path / "s.yaml", out)
    with folder_lock(out, ".sweep.lock", "held"):
        with pytest.raises(ToucheError, match="another sweep is writing"):
            run_sweep(path, progress=False)


def test_cli_sweep_dry_run_and_resume(finished) -> None:
    code, text = cli("sweep", str(finished["file"]), "--dry-run")
    assert code == 0 and text.count(" done ") == 8 and "8 points, 0 to run" in text
    code, text = cli("sweep", str(finished["file"]), "--quiet", "--index-root", str(finished["root"] / "indexes"))
    assert code == 0 and "(0 run now, 8 found finished), 2 distinct index(es)" in text
    assert "best relevance:touche.nDCG@5 = " in text and "results.md" in text
    code, text = cli("sweep", str(finished["root"] / "missing.yaml"))
    assert code == 2 and "file not found" in text


def test_cli_compare_two_points(finished, tmp_path: Path) -> None:
    records = finished["outcome"].records
    out = finished["root"] / "out"
    code, text = cli("compare", str(out / records[0].run), str(out / records[1].run),
                     str(DEMO / "qrels-relevance.txt"), "-o", str(tmp_path / "cmp.md"),
                     "--plot", str(tmp_path / "cmp.png"))
    assert code == 0 and "paired t-test" in text and "exact, all 64 sign flips" in text
    assert (tmp_path / "cmp.md").read_text().startswith("## ") and (tmp_path / "cmp.png").stat().st_size > 1000


# --------------------------------------------------------------------- choosing five
def fake_results(tmp_path: Path, points: list[tuple[dict, float, float, str]]) -> SweepResults:
    """A sweep's output with given overrides, relevance, quality and run contents."""
    (tmp_path / "runs").mkdir(parents=True, exist_ok=True)
    records = []
    for number, (overrides, relevance, quality, ranking) in enumerate(points, 1):
        run = f"runs/p{number}.txt"
        (tmp_path / run).write_text(ranking)
        records.append(Record(key=f"k{number}", point=number, overrides=overrides, run=run, seconds=0.0,
                              measures={MEASURE: relevance, "quality:touche.nDCG@5": quality}))
    manifest = SweepManifest(
        sweep="s.yaml", base=str(BASE), measure=MEASURE, measures=[MEASURE], criterion="calibrated_rank",
        axes=[{"label": "a", "keys": ["a"]}, {"label": "b", "keys": ["b"]}],
        points=[{"point": r.point, "overrides": r.overrides, "coordinates": r.overrides} for r in records],
        sets=[{"name": "", "corpus": "c", "topics": "t", "qrels": {"relevance": "r", "quality": "q"},
               "keys": [r.key for r in records]}], runs=len(records), finished=len(records))
    return SweepResults(tmp_path, manifest, records)


def test_pick_best_by_each_measure_then_diverse(tmp_path: Path) -> None:
    results = fake_results(tmp_path, [
        ({"a": 1, "b": "x"}, .80, .50, "1 Q0 d1 1 1 t\n"),
        ({"a": 1, "b": "y"}, .79, .60, "1 Q0 d2 1 1 t\n"),   # best quality
        ({"a": 2, "b": "x"}, .78, .40, "1 Q0 d3 1 1 t\n"),   # differs from pick 1 in a only
        ({"a": 3, "b": "x"}, .77, .40, "1 Q0 d1 1 1 t\n"),   # same ranking as pick 1
        ({"a": 2, "b": "y"}, .70, .40, "1 Q0 d5 1 1 t\n"),   # differs from pick 1 in both, from pick 2 in a only
        ({"a": 3, "b": "z"}, .60, .40, "1 Q0 d6 1 1 t\n"),   # differs from both in both
    ])
    picks = pick(results, second="quality:touche.nDCG@5")
    assert [c.record.point for c in picks] == [1, 2, 6, 3, 5]
    assert picks[0].reason == f"best by {MEASURE}" and picks[1].reason == "best by quality:touche.nDCG@5"
    assert "≥ 2 swept parameters" in picks[2].reason and "≥ 1 swept parameter" in picks[3].reason
    assert 4 not in [c.record.point for c in picks]  # an identical ranking adds nothing to the pool


def test_pick_when_one_point_is_best_by_both(tmp_path: Path) -> None:
    results = fake_results(tmp_path, [
        ({"a": 1, "b": "x"}, .80, .70, "1 Q0 d1 1 1 t\n"),
        ({"a": 1, "b": "y"}, .79, .65, "1 Q0 d2 1 1 t\n"),
        ({"a": 2, "b": "y"}, .60, .60, "1 Q0 d3 1 1 t\n"),
    ])
    picks = pick(results, second="quality:touche.nDCG@5")
    assert [c.record.point for c in picks] == [1, 3, 2]  # only three points: three picks
    assert picks[0].reason.endswith("and by quality:touche.nDCG@5")
    assert picks[1].reason.startswith("next best by quality") and "≥ 2" in picks[1].reason
    with pytest.raises(ToucheError, match="measure 'quality:trec.AP' is not in the sweep's results"):
        pick(results, second="quality:trec.AP")


def test_choice_without_extends_when_merging_cannot_express_it(tmp_path: Path) -> None:
    # the base weights contents and conclusion; the point weights contents only
    record = Record(key="k", point=7, overrides={"query.field_weights": {"contents": 1.0}}, measures={},
                    run="r", seconds=0)
    path = write_choice(Pick(record, "why"), 1, BASE, OutputFolder(tmp_path), "t-p7", "# header\n")
    assert "extends" not in yaml.safe_load(path.read_text())
    expected = load_variant(BASE, record.overrides).variant.model_dump(exclude={"tag", "description"})
    assert load_variant(path).variant.model_dump(exclude={"tag", "description"}) == expected
    assert load_variant(path).variant.query.field_weights == {"contents": 1.0}


def test_choice_keeps_fusion_paths_pointing_at_the_same_files(tmp_path: Path) -> None:
    base = REPO / "configs" / "task1" / "examples" / "5-quality-fusion.yaml"
    record = Record(key="k", point=1, overrides={"retrieval.similarity.mu": 500}, measures={}, run="r", seconds=0)
    path = write_choice(Pick(record, "why"), 1, base, OutputFolder(tmp_path / "deep" / "dir"), "t-p1", "")
    assert yaml.safe_load(path.read_text())["extends"].endswith("5-quality-fusion.yaml")
    loaded = load_variant(path)
    fusion = loaded.variant.rerank[-1]
    assert [(path.parent / v).resolve() for v in fusion.variants] == \
        [REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml",
         REPO / "configs" / "task1" / "examples" / "4-krovetz-shingles.yaml"]
    assert loaded.variant.retrieval.similarity.mu == 500
    assert rebase_paths(load_variant(BASE).merged, BASE.parent, tmp_path) == {}  # nothing path-like to move


def test_choose_writes_five_variants_and_a_suite_that_reproduce_the_sweep(finished, tmp_path: Path) -> None:
    from touche.retrieval.suite import run_suite
    sweep_out = finished["root"] / "out"
    chosen_dir = tmp_path / "chosen"
    code, text = cli("choose", str(sweep_out), "--out", str(chosen_dir), "--index-root",
                     str(finished["root"] / "indexes"))
    assert code == 0 and "run-all --suite" in text
    choices = load_results(sweep_out)
    best = max(r.measures[MEASURE] for r in choices.records)
    # the shipped Task 1 primary (1-krovetz-smart-lmd2000-quality) scores 0.921 on the demo: above every BM25 point here
    assert best < 0.9212
    assert "below the shipped suite's primary 1-krovetz-smart-lmd2000-quality.yaml (0.921)" in text
    assert "scores relevance:touche.nDCG@5 = 0.921 on the same data: **above the best chosen point**" in \
        (chosen_dir / "choice.md").read_text()
    picks = choose(sweep_out, chosen_dir, reference=False)  # the same call again: same files (idempotent)
    assert len(picks) == 5 and len({c.tag for c in picks}) == 5
    assert picks[0].record.key == sorted(choices.records, key=lambda r: -r.measures[MEASURE])[0].key
    suite_path, suite = load_suite(chosen_dir / "suite.yaml")
    assert suite.primary == picks[0].path.name and list(suite.variants) == [c.path.name for c in picks]
    for choice in picks:
        text = choice.path.read_text()
        assert text.startswith("# Chosen by `touche choose`") and "extends:" in text
        loaded = load_variant(choice.path)
        assert loaded.variant.tag == choice.tag
        # the base tag's words naming a swept setting go (no "krovetz" on a stemmer-less point); the
        # point's own values follow
        stemmer = choice.record.overrides["analyzer.stemmer"]
        assert choice.tag.startswith("touche-bm25-") and stemmer in choice.tag
        assert loaded.variant.model_dump(exclude={"tag", "description"}) == \
            load_variant(BASE, choice.record.overrides).variant.model_dump(exclude={"tag", "description"})
    out = tmp_path / "runs"
    with contextlib.redirect_stdout(io.StringIO()):
        run_suite(suite_path, None, out, index_root=finished["root"] / "indexes", progress=False)
    for choice in picks:
        mine = [(r.qid, r.docid, r.rank) for r in read_run(out / f"{choice.path.stem}.txt")]
        assert mine == [(r.qid, r.docid, r.rank) for r in read_run(sweep_out / choice.record.run)]
    assert "relevance:touche.nDCG@5" in (out / "evaluation.md").read_text()
    assert "| 1 |" in (chosen_dir / "choice.md").read_text()


def test_similarity_kinds_and_zip_groups_share_one_index(finished, tmp_path: Path, monkeypatch) -> None:
    import touche.indexing.builder as builder
    builds = []
    real_build = builder.build_index
    monkeypatch.setattr(builder, "build_index", lambda *a, **k: builds.append(1) or real_build(*a, **k))
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity": [
        {"name": "bm25", "k1": 1.2, "b": 0.75}, {"name": "lmdirichlet", "mu": 500},
        {"name": "lmdirichlet", "mu": 2000}]},
        zip=[{"query.text": ["title", "title+description"], "query.drop_question_words": [False, True]}])
    outcome = run_sweep(path, index_root=finished["root"] / "indexes", progress=False)
    assert outcome.computed == 6 and builds == []  # krovetz index of the module's sweep, reused
    assert len({r.measures[MEASURE] for r in outcome.records}) > 1
    md = (tmp_path / "out" / "results.md").read_text()
    assert "lmdirichlet mu=500" in md and "title+description" in md


def test_limit_runs_part_of_a_sweep_and_the_reports_say_so(finished, tmp_path: Path) -> None:
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out")
    outcome = run_sweep(path, index_root=finished["root"] / "indexes", progress=False, limit=2)
    assert outcome.computed == 2 and len(outcome.records) == 2
    assert "2 of 8 points finished" in (tmp_path / "out" / "results.md").read_text()
    code, text = cli("sweep", str(path), "--dry-run")
    assert text.count(" done ") == 2 and "8 points, 6 to run" in text


def test_results_csv_writes_swept_text_as_text_never_a_formula():
    """A swept value such as +HYPERLINK(…) was a formula cell in results.csv (the explorer's CSV was
    safe): text starting = + - @ (or a tab, a carriage return) gets a ', numbers stay numbers."""
    from touche.retrieval.experiments.sweep.reports import format_csv
    text = format_csv(["point", "query.tag", "score", "weights"],
                      [[1, '+HYPERLINK("http://x","y")', -0.5, {"a": 1}], [2, "=1+2", math.nan, [1, 2]],
                       [3, "@SUM(A1)", 0.25, None], [4, "-x\r", 1, "ok"]])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1] == ["1", '\'+HYPERLINK("http://x","y")', "-0.5", '{"a": 1}']
    assert rows[2] == ["2", "'=1+2", "", "[1, 2]"] and rows[3][1] == "'@SUM(A1)" and rows[4][1] == "'-x\r"
    assert len(rows) == 5


# --------------------------------------------------------------------------- a lost record
def test_a_run_whose_record_was_lost_keeps_its_index_and_time(jvm_started, index_root, tmp_path):
    """Interrupted between writing a run file and its record, the run was rescored with index ""
    and 0 s: results.md counted one index more and the CSV lost both."""
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set(), "b": demo_set(topics_only=[1, 2, 3])}, tmp_path / "out")
    first = run_sweep(path, index_root=index_root, progress=False)
    results = tmp_path / "out" / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    lost = json.loads(lines[-1])
    os.truncate(results, len("".join(lines[:-1]).encode()))  # as if its line never came (a power cut)
    again = run_sweep(path, index_root=index_root, progress=False)
    assert again.computed == 0  # scored from the run file, not run again
    rescored = next(r for r in again.records if r.key == lost["key"])
    assert (rescored.index, rescored.seconds) == (lost["index"], lost["seconds"]) and rescored.index
    assert again.analysis.indexes == first.analysis.indexes == 1


def test_a_wide_numeric_axis_is_drawn_on_a_log_scale():
    from touche.retrieval.experiments.sweep.axes import Axis
    from touche.retrieval.experiments.sweep.figure import PlotPoint, sweep_figure
    axis = Axis("retrieval.similarity.mu", (500, 1000, 2000, 4000, 8000))
    assert axis.logarithmic and not Axis("k1", (0.9, 1.2, 1.5)).logarithmic
    figure = sweep_figure([axis, Axis("stemmer", ("none", "krovetz"))],
                          [PlotPoint({axis.label: m, "stemmer": s}, m / 10_000) for m in axis.values
                           for s in ("none", "krovetz")], "m")
    assert figure.axes[0].get_xscale() == "log" and figure.axes[1].get_xscale() == "linear"


def test_a_finished_sweep_reruns_after_its_corpus_changes_and_rescores_after_its_qrels_change(jvm_started, tmp_path,
                                                                                             monkeypatch):
    """A finished sweep said '0 run now, 12 found finished' after its corpus and qrels changed."""
    import json
    import shutil

    import touche.retrieval.experiments.sweep as sweep_module
    import touche.retrieval.experiments.sweep.runners as runners
    from tests.experiments.test_sweep import CountingRuns, write_sweep

    corpus = tmp_path / "corpus"
    shutil.copytree(REPO / "demo" / "args.me", corpus)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text((REPO / "demo" / "qrels-relevance.txt").read_text())
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity.k1": [0.9, 1.2]},
                       corpus=str(corpus), qrels={"relevance": str(qrels)}, measure="relevance:touche.nDCG@5")
    first = sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False)
    assert first.computed == 2
    counting = CountingRuns(runners.run_point)
    monkeypatch.setattr(runners, "run_point", counting)
    # the qrels change: nothing is searched again, but every point is scored anew
    qrels.write_text("\n".join(line for line in qrels.read_text().splitlines() if not line.startswith("1 ")) + "\n")
    rescored = sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False)
    assert counting.keys == [] and rescored.computed == 0
    before = {r.point: r.measures["relevance:touche.nDCG@5"] for r in first.records}
    after = {r.point: r.measures["relevance:touche.nDCG@5"] for r in rescored.records}
    assert before != after
    # the corpus changes: both points run again
    demo = json.loads((corpus / "args-demo.json").read_text())
    demo["arguments"] = demo["arguments"][:-10]
    (corpus / "args-demo.json").write_text(json.dumps(demo))
    again = sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False)
    assert again.computed == 2 and len(counting.keys) == 2


def test_a_resumed_sweep_reruns_a_point_whose_fused_variant_or_model_file_changed(jvm_started, tmp_path):
    import touche.retrieval.experiments.sweep as sweep_module
    from tests.experiments.test_sweep import write_sweep
    from touche.retrieval.stages.quality.model import MODEL_FILE

    other = tmp_path / "other.yaml"
    other.write_text(yaml_dump({"extends": str(REPO / "configs" / "task1" / "base.yaml"), "tag": "other",
                                "retrieval": {"similarity": {"name": "bm25", "k1": 0.9, "b": 0.4}}}))
    model = tmp_path / "quality.json"
    model.write_text(MODEL_FILE.read_text())
    base = tmp_path / "base.yaml"
    base.write_text(yaml_dump({"extends": str(REPO / "configs" / "task1" / "base.yaml"), "tag": "fused",
                               "rerank": [{"name": "quality_model", "model": "quality.json", "weight": 0.5},
                                          {"name": "rrf", "variants": ["other.yaml"]}]}))
    path = write_sweep(tmp_path / "s.yaml", tmp_path / "out", grid={"retrieval.similarity.mu": [1000]},
                       base=str(base), measure="relevance:touche.nDCG@5")
    base.write_text(
        base.read_text().replace("tag: fused", "tag: fused\nretrieval: {similarity: {name: lmdirichlet, mu: 2000}}")
    )
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 1
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 0
    other.write_text(other.read_text().replace("k1: 0.9", "k1: 2.5"))  # the fused variant changed
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 1
    data = json.loads(model.read_text())
    data["intercept"] += 1.0
    model.write_text(json.dumps(data))  # the model file changed
    assert sweep_module.run_sweep(path, index_root=tmp_path / "indexes", progress=False).computed == 1
