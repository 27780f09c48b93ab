"""The measure registry: every measure name is parsed here, and nowhere else.

A ``MeasureFamily`` (ir_measures' providers, ranx's metric names) knows its names (a pattern),
the qrels kind it needs, how to compute the means and per-topic values of a batch of its
measures, which of them have per-topic values (stance macro-F1 does not: it is one F1 over all
judged rows) and its defaults for a qrels kind. ``parse_measure`` turns a name into a
``Measure``: ``touche.nDCG@5``, ``relevance:touche.nDCG@5`` (only on the qrels named
relevance) or a bare ir_measures name (``nDCG@5`` is ``trec.nDCG@5``). Evaluation, experiments,
significance tests, the explorer and the docs all ask the measure, never its name.

Adding a family: subclass ``MeasureFamily`` and call ``register_measure_family`` (see
docs/architecture.md, "How to add a measure").
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import ir_measures

from touche import numbers
from touche.bounds import label_problem
from touche.errors import ToucheError
from touche.retrieval.evaluation.pooled import confusion
from touche.retrieval.evaluation.scorers import (
    ImagePrecision,
    StanceF1,
    by_topic,
    image_precision,
    parse_trec,
    stance_f1,
    touche_ndcg,
    trec_measures,
    trec_per_topic,
)
from touche.retrieval.formats.qrels import STANCE_LABELS, QrelsKind
from touche.retrieval.formats.runfile import RunRow, natural_key
from touche.retrieval.formats.runtable import EVERY_ROW, RowNeed, RunTable

_CUTOFF = re.compile(r"@([0-9]+)$")
MAX_CUTOFF = 100_000  # far past any run (Touché's hold at most 1,000 rows a topic), within a C int
_OPENS, _CLOSES = "({[", ")}]"
_IR_NAME = re.compile(r"\w+")  # an ir_measures name, before its parameters or @


@dataclass(frozen=True)
class Measure:
    """A parsed measure name: its family, the groups of the family's pattern, and the qrels
    name it is restricted to (``relevance:`` in ``relevance:touche.nDCG@5``)."""
    name: str  # canonical, without the qrels name
    family: "MeasureFamily"
    groups: tuple[str | None, ...]
    qrels: str | None = None

    @property
    def qrels_kind(self) -> QrelsKind:
        return self.family.qrels_kind

    @property
    def has_per_topic(self) -> bool:
        """Whether the measure is a mean of per-topic values (which paired tests need)."""
        return self.family.has_per_topic(self)

    @property
    def integer(self) -> bool:
        """A count (printed without decimals)."""
        return self.family.is_count(self)

    @property
    def cutoff(self) -> int | None:
        match = _CUTOFF.search(self.name)
        return int(match.group(1)) if match else None

    def label(self, qrels_name: str | None) -> str:
        return f"{qrels_name}:{self.name}" if qrels_name else self.name

    def applies_to(self, qrels_name: str | None, kind: QrelsKind) -> bool:
        return kind is self.qrels_kind and (self.qrels is None or self.qrels == qrels_name)


Rows = Sequence[RunRow] | RunTable  # a family that reads_tables gets the table


class MeasureFamily:
    """A family of measures computed by one scorer."""
    prefixes: ClassVar[tuple[str, ...]]  # the name prefixes it owns (``touche.``)
    pattern: ClassVar[re.Pattern]  # fullmatch on a name
    qrels_kind: ClassVar[QrelsKind]
    names: ClassVar[str]  # how error messages and help texts name its measures
    leaderboard: ClassVar[tuple[str, ...]] = ()  # what a compact table shows of it
    ranks_by: ClassVar[str | None] = None  # the measure Touché's leaderboards rank by, if one of its
    reads_tables: ClassVar[bool] = False  # its scorer takes a RunTable's columns instead of rows

    def defaults(self, depth: int) -> list[str]:
        """The measures computed when none are asked for (on qrels of its kind)."""
        return []

    def check(self, measure: Measure) -> None:
        """Refuse (ToucheError) a name the pattern matched that cannot be computed: by default a
        cut-off ``@k`` outside 1…``MAX_CUTOFF``."""
        if (match := _CUTOFF.search(measure.name)) is not None:
            check_cutoff(measure.name, match.group(1))

    def has_per_topic(self, measure: Measure) -> bool:
        return True

    def is_count(self, measure: Measure) -> bool:
        return False

    def describes_judgements(self, measure: Measure) -> bool:
        """Whether it says how far a ranking is judged (Judged@k), not how good it is."""
        return False

    def rows_needed(self, measures: Sequence[Measure]) -> RowNeed:
        """The rows of a run these measures look at (the others are not built: a run of 1,000
        topics has a million rows and Touché's nDCG@5 reads 5 of each topic's)."""
        return EVERY_ROW

    def pooled(self, measure: Measure, rows: Rows, judgments):
        """For a measure without per-topic values: its per-topic parts (``pooled.Pooled``), from
        which intervals and tests resample; None when it has none."""
        return None

    def means(self, measures: Sequence[Measure], rows: Rows, judgments) -> dict[str, float]:
        raise NotImplementedError

    def per_topic(self, measures: Sequence[Measure], rows: Rows, judgments) -> dict[str, dict[str, float]]:
        """{measure name: {topic: value}} for those of ``measures`` that have per-topic values."""
        raise NotImplementedError


MEASURE_FAMILIES: list[MeasureFamily] = []


def register_measure_family(family: type[MeasureFamily]) -> type[MeasureFamily]:
    """Make a family's measures known to every command (usable as a decorator)."""
    MEASURE_FAMILIES[:] = [f for f in MEASURE_FAMILIES if type(f) is not family] + [family()]
    return family


