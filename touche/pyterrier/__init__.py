"""Touché inside PyTerrier's pipelines: run variants as transformers, Touché's measures as
ir_measures measures (so ``pt.Experiment`` reports them), topics, qrels and run files as
PyTerrier frames. docs/pyterrier.md shows a whole experiment. This package is part of the
command-line wing (docs/architecture.md): it may import every layer, and no layer imports it.

* ``Variant(name_or_yaml, corpus=...)`` (``variant.py``) is a ``pt.Transformer``: a queries frame
  (``qid``, ``query``; optionally Touché's ``title``, ``description``, ``narrative``, ``objects``)
  in, the rows of the variant's run file out (``qid``, ``query``, ``docno``, ``score``, ``rank``
  from 0 as PyTerrier counts, and ``stance`` where the task has one). ``v.first_stage >>
  v.stages`` is the variant; its YAML keys are its parameters (``pt.GridScan``).
* ``measure("touche.nDCG@5")`` (``measures.py``; any name of the measure registry,
  ``quality:touche.nDCG@5`` for another qrels column) is an ir_measures measure with ``touche
  evaluate``'s values; ``measures(...)`` turns names into ``eval_metrics``.
  A pooled measure (stance macro-F1) is reported, per topic and against a baseline as pooled
  (``scoring.py``, ``rendering.py``: docs/pyterrier.md, "Stance in pt.Experiment").
* ``topics``, ``qrels``, ``read_run`` and ``write_run`` (``frames.py``) read and write PyTerrier's
  frames, run files with their stance and tie order kept (PyTerrier's own results files keep the
  stance too; ``topics_only``/``topics_except`` select topics as ``--topics-only`` does);
  ``explore`` (``experiment.py``) writes the run explorer for the systems of an experiment;
  ``cached(variant, path)`` (``caching.py``) is pyterrier-caching's cache of the score and the
  stance; ``Restrict(corpus)`` (``restrict.py``) scores results on a sample's documents,
  cautioning for those it lacks, as ``--corpus C --restrict`` does.
* ``Index(path)`` (``index.py``) is a built index: a transformer (BM25), a ``pt.Artifact``, with
  ``bm25()``, ``dirichlet()``, ``text_loader()``, ``variant(...)``; ``Index.of(variant, corpus)``
  builds one and ``Index.indexer(path).index(documents)`` indexes any iterator of dicts.
* ``start_java()`` (``java.py``) starts one JVM for the toolkit, Terrier and pyterrier-anserini;
  the toolkit's ``pyterrier.java.init`` entry point adds its jars whenever PyTerrier starts Java.
"""
from __future__ import annotations

try:
    import pyterrier  # noqa: F401  (the optional dependency: said here, once)
except ImportError as exc:
    raise ImportError("touche.pyterrier needs PyTerrier: install the toolkit with its pyterrier extra "
                      "(pip install 'touche_toolkit-….whl[pyterrier]', docs/pyterrier.md) or "
                      "pip install pyterrier==1.1.2") from exc

from touche.pyterrier.caching import cached
from touche.pyterrier.explorer import explore
from touche.pyterrier.frames import install_results_format as _install_results_format
from touche.pyterrier.frames import qrels, read_run, topics, write_run
from touche.pyterrier.index import Index, Indexer
from touche.pyterrier.java import register_jars, start_java
from touche.pyterrier.measures import measure, measures
from touche.pyterrier.rendering import install as _install_rendering
from touche.pyterrier.restrict import Restrict
from touche.pyterrier.variant import Variant

_install_rendering()  # pt.Experiment's means and tests of pooled measures (rendering.py)
_install_results_format()  # PyTerrier's results files keep a frame's stance (frames.py)

__all__ = ["Variant", "cached",
           "Index", "Indexer", "measure", "measures", "topics", "qrels", "read_run", "write_run", "explore",
           "Restrict", "register_jars", "start_java"]
