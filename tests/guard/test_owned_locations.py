"""Every location a user can name is owned as an output folder is (docs/reliability.md, "What a
command may touch"): the index root and each index's folder, the shards folder, the datasets
cache's corpus links, the helper jar's place, the model, encodings and OCR caches. The toolkit
creates, replaces and deletes there only what its record (``.touche-made``) says it made; anything
else in the way (a folder of someone's, a file, a link, a pipe) is refused before any work, whatever
it is, and kept; no link is followed out. Indexes and caches an older version made (no record)
are read as they are."""
from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import stat
import zipfile
from pathlib import Path

import pytest

from tests.shared import REPO, write_argsme
from touche import datasets as ds
from touche import jvm
from touche.cli import main
from touche.config import load_variant
from touche.errors import EnvironmentProblem, ToucheError
from touche.guard import RECORD, TOOLKIT, OutputFolder
from touche.indexing import builder
from touche.indexing.corpora import open_corpus

VARIANT = REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"
DEMO = REPO / "demo"


def touche(*args: str) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def snapshot(root: Path, records: bool = True) -> dict[str, tuple]:
    """Every path under ``root`` (links not followed): kind, inode and content (the toolkit's
    records left out unless ``records``)."""
    found = {}
    for path in [root, *sorted(root.rglob("*"))]:
        if path.name == RECORD and not records:
            continue
        info = path.lstat()
        content = (os.readlink(path) if stat.S_ISLNK(info.st_mode) else
                   path.read_bytes() if stat.S_ISREG(info.st_mode) else None)
        found[str(path.relative_to(root))] = (stat.S_IFMT(info.st_mode), info.st_ino, content)
    return found


def index_name(corpus: Path) -> str:
    """The folder name `touche index -c VARIANT -i corpus` builds the index in."""
    loaded = load_variant(VARIANT)
    source = open_corpus(loaded.variant.corpus.format, corpus)
    return builder.index_dir(Path("."), loaded.variant, source, loaded.path.parent).name


def place(path: Path, kind: str, outside: Path) -> None:
    """A user's entry of ``kind`` at ``path``."""
    if kind == "folder with a file":
        path.mkdir()
        (path / "notes.txt").write_text("precious")
    elif kind == "empty folder":
        path.mkdir()
    elif kind == "file":
        path.write_text("precious")
    elif kind == "link to a folder":
        path.symlink_to(outside)
    elif kind == "dangling link":
        path.symlink_to(outside / "nothing")
    elif kind == "pipe":
        os.mkfifo(path)
    elif kind == "device":  # a private one, like /dev/null, inside the test's folder
        if os.geteuid() != 0:
            pytest.skip("making a device needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))


KINDS = ["folder with a file", "empty folder", "file", "link to a folder", "dangling link", "pipe", "device"]


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "mine.txt").write_text("outside")
    return folder


@pytest.fixture
def reads(monkeypatch):
    """Counts the batches of documents the builder reads: none means refused before any work."""
    batches = []
    real = builder._batches

    def counted(*args, **kwargs):
        batches.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(builder, "_batches", counted)
    return batches


# ---------------------------------------------------------------- the index's place
@pytest.mark.parametrize("kind", KINDS)
def test_anything_in_the_indexs_place_is_refused_before_any_work_and_kept(jvm_started, fixture_corpus, tmp_path,
                                                                          outside, reads, kind):
    """A folder there was deleted with the user's files in it; a file or link was refused only
    after the whole index was built, naming no path, with a whole temporary index left behind."""
    root = tmp_path / "R"
    root.mkdir()
    place(root / index_name(fixture_corpus), kind, outside)
    before, before_outside = snapshot(root), snapshot(outside)
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root))
    assert code == 2 and "Traceback" not in text, text
    assert f"{root / index_name(fixture_corpus)}: the index's place in the index root holds" in text
    assert "no finished index" in text and "remove or rename it" in text
    assert reads == []  # not a document read
    assert snapshot(root) == before and snapshot(outside) == before_outside


