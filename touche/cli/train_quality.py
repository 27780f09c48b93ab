"""``touche train-quality``: fit the argument-quality model the ``quality_model`` stage ships with,
from the Webis-ArgQuality-20 CSV; the same CSV gives the same weights (the file is in the repository)."""
from __future__ import annotations

from pathlib import Path

from touche.retrieval.stages.quality_model import MODEL_FILE, cross_validated_pearson, save, train
from touche.cli.common import add_command
from touche.paths import shared_touche_dir


def add_parser(sub) -> None:
    p = add_command(sub, "train-quality", run, "fit the quality_model stage's ridge regression on Webis-ArgQuality-20",
                    "touche train-quality ../shared/touche/corpora/webis-argquality20-full.csv")
    p.add_argument("csv", nargs="?", help="the Webis-ArgQuality-20 CSV (default: the shared data's copy)")
    p.add_argument("-o", "--output", default=str(MODEL_FILE), help="model file to write (default: the shipped one)")
    p.add_argument("--l2", type=float, default=1.0, help="ridge penalty (default 1.0)")


def run(args) -> int:
    csv = Path(args.csv) if args.csv else shared_touche_dir() / "corpora" / "webis-argquality20-full.csv"
    model = train(csv, args.l2)
    print(f"wrote {save(model, Path(args.output))}: {model['examples']} arguments, training Pearson r "
          f"{model['train_pearson']}, 5-fold r {cross_validated_pearson(csv, l2=args.l2):.3f}")
    return 0
