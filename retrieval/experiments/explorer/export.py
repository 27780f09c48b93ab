"""The explorer's overview as a paper or a notebook wants it: Markdown and LaTeX tables, per-topic
values as CSV, for a view of the page (``View``: the baseline, the runs shown in their order, the
correction). The page makes them from its current view in ``templates/explorer-exports.js``; this module
makes them from the default view for ``touche explore --markdown/--latex/--csv``, and the static
overview the page shows without JavaScript. The two are held byte for byte equal by the browser
tests (tests/test_explorer_page.py): one format, written in the two languages the page and the
command speak.

Layout as ranx's ``Report`` and PyTerrier's ``Experiment`` print it: a row per run, a column per
measure, the best value of each column in bold, a dagger where the run differs from the baseline
significantly after the correction (the test and correction named in the caption). LaTeX uses
booktabs rules (``\\usepackage{booktabs}``). The CSV is the tidy ``run,query_id,measure,value``
of ir_measures' ``iter_calc`` and ranx's per-topic scores; a text cell a spreadsheet would read as
a formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage return first) gets a ``'`` before it,
as OWASP's CSV-injection guidance asks.
"""
from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass

import numpy as np

from touche.retrieval.evaluation.agreement import pair_index
from touche.retrieval.evaluation.significance import corrected
from touche.retrieval.experiments.explorer.data import decode_agreement

TEST_NAMES = {"randomization": "paired randomization test", "t": "paired t-test",
              "wilcoxon": "Wilcoxon signed-rank test"}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg", "none": "no"}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "†": r"$^{\dagger}$", "α": r"$\alpha$", "Δ": r"$\Delta$", "τ": r"$\tau$", "≤": r"$\leq$"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


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
class Comparison:
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
def fixed(value: float, digits: int = 3) -> str:
    return f"{0.0 if value == 0 else value:.{digits}f}"


def number(value: float | None, digits: int = 3, missing: str = "–") -> str:
    return missing if value is None or (isinstance(value, float) and math.isnan(value)) else fixed(value, digits)


def signed(value: float) -> str:
    """A difference with its sign; one that rounds to zero has none (±0.000)."""
    text = f"{0.0 if value == 0 else value:+.3f}"
    return "±0.000" if text in ("+0.000", "-0.000") else text


def p_text(p: float | None, alpha: float = 0.05, floor: float | None = None) -> str:
    """A p-value whose digits never disagree with its mark: three decimals, more where rounding
    would cross ``alpha`` (0.049595 is 0.0496, not 0.050), an exponent below 0.001; at the
    randomization test's floor ``≤`` the floor."""
    if p is None or math.isnan(p):
        return "–"
    if at_floor(p, floor):
        return "≤ " + p_text(floor, alpha)
    if p < 0.001:
        return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{p:.1e}")
    for digits in range(3, 13):
        text = fixed(p, digits)
        if (float(text) < alpha) == (p < alpha):
            return text
    return repr(p)


def at_floor(p: float | None, floor: float | None) -> bool:
    """Whether a randomization test's p is its floor: the true p may be lower still."""
    return p is not None and floor is not None and not math.isnan(floor) and p <= floor * (1 + 1e-9)


def corrected_p_text(test: Comparison, alpha: float = 0.05) -> str:
    """The corrected p; ``≤`` when the p it corrects is at the floor (a correction is monotone, so
    the true corrected p is at most this)."""
    text = p_text(test.p_corrected, alpha)
    return "≤ " + text if at_floor(test.p, test.floor) and text != "–" else text


