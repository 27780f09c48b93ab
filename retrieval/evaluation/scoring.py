"""Several runs scored as one request: what ``touche evaluate``, ``run``'s and ``run-all``'s
evaluation, ``api.evaluate`` and ``api.experiment`` share.

One request applies every rule of scoring once, for all its runs alike: the topic selection
checked against everything scored (a topics file where there is one, else the runs and qrels:
``measures.checked_selection``), the collection the scores are meant for (a caution for a run
holding documents it lacks, and the runs restricted to it when asked: ``collection``), then each
run through the one scorer path (``measures.score_run``: qrels of the kind their name promises,
ties in a top k said), with what a table should say beside its means.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from touche.atomic import is_stdout
from touche.retrieval.evaluation.collection import RESTRICTED, Collection, on_collection
from touche.retrieval.evaluation.measures import QrelsArg, Scored, checked_selection, score_run
from touche.retrieval.evaluation.report import Report
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runtable import RunTable
from touche.retrieval.formats.selection import TopicSelection

NO_STANCE = ("labels no stance on any judged row (each says Q0 or misses the judgements), so its stance measures are "
             "– and 0. PyTerrier's pt.io.write_results writes Q0 where a frame's stance was: write such a file with "
             "touche.pyterrier.write_run.")


@dataclass
class Evaluation:
    """Runs scored: per run (as a table names it) its means, the topics each is over and its
    per-topic values; the selection they were scored on; cautions and notes to show beside them;
    ``report``, the one report model every table and export is rendered from."""
    scored: dict[str, Scored]
    selection: TopicSelection | None = None
    cautions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    report: Report | None = None  # built by evaluate_tables (with the headers given), else on first use
    written: list[tuple[str, str]] = field(default_factory=list)  # (format, path) of the exports written

    @property
    def means(self) -> dict[str, dict[str, float]]:
        return {name: s.means for name, s in self.scored.items()}

    @property
    def counts(self) -> dict[str, dict[str, int]]:
        return {name: s.counts for name, s in self.scored.items()}

    @property
    def exported_to_stdout(self) -> bool:
        """Whether an export went to standard output (then the table is not printed into it)."""
        return any(is_stdout(path) for _, path in self.written)

    def __post_init__(self) -> None:
        if self.report is None:
            self.report = report_of(self.scored, self.selection)

    def table(self) -> str:
        """The means as a Markdown table, with the topics each is over."""
        assert self.report is not None
        return self.report.markdown()

    def per_topic_table(self) -> str:
        """A row per run and topic, then the means (``trec_eval -q``)."""
        assert self.report is not None
        return self.report.markdown(per_topic=True)


def report_of(scored: Mapping[str, Scored], selection: TopicSelection | None,
              headers: Mapping[str, str] | Sequence[str] | None = None) -> Report:
    """The report model of scored runs (a header for a measure not scored is refused)."""
    return Report.of(scored, headers=headers, selection=selection.describe() if selection is not None else None)


def evaluate_tables(runs: Mapping[str, RunTable], qrels: QrelsArg, measures: Sequence[str] | str | None = None, *,
                    depth: int = 5, selection: TopicSelection | None = None, collection: Collection | None = None,
                    topics: Iterable[str] | None = None, sources: Mapping[str, str] | None = None,
                    headers: Mapping[str, str] | Sequence[str] | None = None) -> Evaluation:
    """Score ``runs`` ({name: run read through the gate}) against ``qrels``; ``selection`` checked
    against ``topics`` (a topics file's ids) or else every run's and the qrels' topics;
    ``collection`` cautions and restricts (a restricted run's name ends in " (restricted)");
    ``sources``: how warnings name a run (its file), where not by its name; ``headers``: the
    LaTeX table's headers (``{measure: text}`` or ``MEASURE=TEXT`` items), checked now."""
    if isinstance(measures, str):
        measures = [measures]
    runs = {name: load_run(table) for name, table in runs.items()}
    selection = checked_selection(selection, runs.values(), qrels, topics=topics)
    runs, cautions = on_collection(runs, collection)
    suffix = RESTRICTED if collection is not None and collection.restrict else ""
    scored = {name + suffix: score_run(table, qrels, measures, depth=depth, topics=selection,
                                       name=(sources or {}).get(name, name))
              for name, table in runs.items()}
    notes = [f"note: {name} {NO_STANCE}" for name, result in scored.items()
             if any(m.endswith("stance.N") and value == 0 for m, value in result.means.items())]
    if selection is not None:
        notes.insert(0, f"note: scored on {selection.describe()}")
    # a header for a measure not scored is refused here, before anything is written
    return Evaluation(scored, selection, cautions, notes, report_of(scored, selection, headers))