def known_measures() -> str:
    return ", ".join(f.names for f in MEASURE_FAMILIES)


def _top_level(text: str, char: str) -> list[int]:
    """Where ``char`` stands in ``text`` outside brackets: ``nDCG(gains={0:0,1:5})@5`` holds its
    commas and colons inside them."""
    depth, found = 0, []
    for place, c in enumerate(text):
        depth += (c in _OPENS) - (c in _CLOSES)
        if c == char and depth == 0:
            found.append(place)
    return found


def split_measures(text: str) -> list[str]:
    """A comma-separated list of measure names (``--measures``), split at the commas between
    names only: ``trec.nDCG(gains={0:0,1:5})@5,P@10`` is two names."""
    cuts = [-1, *_top_level(text, ","), len(text)]
    return [text[a + 1:b].strip() for a, b in zip(cuts, cuts[1:])]


def parse_measure(text: str) -> Measure:
    """A measure by name (see the module docstring), checked whole now (its family's
    ``check``: cut-off, parameters, an installed scorer): a ToucheError for an unknown or
    unusable one, before any work."""
    text = str(text)
    colons = _top_level(text, ":")
    qrels, name = (text[:colons[0]], text[colons[0] + 1:]) if colons else (None, text)
    if colons and (not qrels or len(colons) > 1 or not name):
        raise ToucheError(f"measure {text!r}: write QRELS-NAME:MEASURE with one name (e.g. relevance:touche.nDCG@5)")
    if not any(name.startswith(p) for f in MEASURE_FAMILIES for p in f.prefixes):
        name = f"trec.{name}"  # ir_measures' name: trec_eval's measure (unjudged documents count as 0)
    for family in MEASURE_FAMILIES:
        if any(name.startswith(p) for p in family.prefixes) and (match := family.pattern.fullmatch(name)):
            measure = Measure(name, family, match.groups(), qrels or None)
            family.check(measure)
            return measure
    raise ToucheError(f"unknown measure {text!r}; known: {known_measures()}")


