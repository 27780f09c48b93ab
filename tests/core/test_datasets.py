"""ir_datasets ids as inputs (touche/datasets.py).

What is checked: our table of cache paths is the one ir_datasets 0.6.3 uses (asked of
ir_datasets itself); files placed where ir_datasets keeps them are used as they are (no
download); a missing file is fetched through the fetcher, or reported with where to put it
offline; the adapters (args.me symlink folder, image zip extraction) behave; and every task runs
end to end from an id, with the ``../shared`` Touché files (official md5s) or our demo data
placed in a temporary ``IR_DATASETS_HOME``.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.shared import DEMO, REPO, require_shared
from touche import datasets as ds
from touche import inputs
from touche.cli import main
from touche.errors import InputError

T1_2020, T1_2021 = "argsme/2020-04-01/touche-2020-task-1", "argsme/2020-04-01/touche-2021-task-1"
T1_2022 = "argsme/2020-04-01/processed/touche-2022-task-1"
T2_2020, T2_2021, T2_2022 = (f"clueweb12/touche-{y}-task-2" for y in (2020, 2021, 2022))
IMAGE_2022 = "touche-image/2022-06-13/touche-2022-task-3"

# The ../shared files and the dataset file each one is (their md5 is ir_datasets' expected md5).
SHARED_FILES = {
    "qrels/task1-2020-relevance.qrels": (T1_2020, "qrels", "relevance"),
    "qrels/task1-2020-relevance-uncorrected.qrels": (f"{T1_2020}/uncorrected", "qrels", "relevance"),
    "qrels/task1-2021-relevance.qrels": (T1_2021, "qrels", "relevance"),
    "qrels/task2-2020-relevance.qrels": (T2_2020, "qrels", "relevance"),
    "qrels/task2-2021-relevance.qrels": (T2_2021, "qrels", "relevance"),
    "qrels/task2-2021-quality.qrels": (T2_2021, "qrels", "quality"),
    "qrels/task2-2022-relevance.qrels": (T2_2022, "qrels", "relevance"),
    "qrels/task2-2022-quality.qrels": (T2_2022, "qrels", "quality"),
    "qrels/task2-2022-stance.qrels": (T2_2022, "qrels", "stance"),
    "qrels/image-2022.qrels": (IMAGE_2022, "qrels", "image"),
    "topics/task1-2022.xml": (T1_2022, "topics", None),
}


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def place(f: ds.CacheFile, source: Path, *, link: bool = False) -> Path:
    """Put ``source`` where ir_datasets keeps ``f`` (what an offline user does by hand)."""
    target = ds.cached_path(f)
    target.parent.mkdir(parents=True, exist_ok=True)
    if link:
        target.symlink_to(source.resolve())
    else:
        shutil.copyfile(source, target)
    return target


def place_argsme(arguments_file: Path) -> list[Path]:
    """args.me 2020-04-01 comes as five JSON files: spread the arguments over them."""
    arguments = json.loads(arguments_file.read_text(encoding="utf-8"))["arguments"]
    out = []
    for i, f in enumerate(ds.ARGSME.files):
        target = ds.cached_path(f)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"arguments": arguments[i::len(ds.ARGSME.files)]}), encoding="utf-8")
        out.append(target)
    return out


def never_fetch(f: ds.CacheFile) -> None:
    raise AssertionError(f"fetched {f.relpath}, which was in the cache")


# ---------------------------------------------------------------- the table agrees with ir_datasets
PROBE = r"""
import json, sys
import ir_datasets
from ir_datasets.util import home_path
from touche.datasets import DATASETS

def cached(obj):  # a Cache has _path; ClueWeb12's manually provided folder has path(force=False)
    path = getattr(obj, "_path", None)
    return str(path) if path is not None else str(obj.path(force=False))

def member(obj):  # the file a ZipExtract / TarExtract takes out of the download
    if hasattr(obj, "zip_path"):  # a ZipExtract itself (BEIR's corpus)
        return obj.zip_path
    streamer = getattr(obj, "_streamer", None)
    return getattr(streamer, "zip_path", None) or getattr(streamer, "_tar_path", None)

