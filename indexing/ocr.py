"""Text inside images (OCR) with Tesseract, cached per image so a rerun costs nothing.

Tesseract is a Debian package (``tesseract-ocr``), installed by ``scripts/ensure_env.sh``
when possible; it is called as a subprocess (what pytesseract does too: a wrapper would add a
dependency without adding anything we use). OCR is optional: where the ``tesseract`` program
is missing, every image's OCR text is empty and one warning says so.

Tesseract's TSV output is kept: every word with its confidence, so noise read into photos
("Sat", "f+", "G/E" at 17-35 %) can be dropped at read time (``MIN_CONFIDENCE``) without
running OCR again.

The cache is content-addressed: ``<cache>/<sha256[:2]>/<sha256>-<engine>.json`` where sha256
is the image file's content hash and ``engine`` hashes the Tesseract version and options.
Copies of a collection (a TIRA input directory) therefore share one cache, and a different
Tesseract or language re-runs OCR. Files are written atomically (temp file + rename), so an
interrupted run never leaves a truncated entry. The cache is a location a user names, owned by the
guard (``guard.named_location``): an entry is written only where nothing is or where the toolkit
wrote it before; a file of someone else's at an entry's name (or a link, or a folder in a
subfolder's place) is left alone, and the image's text is recognised again without being kept.

Where the cache lives: ``$TOUCHE_OCR_CACHE``, else ``ocr-cache/`` in the index root
(``$TOUCHE_INDEX_ROOT``, else ``<project>/indexes``, else the temp directory).
``TOUCHE_OCR=off`` disables OCR (the field stays empty, as without Tesseract).
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import stat
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, TypeVar

from touche.errors import ToucheError
from touche.guard import OutputFolder, named_location
from touche.paths import default_index_root
from touche.settings import setting

log = logging.getLogger(__name__)

__all__ = ["OcrEngine", "OcrStats", "engine", "default_cache_dir", "ocr_texts", "cached_text", "file_digest",
           "parse_tsv", "lines_text", "MIN_CONFIDENCE"]

DEFAULT_LANGUAGE = "eng"
# Page segmentation 11 ("sparse text"): memes, charts and posters scatter short text blocks;
# the default (3, one page of columns) misses much of it.
DEFAULT_PSM = 11
TIMEOUT_SECONDS = 120
# Words Tesseract is less sure of than this (0-100) are left out of ocr_text: on the 2022
# sample, printed text scores 65-97 and the "text" read into photographs mostly below 50.
MIN_CONFIDENCE = 60.0
CACHE_FORMAT = 2
_warned = threading.Event()


@dataclass(frozen=True)
class OcrEngine:
    executable: str
    version: str
    language: str = DEFAULT_LANGUAGE
    psm: int = DEFAULT_PSM

    @property
    def key(self) -> str:
        """Changes whenever the OCR output could change (version, language, segmentation)."""
        payload = f"tesseract\0{self.version}\0{self.language}\0{self.psm}\0{CACHE_FORMAT}"
        return hashlib.sha256(payload.encode()).hexdigest()[:10]

    def run(self, image: Path) -> Lines:
        """The image's text lines, each a list of (word, confidence)."""
        # One thread per Tesseract process: we parallelise over images instead (2 cores).
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        done = subprocess.run([self.executable, str(image), "stdout", "-l", self.language, "--psm",
                               str(self.psm), "tsv"],
                              capture_output=True, timeout=TIMEOUT_SECONDS, env=env, check=False)
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise OSError(f"tesseract failed on {image}: {message[-1] if message else done.returncode}")
        return parse_tsv(done.stdout.decode("utf-8", "replace"))


Lines = list[list[tuple[str, float]]]


K = TypeVar("K")  # what the caller keys each image by

def parse_tsv(tsv: str) -> Lines:
    """Tesseract TSV (level, page, block, paragraph, line, word, box, conf, text) → lines of
    (word, confidence), in reading order."""
    lines: dict[tuple[str, ...], list[tuple[str, float]]] = {}  # keyed by block, paragraph, line
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        try:
            confidence = float(cells[10])
        except ValueError:
            continue
        lines.setdefault(tuple(cells[1:5]), []).append((cells[11].strip(), round(confidence, 1)))
    return list(lines.values())


def lines_text(lines: Lines, min_confidence: float = MIN_CONFIDENCE) -> str:
    """The words at or above ``min_confidence``, one text line per line; empty lines dropped."""
    # A "word" without a letter or digit (|, —, =) is a rule, a border or noise, never text.
    kept = (" ".join(word for word, conf in line if conf >= min_confidence and any(c.isalnum() for c in word))
            for line in lines)
    return "\n".join(line for line in kept if line)


def engine(language: str = DEFAULT_LANGUAGE, psm: int = DEFAULT_PSM) -> OcrEngine | None:
    """The Tesseract engine, or None when OCR is unavailable or switched off.

    ``TOUCHE_OCR`` and ``PATH`` are read on every call (a setting changed in the process counts
    from then on); only the version probe of one program is remembered."""
    if not setting("TOUCHE_OCR"):
        return None
    executable = shutil.which("tesseract")
    if executable is None:
        return None
    version = _version(executable)
    return None if version is None else OcrEngine(executable, version, language, psm)