def test_an_index_is_placed_where_nothing_is_and_recorded_and_an_old_one_is_read(jvm_started, fixture_corpus,
                                                                                tmp_path, reads):
    root = tmp_path / "R"
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root))
    name = index_name(fixture_corpus)
    assert code == 0 and f"index: {root / name}" in text and reads == [1]
    assert sorted(p.name for p in root.iterdir()) == [RECORD, name]  # no lock, no temporary left
    assert OutputFolder(root, command=TOOLKIT).ours(name)
    # an index built before records were kept (no record) is used as it is, and kept
    (root / RECORD).unlink()
    before = snapshot(root)
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root))
    assert code == 0 and "documents: 5" in text and reads == [1]
    assert snapshot(root) == before


def test_an_index_root_named_by_a_link_is_the_folder_it_names(jvm_started, fixture_corpus, tmp_path):
    """A root kept on another disk through a link of its user's: the indexes go there."""
    (tmp_path / "disk").mkdir()
    (tmp_path / "R").symlink_to(tmp_path / "disk")
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(tmp_path / "R"))
    assert code == 0 and (tmp_path / "disk" / index_name(fixture_corpus) / "touche-index.json").is_file()
    assert (tmp_path / "R").is_symlink()


# ---------------------------------------------------------------- shards
@pytest.mark.parametrize("kind", ["folder with a file", "empty folder", "file", "link to a folder", "pipe", "device"])
def test_anything_in_the_shards_folders_place_is_refused_and_kept(jvm_started, fixture_corpus, tmp_path, outside,
                                                                  reads, kind):
    """A user's K.shards/ was deleted with its files; a K.shards link was built through."""
    root = tmp_path / "R"
    root.mkdir()
    place(root / f"{index_name(fixture_corpus)}.shards", kind, outside)
    before, before_outside = snapshot(root), snapshot(outside)
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                        "--shards", "2", "--shard", "0")
    assert code == 2 and "Traceback" not in text and "touche did not make" in text or "a link" in text, text
    assert f"{index_name(fixture_corpus)}.shards" in text and reads == []
    assert snapshot(root) == before and snapshot(outside) == before_outside


def test_assembling_shards_keeps_a_users_file_in_the_shards_folder(jvm_started, fixture_corpus, tmp_path):
    root = tmp_path / "R"
    name = index_name(fixture_corpus)
    for k in ("0", "1"):
        code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                            "--shards", "2", "--shard", k)
        assert code == 0, text
    (root / f"{name}.shards" / "notes.txt").write_text("precious")
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                        "--shards", "2")
    assert code == 0 and "shards: 2 (searched as one)" in text and "documents: 5" in text, text
    assert (root / f"{name}.shards" / "notes.txt").read_text() == "precious"
    assert sorted(p.name for p in (root / name).iterdir()) == ["shard-0-of-2", "shard-1-of-2", "touche-index.json"]
    # without the user's file the emptied shards folder goes
    (root / f"{name}.shards" / "notes.txt").unlink()
    (root / name / "touche-index.json").unlink()
    (root / name).rename(root / "elsewhere")
    for k in ("0", "1"):
        assert touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                      "--shards", "2", "--shard", k)[0] == 0
    assert touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                  "--shards", "2")[0] == 0
    assert sorted(p.name for p in root.iterdir()) == sorted([RECORD, "elsewhere", name])


def test_a_shard_someone_put_in_the_shards_folder_is_not_assembled(jvm_started, fixture_corpus, tmp_path):
    root = tmp_path / "R"
    name = index_name(fixture_corpus)
    assert touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                  "--shards", "2", "--shard", "0")[0] == 0
    (root / f"{name}.shards" / "shard-0-of-2").rename(root / f"{name}.shards" / "shard-1-of-2")
    before = snapshot(root)
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(root),
                        "--shards", "2")
    assert code == 2 and "shard 1 of 2 is a folder touche did not make" in text, text
    assert snapshot(root) == before


