"""The explorer's overview as a paper or a notebook wants it: Markdown and LaTeX tables, per-topic
values as CSV, for a view of the page (``View``: the baseline, the runs shown in their order, the
correction). The page makes them from its current view in ``templates/explorer-exports.js``; this module
makes them from the default view for ``touche explore --markdown/--latex/--csv``, and the static
overview the page shows without JavaScript. The two are held byte for byte equal by the browser
tests (tests/experiments/test_explorer_exports.py, run in CI, where a missing browser fails them): one format,
written in the two languages the page and the command speak. What is not computed from the view
(the test's and corrections' names, the LaTeX headers) the page reads from its data, made here.

Layout as ranx's ``Report`` and PyTerrier's ``Experiment`` print it: a row per run, the topics its
means are over, a column per measure, the best value of each column in bold, Δ, p and n against the
baseline, a dagger where the run differs from the baseline significantly after the correction (the
test and correction named in the caption). LaTeX uses booktabs rules and readable headers
(``headers``: measure → header, the caller's where given). The CSV is the tidy
``run,query_id,measure,value`` of ir_measures' ``iter_calc`` and ranx's per-topic scores. Every cell
goes through ``touche/render.py``: one escaping (Markdown, LaTeX, CSV formula neutralisation), one
way to write a number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from touche.render import MISSING, Cell, at_floor, csv_value, escape, fixed, one_line, p_text, signed, table
from touche.retrieval.evaluation.agreement import pair_index
from touche.retrieval.evaluation.significance import SIGNIFICANCE_TESTS, corrected
from touche.retrieval.experiments.explorer.data import decode_agreement


@dataclass(frozen=True)
class View:
    """What the page shows: the baseline, the runs shown (in the order shown) and the correction."""
    baseline: str
    shown: tuple[str, ...]
    correction: str

    @classmethod
    def default(cls, data: dict) -> "View":
        return cls(data["baseline"], tuple(data["runs"]), data["correction"])


@dataclass
class BaselineTest:
    """A run against the baseline on one measure: the stored pair's test, oriented (``oriented``),
    and after the view's correction (``tests``)."""
    delta: float | None
    p: float | None
    wins: int
    losses: int
    ties: int
    floor: float | None
    p_corrected: float | None = None
    significant: bool | None = None

    @property
    def topics(self) -> int:
        return self.wins + self.losses + self.ties


# --------------------------------------------------------------------------- numbers as the page writes them
def number(value: float | None, digits: int = 3) -> str:
    """A mean as the page writes it (its script's ``number``): fixed decimals, ``MISSING`` if none."""
    return MISSING if value is None or math.isnan(value) else fixed(float(value), digits)


def corrected_p_text(test: BaselineTest, alpha: float = 0.05) -> str:
    """The corrected p; ``≤`` when the p it corrects is at the floor (a correction is monotone, so
    the true corrected p is at most this)."""
    text = p_text(test.p_corrected, alpha)
    return "≤ " + text if at_floor(test.p, test.floor) and text != MISSING else text


# --------------------------------------------------------------------------- the view's tests
def oriented(data: dict, measure: str, run: str, baseline: str) -> BaselineTest | None:
    """``run`` against ``baseline`` on ``measure`` from the pair's stored test (stored j − i)."""
    rows = data["pairs"].get(measure)
    if rows is None or run == baseline:
        return None
    i, j = data["runs"].index(baseline), data["runs"].index(run)
    delta, p, wins, losses, ties, floor = rows[pair_index(i, j, len(data["runs"]))]
    if j < i:  # stored as baseline − run
        delta, wins, losses = (None if delta is None else -delta), losses, wins
    return BaselineTest(delta, p, wins, losses, ties, floor)


def tests(data: dict, view: View) -> dict[str, dict[str, BaselineTest]]:
    """Per measure, each shown run against the baseline, p corrected over the shown runs tested."""
    out: dict[str, dict[str, BaselineTest]] = {}
    for measure in data["pairs"]:
        found = {run: t for run in view.shown if (t := oriented(data, measure, run, view.baseline)) is not None}
        ps = [math.nan if t.p is None else t.p for t in found.values()]
        for t, p in zip(found.values(), corrected(ps, view.correction)):
            t.p_corrected = None if math.isnan(p) else p
            t.significant = None if math.isnan(p) else bool(p < data["alpha"])
        out[measure] = found
    return out


def _columns(data: dict) -> list[tuple[str, str]]:
    """(kind, name): the effectiveness measures with qrels, else agreement with the baseline."""
    if data["measures"]:
        return [("measure", m) for m in data["measures"]]
    return [("agreement", m) for m in data["agreement_measures"]]


def agreement_of(data: dict, run: str, baseline: str, measure: str) -> float | None:
    """A run's mean agreement with the baseline on one measure."""
    if run == baseline:
        return None
    k = pair_index(data["runs"].index(run), data["runs"].index(baseline), len(data["runs"]))
    return data["agreement"][k][data["agreement_measures"].index(measure)]


def _value(data: dict, kind: str, name: str, run: str, baseline: str) -> float | None:
    if kind == "measure":
        return (data["cells"].get(run, {}).get(name) or {}).get("mean")
    return agreement_of(data, run, baseline, name)


