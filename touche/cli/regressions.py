"""``touche regressions``: run every suite on its demo data and compare with its pinned figures
(``configs/<task>/regression.yaml``); ``--write`` pins what the code gives now."""
from __future__ import annotations

from pathlib import Path

from touche.api.tools import regressions
from touche.cli.common import add_command
from touche.guard import Files
from touche.retrieval.experiments.regressions import REGRESSION_FILE, suites


def add_parser(sub) -> None:
    p = add_command(sub, "regressions", run, "touche regressions --write configs/task1/suite.yaml")
    p.add_argument("suites", nargs="*", help="suite files (default: every configs/*/suite.yaml)")
    p.add_argument("--write", action="store_true", help="pin the figures the code gives now")
    p.add_argument("--index-root", help="where the demo indexes are kept (default: a temporary directory)")


def run(args) -> int:
    report = regressions(args.suites, write=args.write, index_root=args.index_root)
    print("\n".join(report.lines))
    return report.status


def files(args) -> Files:
    chosen = [Path(s) for s in args.suites] or suites()
    return Files.of(reads=[("suite", s) for s in chosen],
                    writes=[("pinned figures", s.parent / REGRESSION_FILE) for s in chosen] if args.write else [],
                    folders=[("index root", args.index_root)])
