"""`touche choose` a participant can follow and trust: the reference run says what it does and
shows progress, a diversity pick is not significantly worse than pick 1 unless asked for, choice.md
says each pick's loss and why, and the shipped primary's figure is called in-sample when the
sweep's judgements are the ones it was tuned on."""
from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from tests.shared import REPO, require_shared
from touche.config import load_suite
from touche.errors import ToucheError
from touche.retrieval.experiments.choose import reference as choice_reference
from touche.retrieval.experiments.choose.loss import LossToBest
from touche.retrieval.experiments.choose.picks import SweepResults, pick
from touche.retrieval.experiments.choose.reference import Reference, in_sample_qrels, shipped_reference
from touche.retrieval.experiments.choose.report import format_choices
from touche.retrieval.experiments.sweep import Record
from touche.retrieval.experiments.sweep.manifest import SweepManifest
from touche.retrieval.formats.gate import load_qrels

BASE = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
MEASURE = "relevance:touche.nDCG@5"
TOPICS = [str(t) for t in range(1, 11)]


def _results(tmp_path: Path, points: list[tuple[dict, list[float]]], qrels: Path | None = None) -> SweepResults:
    """A finished one-set sweep whose points store per-topic values of the main measure."""
    (tmp_path / "runs").mkdir(parents=True, exist_ok=True)
    records = []
    for number, (overrides, values) in enumerate(points, 1):
        run = f"runs/p{number}.txt"
        (tmp_path / run).write_text(f"1 Q0 d{number} 1 1 t\n")  # distinct rankings
        records.append(Record(key=f"k{number}", point=number, overrides=overrides, run=run, seconds=0.0,
                              measures={MEASURE: sum(values) / len(values)},
                              per_topic={MEASURE: dict(zip(TOPICS, values))}))
    manifest = SweepManifest(
        sweep="s.yaml", base=str(BASE), measure=MEASURE, measures=[MEASURE], criterion="calibrated_rank",
        axes=[{"label": "a", "keys": ["a"]}, {"label": "b", "keys": ["b"]}],
        points=[{"point": r.point, "overrides": r.overrides, "coordinates": r.overrides} for r in records],
        sets=[{"name": "", "corpus": "c", "topics": "t", "qrels": {"relevance": str(qrels or "r")},
               "keys": [r.key for r in records]}], runs=len(records), finished=len(records))
    return SweepResults(tmp_path, manifest, records)


BEST = [0.8, 0.7, 0.9, 0.6, 0.8, 0.7, 0.9, 0.6, 0.8, 0.7]
CLOSE = [0.7, 0.8, 0.8, 0.7, 0.7, 0.8, 0.8, 0.7, 0.8, 0.6]  # loses 0.01 on average, topic by topic either way
WORSE = [v - 0.4 for v in BEST]  # loses 0.4 on every topic


def _three(tmp_path):
    return _results(tmp_path, [({"a": 1, "b": "x"}, BEST), ({"a": 2, "b": "y"}, WORSE), ({"a": 3, "b": "z"}, CLOSE)])


def test_a_point_significantly_worse_than_pick_1_is_not_picked_for_diversity(tmp_path):
    # ordered by mean: BEST 0.75, CLOSE 0.74, WORSE 0.35; make WORSE rank second by its stored mean
    results = _three(tmp_path)
    results.records[1].measures[MEASURE] = 0.749  # as if the sweep's mean put it right after the best
    picks = pick(results, count=3)
    assert [c.record.point for c in picks] == [1, 3]
    assert [(r.point, round(loss.delta, 3)) for r, loss in picks.skipped] == [(2, -0.4)]
    # every flip of ten identical losses enumerated: p = 2 / 2^10
    assert picks.skipped[0][1].p == pytest.approx(2 / 1024)
    assert "not significantly worse than pick 1 (Δ -0.010, p = " in picks[1].reason
    assert picks[0].loss is None and picks[1].loss.topics == 10


def test_max_loss_lets_a_significantly_worse_pick_in_and_says_so(tmp_path):
    results = _three(tmp_path)
    results.records[1].measures[MEASURE] = 0.749
    picks = pick(results, count=3, max_loss=0.5)
    assert [c.record.point for c in picks] == [1, 2, 3] and not picks.skipped
    assert "significantly worse than pick 1 (Δ -0.400, p = 0.002) but within --max-loss 0.500" in picks[1].reason
    assert [c.record.point for c in pick(results, count=3, max_loss=0.3)] == [1, 3]  # loses more than 0.3
    with pytest.raises(ToucheError, match="--max-loss must be a difference of at least 0"):
        pick(results, max_loss=-1)