def csv_value(value: float) -> str:
    """A per-topic value in the CSV: six decimals, trailing zeros dropped."""
    text = fixed(value, 6).rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def csv_text(text: str) -> str:
    """A text cell no spreadsheet reads as a formula (OWASP: a leading ' makes it text)."""
    text = str(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def one_line(text: str) -> str:
    """A run name on one line: a newline in it split a Markdown row, or put a blank line in LaTeX."""
    return " ".join(str(text).splitlines()) if ("\n" in str(text) or "\r" in str(text)) else str(text)


# --------------------------------------------------------------------------- the view's tests
def oriented(data: dict, measure: str, run: str, baseline: str) -> Comparison | None:
    """``run`` against ``baseline`` on ``measure`` from the pair's stored test (stored j − i)."""
    rows = data["pairs"].get(measure)
    if rows is None or run == baseline:
        return None
    i, j = data["runs"].index(baseline), data["runs"].index(run)
    delta, p, wins, losses, ties, floor = rows[pair_index(i, j, len(data["runs"]))]
    if j < i:  # stored as baseline − run
        delta, wins, losses = (None if delta is None else -delta), losses, wins
    return Comparison(delta, p, wins, losses, ties, floor)


def tests(data: dict, view: View) -> dict[str, dict[str, Comparison]]:
    """Per measure, each shown run against the baseline, p corrected over the shown runs tested."""
    out: dict[str, dict[str, Comparison]] = {}
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
    if data["test"] == "randomization":
        floor = (f" ≤: p at the randomization test's floor, 2/({data['resamples']:,} + 1) when the sign flips are "
                 "sampled.")
    return (f"Means over topics; best per column in bold; † significantly different from the baseline "
            f"{one_line(view.baseline)} (α = {data['alpha']}, {TEST_NAMES[data['test']]}, "
            f"{CORRECTION_NAMES[view.correction]} correction over the {len(view.shown) - 1} runs tested); Δ and p "
            f"against the baseline.{floor}")


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


def overview_markdown(data: dict, view: View | None = None) -> str:
    view = view or View.default(data)
    columns = _columns(data)
    lines = ["| run | " + " | ".join(name for _, name in columns) + " |",
             "|---|" + "|".join("---:" for _ in columns) + "|"]
    for run, cells in _rows(data, view):
        shown = []
        for cell in cells:
            if cell is None:
                shown.append("–")
                continue
            value, best, test = cell
            text = f"**{number(value)}**" if best else number(value)
            if test and test.delta is not None:
                text += f" ({signed(test.delta)}, p {corrected_p_text(test, data['alpha'])})"
                text += "†" if test.significant else ""
            shown.append(text)
        label = f"{one_line(run)} (baseline)" if run == view.baseline else one_line(run)
        lines.append(f"| {_markdown_escape(label)} | " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n\n" + _caption(data, view) + "\n"


def overview_latex(data: dict, view: View | None = None) -> str:
    view = view or View.default(data)
    columns = _columns(data)
    lines = ["% touche explore: needs \\usepackage{booktabs}", "\\begin{table}[t]", "  \\centering",
             f"  \\caption{{{_latex_escape(_caption(data, view))}}}",
             "  \\begin{tabular}{l" + "r" * len(columns) + "}", "    \\toprule",
             "    Run & " + " & ".join(_latex_escape(name) for _, name in columns) + " \\\\", "    \\midrule"]
    for run, cells in _rows(data, view):
        shown = []
        for cell in cells:
            if cell is None:
                shown.append("--")
                continue
            value, best, test = cell
            text = f"\\textbf{{{number(value)}}}" if best else number(value)
            shown.append(text + ("$^{\\dagger}$" if test and test.significant else ""))
        label = _latex_escape(one_line(run)) + (" (baseline)" if run == view.baseline else "")
        lines.append(f"    {label} & " + " & ".join(shown) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def per_topic_csv(data: dict, view: View | None = None) -> str:
    """Tidy per-topic values of the shown runs: the measures, stance F1 and accuracy per topic,
    and each run's agreement with the baseline (``measure`` ``RBO vs <baseline>``)."""
    view = view or View.default(data)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "query_id", "measure", "value"])
    stance_qrels = next((n for n, k in data["qrels"].items() if k == "stance"), None)
    runs, base = data["runs"], data["runs"].index(view.baseline)
    for topic in data["topics"]:
        agreed = decode_agreement(topic["agreement"], len(data["agreement_measures"])) \
            if topic["agreement"] is not None else None
        for run in view.shown:
            for measure in data["measures"]:
                value = topic["values"][run].get(measure)
                if value is not None:
                    writer.writerow([csv_text(run), csv_text(topic["id"]), csv_text(measure), csv_value(value)])
            found = topic["stance"].get(run) if topic.get("stance") else None
            if found and stance_qrels:
                writer.writerow([csv_text(run), csv_text(topic["id"]), csv_text(f"{stance_qrels}:stance.F1_macro"),
                                 csv_value(found[0])])
                writer.writerow([csv_text(run), csv_text(topic["id"]), csv_text(f"{stance_qrels}:stance.accuracy"),
                                 csv_value(found[1])])
            if agreed is not None and run != view.baseline:
                row = agreed[pair_index(runs.index(run), base, len(runs))]
                for measure, value in zip(data["agreement_measures"], row):
                    if not np.isnan(value):
                        writer.writerow([csv_text(run), csv_text(topic["id"]),
                                         csv_text(f"{measure} vs {one_line(view.baseline)}"), csv_value(float(value))])
    return out.getvalue()


EXPORTS = {"markdown": overview_markdown, "latex": overview_latex, "csv": per_topic_csv}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _markdown_escape(text: str) -> str:
    return str(text).replace("|", "\\|")
