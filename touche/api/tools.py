"""The toolkit's other commands as functions: ``touche datasets``, ``contact-sheet``, ``chatnoir``,
``regressions``, ``train-quality`` and ``train-stance``. Each returns what it did, with the lines
the command prints (``lines``) and, where the command has one, its exit status."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from touche.atomic import is_stdout
from touche.config import load_variant
from touche.datasets import DATASETS, corpus_path, irds_home, qrels_paths, status_rows, topics_path
from touche.datasets import dataset as dataset_named
from touche.errors import ToucheError
from touche.paths import shared_touche_dir
from touche.retrieval.evaluation.measures import stance_macro_f1
from touche.retrieval.experiments.contact_sheet import write_contact_sheet
from touche.retrieval.experiments.regressions import differences, measure, pinned
from touche.retrieval.experiments.regressions import suites as every_suite
from touche.retrieval.experiments.regressions import write as write_figures
from touche.retrieval.formats.gate import load_topics
from touche.retrieval.stages.quality import model as quality
from touche.retrieval.tasks.task2.chatnoir import ChatNoirClient, fetch_corpus
from touche.retrieval.tasks.task2.stance import training as stance
from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE as STANCE_MODEL
from touche.specs.task2 import ChatNoirSpec, Task2Spec

__all__ = ["datasets", "contact_sheet", "chatnoir", "regressions", "train_quality", "train_stance",
           "training_inputs", "model_output"]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class Report:
    """What a tool did: the lines it says and its exit status (0 fine, 1 something to act on)."""
    lines: list[str] = field(default_factory=list)
    status: int = 0
    path: Path | None = None


def datasets(id: str | None = None, *, fetch: bool = False) -> Report:
    """``touche datasets``: the ir_datasets ids the toolkit reads and what of each is cached; with
    ``id`` that dataset's files (status 1 when some are missing), ``fetch`` fetching them now."""
    if not id:
        lines = [f"ir_datasets cache: {irds_home()} (IR_DATASETS_HOME)",
                 f"{'id':50} {'task':13} {'corpus.format':18} cached"]
        for d in DATASETS.values():
            rows = status_rows(d.id)
            lines.append(f"{d.id:50} {d.task:13} {d.corpus.formats[0]:18} {sum(r[2] for r in rows)}/{len(rows)} files")
        return Report(lines)
    d = dataset_named(id)
    if fetch:
        return Report([f"corpus: {corpus_path(d.id)}", f"topics: {topics_path(d.id)}"]
                      + [f"qrels {name}: {path}" for name, path in qrels_paths(d.id).items()])
    lines = [f"{d.id}: task {d.task}, corpus.format {' or '.join(d.corpus.formats)}"]
    missing = 0
    for part, path, present, hint in status_rows(d.id):
        lines.append(f"  {part:17} {'present' if present else 'MISSING'}  {path}")
        if not present:
            missing += 1
            lines.append(f"  {'':17} offline: {hint}")
    return Report(lines, 1 if missing else 0)


def contact_sheet(run: PathLike, collection: PathLike, out: PathLike, *, topics: PathLike | None = None,
                  config: PathLike | None = None, topic: Iterable[str] | None = None, progress: bool = True) -> Path:
    """``touche contact-sheet``: an HTML page of an image run, per topic and stance its 10 images,
    their scores and the text that earned them (``config``: the variant whose image settings
    explain the evidence; ``topic``: only these topics)."""
    spec = load_variant(Path(config)).variant.image if config else None
    return write_contact_sheet(run, collection, out, topics_path=topics, spec=spec,
                               topics=list(topic) if topic else None, progress=progress)


def chatnoir(config: PathLike, topics: PathLike, output: PathLike, *,
             progress: Callable[[str], None] | bool = True) -> Report:
    """``touche chatnoir``: each topic's ChatNoir hits fetched as a small ClueWeb12 corpus in
    ``output`` (a new folder), to index and re-rank like any local corpus."""
    spec = load_variant(Path(config)).variant.task2 or Task2Spec()
    client = ChatNoirClient(spec.chatnoir or ChatNoirSpec())
    said = progress if callable(progress) else (lambda line: print(line, flush=True)) if progress else None
    out = fetch_corpus(load_topics(topics), spec, Path(output), client, progress=said)
    return Report([f"wrote {out} ({client.requests_sent} requests); index and re-rank it with: "
                   f"touche run -c {config} -i {out} -t {topics} -o run.txt"], path=out)


