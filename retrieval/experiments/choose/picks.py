"""Choosing the five submissions from a sweep's results.

Picks, in order:

1. the best point by the sweep's measure (e.g. ``relevance:touche.nDCG@5``);
2. the best point by a second measure (default: the same measure on the ``quality`` qrels, or
   on another qrels file) - the next best by it when the first pick is already the best;
3. greedily, the best remaining points by the main measure that differ from *every* point
   already chosen in at least ``min_diff`` swept parameters (default 2, or 1 for a one-axis
   sweep); when no point is left that differs that much, the requirement drops by one. A point
   significantly worse than pick 1 (``loss``) is passed over unless ``max_loss`` allows
   its loss: diversity is not worth a clearly weaker run.

Diversity matters because Touché pools the top results of every submission: five near-identical
configurations add little to the pool and say little about what works.

Each choice is written as a variant YAML that ``extends:`` the sweep's base with the point's
overrides (tag derived from the point), checked to load to exactly the variant the sweep ran;
when ``extends`` merging cannot express the point (an override that removes a mapping's key),
the complete variant is written instead. A ``suite.yaml`` lists the five (primary = the first)
with the sweep's corpus, topics and qrels, so ``touche run-all --suite DIR/suite.yaml`` runs them;
choice.md (``report``) says why each pick was made, what it loses against pick 1, and how
pick 1 compares with the shipped suite's primary (``reference``).
"""
from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from touche import guard
from touche.config import MAX_SUBMISSIONS, load_suite, load_variant, resolve_raw, validate
from touche.errors import ToucheError
from touche.render import number as format_number
from touche.retrieval.evaluation.significance import split_measure
from touche.retrieval.experiments.choose.loss import Loss, LossToBest, allowed, why_allowed
from touche.retrieval.experiments.choose.reference import reference_value, shipped_reference
from touche.retrieval.experiments.choose.report import format_choices
from touche.retrieval.experiments.robust import heaviest
from touche.retrieval.experiments.sweep import (
    MANIFEST_FILE,
    RESULTS_FILE,
    Record,
    read_manifest,
    read_records,
    sort_records,
)
from touche.retrieval.experiments.sweep.axes import describe_overrides, format_value, point_slug
from touche.retrieval.experiments.sweep.manifest import ManifestSet, SweepManifest
from touche.retrieval.experiments.sweep.sets import DevSet
from touche.retrieval.formats.gate import load_run
from touche.stemming.analyzers import stoplist_path

log = logging.getLogger(__name__)

TAG_LIMIT = 80


@dataclass(frozen=True)
class Pick:
    """A chosen point: its record (on the set the choice leans on most), why it was chosen and
    what it loses against pick 1 (None for pick 1 itself)."""
    record: Record
    reason: str
    path: Path | None = None
    tag: str = ""
    loss: Loss | None = None


class Picks(list):
    """The picks in order, and the points passed over for diversity because they are significantly
    worse than pick 1 (``skipped``: record and loss, best first)."""

    def __init__(self, picks=(), skipped=()):
        super().__init__(picks)
        self.skipped: list[tuple[Record, Loss]] = list(skipped)


def set_weight(entry: ManifestSet) -> float:
    """A set's weight as the sweep's criterion used it (``used_weight``; else the weight it
    started from; else 1), a weight of 0 included."""
    for value in (entry.used_weight, entry.weight):
        if value is not None:
            return float(value)
    return 1.0


def main_set(manifest: SweepManifest) -> ManifestSet:
    """The set the choice leans on most (the only one without sets:): the largest weight the
    criterion used, the first of equals (robust.heaviest)."""
    return manifest.sets[heaviest([set_weight(e) for e in manifest.sets])]


@dataclass(frozen=True)
class SweepResults:
    directory: Path
    manifest: SweepManifest
    records: list[Record]  # finished points in point order, on the set the choice leans on most
    by_set: dict[str, dict[int, Record]] = field(default_factory=dict)  # set → point → record

    @property
    def axes(self) -> list[tuple[str, tuple[str, ...]]]:
        return [(axis.label, tuple(axis.keys)) for axis in self.manifest.axes]

    @property
    def several(self) -> bool:
        return self.manifest.several

    @property
    def weights(self) -> dict[str, float]:
        return {entry.name: set_weight(entry) for entry in self.manifest.sets}

    def path(self, stored: str) -> Path:
        """A path of the manifest: one inside the sweep's folder is stored relative to it."""
        return self.directory / stored if not Path(stored).is_absolute() else Path(stored)

    @property
    def main_set(self) -> ManifestSet:
        return main_set(self.manifest)

    def coordinate(self, record: Record, keys: tuple[str, ...]) -> str:
        return json.dumps([record.overrides.get(k) for k in keys], sort_keys=True)


