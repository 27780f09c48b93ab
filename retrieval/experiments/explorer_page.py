"""The explorer's page: its data (``explorer_data``) rendered with the package's templates
(``templates/explorer.html``, ``.css``, ``.js``) by Jinja2 with autoescaping.

Python prepares view models for what the page shows without JavaScript (the overview against
the default baseline, the confusion matrices, the charts, the topic table); the script redraws
the overview and charts when the reader picks another baseline, hides runs or sorts, from the
same embedded data (every baseline's tests are in it). Every value from a run, a qrels or a
topic file is escaped by the engine, not by hand; the data the script reads is embedded as JSON
that no HTML parser can read as markup (``script_json``).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from touche.retrieval.evaluation.significance import TIE_TOLERANCE
from touche.retrieval.experiments.explorer_export import CORRECTION_NAMES, TEST_NAMES, agreement_of
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


def _agreement(data: dict, run: str) -> list[str]:
    return [format_number(agreement_of(data, run, data["baseline"], m)) for m in data["agreement_measures"]]


def overview(data: dict) -> list[dict]:
    """Runs × measures against the default baseline: the mean with its interval and under it the
    difference to the baseline; then the agreement with the baseline's ranking."""
    base = data["baseline"]
    best = {m: max((c["mean"] for r in data["runs"] if (c := data["cells"].get(r, {}).get(m)) and c["mean"] is not None),
                   default=None) for m in data["measures"]}
    out = []
    for number, name in enumerate(data["runs"], 1):
        cells = []
        for measure in data["measures"]:
            cell = data["cells"].get(name, {}).get(measure)
            predicts = data["stance"].get(name, {}).get("predicts", True)
            if measure.endswith("stance.F1_macro") and not predicts:
                cells.append({"none": "predicts no stance"})
                continue
            if cell is None or cell["mean"] is None:
                cells.append(None)
                continue
            test = data["versus"].get(measure, {}).get(base, {}).get(name)
            delta = None
            if name != base and test and test["delta"] is not None:
                delta = {"css": _css(test["delta"]), "value": format_signed(test["delta"]),
                         "significant": bool(test["significant"]), "p": format_p(test["p"]),
                         "p_corrected": format_p(test["p_corrected"]), "wins": test["wins"],
                         "losses": test["losses"], "topics": test["topics"] or 0}
            cells.append({"mean": format_number(cell["mean"]), "best": cell["mean"] == best[measure],
                          "ci": tuple(format_number(v) for v in cell["ci"]) if cell["ci"][0] is not None else None,
                          "baseline": name == base, "delta": delta})
        out.append({"number": number, "name": name, "cells": cells, "agreement": _agreement(data, name)})
    return out


def confusion_tables(data: dict) -> list[dict]:
    """Each stance-predicting run's confusion matrix (judged stance × predicted stance)."""
    labels = data["stance_labels"]
    return [{"run": run, "rows": [{"truth": labels[i], "counts": row} for i, row in enumerate(found["confusion"])]}
            for run, found in data["stance"].items() if found["confusion"] is not None]


def delta_chart(data: dict, name: str) -> dict:
    """Bars of run − baseline per topic on the main measure (without qrels: the agreement with
    the baseline, lowest first), sorted; each opens its topic."""
    main, base = data["main"], data["baseline"]
    values = []
    for topic in data["topics"]:
        if data["measures"]:
            a, b = topic["values"][base].get(main), topic["values"][name].get(main)
            if a is not None and b is not None:
                values.append((b - a, topic["id"]))
        else:
            value = agreement_of(data, name, base, main, topic)
            if value is not None:
                values.append((value, topic["id"]))
    values.sort(key=lambda d: (d[0], natural_key(d[1])))
    chart = {"run": name, "baseline": base, "measure": main, "width": f"{CHART_WIDTH:.0f}",
             "height": f"{CHART_HEIGHT:.0f}", "axis": f"{CHART_HEIGHT / 2 if data['measures'] else CHART_HEIGHT:.1f}",
             "bars": [], "difference": bool(data["measures"])}
    if not values:
        return chart
    step = (CHART_WIDTH - 2 * CHART_PAD) / len(values)
    if data["measures"]:
        scale = (CHART_HEIGHT / 2 - CHART_PAD) / max(1e-9, max(abs(d) for d, _ in values))
        zero = CHART_HEIGHT / 2
    else:  # agreement in [−1, 1] (τ) or [0, 1]: bars up from the bottom, full height 1
        scale, zero = CHART_HEIGHT - 2 * CHART_PAD, CHART_HEIGHT - CHART_PAD
    for i, (value, qid) in enumerate(values):
        height = abs(value) * scale
        chart["bars"].append({"topic": qid, "css": (_css(value) or "tie") if data["measures"] else "agree",
                              "x": f"{CHART_PAD + i * step:.2f}",
                              "y": f"{zero - height if value > 0 else zero:.2f}",
                              "width": f"{max(step * 0.8, 0.5):.2f}", "height": f"{max(height, 0.8):.2f}",
                              "value": f"{value:+.3f}" if data["measures"] else f"{value:.3f}"})
    wins = sum(d > TIE_TOLERANCE for d, _ in values)
    losses = sum(d < -TIE_TOLERANCE for d, _ in values)
    return {**chart, "wins": wins, "losses": losses, "ties": len(values) - wins - losses}


def topic_rows(data: dict) -> list[dict]:
    """Every topic's main value per run: the no-JavaScript view of the topics."""
    if data["measures"]:
        return [{"id": t["id"], "title": t["title"],
                 "cells": [format_number(t["values"][n].get(data["main"])) for n in data["runs"]]} for t in data["topics"]]
    return [{"id": t["id"], "title": t["title"],
             "cells": [format_number(agreement_of(data, n, data["baseline"], data["main"], t)) for n in data["runs"]]}
            for t in data["topics"]]


def thumbnail_rules(thumbnails: dict[str, str]) -> Markup:
    """CSS rules naming each image's thumbnail; only plain ids and base64 image URIs get in."""
    rules = [f'.t-{docid} {{ background-image: url("{uri}"); }}' for docid, uri in thumbnails.items()
             if _CSS_NAME.fullmatch(docid) and _DATA_URI.fullmatch(uri)]
    return Markup("\n".join(rules))


def render_explorer(data: dict) -> str:
    """The page: static overview, charts and topic table; the controls and the topic view by the script."""
    template = _environment().get_template("explorer.html")
    return template.render(
        data=data, overview=overview(data), topic_rows=topic_rows(data), confusions=confusion_tables(data),
        charts=[delta_chart(data, n) for n in data["runs"] if n != data["baseline"]],
        test_name=TEST_NAMES[data["test"]], correction_name=CORRECTION_NAMES[data["correction"]],
        style=Markup((TEMPLATES / "explorer.css").read_text(encoding="utf-8")),
        script=Markup((TEMPLATES / "explorer.js").read_text(encoding="utf-8")),
        thumbnails=thumbnail_rules(data["thumbnails"]),
        payload=Markup(script_json({k: v for k, v in data.items() if k != "thumbnails"})))