def cutoff_problem(text: str) -> str | None:
    """Why ``text`` is no cut-off k (None: it is one): a whole number in the digits 0-9 from 1 to
    ``MAX_CUTOFF``. pytrec_eval aborts the whole process (SIGABRT, no message) on ``@0``, Judged@0
    divides by zero, and ``@99999999999999999999`` overflowed numpy and pytrec_eval's C long."""
    digits = text.lstrip("0")
    if not numbers.is_whole(text) or text.startswith(("+", "-")) or not digits:
        return f"must be a positive whole number (k ≥ 1) in the digits 0-9, got {text!r}"
    if len(digits) > 6 or int(digits) > MAX_CUTOFF:
        shown = text[:20] + ("…" if len(text) > 20 else "")
        return f"is {shown}; at most {MAX_CUTOFF:,} (a run holds at most 1,000 rows a topic)"
    return None


def check_cutoff(name: str, text: str) -> None:
    """A ToucheError naming ``name`` (a measure, ``--depth``) when ``text`` is no cut-off."""
    problem = cutoff_problem(text)
    if problem:
        raise ToucheError(f"the cut-off of {name} {problem}")


def defaults_for(kind: QrelsKind, depth: int) -> list[str]:
    return [m for f in MEASURE_FAMILIES if f.qrels_kind is kind for m in f.defaults(depth)]


def leaderboard_measures(kinds) -> list[str]:
    """The compact set a page or table shows for qrels of these kinds (the leaderboards' own)."""
    kinds = set(kinds)
    return [m for f in MEASURE_FAMILIES if f.qrels_kind in kinds for m in f.leaderboard]


def ranking_measure(labels: Sequence[str]) -> str:
    """Of labelled measures (``relevance:touche.nDCG@5`` …), the first a leaderboard ranks by;
    else the first that measures effectiveness (Judged@5 says how far a top is judged, it ranks
    nothing); else the first."""
    parsed = [(label, parse_measure(label)) for label in labels]
    for label, measure in parsed:
        if measure.name == measure.family.ranks_by:
            return label
    return next((label for label, m in parsed if not m.family.describes_judgements(m)), labels[0])


# --------------------------------------------------------------------------- Touché's own
class ToucheNdcg(MeasureFamily):
    """nDCG@k as the organisers' evaluate.py computes it; ``touche2021.`` orders by score."""
    prefixes = ("touche.", "touche2021.")
    pattern = re.compile(r"touche(2021)?\.nDCG@([0-9]+)")
    qrels_kind = QrelsKind.GRADED
    names = "touche.nDCG@k, touche2021.nDCG@k"
    leaderboard = ("touche.nDCG@5",)
    ranks_by = "touche.nDCG@5"

    def defaults(self, depth):
        return [f"touche.nDCG@{depth}"]

    def rows_needed(self, measures):
        by_score = [int(m.groups[1]) for m in measures if m.groups[0]]
        by_rank = [int(m.groups[1]) for m in measures if not m.groups[0]]
        return RowNeed(rank_depth=max(by_rank, default=0), score_depth=max(by_score, default=0))

    def _ndcg(self, measure: Measure, rows, judgments):
        return touche_ndcg(rows, judgments, int(str(measure.groups[1])), "score" if measure.groups[0] else "rank")

    def means(self, measures, rows, judgments):
        return {m.name: self._ndcg(m, rows, judgments).mean for m in measures}

    def per_topic(self, measures, rows, judgments):
        return {m.name: self._ndcg(m, rows, judgments).per_topic for m in measures}


