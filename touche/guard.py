"""The output guard: no command replaces what it reads, writes one file twice, or writes through a
link it did not make.

Every command declares the files and folders it reads and the files and folders it writes
(``Files``; each ``touche/cli`` module's ``files(args)``), and ``check`` refuses, before any work, an
output that is, or resolves to (symlinks followed), one of its inputs, lies inside an input
folder (a corpus folder, an image collection), or is another of its outputs. Library functions
that decide their outputs later (a suite's run files, the files ``choose`` writes) call ``check``
with the full list before they write the first one; the Python API goes through the same calls.
Folders a command creates are made by ``made_folder``, which never follows a symlink it did not
make: ``choose --out DIR`` once wrote and deleted inside the folder ``DIR/corpus`` linked to.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from touche.atomic import write_text
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
    output, an output inside an input folder, and an output folder that is an input or holds one
    the command would replace."""
    reads = [(what, given, _resolved(given)) for what, given in files.reads]
    read_folders = [(what, given, real) for what, given, real in reads if real.is_dir()]
    outputs = [(what, given, _resolved(given)) for what, given in files.writes]
    for i, (what, given, real) in enumerate(outputs):
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
    for what, given in files.folders:
        real = _resolved(given)
        for in_what, in_given, in_real in reads:
            if real == in_real or _inside(real, in_real):
                raise ToucheError(f"the {what} is the {in_what} it reads, or lies inside it ({in_given}); "
                                  "give another folder", path=given)


# ------------------------------------------------------------------- folders a command makes
# The links a command made in a folder, one name a line: the only ones it deletes. No suffix a corpus
# reader looks for (".json" would be read as args.me), hidden.
LINKS_RECORD = ".touche-links"


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
    try:
        names = (folder / LINKS_RECORD).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return set()
    return {n for n in names if n and "/" not in n and n not in (".", "..")}


@dataclass
class LinkFolder:
    """A folder of symlinks a command keeps (a corpus given as a list of files): links it did not
    make are left alone, and a name it needs that holds something else is refused."""
    folder: Path
    what: str = "corpus folder"
    made: set[str] = field(default_factory=set)

    def sync(self, wanted: dict[str, Path]) -> None:
        """Make ``folder`` hold exactly these links (name → target) among the ones it made."""
        made_folder(self.folder, self.what)
        self.made = own_links(self.folder)
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
