"""``touche train-stance``: fit the learned stance (CompSent-19 sentences, Touché 2022 passages,
cross-fitted by topic); the same data give the same file (the shipped one is in the repository)."""
from __future__ import annotations

from pathlib import Path

from touche.atomic import is_stdout
from touche.cli.common import add_command, model_output, note
from touche.guard import Files
from touche.paths import shared_touche_dir
from touche.retrieval.evaluation.measures import stance_macro_f1
from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE
from touche.retrieval.tasks.task2.stance.training import read_compsent, save, score_sentences, train


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
    shared = shared_touche_dir()
    compsent = Path(args.compsent) if args.compsent else shared / "corpora" / "compsent19"
    passages = Path(args.passages) if args.passages else shared / "corpora" / "task2-2022-passages.sample.jsonl"
    qrels = Path(args.qrels) if args.qrels else shared / "qrels" / "task2-2022-stance.qrels"
    topics = Path(args.topics) if args.topics else shared / "topics" / "task2-2022.xml"
    output = model_output(args.output, MODEL_FILE, args.replace_shipped)
    trained = train(compsent / "train.csv", passages, qrels, topics)
    model = trained.model
    save(model, output)
    note(args, f"wrote {output}: sentence classifier on {model['sentences']['examples']:,} CompSent-19 sentences, "
          f"passage model on {model['passages']['all']['examples']} judged passages "
          f"({len(model['passages']['folds'])} topic folds)")
    if (compsent / "test.csv").is_file():
        sentences, labels = read_compsent(compsent / "test.csv")
        s = score_sentences(model["sentences"], sentences, labels)
        note(args, f"CompSent-19 held-out test ({s.n:,} sentences): micro-F1 {s.micro:.3f}, macro-F1 {s.macro:.3f} "
              "(" + ", ".join(f"{c} {v:.3f}" for c, v in s.per_class.items()) + ")")
    data = trained.passages
    note(args, f"on the {len(data.labels)} judged passages: learned (CompSent-19 only) macro-F1 "
          f"{stance_macro_f1(data.labels, data.learned):.3f}; combined, out of fold (topic-grouped "
          f"{len(model['passages']['folds'])}-fold) {stance_macro_f1(data.labels, trained.out_of_fold):.3f}")
    if output.resolve() != MODEL_FILE.resolve() and not is_stdout(output):  # a file a variant can name
        note(args, f"use it in a variant: task2: {{stance: {{model: combined, model_file: {output.resolve()}}}}}")
    return 0


def files(args) -> Files:
    shared = shared_touche_dir()
    return Files.of(reads=[("CompSent-19 folder", args.compsent or shared / "corpora" / "compsent19"),
                           ("passages", args.passages or shared / "corpora" / "task2-2022-passages.sample.jsonl"),
                           ("stance qrels", args.qrels or shared / "qrels" / "task2-2022-stance.qrels"),
                           ("topics", args.topics or shared / "topics" / "task2-2022.xml")],
                    writes=[("model file", MODEL_FILE if args.replace_shipped else args.output)])
