"""A sweep file read and checked: its sets, its points, their variants and keys (nothing runs).

Keys: a point's *run key* hashes what its run file depends on (its overrides, the variant they
produce with every file it reads, the set's corpus and topics); its *result key* adds the
qrels its scores depend on. Two sets that share corpus and topics but not qrels (relevance and
quality, say) share the run file and keep their own scores.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from touche.config import LoadedVariant, describe_validation_error, load_variant, read_yaml
from touche.errors import ConfigError, InputError, ToucheError
from touche.guard import OutputFolder
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.evaluation.significance import split_measure
from touche.retrieval.experiments.sweep.axes import Axis
from touche.retrieval.experiments.sweep.sets import DevSet, check_set, dev_set, set_folder
from touche.retrieval.experiments.sweep.spec import Point, SweepSpec, axes_of, canonical, expand_path, expand_points
from touche.retrieval.fingerprint import variant_fingerprint
from touche.retrieval.formats.gate import load_qrels
from touche.retrieval.preflight import preflight

KEY_FORMAT = 4  # 4: result keys hold the qrels; run keys name the run files


@dataclass
class Sweep:
    path: Path
    spec: SweepSpec
    base: Path
    sets: list[DevSet]
    output: Path
    points: list[Point]
    variants: list[LoadedVariant]
    _folders: dict[tuple[str, ...], OutputFolder] = field(default_factory=dict, init=False, repr=False)

    @property
    def name(self) -> str:
        return self.path.stem

    def folder(self, *parts: str) -> OutputFolder:
        """The sweep's output folder, or a folder inside it (``runs``, ``sets``, ``sets/<name>``):
        the one owner of every path there, made or reused only as the sweep's own, never through a
        link (guard.OutputFolder)."""
        if parts not in self._folders:
            self._folders[parts] = (self.folder(*parts[:-1]).folder(parts[-1]) if parts else
                                    OutputFolder(self.output, "sweep output folder", command="touche sweep"))
        return self._folders[parts]

    def set_folder(self, dev: DevSet) -> OutputFolder:
        return self.folder("sets", dev.folder.name)

    @property
    def several(self) -> bool:
        """Whether the sweep has development sets of its own (``sets:``)."""
        return bool(self.spec.sets)

    @property
    def keys(self) -> list[str]:
        return [key for dev in self.sets for key in dev.keys]

    @property
    def qrels_name(self) -> str:
        name, _ = split_measure(self.spec.measure)
        assert name is not None  # the spec's measure is QRELS-NAME:MEASURE (validated)
        return name

    @property
    def measures(self) -> list[str]:
        """The configured measures plus the sort measure's own (it must be computed)."""
        _, sort_measure = split_measure(self.spec.measure)
        return list(dict.fromkeys([*self.spec.measures, sort_measure]))

    def measures_for(self, dev: DevSet) -> list[str]:
        """The measures a set's runs are scored with: those that fit one of its qrels files. Given
        ones that fit none are refused when the sweep loads (``check_set``); of the defaults a
        set gets those that fit (a stance-only set has no nDCG)."""
        kinds = {name: load_qrels(path).kind for name, path in dev.qrels.items()}
        return [m for m in self.measures if any(parse_measure(m).applies_to(n, k) for n, k in kinds.items())]

    @property
    def axes(self) -> list[Axis]:
        return [axis for axis, _ in axes_of(self.spec)]

    @property
    def corpus_formats(self) -> set[str]:
        return {loaded.variant.corpus.format for loaded in self.variants}

    def jobs(self) -> list[tuple[DevSet, int]]:
        """(set, point index) of every run the sweep holds, set by set."""
        return [(dev, i) for dev in self.sets for i in range(len(self.points))]


def run_key(point: Point, variant: str, data: tuple[str, str, str, str]) -> str:
    """What decides a point's run: its overrides, the variant they produce with the contents of
    every file it reads (``variant``: retrieval/fingerprint.py's digest), the corpus and topics."""
    corpus, topics, corpus_digest, topics_digest = data
    payload = {"format": KEY_FORMAT, "overrides": point.overrides, "variant": variant,
               "corpus": corpus, "topics": topics, "data": [corpus_digest, topics_digest]}
    return hashlib.sha256(canonical(payload).encode()).hexdigest()[:16]


def result_key(run: str, qrels: str) -> str:
    """A run scored with a set's qrels (their names and contents)."""
    return hashlib.sha256(f"{run}\0{qrels}".encode()).hexdigest()[:16]


