"""``touche datasets``: the ir_datasets ids the toolkit reads, what of each is cached, where files go
(how ``--dataset`` and ``irds:<id>`` arguments become the paths commands take: ``common.apply_to_args``)."""
from __future__ import annotations

from touche.api.tools import datasets
from touche.cli.common import add_command
from touche.guard import Files


def add_parser(sub) -> None:
    p = add_command(sub, "datasets", run,
                    "touche datasets argsme/2020-04-01/touche-2021-task-1")
    p.add_argument("id", nargs="?", help="show this dataset's files: present, or where to place them offline "
                                         "(exit 1 when some are missing)")
    p.add_argument("--fetch", action="store_true", help="fetch every file now (downloads on a machine with internet)")


def run(args) -> int:
    """Supported ids, what of each is cached, where files go."""
    report = datasets(args.id, fetch=args.fetch)
    print("\n".join(report.lines))
    return report.status


def files(args) -> Files:
    return Files()  # --fetch fills ir_datasets' own cache
