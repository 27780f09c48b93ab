"""What several commands share: the suite a command runs, --set overrides, common options."""
from __future__ import annotations

import argparse
from pathlib import Path

from touche.config import load_variant
from touche.errors import ToucheError
from touche.paths import CONFIGS


def add_command(sub, name: str, run, help_text: str, example: str) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help_text, description=f"{help_text}\n\nexample:\n  {example}",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)
    return p


def dataset_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", metavar="ID", help="ir_datasets id: corpus, topics and qrels from it "
                   "(e.g. argsme/2020-04-01/touche-2021-task-1; list: touche datasets)")


def variant_options(p: argparse.ArgumentParser, config_required: bool = True) -> None:
    p.add_argument("-c", "--config", required=config_required, help="run-variant YAML file")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key (repeatable)")
    p.add_argument("--skip-bad-records", action="store_true",
                   help="skip malformed corpus records (counted and listed) instead of stopping")


def suite_for(args) -> Path:
    """--suite wins; then the task of a single variant (-c: its own task's demo data and qrels);
    otherwise the default suite of --task (configs/<task>/suite.yaml)."""
    if args.suite:
        return Path(args.suite)
    task = config_task(getattr(args, "config", None)) or getattr(args, "task", None) or "task1"
    path = CONFIGS / task / "suite.yaml"
    if not path.is_file():
        known = sorted(p.parent.name for p in CONFIGS.glob("*/suite.yaml"))
        raise ToucheError(f"no suite for task '{task}' (tasks with suites: {', '.join(known)})", path=path)
    return path


def config_task(config: str | None) -> str | None:
    """The task a single variant (-c) declares: its suite supplies the demo data and qrels."""
    if not config:
        return None
    return load_variant(config).variant.task


def overrides(pairs: list[str] | None, skip_bad_records: bool = False) -> dict[str, str]:
    out = {"corpus.skip_bad_records": "true"} if skip_bad_records else {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ToucheError(f"--set expects KEY=VALUE (e.g. retrieval.similarity.k1=1.2), got '{pair}'")
        key, value = pair.split("=", 1)
        out[key.strip()] = value
    return out


def model_output(output: str, shipped: Path, replace_shipped: bool) -> Path:
    """Where a ``train-*`` command writes its model: ``output``, or the model the package ships
    with ``--replace-shipped`` only (in an editable install that is the checkout); never a folder."""
    path = shipped if replace_shipped else Path(output)
    if path.resolve() == shipped.resolve() and not replace_shipped:
        raise ToucheError("this is the model the package ships; pass --replace-shipped to overwrite it", path=path)
    if path.is_dir():
        raise ToucheError(f"the output is a folder; give a file name (e.g. {shipped.name})", path=path)
    return path
