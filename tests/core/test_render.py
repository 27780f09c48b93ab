"""The one renderer (touche/render.py) and every table writer that goes through it: a name of any
characters stays one cell of one row, is never HTML in Markdown, is text in LaTeX, and is never a
formula in a spreadsheet; numbers are written one way; a missing value is one glyph."""
from __future__ import annotations

import csv
import io
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from touche.render import MISSING, Cell, escape, number, p_text, rank_of, signed, table
from touche.retrieval.evaluation.report import Report, RunScores
from touche.retrieval.experiments.comparison import compare_scores, format_comparison
from touche.retrieval.experiments.explorer.export import EXPORTS
from touche.retrieval.experiments.sweep.reports import format_csv

FORMULA = ("=", "+", "-", "@", "\t", "\r")
NAMES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
HOSTILE = ["x|y<img src=x onerror=alert(1)>.txt", '"><svg onload=alert(1)>', "a\\|b", "\\", "=1+2", "+HYPERLINK(\"x\")",
           "-3", "@SUM(A1)", "\tx", "\rx", "two\nlines", "50%_&$#{}~^", "a\u2028b", "**bold**", "&lt;"]


# --------------------------------------------------------------------------- reading each format back
def markdown_cells(line: str) -> list[str]:
    """A GFM table row split as a renderer splits it: at every pipe no backslash escapes (``\\\\``
    is an escaped backslash, so the pipe after it ends the cell)."""
    assert line.startswith("| ") and line.endswith(" |"), line
    cells, current, i = [], "", 1
    body = line[1:-1]
    while i <= len(body):
        c = body[i - 1] if i - 1 < len(body) else ""
        if c == "\\" and i < len(body):
            current += body[i - 1:i + 1]
            i += 2
            continue
        if c == "|":
            cells.append(current)
            current = ""
        else:
            current += c
        i += 1
    cells.append(current)
    return [c.strip() for c in cells]


def markdown_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.split("\n") if line.startswith("|")]
    return [markdown_cells(line) for i, line in enumerate(lines) if i != 1]


_LATEX_ESCAPES = re.compile(r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}"
                            r"|\\[&%$#_{}]|\$\^\{\\dagger\}\$|\$\\(alpha|Delta|tau|leq|pm)\$|\\textbf\{|--")


def latex_cells(line: str) -> list[str]:
    """A tabular row's cells, every escape sequence taken out first: what remains holds no special."""
    line = line.strip()
    assert line.endswith(r" \\"), line
    plain = _LATEX_ESCAPES.sub("·", line[:-3])
    plain = re.sub(r"·([^{}]*)\}", r"·\1", plain)  # the brace closing \textbf{
    assert not set(plain) & set("\\%$#_{}~^<>|\n"), (line, plain)
    return plain.split("&")


def check_markdown(text: str, width: int, rows: int) -> None:
    parsed = markdown_rows(text)
    assert len(parsed) == rows + 1 and all(len(r) == width for r in parsed), parsed
    table_lines = [line for line in text.split("\n") if line.startswith("|")]
    assert not any(c in line for line in table_lines for c in "<>"), table_lines


def check_latex(text: str, width: int, rows: int) -> None:
    body = text.split("\\midrule\n", 1)[1].split("    \\bottomrule", 1)[0]
    lines = body.rstrip("\n").split("\n")
    assert len(lines) == rows and all(len(latex_cells(line)) == width for line in lines), lines
    header = text.split("\\toprule\n", 1)[1].split("\n", 1)[0]
    assert len(latex_cells(header)) == width


def check_csv(text: str, width: int) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    assert all(len(r) == width for r in rows)
    return rows


