"""``touche train-quality``: fit the argument-quality model the ``quality_model`` stage ships with,
from the Webis-ArgQuality-20 CSV; the same CSV gives the same weights (the file is in the repository)."""
from __future__ import annotations

from touche.api.tools import train_quality, training_inputs
from touche.cli.common import add_command, decimal_number, note
from touche.guard import Files
from touche.retrieval.stages.quality.model import MODEL_FILE


def add_parser(sub) -> None:
    p = add_command(sub, "train-quality", run,
                    "touche train-quality ../shared/touche/corpora/webis-argquality20-full.csv")
    p.add_argument("csv", nargs="?", help="the Webis-ArgQuality-20 CSV (default: the shared data's copy)")
    p.add_argument("-o", "--output", default="quality_model.json",
                   help="model file to write (default: quality_model.json in the current directory); a variant "
                        "uses it with rerank: [{name: quality_model, model: FILE}]")
    p.add_argument("--replace-shipped", action="store_true",
                   help="write the model the package ships (what maintainers do after changing the features)")
    p.add_argument("--l2", type=decimal_number, default=1.0, help="ridge penalty (default 1.0)")


def run(args) -> int:
    report = train_quality(args.csv, args.output, l2=args.l2, replace_shipped=args.replace_shipped)
    for line in report.lines:
        note(args, line)
    return 0


def files(args) -> Files:
    return Files.of(reads=[("training CSV", training_inputs("train-quality", csv=args.csv)["csv"])],
                    writes=[("model file", MODEL_FILE if args.replace_shipped else args.output)])
