"""What every re-ranking stage is: a strict spec of its YAML parameters with an ``apply``."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from touche.retrieval.formats.topics import Topic
from touche.retrieval.search import Ranking, Searcher
from touche.specs import Strict


@dataclass(frozen=True)
class StageContext:
    """What a stage may use besides the ranking it re-ranks."""
    variant_path: Path                    # relative files (other variants, models) resolve against its folder
    topics: Mapping[str, Topic]           # by topic number
    queries: Mapping[str, str]            # the first-stage query text of each topic
    searcher: Searcher                    # raw records by id (searcher.raw), explain
    top_k: int                            # the variant's retrieval.top_k
    run_variant: Callable[[Path], Ranking]  # another variant's final ranking, run once per session
    search: Callable[[Mapping[str, str]], Ranking]  # new queries through the variant's first stage (feedback)
    progress: bool = True


class Stage(Strict):
    """A re-ranking stage: subclasses declare ``name: Literal["…"]`` and their parameters (each
    with a description: the config reference is generated from them) and implement ``apply``.
    A stage returns a ranking in which scores stay consistent with the order."""

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        raise NotImplementedError

    def files_read(self, variant_dir: Path) -> tuple[Path, ...]:
        """Files or folders the stage reads besides the index (a model): a sweep point is reused
        only while their contents stay the same (retrieval/fingerprint.py)."""
        return ()

    def check_files(self, variant_dir: Path) -> None:
        """Load what ``files_read`` names now (a model file), raising a located ToucheError when it
        is missing or damaged: called before the first index is built, not hours into a run."""

    def fused_variants(self, variant_dir: Path) -> tuple[Path, ...]:
        """Other variant files the stage runs (fusion); they must not lead back to this one."""
        return ()


def place_below(hits: list[tuple[str, float]], floor: float) -> list[tuple[str, float]]:
    """Scores for ``hits`` strictly below ``floor`` that keep their relative order: the tail a
    stage did not re-rank goes after its re-ranked head."""
    if not hits:
        return []
    best = max(s for _, s in hits)
    scale = best if best > 0 else 1.0
    return [(d, floor - 1e-6 - (1.0 - s / scale)) for d, s in hits]


def add_to_head(ranking: Ranking, depth: int, values: Mapping[str, Mapping[str, float]], weight: float) -> Ranking:
    """The top ``depth`` hits re-scored by retrieval score / best score + weight × value; the
    rest keep their order below them. Ties break by docid."""
    out: Ranking = {}
    for qid, hits in ranking.items():
        head, tail = hits[:depth], hits[depth:]
        if not head:
            out[qid] = list(tail)
            continue
        top = max(s for _, s in head) or 1.0
        given = values.get(qid, {})
        rescored = sorted(((d, s / top + weight * given.get(d, 0.0)) for d, s in head), key=lambda h: (-h[1], h[0]))
        out[qid] = rescored + place_below(tail, rescored[-1][1])
    return out
