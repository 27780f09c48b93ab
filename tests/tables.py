"""Reading the score tables the commands print, by column name (a column added to a table must
not shift what a test reads)."""
from __future__ import annotations


def table_rows(text: str) -> list[dict[str, str]]:
    """The rows of the first markdown table in ``text``, as {column: cell}."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    if len(lines) < 2:
        raise AssertionError(f"no table in:\n{text}")
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:  # after the header and its rule
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == len(header):
            rows.append(dict(zip(header, cells)))
    return rows


def table_value(text: str, column: str, row: int = -1) -> float:
    """The figure in ``column`` (or ``<qrels name>:column``, the one such column) of a row (the
    last by default); a "(n)" suffix (the topics a mean is over) is dropped."""
    chosen = table_rows(text)[row]
    names = [name for name in chosen if name == column or name.endswith(":" + column)]
    if len(names) != 1:
        raise AssertionError(f"not one column {column!r} among {list(chosen)}")
    return float(chosen[names[0]].split()[0])
