"""The benchmark suite in CI mode (``python -m bench --small``): every section runs and its
checks hold. Timings are printed, never asserted (the machine may be shared)."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.shared import REPO


def test_small_benchmark_runs_every_section(tmp_path):
    done = subprocess.run([sys.executable, "-m", "bench", "--small", "--data", str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for title in ("### Indexing 2,000 args.me-shaped", "### Run files", "### A sweep point", "### Sharded building",
                  "### Indexing 1,000 passage-shaped", "### Whole Task 1 submission", "### Targets"):
        assert title in out, title
    results = json.loads((tmp_path / "results-2000.json").read_text())
    # every analyzer chain of the Task 1 suite was indexed and compared with IndexCollection
    assert set(results["indexing"]["ours_ratio"]) == {"1-bm25", "2-krovetz-bm25", "4-krovetz-shingles"}
    runs = results["run_files"]["ours"]
    assert len(runs) == 5 and all(r["topics"] == 50 for r in runs.values())
    # our BM25 runs and SearchCollection's on the same index agree (same analyzer, same scores)
    assert "| 1-bm25 |" in out and "50/50 topics" in out.split("| 1-bm25 |")[1].split("\n")[0]
    assert results["sweep_point"]["index_reused"] is True
    assert results["sharding"]["identical"] is True, results["sharding"]["difference"]
    assert sorted(results["submission"]["runs"])[-1] == "run.txt" and len(results["submission"]["runs"]) == 6
    assert (tmp_path / "results-2000.md").read_text().count("###") >= 7


def test_full_size_summary_judges_each_stored_submission_against_its_target(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from bench import fullsize

    *_, size = fullsize.COLLECTIONS["pairs"]
    seconds, rss = fullsize.TARGETS["pairs"]
    fullsize.result_path(tmp_path, "pairs", size).write_text(json.dumps(
        {"seconds": seconds + 1, "cpu_seconds": 10.0, "peak_rss_mib": rss - 1, "text": "English (…)"}))
    *_, size = fullsize.COLLECTIONS["image"]
    fullsize.result_path(tmp_path, "image", size, text_english=False).write_text(json.dumps(
        {"seconds": 1.0, "cpu_seconds": 1.0, "peak_rss_mib": 1.0}))
    rows = {line.split(" | ")[0].strip("| "): line for line in fullsize.summary(tmp_path).splitlines()
            if line.startswith("| ") and not line.startswith("| submission")}
    assert "NOT met" in rows["pairs"] and "English" in rows["pairs"]  # a second over its time target
    assert ": met" in rows["image"] and "synthetic" in rows["image"]  # each row says its text
    assert "not yet" in rows["task2-2022"]