out = {}
for d in DATASETS.values():
    dataset = ir_datasets.load(d.id)
    queries = dataset.queries_handler()
    queries = getattr(queries, "_source", None) or queries._dlc  # BEIR's handlers keep a _dlc
    qrels = dataset.qrels_handler()
    qrels = [getattr(qrels, a) for a in ("_source", "_source_quality", "_source_coherence", "_source_stance",
                                         "_qrels_dlc") if hasattr(qrels, a)]
    docs = dataset.docs_handler()
    if hasattr(docs, "_sources"):
        corpus = [s._source for s in docs._sources]
    elif hasattr(docs, "docs_dlc"):
        corpus = [docs.docs_dlc]
    elif "_dlc" in vars(docs):
        corpus = [docs._dlc]
    else:
        corpus = [docs._source]
    out[d.id] = {"home": str(home_path()), "topics": [cached(queries), member(queries)],
                 "qrels": [cached(q) for q in qrels], "corpus": [[cached(c), member(c)] for c in corpus]}
print(json.dumps(out))
"""


def test_cache_paths_and_members_are_those_of_ir_datasets(tmp_path):
    """Asked of ir_datasets itself (in a subprocess: it reads IR_DATASETS_HOME once, at import)."""
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(theirs) == set(ds.DATASETS)
    for dataset_id, d in ds.DATASETS.items():
        home = Path(theirs[dataset_id]["home"])
        assert theirs[dataset_id]["topics"] == [str(home / d.topics.relpath), d.topics.member], dataset_id
        assert theirs[dataset_id]["qrels"] == [str(home / f.relpath) for f in d.qrels.values()], dataset_id
        assert theirs[dataset_id]["corpus"] == [[str(home / f.relpath), _archive_member(f)] for f in d.corpus.files], \
            dataset_id


def _archive_member(f: ds.CacheFile) -> str | None:
    """What the probe sees as the member: a gzip download has none (its member is the url minus .gz);
    BEIR's corpus is read from inside its zip (our reader gets the zip extracted)."""
    beir = next((c for c in (ds.BEIR_V1[0], ds.BEIR_V2[0]) if f in c.files), None)
    if beir is not None:
        return f"{beir.inner}/corpus.jsonl"
    url = ds.source_of(f)["url"] or ""
    if f.member and url.endswith(".gz") and url.rsplit("/", 1)[-1] == f.member + ".gz":
        return None
    return f.member


def test_download_keys_name_real_downloads():
    """Every file's download key exists in ir_datasets' table (URL or, for ClueWeb12, instructions)."""
    for d in ds.DATASETS.values():
        for part, f in d.files:
            src = ds.source_of(f)
            assert src["url"] or src["instructions"], (d.id, part, f.download)


def test_shared_files_are_the_files_ir_datasets_downloads():
    """The md5 of each ../shared file is ir_datasets' expected md5 for the file we place it as."""
    root = require_shared()
    for rel, (dataset_id, part, name) in SHARED_FILES.items():
        d = ds.dataset(dataset_id)
        f = d.qrels[name] if part == "qrels" else d.topics
        assert _md5(root / rel) == ds.source_of(f)["md5"], rel


# ---------------------------------------------------------------- ids (fetching: test_datasets_fetching.py)
def test_parse_ref_and_unknown_ids():
    assert ds.parse_ref("irds:" + T1_2021) == T1_2021
    assert ds.parse_ref(Path("irds:" + T2_2022)) == T2_2022  # a CLI value that went through Path()
    assert ds.parse_ref("demo/args.me") is None and ds.parse_ref(None) is None
    with pytest.raises(InputError, match=r"unknown ir_datasets id 'argsme/2020-04-01/touche-2023-task-1'.*"
                                         r"touche-2021-task-1"):
        ds.dataset("argsme/2020-04-01/touche-2023-task-1")