# ---------------------------------------------------------------- the datasets cache
@pytest.fixture
def argsme_cache(tmp_path, monkeypatch) -> Path:
    """args.me in a private ir_datasets cache, and the datasets cache TOUCHE_DATASETS_CACHE names."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets"))
    monkeypatch.setenv("TOUCHE_DATASETS_CACHE", str(tmp_path / "cache"))
    arguments = json.loads((DEMO / "args.me" / "args-demo.json").read_text(encoding="utf-8"))["arguments"]
    for i, f in enumerate(ds.ARGSME.files):
        target = ds.cached_path(f)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"arguments": arguments[i::len(ds.ARGSME.files)]}), encoding="utf-8")
    folder = tmp_path / "cache" / "argsme-2020-04-01" / "corpus"
    folder.mkdir(parents=True)
    return folder


def never_fetch(f):
    raise AssertionError(f"fetched {f.relpath}")


@pytest.mark.parametrize("entry", ["debateorg.json", "mine.json", "extra.json"])
@pytest.mark.parametrize("kind", ["file", "link to a folder", "link to a file", "pipe", "device"])
def test_the_datasets_cache_keeps_and_refuses_what_it_did_not_make(argsme_cache, outside, entry, kind):
    """A user's debateorg.json there was replaced by a link, a user's link deleted, a stray
    extra.json indexed silently (330 documents instead of 320)."""
    path = argsme_cache / entry
    if kind == "file":
        write_argsme(path, [(f"Sx{i}-A1", "c", [("text", "PRO")], "t") for i in range(10)])
    elif kind == "link to a file":
        path.symlink_to(outside / "mine.txt")
    else:
        place(path, kind, outside)
    before, before_outside = snapshot(argsme_cache), snapshot(outside)
    with pytest.raises(ToucheError, match=rf"the corpus folder of argsme-2020-04-01 holds 1 file\(s\) this command "
                                          rf"did not make \({entry}\); it is read whole as the corpus"):
        ds.corpus_path("argsme/2020-04-01/touche-2021-task-1", fetcher=never_fetch)
    assert snapshot(argsme_cache) == before and snapshot(outside) == before_outside


def test_a_stray_file_in_the_datasets_cache_is_never_indexed(jvm_started, argsme_cache, tmp_path):
    write_argsme(argsme_cache / "extra.json", [(f"Sx{i}-A1", "c", [("text", "PRO")], "t") for i in range(10)])
    code, text = touche("index", "-c", str(VARIANT), "-i", "irds:argsme/2020-04-01/touche-2021-task-1",
                        "--index-root", str(tmp_path / "R"))
    assert code == 2 and "(extra.json)" in text and "documents:" not in text, text
    (argsme_cache / "extra.json").unlink()
    code, text = touche("index", "-c", str(VARIANT), "-i", "irds:argsme/2020-04-01/touche-2021-task-1",
                        "--index-root", str(tmp_path / "R"))
    assert code == 0 and "documents: 320" in text, text


def test_an_extracted_collection_in_the_way_is_refused_not_deleted(tmp_path, monkeypatch):
    """The collection's zip changed: the old extraction was deleted whole to extract it afresh."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets"))
    monkeypatch.delenv("TOUCHE_DATASETS_CACHE", raising=False)
    archive = ds.cached_path(ds.IMAGES_2022.files[0])
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("images/I00/I0000000000000000/image.webp", b"webp")
    target = tmp_path / "ir_datasets/touche-toolkit/touche-image-2022-06-13/corpus"
    target.mkdir(parents=True)
    (target / "notes.txt").write_text("precious")
    with pytest.raises(ToucheError, match="is a folder touche did not make .*: remove it and run again"):
        ds.corpus_path("touche-image/2022-06-13/touche-2022-task-3", fetcher=never_fetch, progress=False)
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]
    target.joinpath("notes.txt").unlink()
    target.rmdir()
    extracted = ds.corpus_path("touche-image/2022-06-13/touche-2022-task-3", fetcher=never_fetch, progress=False)
    assert (extracted / "images/I00/I0000000000000000/image.webp").read_bytes() == b"webp"
    with zipfile.ZipFile(archive, "w") as zf:  # the zip changed: what was extracted is kept, and said
        zf.writestr("images/I00/I0000000000000001/image.webp", b"other")
    with pytest.raises(ToucheError, match=r"extracted from another archive .*: remove it and run again"):
        ds.corpus_path("touche-image/2022-06-13/touche-2022-task-3", fetcher=never_fetch, progress=False)
    assert (extracted / "images/I00/I0000000000000000/image.webp").read_bytes() == b"webp"


