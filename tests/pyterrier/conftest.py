"""Fixtures the PyTerrier tests share (``tpt`` itself is the suite's, tests/conftest.py): the demo's
topics, and its BM25 index and variant, built once per module in the session's index root."""
from __future__ import annotations

import pytest

from tests.shared import BM25_VARIANT, DEMO


@pytest.fixture(scope="module")
def topics(tpt):
    return tpt.topics(DEMO / "topics.xml")


@pytest.fixture(scope="module")
def index(tpt, index_root):
    return tpt.Index.of(BM25_VARIANT, DEMO / "args.me", index_root=index_root)


@pytest.fixture(scope="module")
def bm25_variant(tpt, index_root):
    return tpt.Variant(BM25_VARIANT, corpus=DEMO / "args.me", index_root=index_root)
