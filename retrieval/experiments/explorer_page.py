"""The explorer's page: its data (``explorer.explorer_data``) rendered with the package's
templates (``templates/explorer.html``, ``.css``, ``.js``) by Jinja2 with autoescaping.

Python prepares view models (numbers formatted, bars placed); the template writes the markup, and
every value from a run, a qrels or a topic file is escaped by the engine, not by hand. The data
the script reads is embedded as JSON that no HTML parser can read as markup (``script_json``).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from touche.retrieval.evaluation.significance import TIE_TOLERANCE
from touche.retrieval.experiments.report import format_number, format_p, format_signed
from touche.retrieval.formats.runfile import natural_key

TEMPLATES = Path(__file__).resolve().parent / "templates"
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 600.0, 110.0, 3.0
_CSS_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_DATA_URI = re.compile(r"^data:image/[a-z]+;base64,[A-Za-z0-9+/=]+$")


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]),
                       undefined=StrictUndefined, keep_trailing_newline=True)


def script_json(value) -> str:
    """JSON safe inside a ``<script>`` element: every ``<`` (so no ``</script>``, and no ``<!--``,
    which would make the parser swallow the following script), ``>`` and ``&`` escaped as JSON
    unicode escapes (the data they encode is unchanged)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _css(value: float) -> str:
    return "up" if value > TIE_TOLERANCE else "down" if value < -TIE_TOLERANCE else ""


def overview(data: dict) -> list[dict]:
    """Runs × measures: the mean with its interval, and under it the difference to the baseline."""
    by_cell = {(r["run"], r["measure"]): r for r in data["overview"]}
    out = []
    for number, name in enumerate(data["runs"], 1):
        cells = []
        for measure in data["measures"]:
            row = by_cell.get((name, measure))
            if row is None or row["mean"] is None:
                cells.append(None)
                continue
            delta = None
            if name != data["baseline"] and row["delta"] is not None:
                delta = {"css": _css(row["delta"]), "value": format_signed(row["delta"]),
                         "significant": bool(row["significant"]), "p": format_p(row["p"]),
                         "p_corrected": format_p(row["p_corrected"]), "wins": row["wins"], "losses": row["losses"],
                         "topics": row["topics"] or 0}
            cells.append({"mean": format_number(row["mean"]),
                          "ci": (format_number(row["ci_low"]), format_number(row["ci_high"]))
                          if row["ci_low"] is not None else None,
                          "baseline": name == data["baseline"], "delta": delta})
        out.append({"number": number, "name": name, "cells": cells})
    return out


def delta_chart(data: dict, name: str) -> dict:
    """Bars of run − baseline per topic on the main measure, sorted; each a link to its topic."""
    main, base = data["main"], data["baseline"]
    deltas = []
    for topic in data["topics"]:
        a, b = topic["values"][base].get(main), topic["values"][name].get(main)
        if a is not None and b is not None:
            deltas.append((b - a, topic["id"]))
    deltas.sort(key=lambda d: (d[0], natural_key(d[1])))
    chart = {"run": name, "baseline": base, "measure": main, "width": f"{CHART_WIDTH:.0f}",
             "height": f"{CHART_HEIGHT:.0f}", "axis": f"{CHART_HEIGHT / 2:.1f}", "bars": []}
    if not deltas:
        return chart
    step = (CHART_WIDTH - 2 * CHART_PAD) / len(deltas)
    scale = (CHART_HEIGHT / 2 - CHART_PAD) / max(1e-9, max(abs(d) for d, _ in deltas))
    for i, (delta, qid) in enumerate(deltas):
        height = abs(delta) * scale
        chart["bars"].append({"topic": qid, "css": _css(delta) or "tie", "x": f"{CHART_PAD + i * step:.2f}",
                              "y": f"{CHART_HEIGHT / 2 - height if delta > 0 else CHART_HEIGHT / 2:.2f}",
                              "width": f"{max(step * 0.8, 0.5):.2f}", "height": f"{max(height, 0.8):.2f}",
                              "delta": f"{delta:+.3f}"})
    wins = sum(d > TIE_TOLERANCE for d, _ in deltas)
    losses = sum(d < -TIE_TOLERANCE for d, _ in deltas)
    return {**chart, "wins": wins, "losses": losses, "ties": len(deltas) - wins - losses}


def topic_rows(data: dict) -> list[dict]:
    """Every topic's main-measure value per run: the no-JavaScript view of the topics."""
    return [{"id": t["id"], "title": t["title"],
             "cells": [format_number(t["values"][n].get(data["main"])) for n in data["runs"]]} for t in data["topics"]]


def thumbnail_rules(thumbnails: dict[str, str]) -> Markup:
    """CSS rules naming each image's thumbnail; only plain ids and base64 image URIs get in."""
    rules = [f'.t-{docid} {{ background-image: url("{uri}"); }}' for docid, uri in thumbnails.items()
             if _CSS_NAME.fullmatch(docid) and _DATA_URI.fullmatch(uri)]
    return Markup("\n".join(rules))


def render_explorer(data: dict) -> str:
    """The page: static overview, charts and topic table; the topic view rendered by the script."""
    template = _environment().get_template("explorer.html")
    return template.render(
        data=data, overview=overview(data), topic_rows=topic_rows(data),
        charts=[delta_chart(data, n) for n in data["runs"] if n != data["baseline"]],
        style=Markup((TEMPLATES / "explorer.css").read_text(encoding="utf-8")),
        script=Markup((TEMPLATES / "explorer.js").read_text(encoding="utf-8")),
        thumbnails=thumbnail_rules(data["thumbnails"]),
        payload=Markup(script_json({k: v for k, v in data.items() if k != "thumbnails"})))