# ---------------------------------------------------------------- corpus adapters
def test_argsme_is_a_folder_of_exactly_its_five_files(irds):
    from touche.guard import TOOLKIT, OutputFolder
    from touche.indexing.corpora import ArgsMeSource
    placed = place_argsme(DEMO / "args.me" / "args-demo.json")
    # ir_datasets keeps the 2022 CSV in the same folder under a .json name: it must not be read
    (irds / "argsme/2020-04-01/processed.json").write_text("id,conclusion\n")
    corpus = ds.corpus_path(T1_2021, fetcher=never_fetch)
    assert corpus == irds / "touche-toolkit/argsme-2020-04-01/corpus"
    assert sorted(p.name for p in corpus.iterdir()) == sorted([".touche-made", *(p.name for p in placed)])
    assert all((corpus / p.name).resolve() == p.resolve() for p in placed)
    assert sum(1 for _ in ArgsMeSource(corpus).records()) == 320
    # the same folder for every args.me id; a link the toolkit made and no longer wants is removed
    OutputFolder(corpus, command=TOOLKIT).link("stale.json", placed[0])
    assert ds.corpus_path(T1_2020, fetcher=never_fetch) == corpus
    assert not (corpus / "stale.json").is_symlink()


def test_argsme_links_follow_a_moved_cache(irds, tmp_path, monkeypatch):
    place_argsme(DEMO / "args.me" / "args-demo.json")
    monkeypatch.setenv("TOUCHE_DATASETS_CACHE", str(tmp_path / "adapters"))
    corpus = ds.corpus_path(T1_2021, fetcher=never_fetch)
    moved = tmp_path / "moved"
    shutil.move(str(irds), moved)
    monkeypatch.setenv("IR_DATASETS_HOME", str(moved))
    assert ds.corpus_path(T1_2021, fetcher=never_fetch) == corpus
    assert all(p.resolve().is_relative_to(moved.resolve()) for p in corpus.iterdir() if p.is_symlink())
    assert len([p for p in corpus.iterdir() if p.is_symlink()]) == 5


def test_processed_csv_is_linked_under_a_csv_name(irds):
    from touche.indexing.sentences import sentence_corpus_files
    place(ds.ARGSME_PROCESSED.files[0], DEMO / "pairs" / "args-sentences-demo.csv")
    corpus = ds.corpus_path(T1_2022, fetcher=never_fetch)
    kind, files = sentence_corpus_files(corpus)
    assert kind == "csv" and [f.name for f in files] == ["args_processed.csv"]


def _zip_folder(folder: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as zf:
        for path in sorted(folder.rglob("*")):
            zf.write(path, path.relative_to(folder.parent).as_posix())
    return target


def test_image_zip_is_extracted_once_and_resumes(irds):
    from touche.indexing.images import collection_root, image_dirs
    source = DEMO / "images" / "images"
    archive = _zip_folder(source, ds.cached_path(ds.IMAGES_2022.files[0]))
    count = sum(1 for p in source.rglob("*") if p.is_file())
    # an extraction killed midway (its process gone): one member already out, one truncated
    home = irds / "touche-toolkit/touche-image-2022-06-13"
    partial = home / ".corpus.~touche.999999.0123456789ab.tmp"
    with zipfile.ZipFile(archive) as zf:
        members = [m for m in zf.infolist() if not m.is_dir()]
        zf.extract(members[0], partial)
        (partial / members[1].filename).parent.mkdir(parents=True, exist_ok=True)
        (partial / members[1].filename).write_bytes(b"trunc")
    kept = (partial / members[0].filename).stat().st_ino
    corpus = ds.corpus_path(IMAGE_2022, fetcher=never_fetch, progress=False)
    assert corpus == home / "corpus" and not partial.exists()
    assert (corpus / members[0].filename).stat().st_ino == kept  # taken over, not extracted again
    assert sum(1 for p in corpus.rglob("*") if p.is_file()) == count
    assert (corpus / members[1].filename).read_bytes() == zipfile.ZipFile(archive).read(members[1])
    assert len(image_dirs(collection_root(corpus))) == len(list(source.glob("I*/*")))
    marker = corpus / members[0].filename
    before = marker.stat().st_mtime_ns
    assert ds.corpus_path(IMAGE_2022, fetcher=never_fetch, progress=False) == corpus
    assert marker.stat().st_mtime_ns == before  # not extracted again
    assert sorted(p.name for p in home.iterdir()) == [".touche-made", "corpus", "extracted-from.txt"]



def test_an_extraction_shows_its_progress_unless_told_not_to(irds, tmp_path, monkeypatch):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "note.txt").write_text("x" * 100)
    _zip_folder(tmp_path / "images", ds.cached_path(ds.IMAGES_2022.files[0]))
    shown = []
    real = ds._progress
    monkeypatch.setattr(ds, "_progress", lambda total, desc, enabled: shown.append((total, enabled)) or
                        real(total, desc, False))
    corpus = ds.corpus_path(IMAGE_2022, fetcher=never_fetch)
    assert (corpus / "images" / "note.txt").read_text() == "x" * 100 and shown == [(100, True)]
    shutil.rmtree(corpus.parent)
    ds.corpus_path(IMAGE_2022, fetcher=never_fetch, progress=False)
    assert shown == [(100, True), (100, False)]
    bars = []
    monkeypatch.setattr(ds, "progress_bar", lambda **options: bars.append(options))
    real(7, "extracting x.zip", True)
    assert bars == [{"total": 7, "desc": "extracting x.zip", "unit": "B", "unit_scale": True, "disable": False,
                     "leave": False}]  # gone when done: the command's own lines follow


