"""The output guard: no command replaces what it reads, writes one file twice, or writes through a
link it did not make.

Every command declares the files and folders it reads and the files and folders it writes
(``Files``; each ``touche/cli`` module's ``files(args)``), and ``check`` refuses, before any work, an
output that is, or resolves to (symlinks followed), one of its inputs, lies inside an input
folder (a corpus folder, an image collection), or is another of its outputs. Library functions
that decide their outputs later (a suite's run files, the files ``choose`` writes) call ``check``
with the full list before they write the first one; the Python API goes through the same calls.
Folders a command creates are made by ``made_folder``, which never follows a symlink it did not
make: ``choose --out DIR`` once wrote and deleted inside the folder ``DIR/corpus`` linked to. A
folder a command fills is its own (``own_folder``, ``LinkFolder``): what it did not make there is
refused before it writes, since it would be submitted (run-all), indexed (a corpus link folder)
or read as the command's own: a link left in ``choose``'s corpus folder once put another corpus
file into the chosen suite's index.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from touche.atomic import TEMP_SUFFIX, check_output, is_stdout, write_text
from touche.errors import ToucheError

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Files:
    """What a command reads and writes: ``(what, path)`` pairs, named for the messages."""
    reads: tuple[tuple[str, Path], ...] = ()
    writes: tuple[tuple[str, Path], ...] = ()
    folders: tuple[tuple[str, Path], ...] = ()  # folders it creates (or fills) with files of its own

    @classmethod
    def of(cls, reads: Iterable[tuple[str, PathLike | None]] = (), writes: Iterable[tuple[str, PathLike | None]] = (),
           folders: Iterable[tuple[str, PathLike | None]] = ()) -> "Files":
        """Leaves out the entries whose path is None (an option not given)."""
        def kept(pairs):  # an ir_datasets id (irds:…) is no file of the user's
            return tuple((what, Path(p)) for what, p in pairs
                         if p is not None and str(p) != "" and not str(p).startswith("irds:"))
        return cls(kept(reads), kept(writes), kept(folders))

    def __add__(self, other: "Files") -> "Files":
        return Files(self.reads + other.reads, self.writes + other.writes, self.folders + other.folders)


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))  # symlinks followed, also for a file that does not exist yet


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and folder in path.parents


def check(files: Files) -> None:
    """Refuse (ToucheError naming both) an output that is, or resolves to, an input or another
    output, an output inside an input folder, an output folder that is an input or holds one
    the command would replace, an output file that is one of the command's folders (or would
    hold one), and an output that is no file (a folder, a socket; ``-``, a pipe or a device is
    written into)."""
    reads = [(what, given, _resolved(given)) for what, given in files.reads]
    read_folders = [(what, given, real) for what, given, real in reads if real.is_dir()]
    streams = [(what, given) for what, given in files.writes if is_stdout(given)]
    if len(streams) > 1:
        raise ToucheError(f"the {streams[0][0]} and the {streams[1][0]} both go to standard output (-), where they "
                          "would run into each other; give one of them a file name")
    outputs = [(what, given, _resolved(given)) for what, given in files.writes if not is_stdout(given)]
    folders = [(what, given, _resolved(given)) for what, given in files.folders]
    for i, (what, given, real) in enumerate(outputs):
        check_output(given, what)
        for in_what, in_given, in_real in reads:
            if real == in_real:
                raise ToucheError(f"the {what} would replace the {in_what} it reads ({in_given}); "
                                  "give another output name", path=given)
        for in_what, in_given, in_real in read_folders:
            if _inside(real, in_real):
                raise ToucheError(f"the {what} would be written inside the {in_what} ({in_given}), which the "
                                  "command reads; write it elsewhere", path=given)
        for other_what, other_given, other_real in outputs[:i]:
            if real == other_real:
                raise ToucheError(f"the {what} and the {other_what} are one file ({other_given}): the second "
                                  "would replace the first; give each its own name", path=given)
        for folder_what, folder_given, folder_real in folders:
            if real == folder_real or _inside(folder_real, real):
                raise ToucheError(f"the {what} is the {folder_what} ({folder_given}), or a folder the command "
                                  "fills lies inside it: one path cannot be both; give each its own", path=given)
    for what, given, real in folders:
        for in_what, in_given, in_real in reads:
            if real == in_real or _inside(real, in_real):
                raise ToucheError(f"the {what} is the {in_what} it reads, or lies inside it ({in_given}); "
                                  "give another folder", path=given)


# ------------------------------------------------------------------- folders a command makes
# The links a command made in a folder, one name a line: the only ones it deletes. No suffix a corpus
# reader looks for (".json" would be read as args.me), hidden.
LINKS_RECORD = ".touche-links"
# The entries a command made in a folder it fills (run-all's output, choose's, a sweep's), one a line.
MADE_RECORD = ".touche-made"
# What the commands keep beside their outputs: the records and the lock files.
BOOKKEEPING = frozenset({LINKS_RECORD, MADE_RECORD, ".touche.lock", ".sweep.lock"})


def _ours(name: str, allowed: set[str]) -> bool:
    """Whether a folder entry is one the command accounts for: a name it allows, its bookkeeping,
    or a temporary of the atomic writer's (``.<name>.<pid>.<hex>.tmp``)."""
    return name in allowed or name in BOOKKEEPING or (name.startswith(".") and name.endswith(TEMP_SUFFIX))


