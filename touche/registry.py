"""The extension points' declarations and lazy "module:attribute" loading.

A task and a corpus family are each declared here, once: everything else that names them derives
from these tables (the schema's ``task:`` and ``corpus.format`` choices and their descriptions,
a task's settings section, what a TIRA input folder of the task holds, ``touche run-all --task``
and ``touche explore --corpus-format``). A declaration names its code by ``"module:attribute"``,
imported only when a variant uses it, so that this core module never imports a higher layer.
Code of a plugin or a test adds one with ``register_task`` / ``register_corpus_family``."""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from touche.errors import ConfigError


@dataclass(frozen=True)
class CorpusFamily:
    """A corpus family (``corpus.format``): its reader, a ``CorpusSource`` class, and what the
    schema says of it."""
    reader: str                      # "module:class" (indexing/)
    description: str                 # the config reference's words: "argsme (JSON)"

    @property
    def ref(self) -> str:
        return self.reader


@dataclass(frozen=True)
class TaskSection:
    """A variant's settings section for a task family (``task2:``, ``pairs:``, ``image:``)."""
    spec: str                        # "module:class" of its strict pydantic model (touche/specs/)
    description: str


@dataclass(frozen=True)
class Task:
    """A task (``task:``): its handler, a ``TaskHandler`` (retrieval/tasks/<package>/handlers.py),
    what the schema says of it, the files its TIRA input folder holds (glob patterns, checked
    without descending: corpora are large) and the words an error says them in, the settings
    section its variants may give, and whether its handler formulates the queries from it
    (then ``query.text`` and its kin would do nothing: refused)."""
    handler: str                     # "module:attribute"
    description: str
    markers: tuple[str, ...] = ()
    holds: str = ""                  # "ClueWeb12 WARC files"
    section: str | None = None
    queries_from: str | None = None  # where its queries come from, when its handler makes them

    @property
    def ref(self) -> str:
        return self.handler


# corpus.format → its reader, imported on first use: a family's dependencies load only when a
# variant reads it.
CORPUS_FAMILIES: dict[str, CorpusFamily] = {
    "argsme": CorpusFamily("touche.indexing.corpora:ArgsMeSource", "argsme (JSON)"),
    "argsme-sentences": CorpusFamily("touche.indexing.sentences:SentenceSource", "argsme-sentences (2022 CSV)"),
    "clueweb12": CorpusFamily("touche.indexing.clueweb:ClueWebSource", "clueweb12 (WARC)"),
    "passages": CorpusFamily("touche.indexing.passages:PassageSource", "passages (Task 2 2022 JSONL)"),
    "images": CorpusFamily("touche.indexing.images:ImageSource", "images (image collection)"),
}

# The settings sections of the task families, in the order the schema lists them.
TASK_SECTIONS: dict[str, TaskSection] = {
    "task2": TaskSection("touche.specs.task2:Task2Spec", "comparative questions: objects, re-ranking, stance"),
    "pairs": TaskSection("touche.specs.pairs:PairsSpec", "Task 1 2022: sentence pairs and their stance"),
    "image": TaskSection("touche.specs.image:ImageSpec", "image retrieval: text fields, OCR, stance"),
}

_TASK2_QUERIES = "task2.query (title_weight, object_weight, description, …)"
TASKS: dict[str, Task] = {
    "task1": Task("touche.retrieval.tasks.task1.handlers:ARGUMENTS_HANDLER",
                  "args.me arguments (2020/21, Q0 runs)", ("*.json",), "args.me JSON *.json"),
    "task1-pairs": Task("touche.retrieval.tasks.task1.handlers:PAIRS_HANDLER",
                        "sentence pairs with stance (2022)", ("*.csv",), "the 2022 sentence CSV", "pairs"),
    "task2": Task("touche.retrieval.tasks.task2.handlers:DOCUMENTS_HANDLER", "ClueWeb12 documents (2020/21)",
                  ("ClueWeb12_*", "*.warc.gz", "*/*.warc.gz", "*/*/*.warc.gz"), "ClueWeb12 WARC files", "task2",
                  _TASK2_QUERIES),
    "task2-stance": Task("touche.retrieval.tasks.task2.handlers:PASSAGES_HANDLER",
                         "passages with stance (2022)", ("*.jsonl", "*.jsonl.gz"), "passage JSONL", "task2",
                         _TASK2_QUERIES),
    "image": Task("touche.retrieval.tasks.image.handlers:HANDLER", "images per stance (2022/23)",
                  ("images/I*", "I??/I*"), "images/", "image"),
}

# The task of a TIRA folder holding none of the others' files (its args.me JSON is checked after
# theirs), of a BEIR folder (Touché's BEIR copy is args.me), and when nothing says which.
DEFAULT_TASK = "task1"

# Called after every registration (touche/config.py rebuilds the schema's choices and sections).
_LISTENERS: list[Callable[[], None]] = []


def on_change(listener: Callable[[], None]) -> None:
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()


def register_task(name: str, task: Task, section: TaskSection | None = None) -> None:
    """Declare a task (and the settings section it brings, named by ``task.section``)."""
    if section is not None:
        if task.section is None:
            raise ValueError(f"task {name!r} brings a settings section but names none (Task.section)")
        TASK_SECTIONS[task.section] = section
    if task.section is not None and task.section not in TASK_SECTIONS:
        raise ValueError(f"task {name!r} names the settings section {task.section!r}, which is not declared")
    TASKS[name] = task
    _changed()


def register_corpus_family(name: str, family: CorpusFamily) -> None:
    CORPUS_FAMILIES[name] = family
    _changed()


def unregister(table: dict[str, Any], name: str) -> None:
    """Take a declaration back (a test's toy): the schema follows."""
    del table[name]
    _changed()


def load(registry: Mapping[str, str | CorpusFamily | Task], key: str, what: str) -> Any:
    try:
        entry = registry[key]
    except KeyError:
        raise ConfigError(f"unknown {what} '{key}' (valid: {', '.join(registry)})") from None
    module_name, attribute = (entry if isinstance(entry, str) else entry.ref).split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ConfigError(f"{what} '{key}' is declared but not implemented yet") from None
    return getattr(module, attribute)


def load_ref(ref: str) -> Any:
    """The object a ``"module:attribute"`` string names, imported now."""
    module_name, attribute = ref.split(":")
    return getattr(importlib.import_module(module_name), attribute)
