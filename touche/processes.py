"""Worker processes that never run the caller's script again.

A process that ``spawn`` or a ``forkserver`` starts re-runs the caller's ``__main__`` before its
task: the caller's script, as a module. A script without ``if __name__ == "__main__":`` that
reads ClueWeb12 or builds shards would start the same work again in every worker, each starting
workers of its own, without end (measured: a four-file ClueWeb12 read from an unguarded script
printed thousands of tracebacks and never finished). The toolkit's workers need nothing of the
caller's: their tasks are functions of the toolkit, imported by name. So while a pool starts its
workers, ``__main__`` shows multiprocessing no file and no module name to re-run; the caller's
own names are back as soon as the workers are started.

Forking instead would avoid the re-run, but the parent may hold a running JVM, which must not
be forked (``indexing/clueweb.py``, ``indexing/builder.py``).
"""
from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

_HIDING = threading.Lock()  # one pool start at a time hides and restores __main__'s names


@contextlib.contextmanager
def callers_script_hidden() -> Iterator[None]:
    """While the block runs, the worker processes started find no ``__main__`` to re-run
    (``__file__`` absent, ``__spec__`` None: multiprocessing's spawn preparation then imports
    nothing of the caller's); both are restored, as they were, when the block ends."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    with _HIDING:
        names = main.__dict__
        saved: dict[str, object] = {name: names[name] for name in ("__file__", "__spec__") if name in names}
        names.pop("__file__", None)
        if "__spec__" in saved:
            names["__spec__"] = None
        try:
            yield
        finally:
            names.pop("__file__", None)
            names.update(saved)
