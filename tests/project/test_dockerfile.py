"""The Dockerfile stays honest without a Docker engine: its steps are performed here.

The build context is copied as ``COPY`` would copy it (``.dockerignore`` applied) into a temporary
folder standing for the image's ``WORKDIR``; ``ENV`` is applied; every ``RUN`` step is executed
there, in order (a fresh virtual environment, packages from the registry, our jar compiled, the
build-time smoke run), except the Debian step, which is checked instead: the packages it
installs must be the ones installed on this machine (installing Debian packages from a test
would change the machine the other tests run on). Then the documented TIRA command runs in a
process without network (``unshare -n``), as ``tira-run`` runs the image.
"""
from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.shared import REPO

DOCKERFILE = REPO / "Dockerfile"
TIRA_COMMAND = "run_all.sh -i $inputDataset -o $outputDir"


# ---------------------------------------------------------------- reading the Dockerfile
def instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) per instruction; continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        full = pending + stripped
        pending = ""
        keyword, _, rest = full.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def env_pairs(arguments: str) -> list[tuple[str, str]]:
    return [tuple(item.split("=", 1)) for item in shlex.split(arguments)]  # type: ignore[misc]


def apt_packages(command: str) -> list[str]:
    """The packages an ``apt-get install`` command names."""
    words = shlex.split(command.split("apt-get install", 1)[1].split("&&", 1)[0])
    return [w for w in words if not w.startswith("-")]


def ignore_patterns() -> list[str]:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _parts_match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_parts_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _parts_match(pattern[1:], parts[1:])


def ignored(relative: str, patterns: list[str]) -> bool:
    """Docker's rule: a pattern matches a path from the context root (``*`` within one name,
    ``**`` any number of names); a matched folder excludes everything inside it."""
    parts = relative.split("/")
    return any(_parts_match(p.split("/"), parts[:n]) for p in patterns for n in range(1, len(parts) + 1))


def copy_context(target: Path) -> None:
    patterns = ignore_patterns()
    for root, dirs, files in os.walk(REPO):
        rel_root = Path(root).relative_to(REPO)
        dirs[:] = [d for d in dirs if not ignored((rel_root / d).as_posix(), patterns)]
        for name in files:
            rel = (rel_root / name).as_posix()
            if not ignored(rel, patterns):
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(Path(root) / name, target / rel, follow_symlinks=False)


# ---------------------------------------------------------------- static checks
STEPS = instructions(DOCKERFILE.read_text())
WORKDIR = next(arg for kw, arg in STEPS if kw == "WORKDIR")


def test_dockerfile_shape():
    keywords = [kw for kw, _ in STEPS]
    assert keywords[0] == "FROM" and STEPS[0][1].startswith("debian:bookworm"), \
        "the image must be the Debian 12 our machines run (Java, Tesseract and Python versions agree)"
    copies = [arg for kw, arg in STEPS if kw == "COPY"]
    assert copies == [f". {WORKDIR}"]
    runs = [arg for kw, arg in STEPS if kw == "RUN"]
    assert any("scripts/ensure_env.sh" in r for r in runs), "Python packages must come from the one set-up script"
    assert not any("pip install" in r for r in runs), "pip steps belong in scripts/ensure_env.sh, not here"
    # the documented TIRA command is the image's run_all.sh
    text = DOCKERFILE.read_text()
    assert f"--command '{WORKDIR}/{TIRA_COMMAND}'" in text
    assert (REPO / "run_all.sh").stat().st_mode & 0o111


def test_dockerignore_keeps_local_state_out():
    patterns = ignore_patterns()
    for local in (".venv/bin/python", "indexes/abc/segments_1", "out/run.txt", "build/touche-lucene.jar",
                  ".git/HEAD", "touche/__pycache__/cli.cpython-311.pyc", "touche_toolkit.egg-info/PKG-INFO"):
        assert ignored(local, patterns), local
    for needed in ("run_all.sh", "scripts/ensure_env.sh", "java/src/touche/lucene", "demo/args.me/args-demo.json",
                   "stemming/stoplists", "configs/task1/suite.yaml", "requirements.lock", "pyproject.toml"):
        assert not ignored(needed, patterns), needed
        assert (REPO / needed).exists(), needed


def test_the_system_layer_is_what_this_machine_has():
    """The Debian packages the image installs are installed here (so the steps below, run here,
    see the same system the image has)."""
    if shutil.which("dpkg-query") is None:
        pytest.skip("not a Debian system: the image's system layer cannot be compared")
    apt_steps = [arg for kw, arg in STEPS if kw == "RUN" and "apt-get install" in arg]
    assert len(apt_steps) == 1
    for package in apt_packages(apt_steps[0]):
        done = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
        assert done.stdout.endswith("installed"), f"{package} is not installed on this machine"


# ---------------------------------------------------------------- the build, performed
def _image_path(value: str, workdir: Path) -> str:
    """Paths under the image's WORKDIR point at the temporary copy instead."""
    return re.sub(rf"(?<![\w.]){re.escape(WORKDIR)}(?=/|\b|$)", str(workdir), value)


def _clean_env() -> dict[str, str]:
    """This process's environment without the project's own venv (the build must not lean on it)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TOUCHE_", "VIRTUAL_ENV", "PYTHONPATH", "IR_DATASETS_"))}
    ours = str(REPO / ".venv")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(ours))
    return env


@pytest.mark.slow
def test_build_steps_in_a_fresh_environment_and_an_offline_tira_run(tmp_path):
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "true"]).returncode != 0:
        pytest.skip("unshare -n (a process without network) is not available here")
    image = tmp_path / "image"
    env = _clean_env()
    for keyword, arguments in STEPS:
        if keyword == "COPY":
            copy_context(image)
        elif keyword == "ENV":
            for key, value in env_pairs(arguments):
                env[key] = _image_path(re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), ""), value), image)
        elif keyword == "RUN" and "apt-get install" not in arguments:  # the system layer is checked above
            done = subprocess.run(["bash", "-c", _image_path(arguments, image)], cwd=image, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"RUN {arguments}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"

    # the image's own environment, not the project's
    assert (image / ".venv" / "bin" / "python").is_file()
    which = subprocess.run(["bash", "-c", "command -v touche"], env=env, capture_output=True, text=True)
    assert which.stdout.strip() == str(image / ".venv" / "bin" / "touche")
    assert not (image / "out").exists() and not (image / "indexes").exists()  # the smoke step cleaned up
    # the main job installs the product only: no test tool in the image TIRA runs
    assert not any((image / ".venv" / "bin" / tool).exists() for tool in ("pytest", "mypy", "ruff", "playwright"))

    # tira-run: input = the corpus files + topics.xml; no network at all
    tira_input = tmp_path / "input"
    tira_input.mkdir()
    for f in (REPO / "demo" / "args.me").glob("*.json"):
        shutil.copy(f, tira_input)
    shutil.copy(REPO / "demo" / "topics.xml", tira_input / "topics.xml")
    output = tmp_path / "output"
    command = TIRA_COMMAND.replace("$inputDataset", str(tira_input)).replace("$outputDir", str(output))
    done = subprocess.run(["unshare", "-n", "bash", "-c", f"{image}/{command}"], cwd=image, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    from touche.retrieval.formats.runfile import RunFormat, run_file_problems
    assert not [p for p in run_file_problems(output / "run.txt", RunFormat.Q0) if p.is_error]
    assert {line.split()[0] for line in (output / "run.txt").read_text().splitlines()} == {"1", "2", "3", "4", "5", "6"}
