"""The ``touche`` command: argument retrieval as run at Touché (``touche COMMAND --help``: options, example).

The command-line wing on top of the library: one module per command (``add_parser`` and
``run``), listed in ``COMMANDS`` in the order ``touche --help`` shows them.

Exit codes: 0 success; 1 a run file failed validation; 2 bad input or config;
3 environment problem (Java, jar); 130 interrupted. Errors print one clear message naming the
file and the line or record; ``--debug`` adds the traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import traceback

from touche.cli import (analyze, chatnoir, choose, compare, contact_sheet, datasets, evaluate, explore, index, regressions,
                        run, run_all, sweep, train_quality, train_stance, validate)
from touche import guard, settings
from touche.errors import ToucheError

COMMANDS = (analyze, index, run, run_all, evaluate, explore, datasets, contact_sheet, validate, sweep, compare, choose,
            chatnoir, regressions, train_quality, train_stance)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="touche", description=__doc__.split("\n")[0],
                                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        before = set(sub.choices)
        command.add_parser(sub)
        for name in set(sub.choices) - before:  # every command declares what it reads and writes
            sub.choices[name].set_defaults(files=command.files)
    # Options several commands share get their help text here, once.
    for command_parser in sub.choices.values():
        for action in command_parser._actions:
            if action.help is None and action.dest in SHARED_HELP:
                action.help = SHARED_HELP[action.dest]
    return parser


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time of the record (a test's capture, a
    redirected stream), not to the stream of the moment logging was configured."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # StreamHandler.__init__ assigns it; the property decides
        pass


def configure_logging(debug: bool = False) -> None:
    """Library notes (logging) go to stderr as plain lines; stdout keeps what a command was asked for."""
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)


EXIT_CODES = """exit codes:
  0    success
  1    a run file failed validation (validate), or some dataset files are missing (datasets ID)
  2    bad input or config: the message names the file and the line or record
  3    environment problem (Java, the Lucene jar, a missing tool)
  4    internal error (a bug: the traceback is printed)
  130  interrupted (nothing half-written is left in place)"""

SHARED_HELP = {
    "index_root": "where indexes are kept (default: $TOUCHE_INDEX_ROOT, else indexes/ in the checkout, "
                  "~/.cache/touche/indexes when installed)",
    "text": "text to analyze (quote it)",
    "runs": "run files",
}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.debug)
    try:
        settings.check_all()  # a bad environment variable is named now, not as a traceback later
        datasets.apply_to_args(args)  # --dataset and irds:<id> inputs become paths
        guard.check(args.files(args))  # no output replaces an input, before any work
        return args.func(args)
    except ToucheError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # output piped into head and the like: not an error
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as exc:  # disk full, permission denied … while reading or writing a file
        if args.debug:
            traceback.print_exc()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: touche {args.command} stopped; nothing half-written was left in place (runs and "
              "indexes are moved in only when complete); rerun the same command to continue", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: say so, with the traceback to report
        traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc}\nplease report this with the traceback above",
              file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