def test_a_corpus_used_as_it_is_is_the_cached_file_itself(irds):
    placed = place(ds.PASSAGES_2022.files[0], DEMO / "task2" / "passages.jsonl")
    assert ds.corpus_path(T2_2022, fetcher=never_fetch) == placed == irds / "touche/2022/task-2/passages.jsonl"


def test_a_broken_image_zip_is_reported(irds):
    target = ds.cached_path(ds.IMAGES_2022.files[0])
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a readable zip file"):
        ds.corpus_path(IMAGE_2022, fetcher=never_fetch, progress=False)


def test_clueweb_folder_is_read_where_it_is_linked(irds):
    from touche.indexing.clueweb import clueweb_files
    root = require_shared()
    place(ds.CLUEWEB12.files[0], root / "corpora" / "clueweb12-sample", link=True)
    corpus = ds.corpus_path(T2_2020, fetcher=never_fetch)
    assert corpus == irds / "clueweb12/corpus"
    files = clueweb_files(corpus)
    assert len(files) == sum(1 for _ in (root / "corpora" / "clueweb12-sample").rglob("*.warc.gz"))
    assert files[0].name.endswith(".warc.gz")


def test_a_corpus_of_another_family_is_a_clear_error(irds):
    place_argsme(DEMO / "args.me" / "args-demo.json")
    corpus = ds.corpus_path(T1_2021, fetcher=never_fetch)
    ds.check_corpus_format(corpus, "argsme")
    ds.check_corpus_format(corpus, "argsme-sentences")  # the sentence reader splits args.me JSON itself
    with pytest.raises(
        InputError, match=r"corpus.format 'clueweb12'.*touche-2021-task-1.* read as argsme or argsme-sentences"
    ):
        ds.check_corpus_format(corpus, "clueweb12")
    ds.check_corpus_format(DEMO / "args.me", "clueweb12")  # not a dataset: the reader decides


# ---------------------------------------------------------------- qrels items and the CLI
def test_qrels_items_expand(irds):
    for name, f in ds.dataset(T1_2021).qrels.items():
        place(f, DEMO / f"qrels-{name}.txt")
    rel, qual = (str(ds.cached_path(f)) for f in ds.dataset(T1_2021).qrels.values())
    assert inputs.expand_qrels(["irds:" + T1_2021]) == [f"relevance={rel}", f"quality={qual}"]
    assert inputs.expand_qrels(["quality=irds:" + T1_2021, "x=demo/q.txt"]) == [f"quality={qual}", "x=demo/q.txt"]
    with pytest.raises(InputError, match="has no 'stance' qrels"):
        inputs.expand_qrels(["stance=irds:" + T1_2021])
    assert inputs.resolve_named_qrels({"quality": "irds:" + T1_2021, "own": "q.txt"}, base_dir=Path("/x")) == \
        {"quality": Path(qual), "own": Path("/x/q.txt")}


