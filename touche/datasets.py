"""ir_datasets ids as inputs: ``irds:<id>`` wherever a corpus, topics or qrels path is accepted.

``touche run -c V.yaml -i irds:argsme/2020-04-01/touche-2021-task-1 -t irds:argsme/2020-04-01/touche-2021-task-1``
or, shorter, ``--dataset argsme/2020-04-01/touche-2021-task-1`` (corpus, topics and qrels at once).

Where the data comes from: ir_datasets' own cache (``$IR_DATASETS_HOME``, default
``~/.ir_datasets``). A file already there is used as it is; a missing one is fetched through
ir_datasets (``docs_path()``, ``queries_path()``, ``qrels_iter()``), which on a machine with
internet downloads it, and offline first looks for a copy of the original download in
``$IR_DATASETS_HOME/downloads/<md5>``. Offline, place the files at the paths ``touche datasets ID``
prints (or the error names) and nothing is downloaded.

Why paths and not ``docs_iter()``: for Touché, ir_datasets caches the organisers' own files (the
args.me JSON, the 2022 sentence CSV, the passages JSONL, the image collection zip, topics XML,
qrels), which our readers already read. Handing them those files copies nothing (args.me is
8 GB of JSON), keeps every field (ir_datasets' records drop some, e.g. args.me's ``sourceText``
and the image pages' xpaths are reshaped), keeps our readers' located error messages pointing
at real files, and lets the index key see the real files. Two small adapters remain, kept in
``$TOUCHE_DATASETS_CACHE`` (default ``$IR_DATASETS_HOME/touche-toolkit``):

* args.me: a folder of symlinks naming exactly the corpus files (ir_datasets' ``argsme/2020-04-01``
  folder also holds the 2022 CSV, cached under a ``.json`` name, which our reader must not take
  for args.me JSON);
* images: the collection zip is extracted once (a killed extraction resumes: members already
  extracted with the right size are kept; the folder is moved into place only when complete),
  because our image reader and the OCR read files.

``$TOUCHE_DATASETS_CACHE`` is a location a user names, owned as an output folder is
(``guard.named_location``): the links and extracted folders are made, replaced and removed only
when its records say the toolkit made them; a file, a link or a folder of someone else's there is
refused, never replaced or deleted, and never read as part of a corpus.

ir_datasets itself is imported only when a file must be fetched: importing it creates folders
in its home and reads the cache location once, at import.
"""
from __future__ import annotations

import functools
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

from touche.atomic import unpack
from touche.errors import InputError, ToucheError
from touche.folderlock import folder_lock
from touche.guard import LinkFolder, OutputFolder, named_location
from touche.progress import progress_bar
from touche.settings import setting

PREFIX = "irds:"


# ---------------------------------------------------------------- what each id consists of
@dataclass(frozen=True)
class CacheFile:
    """One file (or folder) in ir_datasets' cache, and how ir_datasets fetches it."""

    relpath: str                 # relative to IR_DATASETS_HOME, exactly as ir_datasets 0.6.3 caches it
    download: str                # "<group>/<key>" in ir_datasets' etc/downloads.json (URL, md5 for messages)
    fetch: tuple[Literal["docs", "queries", "qrels"], str]   # which handler of which id fetches it
    member: str | None = None    # the file inside the download that ir_datasets extracts to relpath
    link_name: str | None = None  # name in our symlink folder (default: the file's own name)


@dataclass(frozen=True)
class CorpusDef:
    """A corpus and how our readers get it: the cached path as it is, a symlink folder, or unzipped."""

    name: str                    # folder name of the adapter in TOUCHE_DATASETS_CACHE
    formats: tuple[str, ...]     # corpus.format values whose reader takes it (the family's own first)
    files: tuple[CacheFile, ...]
    layout: Literal["as-is", "links", "unzip"]
    inner: str | None = None     # unzip: the folder inside the archive our reader is given


@dataclass(frozen=True)
class DatasetDef:
    id: str
    task: str                    # our task whose default suite runs it (configs/<task>/suite.yaml)
    corpus: CorpusDef
    topics: CacheFile
    qrels: dict[str, CacheFile] = field(default_factory=dict)

    @property
    def files(self) -> list[tuple[str, CacheFile]]:
        return ([("corpus", f) for f in self.corpus.files] + [("topics", self.topics)]
                + [(f"qrels {name}", f) for name, f in self.qrels.items()])



def _touche(key: str, ext: str, fetch: tuple, member: str | None = None) -> CacheFile:
    return CacheFile(f"touche/{key}.{ext}", f"touche/{key}", fetch, member)