def load_results(path: str | Path, *, partial: bool = False) -> SweepResults:
    """A sweep's output directory (or its results.jsonl / sweep.json). An unfinished sweep is
    refused unless ``partial``: its order is of the finished points only."""
    path = Path(path).resolve()
    directory = path if path.is_dir() else path.parent
    manifest_path, results_path = directory / MANIFEST_FILE, directory / RESULTS_FILE
    if not manifest_path.is_file() or not results_path.is_file():
        raise ToucheError(f"not a sweep's output directory: expected {MANIFEST_FILE} and {RESULTS_FILE} "
                          "(written by `touche sweep`)", path=directory)
    manifest = read_manifest(manifest_path)
    records = read_records(results_path)
    by_set = {entry.name: {p.point: records[key] for p, key in zip(manifest.points, entry.keys)
                           if key in records and (directory / records[key].run).is_file()}
              for entry in manifest.sets}
    finished = sum(len(points) for points in by_set.values())
    if not finished:
        raise ToucheError("the sweep has no finished point yet: run `touche sweep` first", path=directory)
    if finished < manifest.runs and not partial:
        raise ToucheError(f"the sweep is unfinished: {manifest.runs - finished} of {manifest.runs} runs have not run; "
                          f"rerun `touche sweep {manifest.sweep}` to finish it, or pass --partial to choose among the "
                          "finished ones", path=directory)
    if manifest.several and (manifest.choice is None or not manifest.choice.order):
        why = manifest.choice.why_none if manifest.choice is not None else "the sweep has not reported yet"
        raise ToucheError(f"the sweep picked nothing: {why or 'no point could be ordered'}", path=directory)
    main = by_set[main_set(manifest).name]
    return SweepResults(directory, manifest, [main[p.point] for p in manifest.points if p.point in main], by_set)


def default_second_measure(results: SweepResults, main: str) -> str | None:
    """The main measure on another qrels file: ``quality`` first, else the first other one."""
    name, measure = split_measure(main)
    available = {m for r in results.records for m in r.measures}
    others = [q for q in results.main_set.qrels if q != name and f"{q}:{measure}" in available]
    if not others:
        return None
    return f"quality:{measure}" if "quality" in others else f"{others[0]}:{measure}"


