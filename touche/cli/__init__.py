"""The ``touche`` command: argument retrieval as run at Touché (``touche COMMAND --help``: options, example).

The command-line wing on top of the library: one module per command (``add_parser``, ``run`` and
``files``), listed with its one-line summary in ``COMMANDS`` in the order ``touche --help`` shows
them. A command's module, and what it imports, is loaded only when that command runs (or its
help is asked for): ``touche --help`` and ``touche validate`` do not pay for the statistics,
the stance model or the JVM other commands need.

Exit codes: 0 success; 1 a run file failed validation; 2 bad input or config;
3 environment problem (Java, jar); 130 interrupted. Errors print one clear message naming the
file and the line or record; ``--debug`` adds the traceback.
"""
from __future__ import annotations

import argparse
import importlib
import io
import logging
import sys
import traceback
from collections.abc import Iterable
from types import ModuleType

from touche import guard, settings, sources
from touche.cli.commands import COMMANDS
from touche.cli.common import apply_to_args
from touche.errors import Terminated, ToucheError
from touche.folderlock import sigterm_interrupts


def command_module(name: str) -> ModuleType:
    """The module of command ``name`` (imported now, not before)."""
    return importlib.import_module(f"touche.cli.{name.replace('-', '_')}")


def build_parser(load: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command (``load`` None), or of the commands in ``load`` only: the others
    are listed with their summary and no options, and their modules are not imported."""
    loaded = set(COMMANDS) if load is None else set(load) & set(COMMANDS)
    parser = argparse.ArgumentParser(prog="touche", description=__doc__.split("\n")[0],
                                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if name not in loaded:
            sub.add_parser(name, help=summary)
            continue
        module = command_module(name)
        module.add_parser(sub)
        # every command declares what it reads and writes
        sub.choices[name].set_defaults(files=module.files)
        # Options several commands share get their help text here, once.
        for action in sub.choices[name]._actions:
            if action.help is None and action.dest in SHARED_HELP:
                action.help = SHARED_HELP[action.dest]
    return parser


def command_named(argv: list[str]) -> str | None:
    """The command ``argv`` asks for: its first word that is not an option of ``touche`` itself."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


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
  130  interrupted (nothing half-written is left in place)
  143  terminated by SIGTERM (as interrupted: nothing half-written, locks removed)"""

SHARED_HELP = {
    "index_root": "where indexes are kept (default: $TOUCHE_INDEX_ROOT, else indexes/ in the checkout, "
                  "~/.cache/touche/indexes when installed)",
    "text": "text to analyze (quote it)",
    "runs": "run files",
}


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The arguments, or a usage error in the words of the command given: its own usage (not the
    top level's), and for ``--set k1 1.2`` that a setting is one word, KEY=VALUE."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        command = parser._subparsers._group_actions[0].choices[args.command]  # type: ignore[union-attr,index]
        loose = [pair for pair in getattr(args, "set", None) or [] if "=" not in pair]
        hint = f" (--set takes KEY=VALUE as one word: --set {loose[0]}={extra[0]})" if loose else ""
        command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    named = command_named(argv)
    parser = build_parser(load=[named] if named else [])
    args = parse(parser, argv)
    configure_logging(args.debug)
    try:
        with sigterm_interrupts():  # SIGTERM unwinds as Ctrl-C does: locks released, said below
            settings.check_all()  # a bad environment variable is named now, not as a traceback later
            with sources.reading():  # an input given as a pipe is read once, whoever looks at it
                apply_to_args(args)  # --dataset and irds:<id> inputs become paths
                guard.check(args.files(args))  # no output replaces an input, before any work
                return args.func(args)
    except ToucheError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # output piped into head and the like: not an error
        sys.stdout = io.StringIO()  # what is left to flush at exit goes nowhere, without an error
        return 0
    except OSError as exc:  # disk full, permission denied … while reading or writing a file
        if args.debug:
            traceback.print_exc()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        how = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        print(f"{how}: touche {args.command} stopped; nothing half-written was left in place (runs and "
              "indexes are moved in only when complete, locks removed); rerun the same command to continue",
              file=sys.stderr)
        return Terminated.exit_code if isinstance(exc, Terminated) else 130
    except Exception as exc:  # a bug of ours: say so, with the traceback to report
        traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc}\nplease report this with the traceback above",
              file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