_ARGSME_SUBSETS = ("debateorg", "debatepedia", "debatewise", "idebate", "parliamentary")
ARGSME = CorpusDef("argsme-2020-04-01", ("argsme", "argsme-sentences"), tuple(
    CacheFile(f"argsme/2020-04-01/{s}.json", f"argsme/2020-04-01/{s}", ("docs", f"argsme/2020-04-01/{s}"),
              member=f"{s}.json") for s in _ARGSME_SUBSETS), "links")
ARGSME_PROCESSED = CorpusDef("argsme-2020-04-01-processed", ("argsme-sentences",), (
    # ir_datasets caches the CSV under a .json name; our sentence reader tells CSV from JSON by suffix.
    CacheFile("argsme/2020-04-01/processed.json", "argsme/2020-04-01/processed",
              ("docs", "argsme/2020-04-01/processed"), member="args_processed.csv", link_name="args_processed.csv"),),
    "links")
CLUEWEB12 = CorpusDef("clueweb12", ("clueweb12",), (
    CacheFile("clueweb12/corpus", "clueweb12/docs", ("docs", "clueweb12")),), "as-is")
PASSAGES_2022 = CorpusDef("touche-2022-task-2-passages", ("passages",), (
    _touche("2022/task-2/passages", "jsonl", ("docs", "clueweb12/touche-2022-task-2"),
            member="touche-task2-passages-version-002.jsonl"),), "as-is")
IMAGES_2022 = CorpusDef("touche-image-2022-06-13", ("images",), (
    CacheFile("touche-image/2022-06-13/images-main.zip", "touche-image/2022-06-13/images-main",
              ("docs", "touche-image/2022-06-13")),), "unzip")

# BEIR's Touché (args.me arguments of Task 1 2020 as BEIR distributes them): ir_datasets keeps the
# download zip and copies of its queries and qrels; the corpus is read from the zip (our BEIR
# folder reader gets it extracted once). v1 (macavaney.us) has the original labels -2..5, v2 (the
# BEIR site's) the corrected 0/1/2, which most dense-retrieval papers report on.
BEIR_TOUCHE = "webis-touche2020"


def _beir(version: str) -> tuple[CorpusDef, CacheFile, CacheFile]:
    key = f"beir/{BEIR_TOUCHE}{version}"
    zipped = CacheFile(f"{key}/source.zip", key, ("qrels", key))  # reading the qrels fetches the zip alone
    corpus = CorpusDef(f"beir-{BEIR_TOUCHE}{version.replace('/', '-')}", ("argsme",), (zipped,), "unzip",
                       inner=BEIR_TOUCHE)
    return (corpus, CacheFile(f"{key}/queries.json", key, ("queries", key), f"{BEIR_TOUCHE}/queries.jsonl"),
            CacheFile(f"{key}/test.qrels", key, ("qrels", key), f"{BEIR_TOUCHE}/qrels/test.tsv"))


BEIR_V1, BEIR_V2 = _beir(""), _beir("/v2")