def pick(results: SweepResults, *, measure: str | None = None, second: str | None = None, count: int = 5,
         min_diff: int | None = None, distinct: str | None = None, max_loss: float | None = None) -> Picks:
    """The chosen points with the reason each was chosen (see the module docstring).

    ``distinct``: a swept key (e.g. ``rerank``) in which every pick must differ from every other:
    five strategies rather than five settings of one. A point significantly worse than pick 1
    (``loss``) is not picked for diversity unless it loses at most ``max_loss``."""
    if max_loss is not None and not (isinstance(max_loss, (int, float)) and max_loss >= 0):
        raise ToucheError(f"--max-loss must be a difference of at least 0 in the measure's units, got {max_loss!r}")
    main = measure or results.manifest.measure
    distinct_keys = None
    if distinct is not None:
        distinct_keys = next((keys for label, keys in results.axes if distinct == label or distinct in keys), None)
        if distinct_keys is None:
            raise ToucheError(f"--distinct {distinct} is not a swept key (swept: "
                              f"{', '.join(k for _, ks in results.axes for k in ks)})", path=results.directory)
    known = {m for r in results.records for m in r.measures}
    for m in (main, second):
        if m is not None and m not in known:
            raise ToucheError(f"measure '{m}' is not in the sweep's results (known: {', '.join(sorted(known))})",
                              path=results.directory)
    axes = results.axes
    wanted_diff = min_diff if min_diff is not None else min(2, len(axes))
    signatures = {r.key: _ranking_signature(results.directory / r.run) for r in results.records}

    def differing(a: Record, b: Record) -> int:
        return sum(results.coordinate(a, keys) != results.coordinate(b, keys) for _, keys in axes)

    losses = LossToBest(results, results.manifest.measure if results.several else main)
    skipped: dict[str, tuple[Record, Loss]] = {}

    def next_diverse(order: list[Record], chosen: list[Pick]) -> tuple[Record, int] | None:
        """The first record of ``order`` that differs enough from every pick (relaxing as needed),
        whose ranking is not a pick's ranking again (an identical run adds nothing) and that is
        not significantly worse than pick 1 (unless ``max_loss`` allows it)."""
        taken = {c.record.key for c in chosen}
        seen = {signatures[c.record.key] for c in chosen}
        used = {results.coordinate(c.record, distinct_keys) for c in chosen} if distinct_keys else set()
        for needed in range(wanted_diff, 0, -1):
            for record in order:
                if record.key in taken or signatures[record.key] in seen or record.key in skipped:
                    continue
                if distinct_keys and results.coordinate(record, distinct_keys) in used:
                    continue
                if all(differing(record, c.record) >= needed for c in chosen):
                    loss = losses.of(record, chosen[0].record)
                    if not allowed(loss, max_loss):
                        skipped[record.key] = (record, loss)
                        continue
                    return record, needed
        return None

    def why(needed: int) -> str:
        reason = f"differs from the picks above in ≥ {needed} swept parameter{'s' if needed > 1 else ''}"
        if needed < wanted_diff:  # said: the requirement was relaxed, not met
            given = "--min-diff" if min_diff is not None else "the default"
            reason += (f" (--min-diff lowered from {wanted_diff}, {given}, to {needed}: no finished point left "
                       f"differs in {wanted_diff})")
        return reason

    def diverse(record: Record, reason: str) -> Pick:
        loss = losses.of(record, chosen[0].record)
        return Pick(record, f"{reason}; {why_allowed(loss, max_loss)}", loss=loss)

    def done(picks: list[Pick]) -> Picks:
        return Picks(picks, sorted(skipped.values(), key=lambda item: order_of[item[0].key]))

    chosen: list[Pick] = []
    if results.several:
        stored = results.manifest.choice
        assert stored is not None  # a sweep of several sets stores its choice
        by_point = {r.point: r for r in results.records}
        order = [by_point[number] for number in stored.order if number in by_point]
        order_of = {r.key: i for i, r in enumerate(order)}
        sets = len(results.manifest.sets)
        chosen.append(Pick(order[0], f"the most robust across {sets} sets by {stored.criterion}"))
        while len(chosen) < count:
            found = next_diverse(order, chosen)
            if found is None:
                break
            chosen.append(diverse(found[0], f"next by {stored.criterion} that {why(found[1])}"))
        return done(chosen)
    by_main = sort_records(results.records, main)
    order_of = {r.key: i for i, r in enumerate(by_main)}
    chosen.append(Pick(by_main[0], f"best by {main}"))
    if second is not None and count > 1:
        by_second = sort_records(results.records, second)
        if by_second[0].key == by_main[0].key or signatures[by_second[0].key] == signatures[by_main[0].key]:
            chosen[0] = Pick(by_main[0], f"best by {main} and by {second}")
            found = next_diverse(by_second, chosen)
            if found:
                chosen.append(diverse(found[0], f"next best by {second} that {why(found[1])}"))
        else:  # chosen for the other measure: shown with its loss on the main one, never skipped
            chosen.append(Pick(by_second[0], f"best by {second}", loss=losses.of(by_second[0], by_main[0])))
    while len(chosen) < count:
        found = next_diverse(by_main, chosen)
        if found is None:
            break  # every finished point is chosen, repeats a chosen ranking or loses significantly
        chosen.append(diverse(found[0], f"next best by {main} that {why(found[1])}"))
    return done(chosen)


def _ranking_signature(run: Path) -> str:
    """Hash of a run's (topic, document) order: two points with the same signature submit the
    same ranking, whatever their scores (the run read through the input gate, as scored)."""
    if not run.is_file():
        return f"missing:{run}"  # unique: a lost run file never counts as a duplicate
    frame = load_run(run).frame
    return hashlib.sha256("\n".join(frame["qid"] + " " + frame["docid"]).encode()).hexdigest()