# ---------------------------------------------------------------- the helper jar
@pytest.fixture
def fake_tools(monkeypatch):
    """javac and jar as calls recorded: jar writes a jar of our classes at the path it is given."""
    calls = []

    class Done:
        returncode, stderr = 0, ""

    real = jvm.subprocess.run

    def run(cmd, **kwargs):
        if Path(cmd[0]).name not in ("javac", "jar"):
            return real(cmd, **kwargs)
        calls.append(Path(cmd[0]).name)
        if Path(cmd[0]).name == "jar":
            with zipfile.ZipFile(cmd[2], "w") as packed:
                packed.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
                packed.writestr("touche/lucene/BatchSearcher.class", b"\xca\xfe\xba\xbe")
        return Done()
    monkeypatch.setattr(jvm.subprocess, "run", run)
    return calls


def _old(path: Path) -> None:
    """Older than every Java source: the helpers are stale."""
    oldest = min(p.stat().st_mtime for p in jvm._java_source_files())
    os.utime(path, (oldest - 100, oldest - 100), follow_symlinks=False)


@pytest.mark.parametrize("kind", ["file", "empty file", "link to a file", "pipe", "device", "folder with a file"])
def test_the_helper_jar_never_replaces_what_touche_did_not_make(tmp_path, outside, monkeypatch, fake_tools, kind):
    """TOUCHE_HELPER_JAR=FILE: a user's notes older than the Java sources became an 18 KB jar."""
    jar = tmp_path / "notes.txt"
    if kind == "file":
        jar.write_text("my notes")
    elif kind == "empty file":
        jar.write_text("")
    elif kind == "link to a file":
        jar.symlink_to(outside / "mine.txt")
        _old(outside / "mine.txt")
    else:
        place(jar, kind, outside)
    if kind not in ("pipe", "device"):
        _old(jar)
    monkeypatch.setenv("TOUCHE_HELPER_JAR", str(jar))
    before, before_outside = snapshot(tmp_path), snapshot(outside)
    with pytest.raises(EnvironmentProblem, match="the helper jar's place holds .*touche made: remove or rename it"):
        jvm.classpath()
    assert fake_tools == []  # nothing compiled
    assert snapshot(tmp_path) == before and snapshot(outside) == before_outside


def test_the_helper_jar_replaces_a_jar_of_its_own_and_an_older_versions(tmp_path, monkeypatch, fake_tools):
    jar = tmp_path / "helpers.jar"
    monkeypatch.setenv("TOUCHE_HELPER_JAR", str(jar))
    assert jvm.classpath()[0] == jar and fake_tools == ["javac", "jar"]
    assert OutputFolder(tmp_path, command=TOOLKIT).ours("helpers.jar") and jvm.is_helper_jar(jar)
    _old(jar)
    assert jvm.classpath()[0] == jar and fake_tools == ["javac", "jar"] * 2  # stale: rebuilt over its own
    (tmp_path / RECORD).unlink()  # a jar of our classes an older version compiled there, unrecorded
    _old(jar)
    assert jvm.classpath()[0] == jar and fake_tools == ["javac", "jar"] * 3
    assert not jvm.is_helper_jar(tmp_path / RECORD)


