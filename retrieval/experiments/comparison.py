"""Two runs topic by topic: both scores, the difference, wins/losses/ties, a paired t-test and a
paired randomization test (``compare_runs``, ``compare_scores``); ``format_comparison`` writes it
as Markdown (``touche compare -o``), ``plot_comparison`` draws the per-topic differences.

Pairing: Touché's nDCG@5 leaves out a topic whose top 5 holds no judged document, so two runs
may be averaged over different topics. A paired test needs the same topics on both sides: the
comparison uses the topics both runs have a score for and lists the others separately.
"""
from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from touche.inputs import distinct_labels
from touche.render import escape, markdown_table, number, p_text, signed
from touche.retrieval.evaluation.collection import Collection, on_collection
from touche.retrieval.evaluation.measures import check_cutoffs, checked_selection
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.evaluation.significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TIE_TOLERANCE,
    paired_randomization_test,
    paired_t_test,
    per_topic_scores,
)
from touche.retrieval.experiments.plots import pyplot, save_figure
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runfile import natural_key
from touche.retrieval.formats.selection import TopicSelection


@dataclass(frozen=True)
class TopicRow:
    topic: str
    a: float
    b: float

    @property
    def difference(self) -> float:
        return self.b - self.a

    @property
    def outcome(self) -> str:
        if abs(self.difference) <= TIE_TOLERANCE:
            return "tie"
        return "win" if self.difference > 0 else "loss"


@dataclass(frozen=True)
class RunComparison:
    """Run B against run A (baseline) on the topics both have a score for."""

    measure: str
    name_a: str
    name_b: str
    rows: tuple[TopicRow, ...]
    only_a: tuple[str, ...] = ()  # topics only A is scored on (B had nothing judged in its cut)
    only_b: tuple[str, ...] = ()
    t_statistic: float = math.nan
    t_p: float = math.nan
    randomization_p: float = math.nan
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    official_means: tuple[float, float] = (math.nan, math.nan)  # each over its own topics, as Touché averages
    cautions: tuple[str, ...] = ()  # a run holding documents the collection scored on lacks

    @property
    def wins(self) -> int:
        return sum(r.outcome == "win" for r in self.rows)

    @property
    def losses(self) -> int:
        return sum(r.outcome == "loss" for r in self.rows)

    @property
    def ties(self) -> int:
        return sum(r.outcome == "tie" for r in self.rows)

    @property
    def mean_a(self) -> float:
        return float(np.mean([r.a for r in self.rows])) if self.rows else math.nan

    @property
    def mean_b(self) -> float:
        return float(np.mean([r.b for r in self.rows])) if self.rows else math.nan


def compare_scores(a: Mapping[str, float], b: Mapping[str, float], *, measure: str = "touche.nDCG@5",
                   name_a: str = "A", name_b: str = "B", resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED) -> RunComparison:
    """Compare two {topic: score} maps (B − A) on their common topics."""
    common = sorted(set(a) & set(b), key=natural_key)
    rows = tuple(TopicRow(t, float(a[t]), float(b[t])) for t in common)
    xs, ys = [r.a for r in rows], [r.b for r in rows]
    t_stat, t_p = paired_t_test(ys, xs)
    official = (float(np.mean(list(a.values()))) if a else math.nan,
                float(np.mean(list(b.values()))) if b else math.nan)
    return RunComparison(
        measure=measure, name_a=name_a, name_b=name_b, rows=rows,
        only_a=tuple(sorted(set(a) - set(b), key=natural_key)),
        only_b=tuple(sorted(set(b) - set(a), key=natural_key)),
        t_statistic=t_stat, t_p=t_p,
        randomization_p=paired_randomization_test(ys, xs, resamples=resamples, seed=seed),
        resamples=resamples, seed=seed, official_means=official)


def compare_runs(run_a: str | os.PathLike[str], run_b: str | os.PathLike[str], qrels: str | os.PathLike[str],
                 measure: str = "touche.nDCG@5", *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED, topics: TopicSelection | None = None,
                 collection: Collection | None = None) -> RunComparison:
    """Per-topic comparison of two run files on one qrels file (B − A), on the topics ``topics``
    keeps (checked against both runs and the qrels), on ``collection`` when given (a run holding
    documents it lacks cautioned; both restricted to it when it says so)."""
    check_cutoffs([parse_measure(measure).name])  # a measure no run can have, before the runs are read
    same = Path(run_a).resolve() == Path(run_b).resolve()  # a run against itself: a sanity check, one run
    names = [Path(run_a).name] * 2 if same else distinct_labels([Path(run_a), Path(run_b)], what="run file")
    tables, cautions = on_collection(dict(zip(names, (load_run(run_a), load_run(run_b)))), collection)
    topics = checked_selection(topics, tables.values(), qrels)
    a, b = (per_topic_scores(tables[name], qrels, measure, topics, name=name) for name in names)
    compared = compare_scores(a, b, measure=measure, name_a=names[0], name_b=names[1], resamples=resamples, seed=seed)
    return dataclasses.replace(compared, cautions=tuple(cautions))