# --------------------------------------------------------------------------- writing the variants
def own_tag(base_tag: str, base: dict, overrides: dict[str, Any]) -> str:
    """The base's tag without the words that name a setting the point overrides: a base tagged
    ``touche-smart-lmd4000`` swept to μ 2000 is ``touche-smart``, not a tag saying 4000."""
    replaced = set()
    for dotted in overrides:
        node: Any = base
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        for value in (node.values() if isinstance(node, dict) else [node]):
            text = format_value(value).lower()
            if len(text) >= 2 and text not in ("none", "null", "true", "false"):
                replaced.add(text)
    words = base_tag.split("-")
    kept = [w for w in words if not any(w.lower() == v or w.lower().endswith(v) or w.lower().startswith(v)
                                        for v in replaced)]
    return "-".join(kept) or base_tag


def derive_tag(base_tag: str, record: Record, used: set[str]) -> str:
    tag = f"{base_tag}-{point_slug(record.overrides)}"
    if len(tag) > TAG_LIMIT or tag in used:
        suffix = f"-p{record.point}"  # the point number keeps a shortened tag unique
        tag = tag[:TAG_LIMIT - len(suffix)].rstrip("-._+") + suffix
    return tag


def nest(overrides: dict[str, Any]) -> dict:
    """Dotted keys → nested mappings, as a variant file writes them."""
    out: dict = {}
    for dotted, value in overrides.items():
        node = out
        *parents, last = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = copy.deepcopy(value)
    return out


def rebase_paths(merged: dict, source_dir: Path, target_dir: Path) -> dict:
    """The relative paths of a variant (fusion variants, a stoplist file, corpus.path) resolve
    against the file that is loaded; rewrite them so that they still point at the same files
    from ``target_dir``. Returns only the changed sections, nested."""
    def moved(path: str) -> str:
        if os.path.isabs(path):
            return path
        return os.path.relpath((source_dir / path).resolve(), target_dir.resolve())

    changes: dict = {}
    stoplist = merged.get("analyzer", {}).get("stoplist")
    if isinstance(stoplist, str) and stoplist_path(stoplist) is not None:  # a file, not a named list
        changes.setdefault("analyzer", {})["stoplist"] = moved(stoplist)
    corpus_path = merged.get("corpus", {}).get("path")
    if isinstance(corpus_path, str):
        changes.setdefault("corpus", {})["path"] = moved(corpus_path)
    stages = merged.get("rerank") or []
    if any(isinstance(s, dict) and s.get("variants") for s in stages):
        changes["rerank"] = [{**s, "variants": [moved(v) for v in s["variants"]]} if isinstance(s, dict)
                             and s.get("variants") else s for s in stages]
    return changes


def _merge_into(target: dict, changes: dict) -> dict:
    out = copy.deepcopy(target)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge_into(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _comparable(data: dict, path: Path) -> dict:
    return validate(data, path).model_dump(mode="json", exclude={"tag", "description"})


def choice_path(choice: Pick, number: int, out_dir: Path) -> Path:
    """Where the ``number``-th pick's variant file is written."""
    name = point_slug(choice.record.overrides)[:60].rstrip("-._") or f"point{choice.record.point}"
    return out_dir / f"{number}-{name}.yaml"


def write_choice(choice: Pick, number: int, base: Path, folder: guard.OutputFolder, tag: str, header: str) -> Path:
    """Write one chosen point as a variant YAML (extends the base when that reproduces it exactly)."""
    record = choice.record
    out_dir = folder.path
    target = choice_path(choice, number, out_dir)
    expected = load_variant(base, record.overrides)
    path_fixes = rebase_paths(expected.merged, base.parent, out_dir)
    description = f"sweep point {record.point}: {describe_overrides(record.overrides)}"
    body = {"extends": os.path.relpath(base, out_dir.resolve()), "tag": tag, "description": description,
            **_merge_into(nest(record.overrides), path_fixes)}
    text = header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True)
    folder.write_text(target.name, text)
    want = _comparable({**_merge_into(expected.merged, path_fixes), "tag": tag}, target)
    if _comparable(resolve_raw(target), target) != want:
        # Merging cannot remove keys (e.g. a field_weights override with fewer fields than the
        # base): write the complete variant instead of extends + overrides.
        full = {"tag": tag, "description": description,
                **{k: v for k, v in _merge_into(expected.merged, path_fixes).items()
                   if k not in ("tag", "description")}}
        text = header + "# complete variant: `extends` merging cannot express this point's overrides\n" \
            + yaml.safe_dump(full, sort_keys=False, allow_unicode=True)
        folder.write_text(target.name, text)
        if _comparable(resolve_raw(target), target) != want:  # pragma: no cover - a bug of ours
            raise ToucheError("the written variant does not reproduce the sweep point", path=target)
    return target