@functools.lru_cache(maxsize=None)
def _version(executable: str) -> str | None:
    """``tesseract --version``'s first line, or None when the program does not answer."""
    try:
        done = subprocess.run([executable, "--version"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    output = (done.stdout or done.stderr).decode("utf-8", "replace").splitlines()
    if done.returncode != 0 or not output:
        return None
    return output[0].strip()


def warn_unavailable() -> None:
    if not _warned.is_set():
        _warned.set()
        reason = ("switched off (TOUCHE_OCR=off)" if not setting("TOUCHE_OCR")
                  else "the 'tesseract' program was not found (Debian: apt-get install tesseract-ocr)")
        log.warning("warning: OCR is unavailable: %s; text inside images (ocr_text) stays empty", reason)


def default_cache_dir() -> Path:
    env = setting("TOUCHE_OCR_CACHE")
    if env:
        return env
    return default_index_root() / "ocr-cache"


def file_digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _entry(cache_dir: Path, digest: str, ocr: OcrEngine) -> Path:
    return cache_dir / digest[:2] / f"{digest}-{ocr.key}.json"


def _read_entry(entry: Path) -> Lines | None:
    """The entry's lines; None when there is none to read: missing, damaged (recognised again and
    rewritten, if it is the toolkit's), or no file in a real folder (a pipe would block the read, a
    link would pass someone's file off as a result)."""
    try:
        if not (stat.S_ISDIR(os.lstat(entry.parent).st_mode) and stat.S_ISREG(os.lstat(entry).st_mode)):
            return None
        data = json.loads(entry.read_text(encoding="utf-8"))
        return [[(str(word), float(conf)) for word, conf in line] for line in data["lines"]]
    except OSError:
        return None
    except (ValueError, KeyError, TypeError):
        return None


def cached_text(image: Path, *, cache_dir: Path | None = None, ocr: OcrEngine | None = None,
                min_confidence: float = MIN_CONFIDENCE) -> str | None:
    """The cached OCR text of an image, or None when it was never recognised (no OCR is run)."""
    ocr = ocr or engine()
    if ocr is None:
        return None
    lines = _read_entry(_entry(cache_dir or default_cache_dir(), file_digest(image), ocr))
    return None if lines is None else lines_text(lines, min_confidence)


def _recognise(image: Path, cache: OutputFolder, ocr: OcrEngine) -> tuple[Lines, bool]:
    """(lines, was it cached). A failing image is warned about and yields no text (cached too:
    a broken file stays broken, and a rerun should not pay for it again)."""
    entry = _entry(cache.path, file_digest(image), ocr)
    cached = _read_entry(entry)
    if cached is not None:
        return cached, True
    try:
        lines = ocr.run(image)
    except subprocess.TimeoutExpired:
        log.warning("warning: OCR timed out after %s s on %s; its ocr_text is empty", TIMEOUT_SECONDS, image)
        return [], False  # not cached: a less loaded machine may manage
    except OSError as exc:
        log.warning("warning: %s; its ocr_text is empty", exc)
        lines = []
    _keep(cache, entry, json.dumps({"engine": ocr.version, "image": image.name, "lines": lines}, ensure_ascii=False))
    return lines, False


_subfolders_lock = threading.Lock()


def _keep(cache: OutputFolder, entry: Path, text: str) -> None:
    """Write the entry through the guard; where something the toolkit did not make is in the way,
    warn once and keep nothing (the text is recognised again next time)."""
    try:
        with _subfolders_lock:  # the threads of one process record a new subfolder once
            subfolder = cache.folder(entry.parent.name, "OCR cache's subfolder", adopt=True)
        subfolder.write_text(entry.name, text)
    except ToucheError as exc:
        if not _kept_nothing.is_set():
            _kept_nothing.set()
            log.warning("warning: an OCR result is not cached: %s", exc)


_kept_nothing = threading.Event()


@dataclass
class OcrStats:
    recognised: int = 0
    cached: int = 0


def ocr_texts(images: Iterable[tuple[K, Path]], *, cache_dir: Path | None = None, workers: int | None = None,
              stats: OcrStats | None = None) -> Iterable[tuple[K, str]]:
    """(key, OCR text) for each (key, image path), in input order; "" for every image (with one
    warning) when OCR is unavailable. Images are recognised ``workers`` at a time (default: the
    number of cores), streaming: memory stays flat however many images come in."""
    ocr = engine()
    if ocr is None:
        warn_unavailable()
        for key, _ in images:
            yield key, ""
        return
    cache = named_location(cache_dir or default_cache_dir(), "OCR cache")
    stats = stats if stats is not None else OcrStats()
    workers = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: list = []
        for key, path in images:
            pending.append((key, pool.submit(_recognise, Path(path), cache, ocr)))
            if len(pending) >= 4 * workers:  # a bounded window keeps the output in order and memory flat
                yield from _drain(pending[: 2 * workers], stats)
                del pending[: 2 * workers]
        yield from _drain(pending, stats)


def _drain(pending, stats: OcrStats):
    for key, future in pending:
        lines, was_cached = future.result()
        if was_cached:
            stats.cached += 1
        else:
            stats.recognised += 1
        yield key, lines_text(lines)