# --------------------------------------------------------------------------- the rule, over arbitrary names
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES | st.sampled_from(HOSTILE), min_size=1, max_size=4, unique=True))
def test_any_name_is_one_cell_of_its_row_in_every_table_writer(names):
    """Run names through the report (Markdown as evaluate prints it, per topic, LaTeX, CSV), the
    renderer in both Markdown layouts, compare's report and a sweep's results.csv: the row has
    its number of cells, no raw < or > remains, LaTeX's specials are commands, the CSV reads back
    to the names (a formula one behind a ')."""
    report = Report(measures=["relevance:touche.nDCG@5", "m"], runs=[
        RunScores(name=name, means={"relevance:touche.nDCG@5": 0.5, "m": None}, topics={"relevance:touche.nDCG@5": 2},
                  per_topic={"relevance:touche.nDCG@5": {"1": 0.25, "t" + name: 0.75}}) for name in names],
        headers={"relevance:touche.nDCG@5": names[0], "m": "m"})
    check_markdown(report.markdown(), 4, len(names))
    check_markdown(report.markdown(per_topic=True), 4, 3 * len(names))
    check_latex(report.latex(), 4, len(names))
    check_latex(report.latex(per_topic=True), 4, 3 * len(names))
    rows = check_csv(report.csv(), 5)
    assert {r[0] for r in rows[1:]} == {"'" + n if n.startswith(FORMULA) else n for n in names}
    assert not any(cell.startswith(FORMULA) for row in rows for cell in row[:3])
    for pad in (False, True):
        check_markdown(table("markdown", ["run", *names], [[n, *names] for n in names], pad=pad),
                       len(names) + 1, len(names))
    cmp = compare_scores({"1": 0.5, "2": 0.25}, {"1": 0.75, "2": 0.25}, name_a=names[0], name_b=names[-1])
    text = format_comparison(cmp)
    assert not any(c in text for c in "<>\r\u2028") and text.split("\n")[0].startswith("## ")
    for block in text.split("\n\n"):
        if block.startswith("|"):
            widths = {len(r) for r in markdown_rows(block)}
            assert len(widths) == 1, block
    results = check_csv(format_csv(["point", "value"], [[1, n] for n in names]), 2)
    assert [r[1] for r in results[1:]] == ["'" + n if n.startswith(FORMULA) else n for n in names]