def _define() -> dict[str, DatasetDef]:
    t1_2020, t1_2021 = "argsme/2020-04-01/touche-2020-task-1", "argsme/2020-04-01/touche-2021-task-1"
    t1_2022 = "argsme/2020-04-01/processed/touche-2022-task-1"
    t2_2020, t2_2021, t2_2022 = (f"clueweb12/touche-{y}-task-2" for y in (2020, 2021, 2022))
    t3_2022 = "touche-image/2022-06-13/touche-2022-task-3"
    q = lambda i: ("queries", i)  # noqa: E731
    r = lambda i: ("qrels", i)  # noqa: E731
    defs = [
        DatasetDef(t1_2020, "task1", ARGSME, _touche("2020/task-1/queries", "xml", q(t1_2020), "topics-task-1.xml"),
                   {"relevance": _touche("2020/task-1/qrels", "qrels", r(t1_2020))}),
        # the 2020 judgements before the organisers mapped them to -2/0/1/2 (labels -2, 1..5)
        DatasetDef(f"{t1_2020}/uncorrected", "task1", ARGSME,
                   _touche("2020/task-1/queries", "xml", q(t1_2020), "topics-task-1.xml"),
                   {"relevance": _touche("2020/task-1/qrels-argsme-2020-04-01-uncorrected", "qrels",
                                         r(f"{t1_2020}/uncorrected"))}),
        DatasetDef(t1_2021, "task1", ARGSME,
                   _touche("2021/task-1/queries", "xml", q(t1_2021), "topics-task-1-only-titles.xml"),
                   {"relevance": _touche("2021/task-1/qrels-relevance", "qrels", r(t1_2021)),
                    "quality": _touche("2021/task-1/qrels-quality", "qrels", r(t1_2021))}),
        DatasetDef(t1_2022, "task1-pairs", ARGSME_PROCESSED, _touche("2022/task-1/queries", "xml", q(t1_2022)),
                   {"relevance": _touche("2022/task-1/qrels-relevance", "qrels", r(t1_2022)),
                    "quality": _touche("2022/task-1/qrels-quality", "qrels", r(t1_2022)),
                    "coherence": _touche("2022/task-1/qrels-coherence", "qrels", r(t1_2022))}),
        DatasetDef(t2_2020, "task2", CLUEWEB12, _touche("2020/task-2/queries", "xml", q(t2_2020), "topics-task-2.xml"),
                   {"relevance": _touche("2020/task-2/qrels", "qrels", r(t2_2020))}),
        DatasetDef(t2_2021, "task2", CLUEWEB12,
                   _touche("2021/task-2/queries", "xml", q(t2_2021), "topics-task2-51-100.xml"),
                   {"relevance": _touche("2021/task-2/qrels-relevance", "qrels", r(t2_2021)),
                    "quality": _touche("2021/task-2/qrels-quality", "qrels", r(t2_2021))}),
        DatasetDef(t2_2022, "task2-stance", PASSAGES_2022,
                   _touche("2022/task-2/queries", "xml", q(t2_2022), "topics-task2.xml"),
                   {"relevance": _touche("2022/task-2/qrels-relevance", "qrels", r(t2_2022)),
                    "quality": _touche("2022/task-2/qrels-quality", "qrels", r(t2_2022)),
                    "stance": _touche("2022/task-2/qrels-stance", "qrels", r(t2_2022))}),
        DatasetDef(t3_2022, "image", IMAGES_2022, _touche("2022/task-3/queries", "xml", q(t3_2022)),
                   # named as the image suite names them: on-topic, argumentative and stance judgements in one file
                   {"image": _touche("2022/task-3/qrels", "qrels", r(t3_2022))}),
        *(DatasetDef(f"beir/{BEIR_TOUCHE}{v}", "task1", corpus, topics, {"relevance": qrels})
          for v, (corpus, topics, qrels) in (("", BEIR_V1), ("/v2", BEIR_V2))),
    ]
    return {d.id: d for d in defs}


DATASETS: dict[str, DatasetDef] = _define()
CORPORA: tuple[CorpusDef, ...] = (ARGSME, ARGSME_PROCESSED, CLUEWEB12, PASSAGES_2022, IMAGES_2022, BEIR_V1[0],
                                   BEIR_V2[0])

# Fetches one missing file into ir_datasets' cache; tests inject their own (a local source
# behind the same interface), the default asks ir_datasets.
Fetcher = Callable[[CacheFile], None]


# ---------------------------------------------------------------- locations
def irds_home() -> Path:
    """ir_datasets' cache, as ir_datasets computes it (read now, not at import)."""
    return setting("IR_DATASETS_HOME") or Path.home() / ".ir_datasets"


def adapters_home() -> Path:
    """Our symlink folders and extracted collections (TOUCHE_DATASETS_CACHE)."""
    return setting("TOUCHE_DATASETS_CACHE") or irds_home() / "touche-toolkit"


def cached_path(f: CacheFile) -> Path:
    return irds_home() / f.relpath


def corpus_target(corpus: CorpusDef) -> Path:
    """The path our corpus readers are given for this corpus."""
    if corpus.layout == "as-is":
        return cached_path(corpus.files[0])
    folder = _adapter_folder(corpus)
    return folder / corpus.inner if corpus.inner else folder


def _adapter_folder(corpus: CorpusDef) -> Path:
    """Where a corpus's links are kept or its archive is extracted."""
    return adapters_home() / corpus.name / "corpus"


# ---------------------------------------------------------------- ids
def parse_ref(value: object) -> str | None:
    """``irds:<id>`` → ``<id>``; anything else (a local path) → None."""
    text = str(value) if value is not None else ""
    return text[len(PREFIX):].strip("/") if text.startswith(PREFIX) else None


def dataset(dataset_id: str) -> DatasetDef:
    try:
        return DATASETS[dataset_id.strip().strip("/")]
    except KeyError:
        raise InputError(f"unknown ir_datasets id '{dataset_id}'; supported: {', '.join(DATASETS)} "
                         "(see `touche datasets`)") from None


