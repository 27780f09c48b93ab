"""How long a user waits for the command line and the Python entry points (docs/performance.md):

    python -m bench.startup [--repeats 5] [--run FILE --qrels FILE]

Each command runs as its own process, as a user's shell starts it (the installed ``touche``
console script; imports and interpreter start-up included), ``--repeats`` times; the median
wall time and the median peak resident set are printed beside the target. ``touche validate``
and ``touche evaluate`` read an official tab-separated Task 1 2021 run (50,000 rows) and its
qrels from ../shared when it is there, else a run of the same size written here; neither
starts a JVM or a stance model.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from bench.measure import run_measured
from touche.paths import shared_touche_dir

TOUCHE = str(Path(sys.executable).parent / "touche")
# seconds, MiB: the targets of the command-line issue (docs/performance.md)
TARGETS = {"touche --help": (0.5, None), "touche validate RUN": (1.5, 150.0), "touche evaluate RUN QRELS": (1.5, 150.0),
           "import touche.pyterrier": (1.5, None)}


def inputs(folder: Path) -> tuple[Path, Path]:
    """A Task 1 run of 50 topics × 1,000 rows and its qrels: the official one, else our own."""
    run = shared_touche_dir() / "runs" / "task1-2021" / "ElrondTaskBodyRun.txt"
    qrels = shared_touche_dir() / "qrels" / "task1-2021-relevance.qrels"
    if run.is_file() and qrels.is_file():
        return run, qrels
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    run.write_text("".join(f"{t}\tQ0\tS{t:04x}{d:06x}-A{d:08x}\t{r}\t{1000 - r}.5\tsynthetic\n"
                           for t in range(51, 101) for r, d in enumerate(range(1000))))
    qrels.write_text(
        "".join(f"{t} 0 S{t:04x}{d:06x}-A{d:08x} {d % 3}\n" for t in range(51, 101) for d in range(0, 2000, 7))
    )
    return run, qrels


def commands(run: Path, qrels: Path) -> dict[str, list[str]]:
    return {
        "touche --help": [TOUCHE, "--help"],
        "touche validate RUN": [TOUCHE, "validate", str(run)],
        "touche evaluate RUN QRELS": [TOUCHE, "evaluate", str(run), str(qrels)],
        "touche explore --help": [TOUCHE, "explore", "--help"],
        "import touche.api": [sys.executable, "-c", "import touche.api"],
        "import touche.pyterrier": [sys.executable, "-c", "import touche.pyterrier"],
        "import pyterrier (its own share)": [sys.executable, "-c", "import pyterrier"],
        "python (the interpreter alone)": [sys.executable, "-c", "pass"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each command (default 5; the median is shown)")
    parser.add_argument("--run", type=Path, help="run file for validate and evaluate (default: see above)")
    parser.add_argument("--qrels", type=Path, help="its qrels")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = (args.run, args.qrels) if args.run and args.qrels else inputs(Path(tmp))
        print(f"run: {run} ({sum(1 for _ in open(run, encoding='utf-8')):,} rows), qrels: {qrels}; "
              f"median of {args.repeats}\n")
        print("| command | wall s | peak MiB | target |\n|---|---:|---:|---|")
        failed = False
        for label, command in commands(run, qrels).items():
            measured = [run_measured(command) for _ in range(args.repeats)]
            seconds = statistics.median(m.seconds for m in measured)
            mib = statistics.median(m.peak_rss_mib for m in measured)
            target_s, target_mib = TARGETS.get(label, (None, None))
            verdict = ""
            if target_s is not None:
                met = seconds < target_s and (target_mib is None or mib < target_mib)
                failed |= not met
                verdict = f"< {target_s} s" + (f", < {target_mib:.0f} MiB" if target_mib else "") + \
                          (": met" if met else ": MISSED")
            print(f"| `{label}` | {seconds:.2f} | {mib:.0f} | {verdict} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
