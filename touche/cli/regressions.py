"""``touche regressions``: run every suite on its demo data and compare with its pinned figures
(``configs/<task>/regression.yaml``); ``--write`` pins what the code gives now."""
from __future__ import annotations

import tempfile
from pathlib import Path

from touche.cli.common import add_command
from touche.guard import Files
from touche.retrieval.experiments.regressions import REGRESSION_FILE, differences, measure, pinned, suites, write


def add_parser(sub) -> None:
    p = add_command(sub, "regressions", run, "touche regressions --write configs/task1/suite.yaml")
    p.add_argument("suites", nargs="*", help="suite files (default: every configs/*/suite.yaml)")
    p.add_argument("--write", action="store_true", help="pin the figures the code gives now")
    p.add_argument("--index-root", help="where the demo indexes are kept (default: a temporary directory)")


def run(args) -> int:
    chosen = [Path(s) for s in args.suites] or suites()
    status = 0
    with tempfile.TemporaryDirectory(prefix="touche-regressions-") as scratch:
        root = Path(args.index_root) if args.index_root else Path(scratch)
        for suite in chosen:
            figures = measure(suite, root)
            if args.write:
                print(f"wrote {write(suite, figures)}")
                continue
            diff = differences(pinned(suite), figures)
            print(f"{suite}: " + ("as pinned" if not diff else f"{len(diff)} figure(s) differ"))
            for line in diff:
                print(f"  {line}")
            status = status or (1 if diff else 0)
    return status


def files(args) -> Files:
    chosen = [Path(s) for s in args.suites] or suites()
    return Files.of(reads=[("suite", s) for s in chosen],
                    writes=[("pinned figures", s.parent / REGRESSION_FILE) for s in chosen] if args.write else [],
                    folders=[("index root", args.index_root)])