class TrecEval(MeasureFamily):
    """Any ir_measures measure, as trec_eval computes it (one batched call per run)."""
    prefixes = ("trec.",)
    pattern = re.compile(r"trec\.(.+)")
    qrels_kind = QrelsKind.GRADED
    names = "trec.<ir_measures name>"
    leaderboard = ("trec.Judged@5",)  # not a leaderboard's, but how far the top 5 is judged

    def defaults(self, depth):
        trec = [f"nDCG@{depth}", "nDCG@10", "P@10", "AP", f"Judged@{depth}"]
        return [f"trec.{m}" for m in dict.fromkeys(trec)]

    def describes_judgements(self, measure):
        return measure.groups[0].startswith("Judged")

    def check(self, measure):
        """A name ir_measures parses, whose ``@`` value is written in the digits 0-9 (a cut-off
        within 1…MAX_CUTOFF; IPrec's ``@0.5`` is a recall level), whose labels (``rel=``,
        ``gains=``) lie within what qrels may hold (``rel=10**20`` was a TypeError inside
        trec_eval), and which an installed package computes (``trec.alpha_nDCG@5`` needs
        pyndeval: without it, a traceback after the run was read)."""
        inner = measure.groups[0]
        at = _top_level(inner, "@")
        text = inner[at[-1] + 1:] if at else None
        known = _IR_NAME.match(inner)
        kind = ir_measures.measures.registry.get(known.group()) if known else None
        if kind is None:
            parse_trec(inner)  # its "unknown measure"
        elif text is not None and kind.AT_PARAM == "cutoff":  # before Python reads P@٥, P@-1, 5,000 digits
            check_cutoff(measure.name, text)
        elif text is not None and not numbers.DECIMAL.fullmatch(text):
            raise ToucheError(f"{measure.name}: its @ value {text!r} is no number in the digits 0-9")
        parsed = parse_trec(inner)
        rel, gains = parsed.params.get("rel"), parsed.params.get("gains")
        labels = ([rel] if rel is not None else []) + \
            (list(gains) + list(gains.values()) if isinstance(gains, dict) else [])
        for label in labels:
            problem = "is not a whole number" if not isinstance(label, int) or isinstance(label, bool) \
                else label_problem(label)
            if problem:
                why = problem.removeprefix(f"label {label} ")
                raise ToucheError(f"{measure.name}: its label parameter {label!r} {why}")
        _check_provider(measure.name, parsed)

    reads_tables = True  # AP reads every row: built from the columns, not as a million RunRows

    def rows_needed(self, measures):
        """trec_eval orders by score: a measure cut at k sees the k best (ties at the cut kept);
        one without a cut-off (AP) sees every row."""
        parsed = [parse_trec(m.groups[0]) for m in measures]
        cutoffs = [m.params.get("cutoff") for m in parsed]
        # judged_only drops unjudged documents before the cut: judged ones below k move up
        if any(not isinstance(k, int) or k < 1 for k in cutoffs) or any(m.params.get("judged_only") for m in parsed):
            return EVERY_ROW
        return RowNeed(score_depth=max(cutoffs))

    def means(self, measures, rows, judgments):
        return trec_measures(rows, judgments, [m.groups[0] for m in measures])

    def per_topic(self, measures, rows, judgments):
        return trec_per_topic(rows, judgments, [m.groups[0] for m in measures])


class Stance(MeasureFamily):
    """Task 2 2022 stance: macro-F1 over all judged rows (no per-topic values) and their count."""
    prefixes = ("stance.",)
    pattern = re.compile(r"stance\.(F1_macro|N)")
    qrels_kind = QrelsKind.STANCE
    names = "stance.F1_macro, stance.N"
    leaderboard = ("stance.F1_macro",)
    ranks_by = "stance.F1_macro"

    def defaults(self, depth):
        return ["stance.F1_macro", "stance.N"]

    def has_per_topic(self, measure):
        return measure.groups[0] == "N"

    def rows_needed(self, measures):
        # F1 and N count the judged rows, at any rank; each topic's best row keeps its topic (N: 0)
        return RowNeed(judged=True, score_depth=1)

    def is_count(self, measure):
        return measure.groups[0] == "N"

    def pooled(self, measure, rows, judgments):
        return confusion(rows, judgments) if measure.groups[0] == "F1_macro" else None

    def means(self, measures, rows, judgments):
        found: StanceF1 = stance_f1(rows, judgments)
        return {m.name: found.f1_macro if m.groups[0] == "F1_macro" else found.n for m in measures}

    def per_topic(self, measures, rows, judgments):
        if not any(self.has_per_topic(m) for m in measures):
            return {}
        return {"stance.N": {qid: float(sum(1 for r in topic_rows if r.column2 in STANCE_LABELS
                                            and r.docid in judgments.get(qid, {})))
                             for qid, topic_rows in by_topic(rows).items() if qid in judgments}}


