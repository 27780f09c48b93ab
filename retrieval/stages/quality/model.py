"""``quality_model``: argument quality learned from real labels (Webis-ArgQuality-20).

Webis-ArgQuality-20 (Gienapp et al., ACL 2020) rates 1,610 args.me arguments for rhetorical,
logical and dialectical quality; its "Combined Quality" is their mean (roughly z-scored). A
ridge regression on cheap, explainable text features — length, sentence shape, discourse
markers, first/second person, questions, shouting, links, vocabulary — predicts it. The model
is a few dozen numbers in ``data/quality_model.json``, shipped with the package and reproduced
by ``touche train-quality`` from the CSV (no download at run time, deterministic).

The stage re-scores the top ``depth`` hits by retrieval score / best + ``weight`` × predicted
quality of the argument (conclusion and premises).
"""
from __future__ import annotations

import csv
import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field

from touche.atomic import write_text
from touche.bounds import check_linear_output, checked_array, checked_count
from touche.errors import InputError
from touche.indexing.records import Argument
from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import Stage, StageContext, add_to_head
from touche.sources import regular_file
from touche.specs.weights import Weight
from touche.stemming.stoplists import shipped
from touche.stemming.words import words as word_list

MODEL_FILE = Path(__file__).resolve().parent / "data" / "quality_model.json"
TARGET = "Combined Quality"
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_URL = re.compile(r"https?://|www\.", re.I)
DISCOURSE = frozenset("""because therefore thus hence however although though since consequently moreover furthermore
whereas nevertheless firstly secondly finally conclusion example instance evidence studies study research shows
according percent""".split())
PERSONAL = frozenset("i me my mine you your yours u ur lol".split())
FEATURES = ("log_words", "log_sentence_words", "questions", "exclamations", "capitals", "digits", "links",
            "discourse", "personal", "function_words", "distinct", "long_words", "conclusion_words", "paragraphs")


def text_features(conclusion: str, premises: str) -> dict[str, float]:
    """The model's features of one argument, each cheap to compute and bounded."""
    tokens = word_list(premises)
    n = max(len(tokens), 1)
    sentences = [s for s in _SENTENCE.findall(premises) if s.strip()] or [premises]
    letters = [c for c in premises if c.isalpha()]
    stop = shipped("smart")
    return {
        "log_words": math.log1p(len(tokens)),
        "log_sentence_words": math.log1p(len(tokens) / max(len(sentences), 1)),
        "questions": premises.count("?") / max(len(sentences), 1),
        "exclamations": min(1.0, premises.count("!") / max(len(sentences), 1)),
        "capitals": sum(c.isupper() for c in letters) / max(len(letters), 1),
        "digits": sum(t.isdigit() for t in tokens) / n,
        "links": min(3.0, len(_URL.findall(premises))),
        "discourse": sum(t in DISCOURSE for t in tokens) / n * 10,
        "personal": sum(t in PERSONAL for t in tokens) / n * 10,
        "function_words": sum(t in stop for t in tokens) / n,
        "distinct": len(set(tokens)) / n,
        "long_words": sum(len(t) >= 8 for t in tokens) / n,
        "conclusion_words": math.log1p(len(word_list(conclusion))),
        "paragraphs": math.log1p(premises.count("\n\n")),
    }


def _matrix(rows: list[dict[str, float]]) -> np.ndarray:
    return np.array([[r[f] for f in FEATURES] for r in rows], dtype=float)


