"""Finding a corpus's files: a file given directly, or a directory searched recursively.

One function for every corpus family, so they agree on order (relative path, which is
deterministic across machines) and on the errors a wrong path gets.
"""
from __future__ import annotations

import os
from pathlib import Path

from touche.errors import InputError


def corpus_files(path: str | os.PathLike, suffixes: tuple[str, ...], *, expected: str, none_in_dir: str,
                 check_file_suffix: bool = True) -> list[Path]:
    """The files at ``path`` whose names end with one of ``suffixes``.

    ``expected`` says what the path should have been (e.g. "an args.me JSON file or a directory
    of them"); ``none_in_dir`` what a directory without such files lacks.
    """
    p = Path(path)
    if p.is_file():
        if check_file_suffix and not p.name.endswith(suffixes):
            raise InputError(f"not a corpus file of this kind (expected {expected})", path=p)
        return [p]
    if p.is_dir():
        files = sorted((f for f in p.rglob("*") if f.is_file() and f.name.endswith(suffixes)),
                       key=lambda f: f.relative_to(p).as_posix())
        if not files:
            raise InputError(none_in_dir, path=p)
        return files
    raise InputError(f"no such file or directory (expected {expected})", path=p)