class ImageRetrieval(MeasureFamily):
    """Image retrieval 2022/23: on-topic, argumentative and on-stance precision@k per stance."""
    prefixes = ("image.",)
    pattern = re.compile(r"image\.(on_topic|argumentative|on_stance)_P@([0-9]+)")
    qrels_kind = QrelsKind.IMAGE
    names = "image.on_topic_P@10, image.argumentative_P@10, image.on_stance_P@10"
    leaderboard = ("image.on_topic_P@10", "image.argumentative_P@10", "image.on_stance_P@10")
    ranks_by = "image.on_topic_P@10"

    def defaults(self, depth):
        return [f"image.{aspect}_P@10" for aspect in ("on_topic", "argumentative", "on_stance")]

    def means(self, measures, rows, judgments):
        cache: dict[int, ImagePrecision] = {}
        out = {}
        for m in measures:
            k = int(m.groups[1])
            if k not in cache:
                cache[k] = image_precision(rows, judgments, k)
            out[m.name] = getattr(cache[k], m.groups[0])
        return out

    def per_topic(self, measures, rows, judgments):
        topics = sorted(by_topic(rows).items(), key=lambda kv: natural_key(kv[0]))
        return {m.name: {qid: getattr(image_precision(topic_rows, judgments, int(m.groups[1]), topics=[qid]),
                                      m.groups[0])
                         for qid, topic_rows in topics if qid in judgments} for m in measures}


def _check_provider(name: str, parsed) -> None:
    """A ToucheError naming what to install when no installed package computes ``parsed``."""
    supporting = []
    for provider in ir_measures.DefaultPipeline.providers:
        try:
            if not provider.supports(parsed):
                continue
        except (ValueError, TypeError, KeyError):  # a parameter this provider does not take
            continue
        if provider.is_available():
            return
        supporting.append(provider)
    if not supporting:  # what the pipeline's scorers take of this measure, as ir_measures prints it
        forms = [f"{sm} ({p.NAME})" for p in ir_measures.DefaultPipeline.providers
                 for sm in p.SUPPORTED_MEASURES if sm.NAME == parsed.NAME]
        raise ToucheError(f"{name}: none of ir_measures' scorers computes {parsed.NAME} with these parameters"
                          + (f"; they take {'; '.join(forms)}" if forms else ""))
    how = "; ".join(dict.fromkeys(p.install_instructions() or f"install {p.NAME}" for p in supporting))
    raise ToucheError(f"{name}: ir_measures computes it with {', '.join(p.NAME for p in supporting)}, which is not "
                      f"installed here: {how}")


for _family in (ToucheNdcg, TrecEval, Stance, ImageRetrieval):
    register_measure_family(_family)


def check_trec_name(measure: Measure) -> None:
    """The checks of a ``trec.`` name (``TrecEval.check``), for a ``Measure`` built by hand."""
    if isinstance(measure.family, TrecEval):
        measure.family.check(measure)


def per_family(measures: Sequence[Measure]) -> list[tuple[MeasureFamily, list[Measure]]]:
    """The measures grouped by family (one scorer call each), in the order given."""
    groups: dict[int, tuple[MeasureFamily, list[Measure]]] = {}
    for m in measures:
        groups.setdefault(id(m.family), (m.family, []))[1].append(m)
    return list(groups.values())