def _refuse_foreign(folder: Path, entries: Iterable[Path], allowed: set[str], what: str, because: str,
                    considered: Callable[[Path], bool] = lambda entry: True, shown: int = 8) -> None:
    """A located error listing the ``entries`` (of those ``considered``) a command did not make:
    neither ``allowed`` nor its bookkeeping."""
    foreign = sorted(e.name for e in entries if not _ours(e.name, allowed) and considered(e))
    if foreign:
        listed = ", ".join(foreign[:shown]) + (f" and {len(foreign) - shown} more" if len(foreign) > shown else "")
        raise ToucheError(f"the {what} holds {len(foreign)} file(s) this command did not make ({listed}); {because}: "
                          "remove them or give another folder", path=folder)


def recorded(folder: Path, record: str) -> set[str]:
    """The names a command recorded making in ``folder`` (plain names only)."""
    try:
        names = (folder / record).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return set()
    return {n for n in names if n and "/" not in n and n not in (".", "..")}


@dataclass
class Claim:
    """A folder a command fills, checked (``own_folder``): ``record`` notes what it made there."""
    folder: Path
    names: set[str]
    before: set[str]

    def record(self) -> None:
        """Record the names it writes that exist now and every entry that appeared since the
        claim (an index root inside the folder, a sweep's sets): a later call knows them as its own."""
        now = {entry.name for entry in self.folder.iterdir()} if self.folder.is_dir() else set()
        record_made(self.folder, (self.names & now) | (now - self.before - BOOKKEEPING))


def own_folder(folder: PathLike, names: Iterable[str], what: str = "output folder", *,
               considered: Callable[[Path], bool] = lambda entry: True) -> Claim:
    """Claim the existing ``folder`` for the entries ``names`` a command writes there now:
    refuse, before anything is written, the entries (of those ``considered``) it did not make,
    neither these names nor ones it recorded making before. The command's earlier outputs may
    stay (a rerun with one variant keeps the others); a user's file may not, unseen."""
    folder, names = Path(folder), set(names)
    entries = list(folder.iterdir())
    _refuse_foreign(folder, entries, names | recorded(folder, MADE_RECORD), what, "they would pass for its own",
                    considered)
    return Claim(folder, names, {e.name for e in entries})


def record_made(folder: PathLike, names: Iterable[str]) -> None:
    """Add ``names`` to the entries a command recorded making in ``folder`` (nothing to add: no write)."""
    folder, made = Path(folder), recorded(Path(folder), MADE_RECORD)
    if not set(names) <= made:
        write_text(folder / MADE_RECORD, "".join(f"{name}\n" for name in sorted(made | set(names))))


def made_folder(path: PathLike, what: str = "output folder") -> Path:
    """Create ``path`` (and its parents) as a real folder; refuse when it exists as a symlink or as
    something else than a folder. A command writes and deletes in folders it made, never in the
    folder a link of someone else's points to."""
    path = Path(path)
    if path.is_symlink():
        raise ToucheError(f"the {what} is a symbolic link (to {os.readlink(path)}): the command makes this folder "
                          "itself and would write and delete in the folder the link points to; remove the link "
                          "or give another folder", path=path)
    if path.exists() and not path.is_dir():
        raise ToucheError(f"the {what} exists and is not a folder", path=path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToucheError(f"cannot create the {what}: {exc.strerror}", path=path) from None
    return path


def own_links(folder: Path) -> set[str]:
    """The names of the links a command recorded making in ``folder``."""
    return recorded(folder, LINKS_RECORD)


@dataclass
class LinkFolder:
    """A folder of symlinks a command keeps (a corpus given as a list of files), read whole as a
    corpus: anything in it the command did not make is refused (it would be indexed beside the
    listed files), never replaced or deleted."""
    folder: Path
    what: str = "corpus folder"
    made: set[str] = field(default_factory=set)

    def sync(self, wanted: dict[str, Path]) -> None:
        """Make ``folder`` hold exactly these links (name → target) among the ones it made."""
        made_folder(self.folder, self.what)
        self.made = own_links(self.folder)
        _refuse_foreign(self.folder, self.folder.iterdir(),
                        {n for n in self.made if (self.folder / n).is_symlink()},  # a recorded name counts while a link
                        self.what, "it is read whole as the corpus, so they would be indexed beside the listed files",
                        lambda entry: not self._links_to(entry, wanted))
        for name in sorted(self.made - wanted.keys()):
            stale = self.folder / name
            if stale.is_symlink():
                stale.unlink()
        for name, target in wanted.items():
            link = self.folder / name
            if link.is_symlink() and _resolved(link) == _resolved(target):
                continue
            if link.is_symlink() and name in self.made:
                link.unlink()
            elif link.exists() or link.is_symlink():
                raise ToucheError(f"{name} in the {self.what} is not a link this command made; it would be "
                                  "replaced: remove it or give another folder", path=link)
            link.symlink_to(_resolved(target))
        write_text(self.folder / LINKS_RECORD, "".join(f"{name}\n" for name in sorted(wanted)))

    @staticmethod
    def _links_to(entry: Path, wanted: dict[str, Path]) -> bool:
        """A link at a wanted name that already points where it should (made before its record)."""
        return entry.name in wanted and entry.is_symlink() and _resolved(entry) == _resolved(wanted[entry.name])