def regressions(suites: Iterable[PathLike] = (), *, write: bool = False, index_root: PathLike | None = None) -> Report:
    """``touche regressions``: every suite (default: each ``configs/*/suite.yaml``) run on its demo
    data against its pinned figures (status 1 when one differs); ``write`` pins what the code gives."""
    chosen = [Path(s) for s in suites] or every_suite()
    report = Report()
    with tempfile.TemporaryDirectory(prefix="touche-regressions-") as scratch:
        root = Path(index_root) if index_root else Path(scratch)
        for suite in chosen:
            figures = measure(suite, root)
            if write:
                report.lines.append(f"wrote {write_figures(suite, figures)}")
                continue
            diff = differences(pinned(suite), figures)
            report.lines.append(f"{suite}: " + ("as pinned" if not diff else f"{len(diff)} figure(s) differ"))
            report.lines += [f"  {line}" for line in diff]
            report.status = report.status or (1 if diff else 0)
    return report


def training_inputs(command: str, **given: PathLike | None) -> dict[str, Path]:
    """The files a ``train-*`` command reads: as given, else the shared data's."""
    shared = shared_touche_dir()
    defaults = {"train-quality": {"csv": shared / "corpora" / "webis-argquality20-full.csv"},
                "train-stance": {"compsent": shared / "corpora" / "compsent19",
                                 "passages": shared / "corpora" / "task2-2022-passages.sample.jsonl",
                                 "qrels": shared / "qrels" / "task2-2022-stance.qrels",
                                 "topics": shared / "topics" / "task2-2022.xml"}}[command]
    return {name: Path(value) if (value := given.get(name)) else default for name, default in defaults.items()}


def model_output(output: PathLike, shipped: Path, replace_shipped: bool) -> Path:
    """Where a ``train-*`` command writes its model: ``output``, or the model the package ships
    with ``replace_shipped`` only (in an editable install that is the checkout); never a folder."""
    path = shipped if replace_shipped else Path(output)
    if path.resolve() == shipped.resolve() and not replace_shipped:
        raise ToucheError("this is the model the package ships; pass --replace-shipped to overwrite it", path=path)
    if path.is_dir():
        raise ToucheError(f"the output is a folder; give a file name (e.g. {shipped.name})", path=path)
    return path


def train_quality(csv: PathLike | None = None, output: PathLike = "quality_model.json", *, l2: float = 1.0,
                  replace_shipped: bool = False) -> Report:
    """``touche train-quality``: the quality_model stage's ridge regression fitted on the
    Webis-ArgQuality-20 CSV (default: the shared data's) and written to ``output``."""
    csv = training_inputs("train-quality", csv=csv)["csv"]
    path = model_output(output, quality.MODEL_FILE, replace_shipped)
    model = quality.train(csv, l2)
    lines = [f"wrote {quality.save(model, path)}: {model['examples']} arguments, training Pearson r "
             f"{model['train_pearson']}, 5-fold r {quality.cross_validated_pearson(csv, l2=l2):.3f}"]
    if path.resolve() != quality.MODEL_FILE.resolve() and not is_stdout(path):  # a file a variant can name
        lines.append(f"use it in a variant: rerank: [{{name: quality_model, model: {path.resolve()}}}]")
    return Report(lines, path=path)


def train_stance(output: PathLike = "stance_model.json.gz", *, compsent: PathLike | None = None,
                 passages: PathLike | None = None, qrels: PathLike | None = None, topics: PathLike | None = None,
                 replace_shipped: bool = False) -> Report:
    """``touche train-stance``: the learned comparative stance model fitted on CompSent-19 and the
    Touché 2022 passage sample (each default: the shared data's), written to ``output``."""
    files = training_inputs("train-stance", compsent=compsent, passages=passages, qrels=qrels, topics=topics)
    path = model_output(output, STANCE_MODEL, replace_shipped)
    trained = stance.train(files["compsent"] / "train.csv", files["passages"], files["qrels"], files["topics"])
    model = trained.model
    stance.save(model, path)
    lines = [f"wrote {path}: sentence classifier on {model['sentences']['examples']:,} CompSent-19 sentences, "
             f"passage model on {model['passages']['all']['examples']} judged passages "
             f"({len(model['passages']['folds'])} topic folds)"]
    if (files["compsent"] / "test.csv").is_file():
        sentences, labels = stance.read_compsent(files["compsent"] / "test.csv")
        s = stance.score_sentences(model["sentences"], sentences, labels)
        lines.append(f"CompSent-19 held-out test ({s.n:,} sentences): micro-F1 {s.micro:.3f}, macro-F1 {s.macro:.3f} "
                     "(" + ", ".join(f"{c} {v:.3f}" for c, v in s.per_class.items()) + ")")
    data = trained.passages
    lines.append(f"on the {len(data.labels)} judged passages: learned (CompSent-19 only) macro-F1 "
                 f"{stance_macro_f1(data.labels, data.learned):.3f}; combined, out of fold (topic-grouped "
                 f"{len(model['passages']['folds'])}-fold) {stance_macro_f1(data.labels, trained.out_of_fold):.3f}")
    if path.resolve() != STANCE_MODEL.resolve() and not is_stdout(path):  # a file a variant can name
        lines.append(f"use it in a variant: task2: {{stance: {{model: combined, model_file: {path.resolve()}}}}}")
    return Report(lines, path=path)