def format_comparison(cmp: RunComparison, digits: int = 3) -> str:
    """Markdown: a summary (means, wins/losses/ties, both tests) and the per-topic table; every
    run name and topic escaped by the one renderer (a run file named ``x|y<img …>`` is text)."""
    delta = cmp.mean_b - cmp.mean_a
    summary = markdown_table(
        ["", f"{cmp.name_a} (A)", f"{cmp.name_b} (B)", "B − A"],
        [[f"mean over the {len(cmp.rows)} common topics", number(cmp.mean_a, digits), number(cmp.mean_b, digits),
          number(delta, digits)],
         ["mean over each run's own scored topics (as the official table)", number(cmp.official_means[0], digits),
          number(cmp.official_means[1], digits), ""]])
    tests = markdown_table(["test", "statistic", "p (two-sided)"], [
        ["paired t-test", f"t = {number(cmp.t_statistic)}", p_text(cmp.t_p)],
        [f"paired randomization test ({_resampling(cmp)})", f"mean Δ = {number(delta, digits)}",
         p_text(cmp.randomization_p)]])
    lines = [escape(f"## {cmp.name_b} vs {cmp.name_a} ({cmp.measure})", "markdown"), "", summary, "",
             f"B wins **{cmp.wins}**, loses **{cmp.losses}**, ties **{cmp.ties}** of {len(cmp.rows)} topics.", "",
             tests]
    lines += [line for caution in cmp.cautions for line in ("", escape(caution, "markdown"))]
    if cmp.only_a or cmp.only_b:
        lines += ["", "Not paired (nothing judged in the other run's cut): "
                  + "; ".join(part for part in (
                      f"scored for A only: {escape(', '.join(cmp.only_a), 'markdown')}" if cmp.only_a else "",
                      f"scored for B only: {escape(', '.join(cmp.only_b), 'markdown')}" if cmp.only_b else "")
                  if part) + "."]
    marks = {"win": "B better", "loss": "A better", "tie": ""}
    lines += ["", markdown_table(["topic", "A", "B", "B − A", ""], [
        [row.topic, number(row.a, digits), number(row.b, digits), signed(row.difference, digits), marks[row.outcome]]
        for row in _by_gain(cmp.rows)], "lrrrl")]
    return "\n".join(lines)


def _by_gain(rows: Sequence[TopicRow]) -> list[TopicRow]:
    """Biggest gain of B first; equal differences (up to float noise) in topic order."""
    return sorted(rows, key=lambda r: (-round(r.difference, 9), natural_key(r.topic)))


def _resampling(cmp: RunComparison) -> str:
    n = len(cmp.rows)
    if n < 2:
        return "needs two or more common topics"
    if 2 ** n <= cmp.resamples:
        return f"exact, all {2 ** n} sign flips"
    return f"{cmp.resamples} random sign flips, seed {cmp.seed}"


def plot_comparison(cmp: RunComparison, path: str | os.PathLike[str]) -> Path:
    """Bar chart of B − A per topic, sorted, wins green and losses red."""
    plt = pyplot()
    rows = _by_gain(cmp.rows)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.22 * len(rows) + 2), 4))
    colors = ["#2a9d4a" if r.outcome == "win" else "#c0392b" if r.outcome == "loss" else "#999999" for r in rows]
    ax.bar(range(len(rows)), [r.difference for r in rows], color=colors)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)), [r.topic for r in rows], rotation=90, fontsize=8)
    ax.set_xlabel("topic")
    ax.set_ylabel(f"Δ {cmp.measure} (B − A)")
    ax.set_title(f"{cmp.name_b} (B) vs {cmp.name_a} (A): {cmp.wins} wins, {cmp.losses} losses, {cmp.ties} ties; "
                 f"randomization p = {p_text(cmp.randomization_p)}", fontsize=9)
    return save_figure(fig, Path(path))


