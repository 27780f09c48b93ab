"""The explorer's page: its data (``data``) rendered with the package's templates
(``templates/explorer.html``, ``.css``, ``.js``) by Jinja2 with autoescaping.

Python renders what the page shows without JavaScript, for its first view (``export.View``:
every run, the default baseline): the overview, the agreement heat map, the confusion matrices,
the charts and the topic table. The script redraws all of them from the embedded data whenever
the reader picks another baseline, hides runs, sorts or changes the correction, so that every
view and export shows the same state. Every value from a run, a qrels or a topic file is escaped
by the engine, not by hand; the data the script reads is embedded as JSON that no HTML parser can
read as markup (``script_json``).
"""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from touche.render import one_line, p_text, signed
from touche.retrieval.evaluation.agreement import pair_index
from touche.retrieval.evaluation.significance import TIE_TOLERANCE
from touche.retrieval.experiments.explorer.data import decode_agreement
from touche.retrieval.experiments.explorer.export import (
    View,
    agreement_of,
    corrected_p_text,
    has_best,
    number,
    tests,
)
from touche.retrieval.formats.runfile import natural_key

TEMPLATES = Path(__file__).resolve().parent / "templates"
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 600.0, 110.0, 3.0
_CSS_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_DATA_URI = re.compile(r"^data:image/[a-z]+;base64,[A-Za-z0-9+/=]+$")


@lru_cache(maxsize=1)
def _environment() -> Environment:
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]),
                              undefined=StrictUndefined, keep_trailing_newline=True)
    environment.filters["breakable"] = breakable
    return environment


def breakable(name: str) -> Markup:
    """A measure's name that wraps after ``:`` and ``.`` only (``relevance:<wbr>touche.<wbr>nDCG@5``),
    never inside a word (it broke as "relevance:touche.nD / CG@5")."""
    return Markup(re.sub(r"([:.])", r"\1<wbr>", str(escape(name))))


def script_json(value) -> str:
    """JSON safe inside a ``<script>`` element: every ``<`` (so no ``</script>``, and no ``<!--``,
    which would make the parser swallow the following script), ``>`` and ``&`` escaped as JSON
    unicode escapes (the data they encode is unchanged)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _css(value: float) -> str:
    return "up" if value > TIE_TOLERANCE else "down" if value < -TIE_TOLERANCE else ""


def overview(data: dict, view: View) -> list[dict]:
    """Shown runs × measures against the baseline: the mean with its interval and under it the
    difference to the baseline; then the agreement with the baseline's ranking."""
    base = view.baseline
    found = tests(data, view)
    best = {}
    for m in data["measures"]:
        values = [c["mean"] for r in view.shown if (c := data["cells"].get(r, {}).get(m)) and c["mean"] is not None]
        best[m] = max(values) if values and has_best(data, "measure", m) else None
    out = []
    for name in view.shown:
        cells: list[dict[str, Any] | None] = []
        for measure in data["measures"]:
            cell = data["cells"].get(name, {}).get(measure)
            predicts = data["stance"].get(name, {}).get("predicts", True)
            if measure.endswith("stance.F1_macro") and not predicts:
                cells.append({"none": "predicts no stance"})
                continue
            if cell is None or cell["mean"] is None:
                cells.append(None)
                continue
            test = found.get(measure, {}).get(name)
            delta = None
            if name != base and test and test.delta is not None:
                delta = {"css": _css(test.delta), "value": signed(test.delta), "significant": bool(test.significant),
                         "p": p_text(test.p, data["alpha"], test.floor),
                         "p_corrected": corrected_p_text(test, data["alpha"]), "wins": test.wins,
                         "losses": test.losses, "topics": test.topics}
            cells.append({"mean": number(cell["mean"]), "best": cell["mean"] == best[measure],
                          "ci": tuple(number(v) for v in cell["ci"]) if cell["ci"][0] is not None else None,
                          "baseline": name == base, "delta": delta})
        out.append({"number": data["runs"].index(name) + 1, "name": name, "cells": cells,
                    "agreement": [number(agreement_of(data, name, base, m)) for m in data["agreement_measures"]]})
    return out


def heat_map(data: dict, view: View) -> dict:
    """Runs × runs mean RBO in the similarity order (runs whose rankings agree sit together)."""
    runs = data["runs"]
    order = [runs[i] for i in data["similarity"] if runs[i] in view.shown]
    rows = []
    for a in order:
        cells = []
        for b in order:
            value = 1.0 if a == b else agreement_of(data, a, b, "RBO")
            cells.append({"value": number(value, 2), "shade": _shade(value),
                          "title": f"{a} · {b}: RBO {number(value)}"})
        rows.append({"run": a, "number": runs.index(a) + 1, "cells": cells})
    return {"order": [{"run": r, "number": runs.index(r) + 1} for r in order], "rows": rows,
            "numbers": len(order) <= 30}