def choose(results_path: str | Path, out_dir: str | Path, *, measure: str | None = None, second: str | None = "auto",
           count: int = 5, min_diff: int | None = None, reference: bool = True,
           index_root: Path | None = None, distinct: str | None = None, partial: bool = False,
           max_loss: float | None = None, progress: bool = False) -> list[Pick]:
    """Pick ``count`` points and write their variant files, a suite.yaml and choice.md to ``out_dir``.

    With ``reference`` the shipped suite's primary variant is run on the sweep's data too
    (``reference``), and a warning says so when the best point scores below it: a sweep
    around a weak base can hand in five runs all worse than the suite the toolkit already ships.
    ``partial``: choose among the finished points of an unfinished sweep (refused otherwise);
    ``max_loss``: how much below pick 1 a diversity pick may be when significantly worse
    (default: not at all); ``progress``: the reference run's progress bars."""
    if not (isinstance(count, int) and 1 <= count <= MAX_SUBMISSIONS):
        # checked before anything is written: a suite of more runs than Touché takes is refused
        raise ToucheError(f"--count must be between 1 and {MAX_SUBMISSIONS} (the runs a suite may hand in), "
                          f"got {count}")
    results = load_results(results_path, partial=partial)
    manifest = results.manifest
    main = measure or manifest.measure
    if results.several and measure not in (None, manifest.measure):
        raise ToucheError("a sweep on several sets is chosen from by its own measure and criterion "
                          f"({manifest.measure}, {manifest.criterion}); --measure does not apply",
                          path=results.directory)
    second_measure = (None if results.several else default_second_measure(results, main)) if second == "auto" \
        else second
    if results.several and second_measure is not None:
        raise ToucheError("a sweep on several sets has no second measure: its picks follow the criterion over "
                          "the sets (with diversity)", path=results.directory)
    out = Path(out_dir).resolve()
    if out == results.directory:
        raise ToucheError("--out is the sweep's own folder: choose writes suite.yaml and variant files, give "
                          "another folder", path=out)
    picks = pick(results, measure=main, second=second_measure, count=count, min_diff=min_diff, distinct=distinct,
                 max_loss=max_loss)
    if len(picks) < count and picks.skipped:
        record, loss = min(picks.skipped, key=lambda item: -item[1].delta)
        log.warning(
            "%d of the %d picks asked for: the other points that differ enough from the picks are significantly "
            "worse than pick 1 (choice.md lists them; the closest, point %d, loses %.3f): --max-loss %.3f lets "
            "such points in",
            len(picks),
            count,
            record.point,
            -loss.delta,
            math.ceil(-loss.delta * 1000) / 1000,
        )
    shipped = shipped_reference(results, main, index_root=index_root, progress=progress) if reference else None
    if shipped is not None:
        best = reference_value(results, picks[0].record, shipped)
        if not best >= shipped.value:
            caveat = shipped.caveat()
            log.warning("the best point of the sweep scores %s = %s, below the shipped suite's primary %s (%s) on "
                        "the same topics and qrels%s", shipped.measure, format_number(best), shipped.variant.name,
                        format_number(shipped.value),
                        f". But {caveat}" if caveat else
                        f": submitting `touche run-all --task {shipped.variant.parent.name}` would score higher")
    base = Path(manifest.base)
    files = _files(results, picks, base, out)
    guard.check(files)  # before the first file is written
    folder = guard.OutputFolder(out, "output folder", command="touche choose")
    folder.claim([path.name for _, path in files.writes + files.folders if path.parent == out])
    base_loaded = load_variant(base)
    used: set[str] = set()
    written: list[Pick] = []
    shown = [m for m in (main, second_measure) if m]
    for number, choice in enumerate(picks, 1):
        tag = derive_tag(own_tag(base_loaded.variant.tag, base_loaded.merged, choice.record.overrides), choice.record,
                         used)
        used.add(tag)
        if results.several:  # the sort measure on every set
            on_set = {name: getattr(points.get(choice.record.point), "measures", {}).get(manifest.measure)
                      for name, points in results.by_set.items()}
            scores = f"{manifest.measure}: " + "; ".join(f"{name} {format_number(v)}" for name, v in on_set.items())
        else:
            scores = "; ".join(f"{m} = {format_number(choice.record.measures.get(m))}" for m in shown)
        header = (f"# Chosen by `touche choose` from sweep {Path(manifest.sweep).name} "
                  f"(point {choice.record.point}): {choice.reason}.\n# {scores}\n")
        path = write_choice(choice, number, base, folder, tag, header)
        written.append(Pick(choice.record, choice.reason, path, tag, choice.loss))
    _write_suite(results, written, folder)
    folder.write_text("choice.md", format_choices(results, written, shown, shipped, picks.skipped, max_loss))
    return written