def has_best(data: dict, kind: str, name: str) -> bool:
    """Whether a column has a best value: not how far a top is judged, nor a count."""
    return kind == "measure" and name in data["pairs"]


def _caption(data: dict, view: View) -> str:
    if not data["measures"]:
        return (f"Agreement of each run's ranking with {one_line(view.baseline)}'s (no judgements): means over the "
                f"topics both rank; RBO with p = {data['rbo_p']}, rank correlations over the documents both top 10s "
                "hold.")
    floor = ""
    if SIGNIFICANCE_TESTS[data["test"]].resampled:
        floor = (f" ≤: p at the randomization test's floor, 2/({data['resamples']:,} + 1) when the sign flips are "
                 "sampled.")
    return (f"Means over topics (topics: how many most of a run's means are taken over); best per column in bold; "
            f"† significantly different from the baseline {one_line(view.baseline)} (α = {data['alpha']}, "
            f"{data['test_name']}, {data['correction_names'][view.correction]} correction over the "
            f"{len(view.shown) - 1} runs tested); in brackets Δ, p and n (the topics both are scored on) against the "
            f"baseline.{floor}")


def topics_of(data: dict, run: str) -> int | None:
    """How many topics most of a run's means are taken over (ties: the larger); None without qrels."""
    found = [c["topics"] for c in data["cells"].get(run, {}).values()]
    return max(set(found), key=lambda n: (found.count(n), n)) if found else None


def _rows(data: dict, view: View):
    """Per shown run: each column's (value, best in its column, test against the baseline), or None."""
    columns = _columns(data)
    found = tests(data, view)
    best = []
    for kind, name in columns:
        values = [v for r in view.shown if (v := _value(data, kind, name, r, view.baseline)) is not None]
        best.append(max(values) if values and has_best(data, kind, name) else None)
    rows = []
    for run in view.shown:
        cells = []
        for (kind, name), top in zip(columns, best):
            value = _value(data, kind, name, run, view.baseline)
            cells.append(None if value is None else
                         (value, value == top, found.get(name, {}).get(run) if kind == "measure" else None))
        rows.append((run, cells))
    return rows


def _overview(data: dict, view: View, fmt: str, header_of) -> str:
    """The overview in ``fmt``: the same rows and cells in Markdown and LaTeX."""
    columns = _columns(data)
    counted = bool(data["measures"])
    header = ["Run" if fmt == "latex" else "run", *(["topics"] if counted else []),
              *(header_of(name) for _, name in columns)]
    rows = []
    for run, cells in _rows(data, view):
        shown: list[object] = [f"{one_line(run)} (baseline)" if run == view.baseline else run]
        if counted:
            n = topics_of(data, run)
            shown.append(MISSING if n is None else str(n))
        for cell in cells:
            if cell is None:
                shown.append(MISSING)
                continue
            value, best, test = cell
            note = ""
            if test and test.delta is not None:
                note = f" ({signed(test.delta)}, p {corrected_p_text(test, data['alpha'])}, n {test.topics})"
            shown.append(Cell(number(value), bold=best, note=note, dagger=bool(test and test.significant)))
        rows.append(shown)
    if fmt == "markdown":
        return table("markdown", header, rows) + "\n\n" + escape(_caption(data, view), "markdown") + "\n"
    return table("latex", header, rows, caption=_caption(data, view), comment="touche explore: ")


def overview_markdown(data: dict, view: View | None = None) -> str:
    return _overview(data, view or View.default(data), "markdown", lambda name: name)


def overview_latex(data: dict, view: View | None = None) -> str:
    headers = data.get("headers") or {}
    return _overview(data, view or View.default(data), "latex", lambda name: headers.get(name, name))


def per_topic_csv(data: dict, view: View | None = None) -> str:
    """Tidy per-topic values of the shown runs: the measures, stance F1 and accuracy per topic,
    and each run's agreement with the baseline (``measure`` ``RBO vs <baseline>``)."""
    view = view or View.default(data)
    rows: list[list[object]] = []
    stance_qrels = next((n for n, k in data["qrels"].items() if k == "stance"), None)
    runs, base = data["runs"], data["runs"].index(view.baseline)
    for topic in data["topics"]:
        agreed = decode_agreement(topic["agreement"], len(data["agreement_measures"])) \
            if topic["agreement"] is not None else None
        for run in view.shown:
            for measure in data["measures"]:
                value = topic["values"][run].get(measure)
                if value is not None:
                    rows.append([run, topic["id"], measure, float(value)])
            found = topic["stance"].get(run) if topic.get("stance") else None
            if found and stance_qrels:
                rows.append([run, topic["id"], f"{stance_qrels}:stance.F1_macro", float(found[0])])
                rows.append([run, topic["id"], f"{stance_qrels}:stance.accuracy", float(found[1])])
            if agreed is not None and run != view.baseline:
                row = agreed[pair_index(runs.index(run), base, len(runs))]
                for measure, value in zip(data["agreement_measures"], row):
                    if not np.isnan(value):
                        rows.append([run, topic["id"], f"{measure} vs {one_line(view.baseline)}", float(value)])
    return table("csv", ["run", "query_id", "measure", "value"], rows, csv_number=csv_value)


EXPORTS = {"markdown": overview_markdown, "latex": overview_latex, "csv": per_topic_csv}
