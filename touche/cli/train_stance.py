"""``touche train-stance``: fit the learned stance (CompSent-19 sentences, Touché 2022 passages,
cross-fitted by topic); the same data give the same file (the shipped one is in the repository)."""
from __future__ import annotations

from touche.api.tools import train_stance, training_inputs
from touche.cli.common import add_command, note
from touche.guard import Files
from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE


def add_parser(sub) -> None:
    p = add_command(sub, "train-stance", run, "touche train-stance -o stance_model.json.gz")
    p.add_argument("--compsent", help="CompSent-19 folder with train.csv and test.csv (default: the shared data's)")
    p.add_argument("--passages", help="Task 2 2022 passage JSONL (default: the shared sample)")
    p.add_argument("--qrels", help="stance qrels of those passages (default: the shared 2022 stance qrels)")
    p.add_argument("--topics", help="2022 topics with <objects> (default: the shared topics)")
    p.add_argument("-o", "--output", default="stance_model.json.gz",
                   help="model file to write (default: stance_model.json.gz in the current directory); a variant "
                        "uses it with task2.stance.model_file")
    p.add_argument("--replace-shipped", action="store_true",
                   help="write the model the package ships (what maintainers do after changing the features)")


def run(args) -> int:
    report = train_stance(args.output, compsent=args.compsent, passages=args.passages, qrels=args.qrels,
                          topics=args.topics, replace_shipped=args.replace_shipped)
    for line in report.lines:
        note(args, line)
    return 0


def files(args) -> Files:
    given = training_inputs("train-stance", compsent=args.compsent, passages=args.passages, qrels=args.qrels,
                            topics=args.topics)
    return Files.of(reads=[("CompSent-19 folder", given["compsent"]), ("passages", given["passages"]),
                           ("stance qrels", given["qrels"]), ("topics", given["topics"])],
                    writes=[("model file", MODEL_FILE if args.replace_shipped else args.output)])