def test_missing_qrels_are_a_note_when_optional(irds):
    notes: list[str] = []
    assert ds.qrels_paths(T1_2021, required=False, notes=notes, fetcher=lambda f: 1 / 0) == {}
    assert len(notes) == 2 and notes[0].startswith("relevance qrels of " + T1_2021)


def test_datasets_command_lists_and_locates(irds, capsys):
    assert main(["datasets"]) == 0
    listing = capsys.readouterr().out
    assert all(d in listing for d in ds.DATASETS) and "0/8 files" in listing
    place_argsme(DEMO / "args.me" / "args-demo.json")
    place(ds.dataset(T1_2021).topics, DEMO / "topics.xml")
    assert main(["datasets", T1_2021]) == 1  # qrels still missing
    out = capsys.readouterr().out
    assert out.count("present") == 6 and out.count("MISSING") == 2
    assert "offline: place https://zenodo.org/record/6798216/files/touche-task1-51-100-quality.qrels" in out
    assert main(["datasets", "argsme/nope"]) == 2
    assert "unknown ir_datasets id" in capsys.readouterr().err


def test_evaluate_takes_an_id_for_qrels(irds, capsys):
    for name, f in ds.dataset(T1_2021).qrels.items():
        place(f, DEMO / f"qrels-{name}.txt")
    run = irds / "run.txt"  # five judged documents of topic 1, from the demo qrels
    judged = [line.split() for line in (DEMO / "qrels-relevance.txt").read_text().splitlines()[:5]]
    run.write_text("".join(f"{q} Q0 {doc} {i + 1} {10 - i} t\n" for i, (q, _, doc, _) in enumerate(judged)))
    assert main(["evaluate", str(run), "irds:" + T1_2021, "--measures", "touche.nDCG@5"]) == 0
    table = capsys.readouterr().out
    assert "relevance:touche.nDCG@5" in table and "quality:touche.nDCG@5" in table


# ---------------------------------------------------------------- every task, end to end from an id
def _default_variant(task: str) -> Path:
    """The task's primary variant (its suite's), else its first numbered variant."""
    folder = REPO / "configs" / task
    suite = folder / "suite.yaml"
    if suite.is_file():
        import yaml
        return folder / yaml.safe_load(suite.read_text())["primary"]
    numbered = sorted(p for p in folder.glob("[0-9]*.yaml"))
    if not numbered:
        pytest.skip(f"no {task} variants yet (configs/{task}/ is being written)")
    return numbered[0]


def _require_task(task: str) -> None:
    from touche.indexing.corpora import SOURCES
    from touche.retrieval.tasks import TASKS
    module = TASKS[task].ref.split(":")[0]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"the {task} handler ({module.replace('.', '/')}.py) is not written yet")
    for fmt, target in SOURCES.items():
        if importlib.util.find_spec(target.ref.split(":")[0]) is None and fmt in _formats_of(task):
            pytest.skip(f"the {fmt} corpus source ({target}) is not written yet")


def _formats_of(task: str) -> tuple[str, ...]:
    return tuple(f for d in ds.DATASETS.values() if d.task == task for f in d.corpus.formats[:1])