def load_sweep(path: str | Path, *, corpus: Path | None = None, topics: Path | None = None,
               qrels: dict[str, Path] | None = None, output: Path | None = None) -> Sweep:
    """Read and check a sweep file, each of its sets and every one of its points."""
    path = Path(path).resolve()
    data = read_yaml(path)
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as exc:
        message = describe_validation_error(exc).replace("Value error, ", "").replace("config: ", "")
        raise ConfigError(message, path=path) from None
    here = path.parent
    base = expand_path(spec.base, here, path)
    if not base.is_file():
        raise ConfigError(f"base variant not found: {base}", path=path)
    out = Path(output).resolve() if output else (expand_path(spec.output, here, path) if spec.output
                                                  else Path.cwd() / "out" / "sweeps" / path.stem)
    qrels_name, _ = split_measure(spec.measure)
    assert qrels_name is not None  # the spec's measure is QRELS-NAME:MEASURE (validated)
    if spec.sets:
        if corpus or topics or qrels:
            raise ConfigError("this sweep has sets: (each with its corpus, topics and qrels); -i, -t and --qrels "
                              "do not apply: change the sets in the file", path=path)
        sets = [dev_set(name, dev, here, path, out) for name, dev in spec.sets.items()]
    else:
        sets = [_the_one_set(spec, here, path, out, corpus, topics, qrels)]
    points = expand_points(spec)
    variants = []
    for point in points:
        try:
            loaded = load_variant(base, point.overrides)
        except ConfigError as exc:
            raise ConfigError(f"point {point.number} ({point.describe()}) of the sweep gives an invalid variant: "
                              f"{exc.message}", path=path, where=f"base {exc.path or base}") from None
        variants.append(loaded)
    checked: set[tuple] = set()
    for point, loaded in zip(points, variants):  # model files load now, not after the first set ran
        try:
            preflight(loaded, checked)
        except ToucheError as exc:
            raise ConfigError(f"point {point.number} ({point.describe()}): {exc.message}", path=exc.path,
                              where=exc.where) from None
    formats = {loaded.variant.corpus.format for loaded in variants}
    given = list(spec.measures) if "measures" in spec.model_fields_set else []
    for dev in sets:
        try:
            check_set(dev, qrels_name, formats, given)
        except ConfigError as exc:
            raise ConfigError(exc.message, path=path) from None
    # each variant and each set's data fingerprinted once: the keys combine them
    fingerprints = [variant_fingerprint(loaded) for loaded in variants]
    first: dict[str, Point] = {}
    for point, fingerprint in zip(points, fingerprints):  # a grid [1, "1"] is one value, validated
        twin = first.setdefault(fingerprint, point)
        if twin is not point:
            raise ConfigError(f"points {twin.number} ({twin.describe()}) and {point.number} ({point.describe()}) give "
                              "the same variant once validated: the grid repeats a value (as 1 and \"1\" would); "
                              "give each value once", path=path)
    for dev in sets:
        data_prints = dev.data_fingerprints()
        qrels_print = dev.qrels_fingerprint()
        dev.run_keys = [run_key(point, fingerprint, data_prints) for point, fingerprint in zip(points, fingerprints)]
        dev.keys = [result_key(key, qrels_print) for key in dev.run_keys]
    return Sweep(path, spec, base, sets, out, points, variants)


def _the_one_set(spec: SweepSpec, here: Path, path: Path, out: Path, corpus: Path | None, topics: Path | None,
                 qrels: dict[str, Path] | None) -> DevSet:
    """The set of a sweep without ``sets:``: its corpus/topics/qrels, or the command line's."""
    qrels_name, _ = split_measure(spec.measure)
    corpus_path = Path(corpus).resolve() if corpus else (expand_path(spec.corpus, here, path) if spec.corpus else None)
    topics_path = Path(topics).resolve() if topics else (expand_path(spec.topics, here, path) if spec.topics else None)
    if corpus_path is None or topics_path is None:
        raise ConfigError("the sweep needs a corpus and topics: set corpus: and topics: or pass -i and -t", path=path)
    for what, p in (("corpus", corpus_path), ("topics", topics_path)):
        if not p.exists():
            raise InputError(f"{what} not found: {p}", path=path)
    named_qrels = {n: Path(q).resolve() for n, q in qrels.items()} if qrels else \
        {n: expand_path(q, here, path) for n, q in spec.qrels.items()}
    if qrels_name not in named_qrels:
        raise ConfigError(f"measure '{spec.measure}' names qrels '{qrels_name}', which is not given", path=path)
    return DevSet("", corpus_path, topics_path, named_qrels, set_folder(out, ""))
