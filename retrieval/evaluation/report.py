"""One report of scored runs, rendered per format: what ``touche evaluate`` prints and writes
(``--csv``, ``--latex``, ``--json``), what ``touche.api.report`` returns, and what a suite's
``evaluation.md`` holds.

``Report`` is the model: every run's mean of every measure, over how many topics each mean is
taken, and every per-topic value (a measure pooled over topics, stance F1, has its per-topic
values too: each topic's own F1, which its mean is not the mean of). Its renderings:

* ``markdown()``: one row per run (the column ``topics``: how many topics most of a run's means
  are taken over; a mean over another number says its own, ``0.901 (47)``), or with
  ``per_topic=True`` a row per run and topic, then the run's row ``all`` (``trec_eval -q``);
* ``latex()``: the same as a booktabs table, with readable headers (``headers``, a measure →
  header mapping the caller may override) and a caption saying what the counts are;
* ``csv()``: tidy ``run,query_id,measure,value`` as ir_measures' ``iter_calc`` writes it, per
  topic and then ``all`` (the mean) per run and measure;
* ``to_json()``: the model itself, read back (validated) by ``Report.from_json``.

Every cell goes through ``touche/render.py``: one escaping, one way to write a number.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from touche.atomic import write_text
from touche.errors import InputError, ToucheError
from touche.render import MISSING, missing, number, table
from touche.retrieval.evaluation.measures import Scored, score_run
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.formats.runfile import natural_key
from touche.retrieval.formats.selection import TopicSelection
from touche.specs import Strict

REPORT_KIND: Literal["touche-report"] = "touche-report"


def readable_header(measure: str) -> str:
    """A measure as a paper's table heads it: Touché's own family without its prefix, the qrels
    it is scored on in brackets (``relevance:touche.nDCG@5`` → ``nDCG@5 (relevance)``)."""
    qrels, _, bare = measure.rpartition(":")
    bare = bare.removeprefix("touche.")
    return f"{bare} ({qrels})" if qrels else bare


def headers_for(measures: Sequence[str], given: Mapping[str, str] | Sequence[str] | None = None) -> dict[str, str]:
    """Each measure's header: the caller's where given (``{"relevance:touche.nDCG@5": "nDCG@5
    (rel.)"}``, or ``MEASURE=TEXT`` strings as ``--header`` takes them), else ``readable_header``."""
    given = dict(given) if isinstance(given, Mapping) else _header_items(given or [], measures)
    unknown = sorted(set(given) - set(measures))
    if unknown:
        raise InputError(f"a header is given for {', '.join(unknown)}, which the report does not hold (its measures: "
                         f"{', '.join(measures)})")
    return {m: given.get(m, readable_header(m)) for m in measures}


def _header_items(items: Sequence[str], measures: Sequence[str]) -> dict[str, str]:
    """``MEASURE=TEXT``, split at the '=' that ends one of the measures (a measure may hold one:
    ``trec.P(rel=2)@5``)."""
    out = {}
    for item in items:
        cuts = [i for i, c in enumerate(item) if c == "=" and item[:i] in measures]
        if not cuts:
            raise InputError(f"--header {item!r}: expected MEASURE=TEXT with one of the measures scored "
                             f"({', '.join(measures)})")
        out[item[:cuts[0]]] = item[cuts[0] + 1:]
    return out


def _counts(measure: str) -> bool:
    """Whether a measure counts (``stance.N``): its values are whole numbers."""
    try:
        return parse_measure(measure.rpartition(":")[2]).integer
    except ToucheError:  # a report read back may name a measure no family here knows
        return False


class RunScores(Strict):
    """One run's scores: means, the topics each is taken over, values per topic."""
    name: str
    means: dict[str, int | float | None]  # a count (stance.N) stays whole
    topics: dict[str, int] = Field(default_factory=dict)
    per_topic: dict[str, dict[str, float]] = Field(default_factory=dict)

    def usual_count(self) -> int | None:
        """The number of topics most of the run's means are taken over (ties: the larger)."""
        found = list(self.topics.values())
        return max(set(found), key=lambda n: (found.count(n), n)) if found else None


class Report(Strict):
    """Scored runs: the one model every rendering and the JSON file are made from."""
    kind: Literal["touche-report"] = REPORT_KIND
    version: Literal[1] = 1
    measures: list[str]
    runs: list[RunScores]
    headers: dict[str, str] = Field(default_factory=dict, description="measure → header of the LaTeX table")
    selection: str | None = Field(None, description="the topics scored, when a selection was given")
    counts: bool = Field(True, description="whether the tables say over how many topics each mean is taken")
    digits: int = Field(3, ge=0, le=12)

    @classmethod
    def of(cls, scored: Mapping[str, Scored], *, headers: Mapping[str, str] | Sequence[str] | None = None,
           selection: str | None = None, counts: bool = True) -> "Report":
        """From ``{run name: Scored}`` (``measures.score_run``'s results), in that order."""
        runs = [RunScores(name=name, means={m: None if missing(v) else v for m, v in s.means.items()},
                          topics=dict(s.counts),
                          per_topic={m: dict(v) for m, v in {**s.per_topic, **s.pooled}.items()})
                for name, s in scored.items()]
        measures = list(dict.fromkeys(m for run in runs for m in run.means))
        return cls(measures=measures, runs=runs, headers=headers_for(measures, headers), selection=selection,
                   counts=counts)

    @classmethod
    def of_means(cls, results: Mapping[str, Mapping[str, float]] | Mapping[str, float],
                 counts: Mapping[str, Mapping[str, int]] | None = None) -> "Report":
        """From means alone (``{run: {measure: value}}``; a flat ``{measure: value}`` is one run
        named ``run``), with ``counts`` ({run: {measure: topics}}) when known."""
        flat = bool(results) and all(isinstance(v, (int, float)) for v in results.values())
        by_run: Mapping[str, Mapping[str, float]] = (
            {"run": results} if flat else results)  # type: ignore[assignment,dict-item]
        runs = [RunScores(name=name, means={m: None if missing(v) else v for m, v in values.items()},
                          topics=dict((counts or {}).get(name, {})))
                for name, values in by_run.items()]
        measures = list(dict.fromkeys(m for run in runs for m in run.means))
        return cls(measures=measures, runs=runs, headers=headers_for(measures), counts=counts is not None)

    # ------------------------------------------------------------------ the table, format by format
    def _number(self, measure: str, value: float | None) -> str:
        """A value as its measure is written: a count whole (stance.N per topic is 9, not 9.000)."""
        if isinstance(value, float) and value.is_integer() and _counts(measure):
            value = int(value)
        return number(value, self.digits)

    def _mean_cell(self, run: RunScores, measure: str) -> str:
        text = self._number(measure, run.means.get(measure))
        n = run.topics.get(measure)
        return text if not self.counts or n is None or n == run.usual_count() or text == MISSING else f"{text} ({n})"

    def _means_rows(self) -> list[list[object]]:
        rows: list[list[object]] = []
        for run in self.runs:
            usual = run.usual_count()
            rows.append([run.name, *([MISSING if usual is None else str(usual)] if self.counts else []),
                         *(self._mean_cell(run, m) for m in self.measures)])
        return rows

    def _topic_rows(self) -> list[list[object]]:
        rows: list[list[object]] = []
        for run in self.runs:
            topics = sorted({t for values in run.per_topic.values() for t in values}, key=natural_key)
            rows += [[run.name, topic, *(self._number(m, run.per_topic.get(m, {}).get(topic))
                                         for m in self.measures)] for topic in topics]
            most = max(run.topics.values(), default=0)
            rows.append([run.name, f"all ({most})", *(
                self._number(m, run.means.get(m)) + (
                    f" ({run.topics[m]})" if m in run.topics and run.topics[m] != most
                    and not missing(run.means.get(m)) else "") for m in self.measures)])
        return rows

    def _layout(self, per_topic: bool, header_of) -> tuple[list[str], list[list[object]], str]:
        if per_topic:
            return ["run", "topic", *map(header_of, self.measures)], self._topic_rows(), "ll"
        head = ["run", *(["topics"] if self.counts else []), *map(header_of, self.measures)]
        return head, self._means_rows(), "l"

    def markdown(self, per_topic: bool = False) -> str:
        """The Markdown table (readable as plain text): means, or per topic with ``per_topic``."""
        head, rows, align = self._layout(per_topic, lambda m: m)
        return table("markdown", head, rows, align, pad=True)

    def caption(self, per_topic: bool = False) -> str:
        parts = ["Per topic and, in the rows all, the mean over the topics given in brackets" if per_topic else
                 "Means over topics" + ("; topics: how many most of a run's means are taken over, a mean over "
                                        "another number gives its own in brackets" if self.counts else "")]
        if self.selection:
            parts.append(f"scored on {self.selection}")
        return "; ".join(parts) + "."

    def latex(self, per_topic: bool = False) -> str:
        """A booktabs table with readable headers and a caption saying what the counts are."""
        head, rows, align = self._layout(per_topic, lambda m: self.headers.get(m, readable_header(m)))
        return table("latex", head, rows, align, caption=self.caption(per_topic), comment="touche evaluate: ")

    def csv(self) -> str:
        """Tidy ``run,query_id,measure,value``: every per-topic value, then each run's means
        (``query_id`` ``all``); the topics each mean is over in ``topics``."""
        rows: list[list[object]] = []
        for run in self.runs:
            for m in self.measures:
                values = run.per_topic.get(m, {})
                rows += [[run.name, topic, m, values[topic], ""] for topic in sorted(values, key=natural_key)]
            rows += [[run.name, "all", m, run.means.get(m), run.topics.get(m, "")] for m in self.measures]
        return table("csv", ["run", "query_id", "measure", "value", "topics"], rows)

    def to_json(self) -> str:
        return self.model_dump_json(indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, path: str | None = None) -> "Report":
        """A report file read back, validated: a file that is not one is refused by name."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InputError(f"not a touche report (JSON): {exc}", path=path) from None
        if not isinstance(data, dict) or data.get("kind") != REPORT_KIND:
            raise InputError(f"not a touche report: its JSON has no \"kind\": \"{REPORT_KIND}\"", path=path)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(f"not a valid touche report: {where}: {first['msg']}", path=path) from None

    def render(self, fmt: str, per_topic: bool = False) -> str:
        """``markdown``, ``latex``, ``csv`` or ``json``, as a file of that kind holds it."""
        if fmt == "json":
            return self.to_json()
        if fmt == "csv":
            return self.csv()
        return (self.markdown(per_topic) if fmt == "markdown" else self.latex(per_topic)).rstrip("\n") + "\n"


RENDERINGS = ("markdown", "latex", "csv", "json")
SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".csv": "csv", ".json": "json"}


def score_report(runs: Mapping[str, object], qrels, measures: Sequence[str] | None = None, *, depth: int = 5,
                 selection: TopicSelection | None = None, headers: Mapping[str, str] | Sequence[str] | None = None,
                 names: Mapping[str, str] | None = None) -> Report:
    """Runs (name → a run the gate reads: a file, a frame, a ``RunTable``) scored into one report:
    what ``touche evaluate`` prints and writes and ``touche.api.report`` returns. ``names``: how a
    warning names each run (its file), by default its name."""
    scored = {name: score_run(run, qrels, measures, depth=depth, topics=selection,
                              name=(names or {}).get(name, name)) for name, run in runs.items()}
    report = Report.of(scored, selection=selection.describe() if selection is not None else None)
    return report.model_copy(update={"headers": headers_for(report.measures, headers)})


def write_report(report: Report, path: str | os.PathLike[str], fmt: str | None = None, per_topic: bool = False) -> Path:
    """A report written whole (temporary name, then rename) as ``fmt``, by default the one its
    suffix says (``.md``, ``.tex``, ``.csv``, ``.json``)."""
    fmt = fmt or SUFFIXES.get(Path(path).suffix.lower())
    if fmt not in RENDERINGS:
        raise InputError(f"say which format to write (one of {', '.join(RENDERINGS)}), or give the file one of the "
                         f"suffixes {', '.join(SUFFIXES)}", path=str(path))
    return write_text(path, report.render(fmt, per_topic=per_topic))


def read_report(path: str | os.PathLike[str]) -> Report:
    """A report written as JSON (``touche evaluate --json``, ``write_report``), validated."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the report: {exc}", path=str(path)) from None
    return Report.from_json(text, path=str(path))


def format_table(results: Mapping[str, Mapping[str, float]] | Mapping[str, float],
                 counts: Mapping[str, Mapping[str, int]] | None = None) -> str:
    """Means as the Markdown table (``Report.of_means``): one row per run, a column per measure."""
    return Report.of_means(results, counts).markdown()


def format_per_topic(scored: Mapping[str, Scored]) -> str:
    """``trec_eval -q`` as a table (``Report.of``): a row per run and topic, then the run's ``all``."""
    return Report.of(scored).markdown(per_topic=True)