def _run_from_id(dataset_id: str, tmp_path: Path, index_root: Path, capsys,
                 variant: Path | None = None) -> tuple[Path, str]:
    task = ds.dataset(dataset_id).task
    _require_task(task)
    variant = variant or _default_variant(task)
    run = tmp_path / "run.txt"
    code = main(["run", "--dataset", dataset_id, "-c", str(variant), "-o", str(run), "--index-root", str(index_root)])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-3000:]
    assert main(["validate", str(run)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    return run, captured.out + captured.err  # notes are logged to stderr


def test_task1_run_all_from_an_id_equals_the_local_run(jvm_started, irds, tmp_path, index_root, capsys):
    """The TIRA entry point with --dataset: same run file as from the demo folder, and the
    dataset's qrels evaluate it."""
    place_argsme(DEMO / "args.me" / "args-demo.json")
    d = ds.dataset(T1_2021)
    place(d.topics, DEMO / "topics.xml")
    for name, f in d.qrels.items():
        place(f, DEMO / f"qrels-{name}.txt")
    variant = REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"
    out = tmp_path / "out"
    assert main(["run-all", "--dataset", T1_2021, "-c", str(variant), "-o", str(out),
                 "--index-root", str(index_root)]) == 0
    local = tmp_path / "local.txt"
    assert main(["run", "-c", str(variant), "-i", str(DEMO / "args.me"), "-t", str(DEMO / "topics.xml"),
                 "-o", str(local), "--index-root", str(index_root)]) == 0
    assert (out / "run.txt").read_bytes() == local.read_bytes()
    table = (out / "evaluation.md").read_text()
    assert "relevance:touche.nDCG@5" in table and "quality:touche.nDCG@5" in table


def test_task1_2020_with_the_official_topics_and_qrels(jvm_started, irds, tmp_path, index_root, capsys):
    """-i/-t/--qrels given as irds: values, with the official 2020 files placed as ir_datasets has them."""
    root = require_shared()
    place_argsme(DEMO / "args.me" / "args-demo.json")
    d = ds.dataset(T1_2020)
    place(d.topics, root / "topics" / "task1-2020.xml")
    place(d.qrels["relevance"], root / "qrels" / "task1-2020-relevance.qrels")
    ref = "irds:" + T1_2020
    run = tmp_path / "run.txt"
    assert main(["run", "-c", str(REPO / "configs/task1/examples/1-bm25.yaml"), "-i", ref, "-t", ref, "--qrels", ref,
                 "-o", str(run), "--index-root", str(index_root)]) == 0
    out = capsys.readouterr().out
    assert "relevance:touche.nDCG@5" in out
    assert {line.split()[0] for line in run.read_text().splitlines()} == {str(n) for n in range(1, 51) if n != 25}


def test_task1_2022_pairs_from_an_id(jvm_started, irds, tmp_path, index_root, capsys):
    d = ds.dataset(T1_2022)
    place(ds.ARGSME_PROCESSED.files[0], DEMO / "pairs" / "args-sentences-demo.csv")
    place(d.topics, DEMO / "topics.xml")
    place(d.qrels["relevance"], DEMO / "pairs" / "qrels-relevance.txt")
    run, out = _run_from_id(T1_2022, tmp_path, index_root, capsys)
    assert "relevance:" in out and "note: coherence qrels" in out  # the demo has no coherence qrels
    assert len({line.split()[0] for line in run.read_text().splitlines()}) == 6


def test_an_irds_corpus_in_the_variant_reaches_the_pair_tasks_sentence_index(jvm_started, irds, tmp_path, index_root,
                                                                              capsys):
    """The corpus is resolved once, by the session: the pair task's sentence-level index is built
    from the same resolved corpus (it once re-resolved corpus.path without irds: and exited 2 with
    "configs/task1-pairs/irds:…: no such file or directory")."""
    place(ds.ARGSME_PROCESSED.files[0], DEMO / "pairs" / "args-sentences-demo.csv")
    run = tmp_path / "run.txt"
    code = main(["run", "-c", str(REPO / "configs" / "task1-pairs" / "2-krovetz-bm25.yaml"),
                 "--set", f"corpus.path=irds:{T1_2022}", "-t", str(DEMO / "topics.xml"), "-i", "unused",
                 "-o", str(run), "--index-root", str(index_root)])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-3000:]
    assert "no such file" not in captured.err
    assert len({line.split()[0] for line in run.read_text().splitlines()}) == 6


def test_task2_2020_from_an_id(jvm_started, irds, tmp_path, index_root, capsys):
    root = require_shared()
    _require_task("task2")
    d = ds.dataset(T2_2020)
    place(ds.CLUEWEB12.files[0], root / "corpora" / "clueweb12-sample", link=True)
    place(d.topics, root / "topics" / "task2-2020.xml")
    place(d.qrels["relevance"], root / "qrels" / "task2-2020-relevance.qrels")
    run, out = _run_from_id(T2_2020, tmp_path, index_root, capsys)
    assert "relevance:touche.nDCG@5" in out
    assert len({line.split()[0] for line in run.read_text().splitlines()}) == 50


def test_task2_2022_passages_from_an_id(jvm_started, irds, tmp_path, index_root, capsys):
    root = require_shared()
    _require_task("task2-stance")
    d = ds.dataset(T2_2022)
    place(ds.PASSAGES_2022.files[0], root / "corpora" / "task2-2022-passages.sample.jsonl")
    place(d.topics, root / "topics" / "task2-2022.xml")
    for name, f in d.qrels.items():
        place(f, root / "qrels" / f"task2-2022-{name}.qrels")
    # the lexical re-ranker: the primary's dense encoder would spend minutes on 2,400 passages
    # (bench.task2_samples measures it); the dataset plumbing under test is the same
    run, out = _run_from_id(T2_2022, tmp_path, index_root, capsys,
                            variant=REPO / "configs" / "task2-stance" / "4-rerank-spam.yaml")
    assert "relevance:touche.nDCG@5" in out and "quality:" in out
    assert len({line.split()[0] for line in run.read_text().splitlines()}) == 50


def test_image_retrieval_from_an_id(jvm_started, irds, tmp_path, index_root, capsys, monkeypatch):
    root = require_shared()
    monkeypatch.setenv("TOUCHE_OCR", "off")  # OCR is tested with the image reader; here only the plumbing
    d = ds.dataset(IMAGE_2022)
    _zip_folder(root / "corpora" / "image-2022-sample" / "images", ds.cached_path(ds.IMAGES_2022.files[0]))
    place(d.topics, root / "topics" / "task1-2022.xml")
    place(d.qrels["image"], root / "qrels" / "image-2022.qrels")
    run, out = _run_from_id(IMAGE_2022, tmp_path, index_root, capsys)
    assert "image:image.on_topic_P@10" in out
    rows = [line.split() for line in run.read_text().splitlines()]
    assert len(rows) == 50 * 20 and {r[1] for r in rows} == {"PRO", "CON"}


def _place_task1_2021() -> None:
    place_argsme(DEMO / "args.me" / "args-demo.json")
    d = ds.dataset(T1_2021)
    place(d.topics, DEMO / "topics.xml")
    for name, f in d.qrels.items():
        place(f, DEMO / f"qrels-{name}.txt")


def test_fetch_command_resolves_everything(irds, capsys):
    _place_task1_2021()
    assert main(["datasets", T1_2021, "--fetch"]) == 0
    out = capsys.readouterr().out
    assert f"corpus: {irds / 'touche-toolkit/argsme-2020-04-01/corpus'}" in out
    assert f"qrels quality: {irds / 'touche/2021/task-1/qrels-quality.qrels'}" in out


def test_index_and_variant_corpus_path_take_an_id(jvm_started, irds, tmp_path, index_root, capsys):
    _place_task1_2021()
    variant = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")
    assert main(["index", "-c", variant, "--dataset", T1_2021, "--index-root", str(index_root)]) == 0
    assert "documents: 320" in capsys.readouterr().out
    # corpus.path in the variant (here through --set) wins over -i, and may be an id too
    run = tmp_path / "run.txt"
    assert main(["run", "-c", variant, "--set", f"corpus.path=irds:{T1_2021}", "-i", str(tmp_path / "nowhere"),
                 "-t", "irds:" + T1_2021, "-o", str(run), "--index-root", str(index_root)]) == 0
    assert len({line.split()[0] for line in run.read_text().splitlines()}) == 6
    # a dataset of another corpus family is a clear error before anything is read
    image_variant = str(REPO / "configs" / "image" / "1-contents-sentiment.yaml")
    assert main(["index", "-c", image_variant, "--dataset", T1_2021, "--index-root", str(index_root)]) == 2
    assert "corpus.format 'images', but the corpus of argsme/2020-04-01/touche-2020-task-1" in capsys.readouterr().err


def test_sweep_takes_ids_for_corpus_topics_and_qrels(irds, capsys):
    _place_task1_2021()
    ref = "irds:" + T1_2021
    assert main(["sweep", str(REPO / "configs/sweeps/task1-demo.yaml"), "-i", ref, "-t", ref, "--qrels", ref,
                 "--dry-run", "-o", str(irds / "sweep")]) == 0
    # the sweep file's own corpus/topics/qrels are replaced by the dataset's (missing paths would fail here)
    assert capsys.readouterr().out.count(" todo ") == 12
