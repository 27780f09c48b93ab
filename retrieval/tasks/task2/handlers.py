"""Task 2's handlers: comparative queries, the re-ranking formula, and the run rows.

``DOCUMENTS_HANDLER`` (task2: ClueWeb12 documents, Q0 runs) and ``PASSAGES_HANDLER``
(task2-stance: 2022 passages, stance in column 2, see stance/).
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from touche.errors import InputError, ToucheError
from touche.progress import progress_bar
from touche.retrieval.encoders import dense
from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.search import Ranking, Searcher
from touche.retrieval.tasks import Rows, TaskContext, TaskHandler, q0_rows
from touche.retrieval.tasks.task2.features import hit_features, raw_text, reorder
from touche.retrieval.tasks.task2.objects import ComparedObjects, comparative_query, comparison
from touche.retrieval.tasks.task2.stance.learned import topic_key
from touche.retrieval.tasks.task2.stance.registry import STANCE_MODELS, Labeller, model_file
from touche.specs.task2 import StanceSpec, Task2Spec
from touche.stemming.words import has_technical_word


def _spec(ctx: TaskContext) -> Task2Spec:
    return ctx.variant.task2 or Task2Spec()


def comparative_queries(ctx: TaskContext) -> dict[str, str]:
    spec = _spec(ctx)
    out = {}
    for topic in ctx.topics:
        text = comparative_query(topic, spec.query, spec.objects)
        if not has_technical_word(text):
            raise InputError("the comparative query is empty (the title has no words)", path=str(ctx.topics_path),
                             where=f"topic {topic.number}")
        out[topic.number] = text
    return out


def _texts(searcher: Searcher, ranking: Ranking, depth: int) -> dict[str, str]:
    ids = list(dict.fromkeys(d for hits in ranking.values() for d, _ in hits[:depth]))
    return {d: raw_text(r) for d, r in searcher.raw(ids).items()}


def task_rerank(ctx: TaskContext, ranking: Ranking) -> Ranking:
    """The comparative re-ranking (the session applies it before any fusion stage)."""
    spec = _spec(ctx).rerank
    if not spec.enabled:
        return ranking
    return reorder(ranking, rerank_features(ctx, ranking), spec)


def rerank_features(ctx: TaskContext, ranking: Ranking) -> dict[str, list[tuple[str, dict[str, float]]]]:
    """Every formula feature of each topic's top ``depth`` hits; the dense one only when it weighs."""
    spec = _spec(ctx)
    comps = {t.number: comparison(t, spec.objects) for t in ctx.topics}
    texts = _texts(ctx.searcher, ranking, spec.rerank.depth)
    similarities = dense_scores(ctx, ranking, texts) if spec.rerank.weights.dense else None
    return hit_features(ranking, comps, texts, spec.rerank, similarities)


def dense_scores(ctx: TaskContext, ranking: Ranking, texts: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """The ``dense`` feature: cosine of each topic's title (and description) with its top hits."""
    spec = _spec(ctx).rerank
    try:
        folder = dense.resolve_model(spec.dense.model, ctx.variant_dir)
    except ToucheError as exc:
        raise ToucheError(exc.message, path=ctx.variant_path, where="task2.rerank.dense.model") from None
    enc = dense.encoder(folder, spec.dense.max_tokens)
    queries = {t.number: t.title if spec.dense.query == "title" else f"{t.title} {t.description or ''}".strip()
               for t in ctx.topics}
    head = {qid: [d for d, _ in hits[: spec.depth]] for qid, hits in ranking.items()}
    return dense.similarities(enc, queries, head, texts, batch_size=spec.dense.batch_size, progress=ctx.progress)


def passage_rows(ctx: TaskContext, ranking: Ranking) -> Rows:
    """Every retrieved passage labelled FIRST, SECOND, NEUTRAL or NO toward the first object, by
    the variant's stance model (``task2.stance.model``)."""
    spec = _spec(ctx)
    comps = {t.number: comparison(t, spec.objects) for t in ctx.topics}
    texts = _texts(ctx.searcher, ranking, max((len(h) for h in ranking.values()), default=0))
    keys = {t.number: topic_key(t.title, comps[t.number].objects) for t in ctx.topics}
    label = stance_labeller(ctx, spec.stance)
    rows: Rows = {}
    # labelling every retrieved passage is the task's longest step (minutes for 50 topics × 1,000)
    for qid, hits in progress_bar(ranking.items(), desc="stance", unit=" topics",
                                  disable=not ctx.progress, leave=False):
        comp = comps.get(qid, ComparedObjects((), ()))
        rows[qid] = [(d, s, label(texts.get(d, ""), comp, keys.get(qid))) for d, s in hits]
    return rows


def uses_stance_model(spec: StanceSpec) -> bool:
    """Whether the stance comes from a model file (stance/registry.py: ``uses_file``)."""
    return spec.method != "none" and STANCE_MODELS[spec.model].uses_file


def stance_labeller(ctx: TaskContext, spec: StanceSpec) -> Labeller:
    """(passage text, comparison, topic key) → label, by the registered ``spec.model``."""
    if spec.method == "none":
        return lambda text, comp, key: "NO"
    try:
        return STANCE_MODELS[spec.model].labeller(spec, model_file(spec, ctx.variant_dir))
    except ToucheError as exc:
        raise ToucheError(exc.message, path=exc.path, where=f"{ctx.variant_path}, task2.stance.model_file") from None


def dense_model_files(variant, variant_dir: Path) -> tuple[Path, ...]:
    """The dense model a Task 2 variant reads from a folder (what the packaged ones are, their
    version says)."""
    spec = variant.task2 or Task2Spec()
    model = spec.rerank.dense.model
    if spec.rerank.weights.dense and model.lower() not in dense.PACKAGED_MODELS:
        return (variant_dir / model,)
    return ()


def passage_model_files(variant, variant_dir: Path) -> tuple[Path, ...]:
    """The models a passage variant reads from files: the learned stance model, then the dense one."""
    spec = variant.task2 or Task2Spec()
    stance = (model_file(spec.stance, variant_dir),) if uses_stance_model(spec.stance) else ()
    return stance + dense_model_files(variant, variant_dir)


def check_passage_model_files(variant, variant_dir: Path) -> None:
    """The learned stance model loads (format, names, shapes), before any index is built."""
    spec = variant.task2 or Task2Spec()
    if uses_stance_model(spec.stance):
        try:
            STANCE_MODELS[spec.stance.model].check_file(model_file(spec.stance, variant_dir))
        except ToucheError as exc:
            raise ToucheError(exc.message, path=exc.path, where="task2.stance.model_file") from None


DOCUMENTS_HANDLER = TaskHandler(RunFormat.Q0, ("clueweb12",), q0_rows, comparative_queries, task_rerank,
                                files_read=dense_model_files)
PASSAGES_HANDLER = TaskHandler(RunFormat.STANCE, ("passages",), passage_rows, comparative_queries, task_rerank,
                               files_read=passage_model_files, check_files=check_passage_model_files)