def test_a_jar_that_is_not_ours_is_told_apart(tmp_path):
    other = tmp_path / "other.jar"
    with zipfile.ZipFile(other, "w") as packed:
        packed.writestr("touche/lucene/BatchSearcher.class", b"x")
        packed.writestr("org/example/Main.class", b"x")
    assert not jvm.is_helper_jar(other)
    with zipfile.ZipFile(other, "w") as packed:
        packed.writestr("touche/lucene/BatchIndexer.class", b"x")
    assert not jvm.is_helper_jar(other)


# ---------------------------------------------------------------- the model, encodings and OCR caches
@pytest.fixture
def packaged_model(tmp_path, monkeypatch):
    """A packaged model (a zip in a pip package) and a private TOUCHE_MODEL_CACHE."""
    from tests.retrieval.test_dense import write_tiny_model
    from touche.retrieval.encoders import dense
    tiny = write_tiny_model(tmp_path / "tiny")
    package = tmp_path / "site" / "tiny_model_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    with zipfile.ZipFile(package / "model.zip", "w") as zipped:
        for f in tiny.rglob("*"):
            zipped.write(f, f.relative_to(tiny).as_posix())
    info = tmp_path / "site" / "tiny_model_pkg-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-model-pkg\nVersion: 0.3\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setitem(dense.PACKAGED_MODELS, "tiny-packaged", ("tiny_model_pkg", "tiny-model-pkg"))
    monkeypatch.setenv("TOUCHE_MODEL_CACHE", str(tmp_path / "models"))
    (tmp_path / "models").mkdir()
    return tmp_path / "models"


@pytest.mark.parametrize("kind", KINDS)
def test_the_model_cache_keeps_what_is_in_a_models_place(packaged_model, outside, kind):
    from touche.retrieval.encoders import dense
    place(packaged_model / "tiny-packaged-0.3", kind, outside)
    before, before_outside = snapshot(packaged_model), snapshot(outside)
    with pytest.raises(ToucheError, match="tiny-packaged-0.3 in the model cache is .*: remove or rename it"):
        dense.resolve_model("tiny-packaged")
    assert snapshot(packaged_model) == before and snapshot(outside) == before_outside


@pytest.mark.parametrize("kind", ["file", "link to a file", "empty folder"])
def test_the_encodings_cache_opens_only_a_database_touche_made(packaged_model, outside, kind, caplog):
    """SQLite opened whatever was there: through a link it wrote a database into a user's file."""
    from touche.retrieval.encoders import dense
    folder = dense.resolve_model("tiny-packaged")
    path = dense.encodings_file(folder, 16)
    path.parent.mkdir()
    empty = outside / "empty"
    empty.write_bytes(b"")
    if kind == "file":
        path.write_bytes(b"")
    elif kind == "link to a file":
        path.symlink_to(empty)
    else:
        path.mkdir()
    before, before_outside = snapshot(packaged_model, records=False), snapshot(outside)
    cache = dense.EncodingCache(path)
    assert cache.get(["a"]) == {} and cache.put({"a": dense.np.ones(2)}) is None
    assert "cannot be used" in caplog.text and "touche made" in caplog.text
    assert snapshot(packaged_model, records=False) == before and snapshot(outside) == before_outside


def test_the_encodings_cache_keeps_its_own_and_an_older_versions_database(packaged_model):
    from touche.retrieval.encoders import dense
    path = dense.encodings_file(dense.resolve_model("tiny-packaged"), 16)
    first = dense.EncodingCache(path)
    first.put({"a": dense.np.ones(2, dtype=dense.np.float32)})
    assert list(dense.EncodingCache(path).get(["a"])["a"]) == [1.0, 1.0]
    (path.parent / RECORD).unlink()  # made before records were kept: a database of the encodings table only
    assert list(dense.EncodingCache(path).get(["a"])["a"]) == [1.0, 1.0]
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE notes (x)")
    (path.parent / RECORD).unlink()
    assert not dense._is_encodings_database(path) and dense.EncodingCache(path).get(["a"]) == {}


