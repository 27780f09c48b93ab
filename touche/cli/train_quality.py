"""``touche train-quality``: fit the argument-quality model the ``quality_model`` stage ships with,
from the Webis-ArgQuality-20 CSV; the same CSV gives the same weights (the file is in the repository)."""
from __future__ import annotations

from pathlib import Path

from touche.atomic import is_stdout
from touche.cli.common import add_command, decimal_number, model_output, note
from touche.guard import Files
from touche.paths import shared_touche_dir
from touche.retrieval.stages.quality.model import MODEL_FILE, cross_validated_pearson, save, train


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
    csv = Path(args.csv) if args.csv else shared_touche_dir() / "corpora" / "webis-argquality20-full.csv"
    output = model_output(args.output, MODEL_FILE, args.replace_shipped)
    model = train(csv, args.l2)
    note(args, f"wrote {save(model, output)}: {model['examples']} arguments, training Pearson r "
          f"{model['train_pearson']}, 5-fold r {cross_validated_pearson(csv, l2=args.l2):.3f}")
    if output.resolve() != MODEL_FILE.resolve() and not is_stdout(output):  # a file a variant can name
        note(args, f"use it in a variant: rerank: [{{name: quality_model, model: {output.resolve()}}}]")
    return 0


def files(args) -> Files:
    csv = Path(args.csv) if args.csv else shared_touche_dir() / "corpora" / "webis-argquality20-full.csv"
    return Files.of(reads=[("training CSV", csv)],
                    writes=[("model file", MODEL_FILE if args.replace_shipped else args.output)])
