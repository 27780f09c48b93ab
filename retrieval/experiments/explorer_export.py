"""The explorer's overview as a paper or a notebook wants it: Markdown and LaTeX tables, per-topic
values as CSV. One writer for the page's export buttons and ``touche explore --markdown/--latex/
--csv``: the page embeds what these return (for every baseline), the command writes them.

Layout as ranx's ``Report`` and PyTerrier's ``Experiment`` print it: a row per run, a column per
measure, the best value of each column in bold, a dagger where the run differs from the baseline
significantly after the correction (the test and correction named in the caption). LaTeX uses
booktabs rules (``\\usepackage{booktabs}``). The CSV is the tidy ``run,query_id,measure,value``
of ir_measures' ``iter_calc`` and ranx's per-topic scores.
"""
from __future__ import annotations

import csv
import io

from touche.retrieval.evaluation.agreement import pair_key
from touche.retrieval.experiments.report import format_number, format_p, format_signed

TEST_NAMES = {"randomization": "paired randomization test", "t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg", "none": "no"}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "†": r"$^{\dagger}$", "α": r"$\alpha$", "Δ": r"$\Delta$", "τ": r"$\tau$"}


def exports(data: dict) -> dict:
    """{"markdown": {baseline: text}, "latex": {baseline: text}, "csv": text}."""
    return {"markdown": {b: overview_markdown(data, b) for b in data["runs"]},
            "latex": {b: overview_latex(data, b) for b in data["runs"]}, "csv": per_topic_csv(data)}


def _columns(data: dict) -> list[tuple[str, str]]:
    """(kind, name): the effectiveness measures with qrels, else agreement with the baseline."""
    if data["measures"]:
        return [("measure", m) for m in data["measures"]]
    return [("agreement", m) for m in data["agreement_measures"]]


def agreement_of(data: dict, run: str, baseline: str, measure: str, topic: dict | None = None) -> float | None:
    """A run's agreement with the baseline on one measure: its mean, or on one topic."""
    if run == baseline:
        return None
    values = (topic["agreement"] if topic is not None else data["agreement"]).get(pair_key(data["runs"], run, baseline))
    return values[data["agreement_measures"].index(measure)] if values else None


def _value(data: dict, kind: str, name: str, run: str, baseline: str) -> float | None:
    if kind == "measure":
        return (data["cells"].get(run, {}).get(name) or {}).get("mean")
    return agreement_of(data, run, baseline, name)


def _test(data: dict, name: str, run: str, baseline: str) -> dict | None:
    return data["versus"].get(name, {}).get(baseline, {}).get(run)


def _best(data: dict, kind: str, name: str, baseline: str) -> float | None:
    if kind != "measure" or name.endswith(("Judged@5", "Judged@10", ".N")):
        return None  # how far a top is judged, or a count: no "best"
    values = [v for r in data["runs"] if (v := _value(data, kind, name, r, baseline)) is not None]
    return max(values) if values else None


def _caption(data: dict, baseline: str) -> str:
    if not data["measures"]:
        return (f"Agreement of each run's ranking with {baseline}'s (no judgements): means over the topics both "
                f"rank; RBO with p = {data['rbo_p']}, rank correlations over the union of the two top 10s.")
    return (f"Means over topics; best per column in bold; † significantly different from the baseline {baseline} "
            f"(α = 0.05, {TEST_NAMES[data['test']]}, {CORRECTION_NAMES[data['correction']]} correction over the "
            "runs tested); Δ and p against the baseline.")


def _rows(data: dict, baseline: str) -> list[tuple[str, list[tuple[float, bool, dict | None] | None]]]:
    """Per run: each column's (value, best in its column, test against the baseline), or None."""
    columns = _columns(data)
    best = [_best(data, kind, name, baseline) for kind, name in columns]
    rows = []
    for run in data["runs"]:
        cells = []
        for (kind, name), top in zip(columns, best):
            value = _value(data, kind, name, run, baseline)
            cells.append(None if value is None else
                         (value, value == top, _test(data, name, run, baseline) if kind == "measure" else None))
        rows.append((run, cells))
    return rows


def overview_markdown(data: dict, baseline: str) -> str:
    columns = _columns(data)
    lines = ["| run | " + " | ".join(name for _, name in columns) + " |",
             "|---|" + "|".join("---:" for _ in columns) + "|"]
    for run, cells in _rows(data, baseline):
        shown = []
        for cell in cells:
            if cell is None:
                shown.append("–")
                continue
            value, best, test = cell
            text = f"**{format_number(value)}**" if best else format_number(value)
            if test and test["delta"] is not None:
                text += f" ({format_signed(test['delta'])}, p {format_p(test['p_corrected'])})"
                text += "†" if test["significant"] else ""
            shown.append(text)
        label = f"{run} (baseline)" if run == baseline else run
        lines.append(f"| {_markdown_escape(label)} | " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n\n" + _caption(data, baseline) + "\n"


def overview_latex(data: dict, baseline: str) -> str:
    columns = _columns(data)
    lines = ["% touche explore: needs \\usepackage{booktabs}", "\\begin{table}[t]", "  \\centering",
             f"  \\caption{{{_latex_escape(_caption(data, baseline))}}}",
             "  \\begin{tabular}{l" + "r" * len(columns) + "}", "    \\toprule",
             "    Run & " + " & ".join(_latex_escape(name) for _, name in columns) + " \\\\", "    \\midrule"]
    for run, cells in _rows(data, baseline):
        shown = []
        for cell in cells:
            if cell is None:
                shown.append("--")
                continue
            value, best, test = cell
            text = f"\\textbf{{{format_number(value)}}}" if best else format_number(value)
            shown.append(text + ("$^{\\dagger}$" if test and test["significant"] else ""))
        label = _latex_escape(run) + (" (baseline)" if run == baseline else "")
        lines.append(f"    {label} & " + " & ".join(shown) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def per_topic_csv(data: dict) -> str:
    """Tidy per-topic values: the measures, stance F1 and accuracy per topic, and every pair's
    agreement (``run`` the first of the pair, ``measure`` ``RBO vs <the other>``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "query_id", "measure", "value"])
    stance_qrels = next((n for n, k in data["qrels"].items() if k == "stance"), None)
    runs = data["runs"]
    for topic in data["topics"]:
        for run in runs:
            for measure in data["measures"]:
                value = topic["values"][run].get(measure)
                if value is not None:
                    writer.writerow([run, topic["id"], measure, value])
            found = topic["stance"].get(run) if topic.get("stance") else None
            if found and stance_qrels:
                writer.writerow([run, topic["id"], f"{stance_qrels}:stance.F1_macro", found[0]])
                writer.writerow([run, topic["id"], f"{stance_qrels}:stance.accuracy", found[1]])
        for key, values in topic["agreement"].items():
            i, j = (int(x) for x in key.split("|"))
            for measure, value in zip(data["agreement_measures"], values):
                if value is not None:
                    writer.writerow([runs[i], topic["id"], f"{measure} vs {runs[j]}", value])
    return out.getvalue()


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _markdown_escape(text: str) -> str:
    return str(text).replace("|", "\\|")