def _explorer_data(names: list[str]) -> dict:
    """A page's data of runs named ``names``: one measure, two topics, each run tested against the first."""
    runs = list(names)
    pairs = [[0.25, 0.01, 2, 0, 0, None] for _ in range(len(runs) * (len(runs) - 1) // 2)]
    return {"runs": runs, "baseline": runs[0], "correction": "holm", "measures": ["relevance:touche.nDCG@5"],
            "agreement_measures": ["RBO"], "agreement": [[0.5] for _ in pairs],
            "pairs": {"relevance:touche.nDCG@5": pairs},
            "cells": {r: {"relevance:touche.nDCG@5": {"mean": 0.5 + i / 10, "ci": [0.1, 0.9], "topics": 2}}
                      for i, r in enumerate(runs)},
            "alpha": 0.05, "test": "randomization", "test_name": "paired randomization test",
            "correction_names": {"holm": "Holm"}, "resamples": 1000, "rbo_p": 0.9,
            "headers": {"relevance:touche.nDCG@5": runs[0]}, "qrels": {"relevance": "relevance"},
            "topics": [{"id": t, "values": {r: {"relevance:touche.nDCG@5": 0.5} for r in runs}, "stance": {},
                        "agreement": None} for t in ("1", "2")]}


@settings(max_examples=100, deadline=None)
@given(names=st.lists(NAMES | st.sampled_from(HOSTILE), min_size=2, max_size=4, unique=True))
def test_any_run_name_is_one_cell_of_the_explorers_exports(names):
    """The explorer's Markdown, LaTeX and CSV exports of runs named anything (the page writes the
    same bytes: tests/experiments/test_explorer_exports.py holds the two equal in a browser)."""
    data = _explorer_data(names)
    markdown = EXPORTS["markdown"](data)
    check_markdown(markdown.split("\n\n")[0], 3, len(names))
    assert not any(c in markdown for c in "<>")  # the caption names the baseline: escaped too
    check_latex(EXPORTS["latex"](data), 3, len(names))
    rows = check_csv(EXPORTS["csv"](data), 4)
    assert not any(cell.startswith(FORMULA) for row in rows for cell in row[:3])


# --------------------------------------------------------------------------- cases by hand
def test_markdown_escapes_the_cell_end_html_and_the_backslash_before_a_pipe():
    assert escape("x|y<img src=x onerror=alert(1)>.txt", "markdown") == "x\\|y&lt;img src=x onerror=alert(1)&gt;.txt"
    assert escape("a\\|b", "markdown") == "a\\\\\\|b"  # the backslash escaped, then the pipe
    assert escape("two\nlines\r\nhere", "markdown") == "two lines here"
    assert escape("a & b", "markdown") == "a &amp; b"


def test_latex_specials_are_commands_and_the_missing_glyph_is_an_en_dash():
    assert escape("50%_&$#{}~^\\<>|", "latex") == (r"50\%\_\&\$\#\{\}\textasciitilde{}\textasciicircum{}"
                                                     r"\textbackslash{}\textless{}\textgreater{}\textbar{}")
    assert escape(MISSING, "latex") == "--"
    assert escape("Δ ≤ ± †", "latex") == r"$\Delta$ $\leq$ $\pm$ $^{\dagger}$"


@pytest.mark.parametrize("text", ["=1+2", "+HYPERLINK(\"http://x\",\"y\")", "-2+3", "@SUM(A1:A2)", "\tx", "\rx"])
def test_a_csv_text_cell_starting_a_formula_gets_a_quote(text):
    assert escape(text, "csv") == "'" + text
    assert check_csv(table("csv", ["a"], [[text]]), 1)[1] == ["'" + text]


def test_csv_numbers_stay_numbers_and_a_missing_one_is_empty():
    assert table("csv", ["a", "b", "c", "d"], [[-0.5, 3, math.nan, None]]) == "a,b,c,d\n-0.5,3,,\n"


def test_emphasis_is_written_by_the_format_around_escaped_text():
    cell = Cell("0.500", bold=True, note=" (+0.012, p ≤ 0.002, n 47)", dagger=True)
    assert table("markdown", ["m"], [[cell]]).split("\n")[2] == "| **0.500** (+0.012, p ≤ 0.002, n 47)† |"
    assert r"\textbf{0.500} (+0.012, p $\leq$ 0.002, n 47)$^{\dagger}$ \\" in table("latex", ["m"], [[cell]])


def test_numbers_one_way():
    assert [number(None), number(math.nan), number(12), number(0.5), number(-0.0), number(1e308)] == \
        [MISSING, MISSING, "12", "0.500", "0.000", "1e+308"]
    assert number(0.123456, 2) == "0.12" and number(1234567.0) == "1.23e+06"
    assert [signed(0.0004), signed(-0.0004), signed(0.25), signed(-0.25)] == ["±0.000", "±0.000", "+0.250", "-0.250"]
    assert [p_text(None), p_text(0.0004), p_text(0.049595), p_text(0.5)] == [MISSING, "4.0e-4", "0.0496", "0.500"]
    assert [rank_of(3, 12), rank_of(math.nan, 12)] == ["3 of 12", MISSING]


def test_every_writer_shows_a_missing_value_as_the_one_glyph():
    """evaluate's table, compare's report, a sweep's Markdown and the explorer's Markdown export
    said - in some and – in others."""
    report = Report.of_means({"a": {"m": math.nan, "n": 0.5}})
    assert report.markdown().split("\n")[2].split("|")[2].strip() == MISSING
    cmp = compare_scores({}, {}, name_a="a", name_b="b")
    assert f"| mean over the 0 common topics | {MISSING} | {MISSING} | {MISSING} |" in format_comparison(cmp)
