"""Tables and numbers as people and programs read them: Markdown, LaTeX (booktabs) and CSV, one
escaping for every cell, one way to write a number, one glyph for a value that is not there.

Every table the toolkit writes (evaluate's, compare's report, the explorer's exports, a sweep's
results, choose's choice.md) is laid out here, and every text in it (a run's file name, a swept
value, a measure, a topic id) passes ``escape`` for its format: in Markdown it cannot end its cell
(``|``), start HTML (``<``, ``>``, ``&``) or break its row; in LaTeX its specials are commands;
in CSV no spreadsheet reads it as a formula (OWASP: a cell starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return gets a ``'`` first); the csv module quotes the rest.

Why not tabulate (or pandas' ``to_markdown``, which is tabulate): its Markdown formats escape
nothing (a ``|`` in a name splits the row, ``<img …>`` passes raw) and its LaTeX pads before it
escapes; the layout it would add is a few lines here, the escaping is the part that matters, and
the explorer's page writes the same tables in its script (``explorer-model.js``) byte for byte.
"""
from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

MISSING = "–"  # a value that is not there; LaTeX writes it --, a CSV cell is left empty
FORMATS = ("markdown", "latex", "csv")

_MARKDOWN = {"\\": "\\\\", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
          ">": r"\textgreater{}", "|": r"\textbar{}", "†": r"$^{\dagger}$", "α": r"$\alpha$", "Δ": r"$\Delta$",
          "τ": r"$\tau$", "≤": r"$\leq$", "±": r"$\pm$", "–": "--"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def one_line(text: Any) -> str:
    """Text on one line (as ``" ".join(text.splitlines())``): a line break in a name split a
    Markdown row and put a paragraph break into LaTeX."""
    text = str(text)
    return " ".join(text.splitlines()) if any(c in text for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029") else text


def escape(text: Any, fmt: str) -> str:
    """``text`` as a cell (or caption) of a ``fmt`` table says it, and nothing more: the one
    escaping of every table the toolkit writes."""
    if fmt == "markdown":
        return "".join(_MARKDOWN.get(c, c) for c in one_line(text))
    if fmt == "latex":
        return "".join(_LATEX.get(c, c) for c in one_line(text))
    if fmt == "csv":
        text = str(text)
        return "'" + text if text.startswith(_FORMULA_START) else text
    raise ValueError(f"no table format {fmt!r} (known: {', '.join(FORMATS)})")


# --------------------------------------------------------------------------- numbers
def missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fixed(value: float, digits: int = 3) -> str:
    return f"{0.0 if value == 0 else value:.{digits}f}"


def number(value: Any, digits: int = 3, missing_text: str = MISSING) -> str:
    """A score, weight or count: ``digits`` decimals for a float (huge magnitudes in short
    exponent form: a weight of 1e308 is not 309 digits), a whole number as it is, ``MISSING``
    for None or NaN."""
    if missing(value):
        return missing_text
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(value)
    value = float(value)
    if math.isfinite(value) and abs(value) >= 1e6:
        return f"{value:.3g}"
    return fixed(value, digits)


def signed(value: float, digits: int = 3) -> str:
    """A difference with its sign; one that rounds to zero has none (±0.000)."""
    text = f"{0.0 if value == 0 else value:+.{digits}f}"
    return "±" + text[1:] if text.lstrip("+-").strip("0.") == "" else text


def at_floor(p: float | None, floor: float | None) -> bool:
    """Whether a randomization test's p is its floor: the true p may be lower still."""
    return p is not None and floor is not None and not math.isnan(floor) and p <= floor * (1 + 1e-9)


def p_text(p: float | None, alpha: float = 0.05, floor: float | None = None) -> str:
    """A p-value whose digits never disagree with its mark: three decimals, more where rounding
    would cross ``alpha`` (0.049595 is 0.0496, not 0.050), an exponent below 0.001; at the
    randomization test's floor ``≤`` the floor."""
    if p is None or math.isnan(p):
        return MISSING
    if floor is not None and at_floor(p, floor):
        return "≤ " + p_text(floor, alpha)
    if p < 0.001:
        return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{p:.1e}")
    for digits in range(3, 13):
        text = fixed(p, digits)
        if (float(text) < alpha) == (p < alpha):
            return text
    return repr(p)


def rank_of(rank: float | None, points: int) -> str:
    """``3 of 12``; ``MISSING`` for a point without a rank (no score there)."""
    return MISSING if missing(rank) else f"{rank:.0f} of {points}"


def csv_value(value: float) -> str:
    """A value in a CSV: six decimals, trailing zeros dropped."""
    text = fixed(value, 6).rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


# --------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class Cell:
    """A cell with emphasis: ``text`` (escaped for the format), in bold when ``bold``, then
    ``note`` (escaped too) and a dagger when ``dagger``."""
    text: str
    bold: bool = False
    note: str = ""
    dagger: bool = False


CellLike = Any  # a Cell, a str (text, escaped) or a number (``number``)


def cell_text(cell: CellLike, fmt: str, digits: int = 3, csv_number=str) -> str:
    """One cell of a ``fmt`` table: text escaped, numbers written by ``number`` (in a CSV by
    ``csv_number``, whole precision by default, a missing one empty), emphasis as the format
    writes it."""
    if not isinstance(cell, Cell):
        if fmt == "csv":
            if missing(cell):
                return ""
            numeric = isinstance(cell, numbers.Real) and not isinstance(cell, bool)
            return csv_number(cell) if numeric else escape(str(cell), fmt)
        cell = Cell(cell if isinstance(cell, str) else number(cell, digits))
    if fmt == "csv":
        return escape(cell.text + cell.note + ("†" if cell.dagger else ""), fmt)
    text = escape(cell.text, fmt)
    if fmt == "markdown":
        text = f"**{text}**" if cell.bold else text
        return text + escape(cell.note, fmt) + ("†" if cell.dagger else "")
    text = f"\\textbf{{{text}}}" if cell.bold else text
    return text + escape(cell.note, fmt) + ("$^{\\dagger}$" if cell.dagger else "")


def markdown_table(header: Sequence[CellLike], rows: Iterable[Sequence[CellLike]], align: str = "",
                   *, pad: bool = False, digits: int = 3) -> str:
    """A Markdown (GFM) table. ``align``: a letter per column, ``l`` or ``r`` (default: the first
    column left, the rest right). ``pad``: columns padded to one width, readable as plain text."""
    head = [cell_text(c, "markdown", digits) for c in header]
    body = [[cell_text(c, "markdown", digits) for c in row] for row in rows]
    align = (align or "l" + "r" * (len(head) - 1)).ljust(len(head), "r")
    if not pad:
        rule = "|" + "|".join("---" if a == "l" else "---:" for a in align) + "|"
        return "\n".join(["| " + " | ".join(head) + " |", rule, *("| " + " | ".join(r) + " |" for r in body)])
    widths = [max(3, *(len(r[i]) for r in [head, *body])) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, align)) + " |"
    rule = "|" + "|".join("-" * (w + 2) if a == "l" else "-" * (w + 1) + ":" for w, a in zip(widths, align)) + "|"
    return "\n".join([line(head), rule, *(line(r) for r in body)])


def latex_table(header: Sequence[CellLike], rows: Iterable[Sequence[CellLike]], align: str = "", *,
                caption: str | None = None, comment: str = "", digits: int = 3) -> str:
    """A booktabs table (``\\usepackage{booktabs}``) in a ``table`` float with its caption."""
    head = [cell_text(c, "latex", digits) for c in header]
    align = (align or "l" + "r" * (len(head) - 1)).ljust(len(head), "r")
    lines = [f"% {comment}needs \\usepackage{{booktabs}}", "\\begin{table}[t]", "  \\centering"]
    if caption is not None:
        lines.append(f"  \\caption{{{escape(caption, 'latex')}}}")
    lines += [f"  \\begin{{tabular}}{{{align}}}", "    \\toprule", "    " + " & ".join(head) + " \\\\", "    \\midrule"]
    lines += ["    " + " & ".join(cell_text(c, "latex", digits) for c in row) + " \\\\" for row in rows]
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def csv_field(text: str) -> str:
    """A CSV field quoted as RFC 4180 asks: in double quotes (doubled inside) when it holds a comma,
    a quote or a line break. Not the csv module's: with ``\\n`` line ends it leaves a lone ``\\r``
    unquoted, which ends the row for every reader."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') else text


def csv_table(header: Sequence[CellLike], rows: Iterable[Sequence[CellLike]], csv_number=str) -> str:
    """CSV (RFC 4180 quoting, ``\\n`` line ends, as Python's csv module reads it back): text cells
    neutralised against formulas, numbers by ``csv_number`` (whole precision by default), missing
    values empty."""
    lines = [",".join(csv_field(cell_text(c, "csv")) for c in header)]
    lines += [",".join(csv_field(cell_text(c, "csv", csv_number=csv_number)) for c in row) for row in rows]
    return "".join(line + "\n" for line in lines)


def table(fmt: str, header: Sequence[CellLike], rows: Iterable[Sequence[CellLike]], align: str = "", **options) -> str:
    """A table in ``fmt`` (``markdown``, ``latex`` or ``csv``)."""
    if fmt == "markdown":
        return markdown_table(header, rows, align, **options)
    if fmt == "latex":
        return latex_table(header, rows, align, **options)
    if fmt == "csv":
        return csv_table(header, rows, **options)
    raise ValueError(f"no table format {fmt!r} (known: {', '.join(FORMATS)})")
