"""The commands of ``touche``, in the order ``touche --help`` lists them, each with its one-line
summary: all the top-level help needs, so it imports no command's module."""
from __future__ import annotations

# name → what it does (its one line in ``touche --help``); its module is touche.cli.<name, - as _>.
COMMANDS: dict[str, str] = {
    "analyze": "show the tokens a variant's analyzer produces",
    "index": "build (or reuse) the index a variant needs",
    "run": "run one variant and write its run file",
    "run-all": "run a task's five variants (TIRA entry point), evaluate when qrels are known",
    "evaluate": "score a run as Touché does (nDCG@5, unjudged dropped) and trec_eval-style",
    "explore": "compare runs side by side, topic by topic, as one HTML file (no server, no network): before "
               "judgements exist by how their rankings differ (RBO, Jaccard, Kendall τ, τ_AP), with qrels "
               "(--qrels relevance=demo/qrels-relevance.txt …) also by their measures, intervals and "
               "significance",
    "datasets": "list the ir_datasets ids the toolkit reads, and where each file is cached",
    "contact-sheet": "an HTML page of an image run: per topic and stance the 10 images, their scores and the text "
                     "that earned them",
    "validate": "check run files against a Touché run format, line by line",
    "sweep": "run a parameter sweep (grid over config keys), resumable; writes results.csv, results.md and sweep.png",
    "compare": "compare two runs topic by topic: wins/losses, paired t-test, randomization test",
    "choose": "propose five diverse submissions from a sweep's results and write their YAML files",
    "chatnoir": "fetch each topic's ChatNoir hits (all of ClueWeb12) as a small ClueWeb12 corpus to index and re-rank",
    "regressions": "check (or, with --write, rewrite) every suite's pinned demo figures: index statistics and scores",
    "train-quality": "fit the quality_model stage's ridge regression on Webis-ArgQuality-20",
    "train-stance": "fit the learned comparative stance model (Task 2 2022) on CompSent-19 and the Touché 2022 "
                    "passage sample",
}