# ---------------------------------------------------------------- fetching
@functools.lru_cache(maxsize=1)
def _downloads() -> dict:
    """ir_datasets' download table (URLs, md5s), read without importing ir_datasets."""
    import importlib.util
    spec = importlib.util.find_spec("ir_datasets")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / "etc" / "downloads.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def source_of(f: CacheFile) -> dict:
    """{url, md5, size} of the original download of a cached file (empty when ir_datasets is absent)."""
    group, _, key = f.download.partition("/")
    entry = _downloads().get(group, {}).get(key, {})
    return {"url": entry.get("url"), "md5": entry.get("expected_md5"), "size": entry.get("size_hint"),
            "instructions": entry.get("instructions")}


def placement_hint(f: CacheFile) -> str:
    """How to provide the file offline, for error messages and `touche datasets`."""
    src = source_of(f)
    target = cached_path(f)
    if src["instructions"]:
        return f"link the collection's folder at {target} (it holds ClueWeb12_00 … ClueWeb12_19)"
    gunzipped = f.member and (src["url"] or "").endswith(f.member + ".gz")
    what = (f"{f.member} ({'decompressed ' if gunzipped else ''}from {src['url']})" if f.member
            else (src["url"] or f.download))
    hint = f"place {what} at {target}"
    if src["md5"] and f.member and (src["size"] or 0) >= 5_000_000:  # ir_datasets looks there for big files only
        hint += f", or the download itself at {irds_home() / 'downloads' / src['md5']}"
    return hint


def fetch_with_ir_datasets(f: CacheFile) -> None:
    """Let ir_datasets put ``f`` into its cache: from a local copy of the download if there is one,
    else from the network. Uses the handlers' public methods, which download what they need."""
    try:
        import ir_datasets
    except ImportError:
        raise InputError("ir_datasets is not installed (pip install ir_datasets==0.6.3)", path=cached_path(f)) from None
    what, dataset_id = f.fetch
    ds = ir_datasets.load(dataset_id)
    if what == "docs":
        ds.docs_handler().docs_path()
    elif what == "queries":
        handler = ds.queries_handler()
        if hasattr(handler, "queries_path"):
            handler.queries_path()
        else:  # BEIR's queries (ir_datasets 0.6.3) have no path method: reading them caches the file
            for _ in ds.queries_iter():
                pass
    else:
        for _ in ds.qrels_iter():  # reading the qrels fetches every qrels file of the dataset
            pass


def ensure_file(f: CacheFile, fetcher: Fetcher | None = None) -> Path:
    """The cached file, fetched first when missing; a clear error when it cannot be had."""
    path = cached_path(f)
    if path.exists():
        return path
    try:
        (fetcher or fetch_with_ir_datasets)(f)
    except InputError:
        raise
    except Exception as exc:  # ir_datasets raises many kinds (ConnectionError, IOError, RuntimeError …)
        reason = f"{type(exc).__name__}: {exc}".strip().rstrip(":").splitlines()[0]
        reason = reason if len(reason) <= 160 else reason[:159] + "…"
        raise InputError(f"not in the ir_datasets cache, and ir_datasets could not fetch it ({reason}); "
                         f"offline: {placement_hint(f)}", path=path) from None
    if not path.exists():
        raise InputError("ir_datasets fetched it, but not to this path: was IR_DATASETS_HOME changed after "
                         f"ir_datasets was imported? ({placement_hint(f)})", path=path)
    return path


# ---------------------------------------------------------------- corpora
def _corpus_home(corpus: CorpusDef) -> OutputFolder:
    """``<cache>/<corpus name>``, owned by the guard inside the user's datasets cache (one an older
    version made, before records were kept, is taken as the toolkit's: its entries are judged
    one by one)."""
    return named_location(adapters_home(), "datasets cache").folder(corpus.name, f"datasets cache's {corpus.name}",
                                                                     adopt=True)


def _links_folder(corpus: CorpusDef, files: list[Path]) -> Path:
    """The corpus folder holding exactly a link to each of ``files`` (the cache may have moved:
    links of its own are pointed anew); anything else in it is refused, as it would be read."""
    links = _corpus_home(corpus).folder("corpus", f"corpus folder of {corpus.name}", adopt=True)
    wanted = {f.link_name or Path(f.relpath).name: path.resolve() for f, path in zip(corpus.files, files)}
    LinkFolder(links, f"corpus folder of {corpus.name}").sync(wanted)
    return links.path


