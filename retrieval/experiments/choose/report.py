"""choice.md: what ``touche choose`` picked, why each, what each loses against pick 1 and how
pick 1 compares with the shipped suite's primary (with what that comparison is worth)."""
from __future__ import annotations

import math
from pathlib import Path

from touche.render import MISSING, escape, markdown_table, rank_of
from touche.render import number as format_number
from touche.retrieval.experiments.choose.loss import ALPHA
from touche.retrieval.experiments.choose.reference import Reference, reference_value
from touche.retrieval.experiments.robust import criterion_named, tied_with_pick
from touche.retrieval.experiments.sweep.axes import describe_overrides


def _loss_cell(choice) -> str:
    return MISSING if choice.loss is None else choice.loss.text()


def _skipped_lines(skipped, measure: str, max_loss: float | None) -> list[str]:
    if not skipped:
        return []
    listed = "; ".join(f"point {record.point} ({loss.text()})" for record, loss in skipped[:10])
    more = f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""
    allow = ("" if max_loss is None else f" by more than --max-loss {format_number(max_loss)}")
    return [f"Passed over for diversity, significantly worse than pick 1 on {measure}{allow} (paired randomization "
            f"test, two-sided, α = {ALPHA}, uncorrected): {listed}{more}. `--max-loss D` lets a pick lose up to D.", ""]


def _reference_lines(shipped: Reference, best: float, points: int, several: bool) -> list[str]:
    below = not best >= shipped.value
    where = f"{shipped.variant.parent.name}/{shipped.variant.name}"
    if several:
        per_set = "; ".join(f"{n} {format_number(v)}" for n, v in shipped.per_set.items())
        lines = [f"The shipped suite's primary, {where}: {per_set} (weighted mean {format_number(shipped.value)}; "
                 f"pick 1: {format_number(best)})" + (": **above the primary chosen here**." if below else ".")]
    else:
        lines = [f"The shipped suite's primary, {where}, scores {shipped.measure} = {format_number(shipped.value)} on "
                 "the same data" + (": **above the best chosen point**." if below else ".")]
    caveat = shipped.caveat()
    if caveat:
        lines.append(f"But {caveat}. Pick 1 is the best of {points} points on these topics, chosen on them: "
                     "optimistic as well. Only topics neither was chosen on can rank the two.")
    return [" ".join(lines), ""]


def format_choices(results, choices, measures: list[str], shipped: Reference | None = None, skipped=(),
                   max_loss: float | None = None) -> str:
    if results.several:
        return _format_several_sets(results, choices, shipped, skipped, max_loss)
    points = len(results.manifest.points)
    main = measures[0]
    lines = [escape(f"# Chosen from sweep {Path(results.manifest.sweep).name}", "markdown"), "",
             f"{len(choices)} pick(s) from the sweep's {len(results.records)} finished point(s)"
             + (f" (**{points - len(results.records)} of {points} points have not run**)"
                if len(results.records) < points else "") + "; primary (run.txt) = pick 1.", "",
             markdown_table(["pick", "file", "tag", *measures, f"against pick 1 ({main})", "why", "overrides"],
                            [[place, c.path.name if c.path else "", c.tag,
                              *(format_number(c.record.measures.get(m)) for m in measures), _loss_cell(c), c.reason,
                              describe_overrides(c.record.overrides)] for place, c in enumerate(choices, 1)],
                            "rll" + "r" * len(measures) + "lll")]
    lines += ["", "*against pick 1*: the mean difference on the topics both are scored on and the paired "
                  "randomization test's p (two-sided, uncorrected).", ""]
    lines += _skipped_lines(skipped, main, max_loss)
    if shipped is not None:
        best = choices[0].record.measures.get(shipped.measure, math.nan) if choices else math.nan
        lines += _reference_lines(shipped, best, len(results.records), several=False)
    return "\n".join(lines).rstrip("\n") + "\n"


def _several_sets_table(choices, stored, names: list[str], index: dict, criterion: str) -> str:
    rows = []
    for place, c in enumerate(choices, 1):
        i = index[c.record.point]
        rows.append([place, c.path.name if c.path else "",
                     *(f"{format_number(stored.means[i][s])} [{format_number(stored.intervals[i][s][0])}, "
                       f"{format_number(stored.intervals[i][s][1])}]" for s in range(len(names))),
                     format_number(stored.values[i]), f"{stored.pick_share[i]:.0%}", _loss_cell(c), c.reason])
    return markdown_table(["pick", "file", *(f"{n} [95 % CI]" for n in names), criterion, "picked in",
                           "against pick 1", "why"], rows, "rl" + "r" * (len(names) + 2) + "ll")


def _format_several_sets(results, choices, shipped: Reference | None, skipped, max_loss: float | None) -> str:
    """choice.md of a sweep on several sets: each pick on every set with its interval, how stable
    the primary is, and what choosing this way transferred to each set left out (all as the
    sweep computed and stored them)."""
    manifest = results.manifest
    stored = manifest.choice
    criterion = criterion_named(stored.criterion)
    names = [e.name for e in manifest.sets]
    index = {p.point: i for i, p in enumerate(manifest.points)}
    missing = manifest.runs - manifest.finished
    lines = [escape(f"# Chosen from sweep {Path(manifest.sweep).name}", "markdown"), "",
             f"{len(choices)} of {len(manifest.points)} points, ordered by **{criterion.name}** over {len(names)} sets "
             f"(weights {', '.join(f'{n} {format_number(w, 2)}' for n, w in results.weights.items())}); primary "
             "(run.txt) = pick 1." + (f" **{missing} of {manifest.runs} runs have not run.**" if missing else ""), "",
             _several_sets_table(choices, stored, names, index, criterion.name)]
    lines += ["", "*picked in*: the share of 1,000 topic resamples (each set's topics drawn again with replacement) in "
              f"which the criterion picks that point. *against pick 1*: {manifest.measure}, the mean difference over "
              "the topics of every set (pooled, unweighted) and the paired randomization test's p (two-sided, "
              "uncorrected).", ""]
    lines += _skipped_lines(skipped, manifest.measure, max_loss)
    tied = [manifest.points[i].point for i in tied_with_pick(stored.values, [index[n] for n in stored.order])]
    if tied:
        lines += [f"**A tie, not a decision**: point(s) {', '.join(map(str, tied))} score "
                  f"exactly what the primary scores by {criterion.name}; it comes first by the grid's order only.", ""]
    elif stored.lead_is_noise and len(stored.order) > 1:
        low, high = stored.lead_interval
        interval = f"[{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else "undefined"
        lines += [f"**Warning: the primary's lead over the runner-up (point {stored.order[1]}) is within the noise**: "
                  f"its 95 % interval under topic resampling is {interval} ({criterion.name}'s units). "
                  "These sets cannot tell the two apart; the other picks hedge.", ""]
    if stored.transfers:
        lines += ["## Expected transfer (leave one set out)", "", markdown_table(
            ["left out", "pick on the others", "its score there", "rank there", "the set's own best"],
            [[t.left_out, f"point {t.pick}", format_number(t.score), rank_of(t.rank, len(manifest.points)),
              f"{format_number(t.best_score)} (point {t.best})"] for t in stored.transfers], "llrrr"), ""]
    if shipped is not None:
        best = reference_value(results, choices[0].record, shipped) if choices else math.nan
        lines += _reference_lines(shipped, best, len(manifest.points), several=True)
    return "\n".join(lines).rstrip("\n") + "\n"
