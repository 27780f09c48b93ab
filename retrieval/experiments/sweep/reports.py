"""A sweep's reports, formatted from its analysis (nothing is computed here): ``results.csv``,
``results.md``, ``sweep.png``. Every table is laid out and escaped by ``touche/render.py``: a swept
value such as ``+HYPERLINK(…)`` is text in the CSV, ``a|b<img …>`` text in the Markdown."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from touche.render import MISSING, Cell, escape, markdown_table, p_text, rank_of
from touche.render import csv_table as render_csv
from touche.render import number as format_number
from touche.retrieval.experiments.robust import STABILITY_RESAMPLES, criterion_named, weighted_mean
from touche.retrieval.experiments.sweep.analysis import SweepAnalysis, measure_columns
from touche.retrieval.experiments.sweep.axes import describe_overrides, format_value, grid_edges
from touche.retrieval.experiments.sweep.figure import PlotPoint, plot_sweep
from touche.retrieval.experiments.sweep.loading import Sweep
from touche.retrieval.experiments.sweep.spec import swept_keys


def base_label(sweep: Sweep) -> str:
    return f"{sweep.base.parent.name}/{sweep.base.name}"  # base.yaml alone would not say which task


def format_csv(header: list[str], rows: list[list[Any]]) -> str:
    """results.csv: numbers whole, a dict or list value as its JSON, text neutralised against formulas."""
    return render_csv(header, [[json.dumps(v) if isinstance(v, (dict, list)) else v for v in row] for row in rows])


def _unfinished_line(analysis: SweepAnalysis, unit: str) -> list[str]:
    missing = analysis.runs - len(analysis.records)
    if not missing:
        return []
    return [f"- **unfinished: {missing} of {analysis.runs} {unit} have not run**; the order below is of the "
            "finished ones only (rerun `touche sweep` to finish)"]


def edge_note(analysis: SweepAnalysis) -> list[str]:
    """A line when the best point (or the pick) lies at an end of the grid: the optimum may lie
    beyond it."""
    edges = grid_edges(analysis.sweep.axes, analysis.sweep.points[analysis.pick].coordinates) \
        if analysis.pick is not None else []
    if not edges:
        return []
    return [f"- **the best point lies on the grid's edge**: {', '.join(edges)}; a better one may lie beyond: "
            "extend the grid there"]


def format_one_set(analysis: SweepAnalysis, plot: Path | None) -> str:
    sweep, records = analysis.sweep, analysis.records
    (dev,) = sweep.sets
    (summary,) = analysis.sets
    main = sweep.spec.measure
    keys = swept_keys(sweep.spec)
    measures = measure_columns(records, main)
    shown = ["rank", "point", *keys, *measures, "p_vs_best", "seconds"]
    index = {name: analysis.header.index(name) for name in shown}

    def cell(name: str, value: Any) -> str:
        if isinstance(value, float) and math.isnan(value):
            return MISSING
        if name == "p_vs_best":
            return p_text(value)
        if name in measures:
            return f"{value:.3f}" if isinstance(value, float) else str(value)
        if name == "seconds":
            return f"{value:.1f}"
        return format_value(value)

    lines = [escape(f"# Sweep {sweep.name}: {main}", "markdown"), ""]
    if sweep.spec.description:
        lines += [sweep.spec.description, ""]
    lines += [f"- base: `{base_label(sweep)}`; {len(records)} of {len(sweep.points)} points finished, "
              f"{analysis.indexes} distinct index(es)",
              f"- corpus: `{dev.corpus.name}`, topics: `{dev.topics.name}`, qrels: "
              + ", ".join(f"{n} = `{q.name}`" for n, q in dev.qrels.items())]
    lines += _unfinished_line(analysis, "points")
    if summary.coverage:
        lines.append(f"- judged coverage: the corpus holds {summary.mean_coverage:.0%} of the topics' judged documents "
                     f"(mean over {len(summary.coverage)} topics)"
                     + (": **mostly unjudged: the best point here is the best at finding what other systems found; "
                        "check it on a fully judged set (sets:)**" if summary.mostly_unjudged else ""))
    if analysis.ranked:
        best = analysis.ranked[0]
        lines.append(f"- best: point {best.point} ({escape(describe_overrides(best.overrides), 'markdown')}) "
                     f"with {main} = {cell(main, best.measures.get(main, math.nan))}")
        lines += edge_note(analysis)
    lines += ["- p_vs_best: paired randomization test of each point against the best on the topics both are "
              "scored on (two-sided, not corrected for multiple comparisons; p ≥ 0.05 means these topics "
              "cannot tell the point from the best)", ""]
    if plot is not None:
        lines += [f"![{main} over the swept parameters]({plot.name})", ""]
    align = "".join("r" if n in measures or n in ("rank", "point", "p_vs_best", "seconds") else "l" for n in shown)
    lines.append(markdown_table(shown, [[cell(n, row[index[n]]) for n in shown] for row in analysis.rows], align))
    return "\n".join(lines) + "\n"


def format_several_sets(analysis: SweepAnalysis, plot: Path | None) -> str:
    sweep, records, choice = analysis.sweep, analysis.records, analysis.choice
    criterion = criterion_named(sweep.spec.criterion)
    main = sweep.spec.measure
    keys = swept_keys(sweep.spec)
    cell = format_number
    lines = [escape(f"# Sweep {sweep.name}: {main} on {len(sweep.sets)} development sets", "markdown"), ""]
    if sweep.spec.description:
        lines += [sweep.spec.description, ""]
    lines += [f"- base: `{base_label(sweep)}`; {len(records)} of {analysis.runs} runs finished "
              f"({len(sweep.points)} points × {len(sweep.sets)} sets), {analysis.indexes} distinct index(es)"]
    lines += _unfinished_line(analysis, "runs")
    lines += [f"- points ordered by **{criterion.name}**: {criterion.description}", "", "## The sets", ""]
    pick = analysis.pick
    rows: list[list[Any]] = []
    for s, summary in enumerate(analysis.sets):
        scored = len(analysis.scores[s].per_topic.get(str(sweep.points[pick].number), {})) if pick is not None else 0
        warning = Cell("mostly unjudged: its scores rank what other systems found, not what is relevant", bold=True) \
            if summary.mostly_unjudged else ""
        rows.append([summary.name, summary.topics, scored,
                     f"{cell(summary.mean_coverage, 2)}, {cell(summary.median_coverage, 2)}",
                     cell(summary.weight, 2), cell(summary.used_weight, 2), warning])
    lines.append(markdown_table(["set", "topics", "scored (best point)", "judged coverage: mean, median", "weight",
                                 "used weight", ""], rows, "lrrrrrl"))
    lines += ["", "Judged coverage: per topic, the share of its judged documents the set's corpus holds (1.0: a "
              "perfect ranking of the corpus scores 1.0). Unless a set gives `weight:`, its weight is its mean "
              "coverage; the used weight is what the criterion gives it"
              + (" (calibrated_rank: the weight times the set's agreement, Spearman's ρ floored at 0, with the most "
                 "completely judged set)" if criterion.name == "calibrated_rank" else "") + ".", ""]
    if choice is None or not choice.order:
        lines += ["## The pick", "", f"**No pick: {analysis.why_no_pick}.**", ""]
    else:
        chosen = sweep.points[choice.pick]
        said = escape(describe_overrides(chosen.overrides), "markdown")
        lows, highs = choice.intervals[choice.pick, :, 0], choice.intervals[choice.pick, :, 1]
        means = "; ".join(f"{dev.name} {cell(choice.means[choice.pick, s])} [{cell(lows[s])}, {cell(highs[s])}]"
                          for s, dev in enumerate(sweep.sets))
        lines += ["## The pick", "", f"Point {chosen.number} ({said}): {means}.", "",
                  f"Drawing each set's topics again with replacement ({STABILITY_RESAMPLES} times), the criterion "
                  f"picks it in {choice.pick_share[choice.pick]:.0%} of the draws (points tied in a draw share it)."]
        lines += [line.removeprefix("- ") for line in edge_note(analysis)]
        if choice.tied:
            lines.append(
                f"**A tie, not a decision**: point(s) {', '.join(str(sweep.points[i].number) for i in choice.tied)} "
                f"score exactly what it scores by {criterion.name}; it comes first by the grid's order only."
            )
        if choice.runner_up is not None:
            runner = sweep.points[choice.runner_up]
            low, high = choice.lead_interval
            interval = f"[{low:+.3f}, {high:+.3f}]" if math.isfinite(low) and math.isfinite(high) else "undefined"
            lines.append(f"Its lead over the runner-up, point {runner.number} "
                         f"({escape(describe_overrides(runner.overrides), 'markdown')}), "
                         f"lies in {interval} (95 % of the draws, in {criterion.name}'s units"
                         f"{': ' + criterion.units if criterion.units != 'score' else ''})"
                         + (": **within the noise: these sets cannot tell the two apart**." if choice.lead_is_noise
                            else "."))
        lines.append("")
    if analysis.transfers:
        lines += ["## Leave one set out: what the choice transfers", "",
                  "Choosing on all sets but one, and scoring the pick on the one left out: the expected transfer to "
                  "topics the choice did not see, beside the best the left-out set allows and what the argmax of each "
                  "single other set would have given.", "",
                  markdown_table(["left out", "pick (on the others)", "its score there", "its rank there", "best there",
                                  "argmax of one other set → score there"],
                                 [[t.left_out, f"p{t.pick}", cell(t.score), rank_of(t.rank, len(sweep.points)),
                                   f"{cell(t.best_score)} (p{t.best})",
                                   "; ".join(f"{name}: p{point} → {cell(score)}"
                                             for name, (point, score) in t.naive.items())]
                                  for t in analysis.transfers], "llrrrl"), ""]
    if analysis.agreement is not None and len(sweep.sets) > 1:
        names = [d.name for d in sweep.sets]
        lines += ["## Do the sets agree?", "", "Spearman's ρ of the points' scores between sets (two biased sets "
                  "that agree are no evidence: compare with the most completely judged set).", "",
                  markdown_table(["", *names], [[name, *(cell(float(analysis.agreement[a, b]), 2)
                                                         for b in range(len(names)))]
                                                for a, name in enumerate(names)]), ""]
    if analysis.effects:
        lines += ["## What each swept value does, per set", "",
                  "The mean per-topic difference of the points with the value against those with the axis' first "
                  "value that agree on every other axis; [95 % topic-bootstrap interval]; **bold** where the "
                  "interval excludes 0.", ""]
        rows = []
        for e in analysis.effects:
            cells: list[Any] = []
            for dev in sweep.sets:
                found = e.per_set.get(dev.name)
                if found is None:
                    cells.append(MISSING)
                    continue
                mean, low, high, _ = found
                cells.append(Cell(f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]", bold=bool(low > 0 or high < 0)))
            rows.append([e.axis, f"{format_value(e.value)} (vs {format_value(e.reference)})", e.pairs, *cells])
        lines += [markdown_table(["key", "value (against)", "pairs", *(d.name for d in sweep.sets)], rows,
                                 "llr" + "l" * len(sweep.sets)), ""]
    if plot is not None:
        lines += [f"![{main} over the swept parameters]({plot.name})", ""]
    index = {name: analysis.header.index(name) for name in analysis.header}
    rows = [[row[0], row[1], *(format_value(row[index[k]]) for k in keys),
             *(f"{cell(row[index[d.name]])} [{cell(row[index[d.name + '_ci_low']], 2)}, "
               f"{cell(row[index[d.name + '_ci_high']], 2)}]" for d in sweep.sets),
             cell(row[index[criterion.name]], 2), f"{row[index['pick_share']]:.0%}"] for row in analysis.rows]
    lines += ["## Every point", "", markdown_table(
        ["rank", "point", *keys, *(f"{d.name} [95 % CI]" for d in sweep.sets), criterion.name, "picked"], rows,
        "rr" + "l" * len(keys) + "r" * (len(sweep.sets) + 2))]
    every = [column for column in analysis.header if column.endswith(tuple(f" ({d.name})" for d in sweep.sets))]
    if every:
        lines += ["", "## Every measure at every point", "", "Each point's mean of every measure on each set "
                  "(also in results.csv).", "", markdown_table(
                      ["rank", "point", *every], [[row[0], row[1], *(cell(row[index[c]]) for c in every)]
                                                  for row in analysis.rows], "rr")]
    return "\n".join(lines) + "\n"


def plot(analysis: SweepAnalysis) -> Path | None:
    """The sort measure over the swept parameters; with sets, each point's weighted mean."""
    sweep = analysis.sweep
    if not analysis.records:
        return None
    choice = analysis.choice
    if not sweep.several:
        by_point = {r.point: r for r in analysis.records}
        points = [PlotPoint(p.coordinates, by_point[p.number].measures.get(sweep.spec.measure, math.nan))
                  for p in sweep.points if p.number in by_point]
        label = sweep.spec.measure
    elif choice is not None:
        weighted = weighted_mean(choice.means, choice.weights)
        points = [PlotPoint(p.coordinates, float(weighted[i])) for i, p in enumerate(sweep.points)
                  if not all(math.isnan(v) for v in choice.means[i])]
        label = f"{sweep.spec.measure}, weighted mean over {len(sweep.sets)} sets"
    else:
        return None
    return plot_sweep(sweep.axes, points, label, sweep.output / "sweep.png",
                      title=f"sweep {sweep.name} ({len(points)} points, base {base_label(sweep)})",
                      into=sweep.folder())