def test_the_ocr_cache_never_replaces_an_entry_it_did_not_make(tmp_path, outside, monkeypatch, caplog):
    """A damaged entry was "recognised again and overwritten", whoever had put it there; a link in
    a subfolder's place was written through."""
    from touche.indexing import ocr
    engine = ocr.OcrEngine("tesseract", "test 1")
    monkeypatch.setattr(ocr, "engine", lambda *a, **k: engine)
    monkeypatch.setattr(ocr.OcrEngine, "run", lambda self, image: [[("STRESS", 90.0)]])
    monkeypatch.setattr(ocr, "_kept_nothing", __import__("threading").Event())
    images = [tmp_path / "one.png", tmp_path / "two.png"]
    for number, image in enumerate(images):
        image.write_bytes(b"png %d" % number)
    cache = tmp_path / "ocr"
    entries = [ocr._entry(cache, ocr.file_digest(image), engine) for image in images]
    assert entries[0].parent != entries[1].parent
    entries[0].parent.mkdir(parents=True)
    entries[0].write_text("my notes, not JSON")
    entries[1].parent.symlink_to(outside)
    before, before_outside = snapshot(cache, records=False), snapshot(outside)
    assert dict(ocr.ocr_texts([("a", images[0]), ("b", images[1])], cache_dir=cache)) == {"a": "STRESS", "b": "STRESS"}
    assert snapshot(cache, records=False) == before and snapshot(outside) == before_outside
    assert caplog.text.count("an OCR result is not cached") == 1
    entries[0].unlink()
    entries[1].parent.unlink()
    assert dict(ocr.ocr_texts([("a", images[0]), ("b", images[1])], cache_dir=cache)) == {"a": "STRESS", "b": "STRESS"}
    for entry in entries:
        assert json.loads(entry.read_text())["lines"] == [[["STRESS", 90.0]]]
        assert OutputFolder(entry.parent, command=TOOLKIT).ours(entry.name)


def test_shards_gathered_from_other_machines_are_assembled(jvm_started, fixture_corpus, tmp_path):
    """docs/performance.md's recipe without Ray: each machine builds its shard, rsync gathers the
    shard folders on one machine (without that machine's record), which assembles them."""
    import shutil
    name = index_name(fixture_corpus)
    for k in ("0", "1"):
        machine = tmp_path / f"machine{k}"
        assert touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(machine),
                      "--shards", "2", "--shard", k)[0] == 0
        gathered = tmp_path / "R" / f"{name}.shards" / f"shard-{k}-of-2"
        shutil.copytree(machine / f"{name}.shards" / f"shard-{k}-of-2", gathered)  # rsync -a: a new folder
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(tmp_path / "R"),
                        "--shards", "2")
    assert code == 0 and "shards: 2 (searched as one)" in text and "documents: 5" in text, text
    assert sorted(p.name for p in (tmp_path / "R").iterdir()) == sorted([RECORD, name])
    # a gathered folder holding anything but Lucene's files and the shard's description is no shard
    for k in ("0", "1"):
        shutil.copytree(tmp_path / f"machine{k}" / f"{name}.shards" / f"shard-{k}-of-2",
                        tmp_path / "S" / f"{name}.shards" / f"shard-{k}-of-2")
    (tmp_path / "S" / f"{name}.shards" / "shard-1-of-2" / "notes.txt").write_text("precious")
    before = snapshot(tmp_path / "S")
    code, text = touche("index", "-c", str(VARIANT), "-i", str(fixture_corpus), "--index-root", str(tmp_path / "S"),
                        "--shards", "2")
    assert code == 2 and f"{name}.shards in the index root is a folder touche did not make" in text, text
    assert snapshot(tmp_path / "S") == before