def _files(results: SweepResults, picks: list[Pick], base: Path, out: Path) -> guard.Files:
    """What choose reads (the sweep's record and manifest, the base variant, the main set's data)
    and writes (a variant file per pick, suite.yaml, choice.md, the set's topics and corpus links)."""
    entry = results.main_set
    data = [("set corpus file", results.path(f)) for f in entry.corpus_files or [entry.corpus]] + \
        [("set topics", results.path(entry.topics))] + \
        ([("source topics", results.path(entry.source_topics))] if entry.source_topics else []) + \
        [("qrels", results.path(q)) for q in entry.qrels.values()]
    return guard.Files.of(
        reads=[("sweep results", results.directory / RESULTS_FILE),
               ("sweep manifest", results.directory / MANIFEST_FILE),
               ("base variant", base), *data],
        writes=[("chosen variant", choice_path(p, n, out)) for n, p in enumerate(picks, 1)]
        + [("suite", out / "suite.yaml"), ("choice report", out / "choice.md")]
        + ([("topics copy", out / "topics.xml")] if entry.source_topics is not None else []),
        folders=[("output folder", out)] + ([("corpus link folder", out / "corpus")] if entry.corpus_files else []))


def suite_inputs(results: SweepResults, entry: ManifestSet, folder: guard.OutputFolder) -> tuple[Path, Path]:
    """The corpus and topics of a set for a suite in ``folder``: a selection of topics copied
    there and a list of corpus files linked there, so the suite never points into the sweep's
    output folder (deleting the sweep must not break the suite)."""
    out = folder.path
    corpus, topics = results.path(entry.corpus), results.path(entry.topics)
    if entry.corpus_files is not None:
        linked = DevSet(entry.name, out / "corpus", topics, {}, out, corpus_files=[Path(f) for f in entry.corpus_files])
        linked.prepare(folder)
        corpus = linked.corpus
    if entry.source_topics is not None:
        topics = folder.write_text("topics.xml", topics.read_text(encoding="utf-8"))
    return corpus, topics


def _write_suite(results: SweepResults, choices: list[Pick], folder: guard.OutputFolder) -> Path:
    manifest = results.manifest
    entry = results.main_set
    out = folder.path
    corpus, topics = suite_inputs(results, entry, folder)

    def rel(p: str | Path) -> str:
        return os.path.relpath(p, out)

    paths = [c.path for c in choices if c.path is not None]  # every pick written has its file
    suite = {"variants": [p.name for p in paths], "primary": paths[0].name,
             "topics": rel(topics), "corpus": rel(corpus), "qrels": {n: rel(q) for n, q in entry.qrels.items()}}
    how = (f"the most robust across its {len(manifest.sets)} sets by {manifest.criterion}; its data: set "
           f"{entry.name}, which weighs most" if results.several else f"best by {manifest.measure}")
    header = (f"# The submissions chosen from sweep {Path(manifest.sweep).name}; primary = {how}.\n"
              f"# Run them: touche run-all --suite {out / 'suite.yaml'}\n")
    path = folder.write_text("suite.yaml", header + yaml.safe_dump(suite, sort_keys=False))
    load_suite(path)  # the suite we write must load
    return path
