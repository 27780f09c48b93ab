"""A pytest plugin for the line map's coverage run (``-p bench.mutation.contexts``): each test's
setup, call and teardown are measured under a coverage context named by its node id, and each
test's time is written to ``$TOUCHE_MUTATION_SECONDS`` (JSON) at the end."""
from __future__ import annotations

import json
import os
import time

import pytest

_seconds: dict[str, float] = {}
BETWEEN = "(between tests)"  # a session fixture's teardown, the session's end: no test's own


def _switch(context: str) -> None:
    import coverage
    current = coverage.Coverage.current()
    if current is not None:
        current.switch_context(context)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _switch(item.nodeid)
    started = time.perf_counter()
    yield
    _seconds[item.nodeid] = _seconds.get(item.nodeid, 0.0) + time.perf_counter() - started
    _switch(BETWEEN)


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("TOUCHE_MUTATION_SECONDS")
    if target:
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(_seconds, handle)