def test_choice_md_shows_each_picks_loss_and_what_was_passed_over(tmp_path):
    results = _three(tmp_path)
    results.records[1].measures[MEASURE] = 0.749
    picks = pick(results, count=3)
    text = format_choices(results, picks, [MEASURE], skipped=picks.skipped)
    assert f"| against pick 1 ({MEASURE}) |" in text
    rows = [line for line in text.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert "| – |" in rows[0] and "Δ -0.010, p = " in rows[1]
    assert (
        "Passed over for diversity, significantly worse than pick 1" in text and "point 2 (Δ -0.400, p = 0.002)" in text
    )


def test_the_loss_is_computed_from_the_run_when_the_sweep_stored_no_per_topic_values(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{t}a 2\n{t} 0 d{t}b 0\n" for t in range(1, 11)))
    results = _results(tmp_path, [({"a": 1}, BEST), ({"a": 2}, BEST)], qrels)
    good, bad = results.records
    (tmp_path / good.run).write_text("".join(f"{t} Q0 d{t}a 1 2 g\n{t} Q0 d{t}b 2 1 g\n" for t in range(1, 11)))
    (tmp_path / bad.run).write_text("".join(f"{t} Q0 d{t}b 1 2 b\n{t} Q0 d{t}a 2 1 b\n" for t in range(1, 11)))
    for record in results.records:
        record.per_topic.clear()
    loss = LossToBest(results, MEASURE).of(bad, good)
    assert loss.topics == 10 and loss.delta < -0.3 and loss.p == pytest.approx(2 / 1024) and loss.significantly_worse


# --------------------------------------------------------------------------- 10: the reference run speaks
class _Stop(Exception):
    pass


def test_the_reference_run_says_what_it_runs_and_how_to_skip_it_with_progress(tmp_path, monkeypatch, caplog):
    seen = {}

    class FakeSession:
        def __init__(self, corpus, topics, index_root, progress=False):
            seen["progress"] = progress

        def run(self, loaded):
            seen["variant"] = loaded.path.name
            raise _Stop

        def close(self):
            pass

    monkeypatch.setattr(choice_reference, "Session", FakeSession)
    results = _three(tmp_path)
    with caplog.at_level(logging.INFO, logger="touche.retrieval.experiments.choose.reference"):
        with pytest.raises(_Stop):
            shipped_reference(results, MEASURE, progress=True)
    said = caplog.text
    assert "running the shipped suite's primary task1/1-krovetz-smart-lmd2000-quality.yaml" in said
    assert "--no-reference skips it" in said
    assert seen == {"progress": True, "variant": "1-krovetz-smart-lmd2000-quality.yaml"}


def test_the_command_shows_the_reference_runs_progress_and_takes_max_loss(monkeypatch, tmp_path):
    import touche.cli.choose as command
    from tests.shared import cli
    given = {}

    def fake_choose(results, out, **kwargs):
        given.update(kwargs)
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "choice.md").write_text("# chosen\n")
        return []

    monkeypatch.setattr(command, "choose", fake_choose)
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    for name in ("results.jsonl", "sweep.json"):
        (sweep / name).write_text("")
    code, text = cli("choose", str(sweep), "--out", str(tmp_path / "chosen"), "--max-loss", "0.02")
    assert code == 0, text
    assert given["progress"] is True and given["max_loss"] == 0.02 and given["reference"] is True


# --------------------------------------------------------------------------- 12: in-sample, said
def test_the_shipped_primary_is_called_in_sample_on_the_judgements_it_was_tuned_on(tmp_path):
    shared = require_shared()
    lines = (shared / "qrels" / "task2-2022-relevance.qrels").read_text().splitlines()
    random.Random(4).shuffle(lines)  # the same judgements in another order: the same digest
    copy = tmp_path / "relevance.qrels"
    copy.write_text("\n".join(lines) + "\n")
    tuned_on = load_suite(REPO / "configs" / "task2-stance" / "suite.yaml")[1].tuned_on
    below = [v - 0.2 for v in BEST]  # pick 1 at 0.550, below the reference
    results = _results(tmp_path, [({"a": 1}, below)], copy)
    assert in_sample_qrels(results, tuned_on) == ["relevance"]
    other = _results(tmp_path / "other", [({"a": 1}, below)], REPO / "demo" / "qrels-relevance.txt")
    assert in_sample_qrels(other, tuned_on) == []
    shipped = Reference(REPO / "configs" / "task2-stance" / "3-rerank.yaml", MEASURE, 0.654, tuned_on=tuned_on,
                        in_sample=("relevance",))
    assert shipped.cross_validated == 0.629
    text = format_choices(results, pick(results, count=1), [MEASURE], shipped)
    assert "scores relevance:touche.nDCG@5 = 0.654 on the same data: **above the best chosen point**" in text
    assert "But 3-rerank.yaml was tuned on the judgements this sweep is scored with (relevance), the Task 2 2022 " \
        "passage sample" in text
    assert "its 0.654 is in-sample and optimistic. Out of sample (weights chosen on other topics) it scores 0.629, " \
        "as measured by python -m bench.task2_cv" in text
    assert "Pick 1 is the best of 1 points on these topics" in text
    plain = Reference(shipped.variant, MEASURE, 0.654, tuned_on=tuned_on)  # other judgements: nothing to add
    assert plain.caveat() == "" and "in-sample" not in format_choices(other, pick(other, count=1), [MEASURE], plain)


@pytest.mark.parametrize("suite", ["task1", "task2-stance"])
def test_the_tuned_on_digests_are_the_shared_judgements(suite):
    """The digests a suite pins are those of the files it names (a changed file must be noticed)."""
    shared = require_shared()
    files = {"task2-stance": {"relevance": "task2-2022-relevance", "quality": "task2-2022-quality"},
             "task1": {"relevance-2020": "task1-2020-relevance", "relevance-2021": "task1-2021-relevance",
                       "quality-2021-dev5": "task1-2021-quality.dev5"}}[suite]
    tuned_on = load_suite(REPO / "configs" / suite / "suite.yaml")[1].tuned_on
    assert tuned_on.qrels == {name: load_qrels(shared / "qrels" / f"{file}.qrels").digest()
                              for name, file in files.items()}