EXTRACTED = "extracted-from.txt"  # which archive (path, size, mtime) the corpus folder was extracted from


def _unzip_once(corpus: CorpusDef, archive: Path, progress: bool) -> Path:
    """Extract ``archive`` into the corpus folder once; a killed extraction resumes."""
    home = _corpus_home(corpus)
    target = home.path / "corpus"
    stamp = f"{archive.resolve()}\0{archive.stat().st_size}\0{archive.stat().st_mtime_ns}"
    with folder_lock(home.path, ".touche.lock", "another process is extracting this collection", wait=3600):
        if home.ours("corpus") and home.ours(EXTRACTED) and (home.path / EXTRACTED).read_text() == stamp:
            return target
        if target.exists() or target.is_symlink():
            why = ("extracted from another archive (the collection's zip changed since)" if home.ours("corpus")
                   else home.foreign("corpus"))
            raise ToucheError(f"the extracted collection is {why}; touche deletes no folder to extract it again: "
                              "remove it and run again", path=target)
        try:
            with zipfile.ZipFile(archive) as zf, home.building("corpus", resume=True) as partial:
                members = [m for m in zf.infolist() if not m.is_dir()]
                bar = _progress(sum(m.file_size for m in members), f"extracting {archive.name}", progress)
                unpack(zf, partial, on_member=bar.update)
                bar.close()
        except zipfile.BadZipFile as exc:
            raise InputError(f"not a readable zip file ({exc}); remove it and fetch it again", path=archive) from None
        home.write_text(EXTRACTED, stamp)
    return target


def _progress(total: int, desc: str, enabled: bool):
    return progress_bar(total=total, desc=desc, unit="B", unit_scale=True, disable=not enabled, leave=False)


def corpus_path(dataset_id: str, *, fetcher: Fetcher | None = None, progress: bool = True) -> Path:
    """The path to give our corpus reader for this dataset (fetched and adapted as needed)."""
    corpus = dataset(dataset_id).corpus
    files = [ensure_file(f, fetcher) for f in corpus.files]
    if corpus.layout == "links":
        return _links_folder(corpus, files)
    if corpus.layout == "unzip":
        folder = _unzip_once(corpus, files[0], progress)
        return folder / corpus.inner if corpus.inner else folder
    return files[0]


def topics_path(dataset_id: str, *, fetcher: Fetcher | None = None) -> Path:
    return ensure_file(dataset(dataset_id).topics, fetcher)


def qrels_paths(dataset_id: str, *, required: bool = True, fetcher: Fetcher | None = None,
                notes: list[str] | None = None) -> dict[str, Path]:
    """name → qrels file. With ``required=False`` a qrels file that cannot be had is left out and
    the reason appended to ``notes`` (a run still runs; only its evaluation is smaller)."""
    out: dict[str, Path] = {}
    for name, f in dataset(dataset_id).qrels.items():
        try:
            out[name] = ensure_file(f, fetcher)
        except InputError as exc:
            if required:
                raise
            if notes is not None:
                notes.append(f"{name} qrels of {dataset_id} left out: {exc}")
    return out


def corpus_formats_of(path: Path) -> tuple[str, tuple[str, ...]] | None:
    """(corpus name, readable formats) when ``path`` is a corpus this module resolved, else None."""
    try:
        resolved = Path(path).resolve()
    except OSError:
        return None
    for corpus in CORPORA:
        if corpus_target(corpus).resolve() == resolved:
            return corpus.name, corpus.formats
    return None


def check_corpus_format(path: Path, corpus_format: str, *, config: Path | None = None) -> None:
    """A dataset's corpus given to a variant of another corpus family is a config mistake: say so
    before a reader fails on files it does not know."""
    known = corpus_formats_of(path)
    if known and corpus_format not in known[1]:
        ids = [d.id for d in DATASETS.values() if d.corpus.name == known[0]]
        raise InputError(f"the variant reads corpus.format '{corpus_format}', but the corpus of {', '.join(ids)} "
                         f"is read as {' or '.join(known[1])} (use a {DATASETS[ids[0]].task} variant, e.g. "
                         f"configs/{DATASETS[ids[0]].task}/)", path=config)


# ---------------------------------------------------------------- `touche datasets`
def status_rows(dataset_id: str) -> list[tuple[str, str, bool, str]]:
    """(part, cached path, present, how to provide it) for each file of a dataset."""
    d = dataset(dataset_id)
    return [(part, str(cached_path(f)), cached_path(f).exists(), placement_hint(f)) for part, f in d.files]
