"""What a command reads and writes (``Files``: each ``touche/cli`` module's ``files(args)``, and
what library functions that decide their outputs later declare), and ``check``: before any work,
no output is, or resolves to, one of the command's inputs, lies inside an input folder, or is
another of its outputs. The owner of every folder a command fills is ``touche/guard.py``'s
``OutputFolder``; commands reach both as ``guard.Files`` and ``guard.check``.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from touche.atomic import check_output, is_stdout
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


def _is_character_device(path: Path) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


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
            if real == other_real and _is_character_device(real):
                continue  # /dev/null twice: each written into whole, nothing replaced
            if real == other_real and check_output(given, what) == "stream":
                raise ToucheError(f"the {what} and the {other_what} both go to the named pipe {other_given}, where "
                                  "they would run into each other; give one of them a file name", path=given)
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
