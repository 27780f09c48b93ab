"""Progress (touche/progress.py): a bar on a terminal, plain lines in a log, labels cut between words."""
from __future__ import annotations

import io
import os
import subprocess
import sys

from tests.shared import REPO, VARIANT


# --------------------------------------------------------------------------- progress in a log
def test_progress_on_a_file_is_plain_lines_with_count_share_and_time_left(monkeypatch):
    from touche import progress as module
    stream = io.StringIO()
    bar = module.progress_bar(total=400, desc="indexing args.json", unit=" docs", file=stream)
    assert isinstance(bar, module.LineProgress)  # not a terminal
    clock = [100.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    bar.started = bar.last = 100.0
    for _ in range(4):
        clock[0] += 15
        bar.update(50)
    bar.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.splitlines() == ["indexing args.json: 100 of 400 docs (25 %), 3.3 docs/s, 1 min 30 s left",
                                 "indexing args.json: 200 of 400 docs (50 %), 3.3 docs/s, 1 min 00 s left",
                                 "indexing args.json: 200 docs in 1 min 00 s (3.3 docs/s)"]


def test_indexing_in_a_log_knows_its_total(tmp_path, fixture_corpus):
    env = {**os.environ, "TOUCHE_INDEX_ROOT": str(tmp_path / "indexes"), "TOUCHE_PROGRESS": "auto"}
    done = subprocess.run([sys.executable, "-m", "touche", "index", "-c", VARIANT, "-i", str(fixture_corpus)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("indexing"))
    assert "\r" not in done.stderr and "kB in " in line and "[5 docs]" in line


def test_progress_labels_end_between_words_and_slow_rates_read_per_minute():
    from touche.progress import LABEL_WIDTH, LineProgress, fit_label
    label = "set 2021-dev5: analyzer.stemmer=krovetz, retrieval.similarity.mu=2000, rerank=quality_model, " \
            "query.field_weights.conclusion=0.5"
    short = fit_label(label)
    assert len(short) <= LABEL_WIDTH and short.endswith("…") and label.startswith(short[:-1])
    assert label[len(short) - 1] in " ,"  # cut where a word ends, not inside "query.field_we"
    assert fit_label("a short one") == "a short one"
    bar = LineProgress(total=300, unit=" run", desc=label)
    bar.n = 30
    assert bar.desc == short
    line = bar.line(bar.started + 300)  # 30 runs in 5 minutes: 0.1 a second
    assert "6.0 run/min" in line and "0 run/s" not in line
    slow = LineProgress(total=10, unit=" run")
    slow.n = 1
    assert "2 min 00 s per run" in slow.line(slow.started + 120)