def _labelled(csv_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(features, Combined Quality) of every rated argument of the CSV."""
    rows, targets = [], []
    with open(csv_path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"Premise", TARGET} - set(reader.fieldnames or ())
        if missing:
            raise InputError(f"not the Webis-ArgQuality-20 CSV: no column {', '.join(sorted(missing))}", path=csv_path)
        for number, record in enumerate(reader, start=2):
            try:
                target = float(record[TARGET])
            except (TypeError, ValueError):
                raise InputError(f"'{TARGET}' is not a number", path=csv_path, where=f"line {number}") from None
            if math.isnan(target):
                continue
            rows.append(text_features("", record["Premise"] or ""))
            targets.append(target)
    return _matrix(rows), np.array(targets)


def _fit(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ridge regression on standardised features: (mean, std, coefficients with the intercept last)."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std < 1e-6] = 1.0  # a feature that (almost) never varies: saved as 0 it would make a model its loader refuses
    z1 = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    penalty = l2 * np.eye(z1.shape[1])
    penalty[-1, -1] = 0.0  # the intercept is not shrunk
    return mean, std, np.linalg.solve(z1.T @ z1 + penalty, z1.T @ y)


def _apply(x: np.ndarray, mean: np.ndarray, std: np.ndarray, coef: np.ndarray) -> np.ndarray:
    return np.hstack([(x - mean) / std, np.ones((len(x), 1))]) @ coef


def train(csv_path: Path, l2: float = 1.0) -> dict:
    """Ridge regression on standardised features; returns the model (JSON-ready)."""
    x, y = _labelled(csv_path)
    if len(y) < 2 or float(y.std()) == 0.0:
        raise InputError(f"'{TARGET}' takes one value only: there is nothing to learn", path=csv_path)
    mean, std, coef = _fit(x, y, l2)
    predicted = _apply(x, mean, std, coef)
    return {"source": Path(csv_path).name, "target": TARGET, "examples": len(y), "l2": l2,
            "features": list(FEATURES), "mean": mean.round(8).tolist(), "std": std.round(8).tolist(),
            "coef": coef[:-1].round(8).tolist(), "intercept": round(float(coef[-1]), 8),
            "train_pearson": round(float(np.corrcoef(predicted, y)[0, 1]), 4),
            "target_std": round(float(y.std()), 6)}


def cross_validated_pearson(csv_path: Path, folds: int = 5, l2: float = 1.0) -> float:
    """Pearson r of out-of-fold predictions (folds by row order): how well the model generalises."""
    x, y = _labelled(csv_path)
    predicted = np.zeros_like(y)
    for k in range(folds):
        test = np.arange(len(y)) % folds == k
        predicted[test] = _apply(x[test], *_fit(x[~test], y[~test], l2))
    return float(np.corrcoef(predicted, y)[0, 1])


def save(model: dict, path: Path = MODEL_FILE) -> Path:
    return write_text(path, json.dumps(model, indent=1) + "\n")


_MAKE_ONE = "write one with `touche train-quality -o FILE`"


def load(path: Path = MODEL_FILE) -> dict:
    path = regular_file(path, "quality model file", _MAKE_ONE)
    stat = path.stat()
    return _load(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _load(path: Path, mtime_ns: int, size: int) -> dict:
    """Parsed once per version of the file (a retrained model in the same place is read anew)."""
    try:
        model = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise InputError(f"not a quality model written by `touche train-quality`: {exc}", path=path) from None
    missing = {"features", "coef", "mean", "std", "intercept"} - set(model if isinstance(model, dict) else ())
    if missing:
        raise InputError(f"not a quality model written by `touche train-quality` (no {', '.join(sorted(missing))})",
                         path=path)
    try:
        check_model_values(model)
    except ValueError as exc:
        raise InputError(f"not a usable quality model: {exc}", path=path) from None
    return model


def check_model_values(model: dict) -> None:
    """ValueError naming the first value a quality model holds wrong: features this version does
    not compute, or coefficients, means and deviations that are no finite numbers of the features'
    count (a NaN, a zero deviation, a short list once passed and scored every argument NaN, or
    failed in the middle of a re-ranking)."""
    features = model["features"]
    if not isinstance(features, list) or not set(features) <= set(FEATURES) or len(set(features)) != len(features):
        raise ValueError(f"features {features!r}: each must be one of {', '.join(FEATURES)}, once")
    n = (len(features),)
    checked_array(model["coef"], "coef", n)
    checked_array(model["mean"], "mean", n)
    checked_array(model["std"], "std", n, above=0)
    checked_array(model["intercept"], "intercept", ())
    target_std = 1.0
    if model.get("target_std") is not None:
        target_std = float(checked_array(model["target_std"], "target_std", (), above=0))
    if model.get("examples") is not None:
        checked_count(model["examples"], "examples")
    check_linear_output(model["coef"], model["intercept"], "the model", mean=model["mean"], scale=model["std"],
                        factor=1.0 / target_std)


def predict(model: dict, conclusion: str, premises: str) -> float:
    """Predicted quality in units of the training target's standard deviation."""
    values = text_features(conclusion, premises)
    z = sum(c * (values[f] - m) / s for f, c, m, s in zip(model["features"], model["coef"],
                                                          model["mean"], model["std"]))
    return (z + model["intercept"]) / (model.get("target_std") or 1.0)


class QualityModel(Stage):
    """Adds the predicted argument quality (Webis-ArgQuality-20 ridge model) to the head's scores."""

    name: Literal["quality_model"] = "quality_model"
    depth: int = Field(100, ge=1, le=1000, description="re-rank this many top hits")
    weight: Weight = Field(0.1, ge=-10, le=10, description="weight of the predicted quality (in standard deviations) "
                                                          "added to the retrieval score / best score")
    model: str | None = Field(None, description="a model file written by `touche train-quality -o FILE` (relative "
                                                "to the variant); default: the shipped model")

    def model_path(self, variant_dir: Path) -> Path:
        return MODEL_FILE if self.model is None else variant_dir / self.model

    def files_read(self, variant_dir: Path) -> tuple[Path, ...]:
        return (self.model_path(variant_dir),)

    def check_files(self, variant_dir: Path) -> None:
        path = self.model_path(variant_dir)
        try:
            regular_file(path, "quality model file", _MAKE_ONE)
        except InputError as exc:
            raise InputError(exc.message, path=path, where="rerank: quality_model.model") from None
        load(path.resolve())

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        path = self.model_path(ctx.variant_path.parent)
        try:
            regular_file(path, "quality model file", _MAKE_ONE)
        except InputError as exc:
            raise InputError(exc.message, path=path, where=f"{ctx.variant_path}, rerank: quality_model.model") from None
        model = load(path.resolve())
        values: dict[str, dict[str, float]] = {}
        for qid, hits in ranking.items():
            raws = ctx.searcher.raw([d for d, _ in hits[: self.depth]])
            values[qid] = {}
            for docid, raw in raws.items():
                if raw:
                    argument = Argument.from_json(raw)
                    values[qid][docid] = predict(model, argument.conclusion, argument.premises_text)
        return add_to_head(ranking, self.depth, values, self.weight)