def _shade(value: float | None) -> str:
    """A cell's background: white at 0, dark blue at 1 (dark cells get white digits, CSS class)."""
    if value is None:
        return "none"
    return f"s{min(9, max(0, int(value * 10)))}"


def confusion_tables(data: dict, view: View) -> list[dict]:
    """Each shown stance-predicting run's confusion matrix (judged stance × predicted stance)."""
    labels = data["stance_labels"]
    return [{"run": run, "rows": [{"truth": labels[i], "counts": row} for i, row in enumerate(found["confusion"])]}
            for run in view.shown if (found := data["stance"].get(run)) and found["confusion"] is not None]


def with_baseline(data: dict, baseline: str, measure: str) -> dict[str, dict[str, float | None]]:
    """Topic → run → its agreement with the baseline on ``measure`` (None: undefined, or the
    baseline itself), each topic's pairs decoded once."""
    runs, column = data["runs"], data["agreement_measures"].index(measure)
    out = {}
    for topic in data["topics"]:
        if topic["agreement"] is None:
            out[topic["id"]] = dict.fromkeys(runs)
            continue
        values = decode_agreement(topic["agreement"], len(data["agreement_measures"]))[:, column]
        base = runs.index(baseline)
        out[topic["id"]] = {run: None if run == baseline or math.isnan(v := values[pair_index(r, base, len(runs))])
                            else float(v) for r, run in enumerate(runs)}
    return out


def delta_chart(data: dict, name: str, baseline: str, agreed: dict | None = None) -> dict:
    """Bars of run − baseline per topic on the main measure (without qrels: the agreement with
    the baseline, lowest first, from ``agreed``: ``with_baseline``'s), sorted; each opens its topic."""
    main = data["main"]
    values = []
    for topic in data["topics"]:
        if data["measures"]:
            a, b = topic["values"][baseline].get(main), topic["values"][name].get(main)
            if a is not None and b is not None:
                values.append((b - a, topic["id"]))
        else:
            assert agreed is not None  # given without qrels
            value = agreed[topic["id"]][name]
            if value is not None:
                values.append((value, topic["id"]))
    values.sort(key=lambda d: (d[0], natural_key(d[1])))
    chart = {"run": name, "baseline": baseline, "measure": main, "width": f"{CHART_WIDTH:.0f}",
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


def topic_rows(data: dict, view: View, agreed: dict | None = None) -> list[dict]:
    """Every topic's main value per shown run (without qrels: the agreement with the baseline,
    from ``agreed``): the no-JavaScript view of the topics."""
    if data["measures"]:
        return [{"id": t["id"], "title": t["title"],
                 "cells": [number(t["values"][n].get(data["main"])) for n in view.shown]} for t in data["topics"]]
    assert agreed is not None  # given without qrels
    return [{"id": t["id"], "title": t["title"], "cells": [number(agreed[t["id"]][n]) for n in view.shown]}
            for t in data["topics"]]


def thumbnail_rules(thumbnails: dict[str, str]) -> Markup:
    """CSS rules naming each image's thumbnail; only plain ids and base64 image URIs get in."""
    rules = [f'.t-{docid} {{ background-image: url("{uri}"); }}' for docid, uri in thumbnails.items()
             if _CSS_NAME.fullmatch(docid) and _DATA_URI.fullmatch(uri)]
    return Markup("\n".join(rules))


SCRIPTS = ("explorer-model.js", "explorer-exports.js", "explorer.js")  # state and data, exports, the view


def page_script() -> str:
    """The page's script: its three files in order, in one strict-mode function (they share its scope)."""
    parts = [(TEMPLATES / name).read_text(encoding="utf-8") for name in SCRIPTS]
    return "(function () {\n  'use strict';\n" + "".join(parts) + "})();\n"


def render_explorer(data: dict) -> str:
    """The page: static overview, heat map, charts and topic table; the controls and the topic view by the script."""
    view = View.default(data)
    agreed = None if data["measures"] else with_baseline(data, view.baseline, data["main"])
    template = _environment().get_template("explorer.html")
    return template.render(
        data=data, view=view, overview=overview(data, view), topic_rows=topic_rows(data, view, agreed),
        confusions=confusion_tables(data, view), heat=heat_map(data, view), one_line=one_line,
        charts=[delta_chart(data, n, view.baseline, agreed) for n in view.shown if n != view.baseline],
        test_name=data["test_name"], correction_name=data["correction_names"][data["correction"]],
        style=Markup((TEMPLATES / "explorer.css").read_text(encoding="utf-8")),
        script=Markup(page_script()),
        thumbnails=thumbnail_rules(data["thumbnails"]),
        payload=Markup(script_json({k: v for k, v in data.items() if k != "thumbnails"})))
