"""Packaging that pyproject.toml alone cannot say: the layer folders install inside the touche
namespace, and a wheel carries our Lucene helpers compiled.

The repository keeps ``stemming/``, ``indexing/`` and ``retrieval/`` at its top level (the
product's map); installed, they are ``touche.stemming``, ``touche.indexing`` and
``touche.retrieval``, so they never clash with the PyPI distributions of those names.
``configs/``, ``demo/`` and ``java/`` install as package data under ``touche/`` (the suites'
relative paths, ``../../demo/…``, hold in both places).

Every (sub)package is found here rather than listed by hand: a hand-kept list once left
``touche.specs`` out of the install.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
LAYERS = ("stemming", "indexing", "retrieval")
DATA = ("configs", "demo", "java")


def packages_and_dirs() -> tuple[list[str], dict[str, str]]:
    packages = find_packages(where=str(HERE), include=["touche", "touche.*"])
    package_dir = {}
    for folder in LAYERS:
        package_dir[f"touche.{folder}"] = folder
        packages += [f"touche.{name}" for name in find_packages(where=str(HERE), include=[folder, f"{folder}.*"])]
    for folder in DATA:  # data-only packages: the files come in through package_data below
        package_dir[f"touche.{folder}"] = folder
        packages.append(f"touche.{folder}")
    return packages, package_dir


class BuildWithHelpers(build_py):
    """Also compile the Lucene helpers into ``touche/lib/touche-lucene.jar`` when this
    environment can (a JDK and pyserini's Anserini jar, as in the project's own environment or
    ``pip wheel --no-build-isolation``); otherwise an installed toolkit compiles them once at
    first use, into the user's cache, and says so."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # a checkout compiles into build/ itself (touche.jvm)
            return
        # the pins the install line names (pip install … -c requirements.lock) travel with the wheel
        lock = Path(self.build_lib) / "touche" / "requirements.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_bytes((HERE / "requirements.lock").read_bytes())
        target = Path(self.build_lib) / "touche" / "lib" / "touche-lucene.jar"
        result = subprocess.run([sys.executable, "-m", "touche.jvm", "build", "--to", str(target)],
                                cwd=HERE, capture_output=True, text=True)
        if result.returncode != 0:
            print("warning: the Lucene helpers are not compiled into this build (they will be at first use):\n"
                  + result.stderr.strip(), file=sys.stderr)


packages, package_dir = packages_and_dirs()
setup(
    packages=packages,
    package_dir=package_dir,
    package_data={
        "touche.stemming": ["stoplists/*.txt", "punkt/english/*"],
        "touche.retrieval.stages.quality": ["data/*.json"],
        "touche.retrieval.tasks.task2.stance": ["data/*.json.gz"],
        "touche.retrieval.experiments.explorer": ["templates/*"],
        "touche.configs": ["**/*.yaml"],
        "touche.demo": ["**/*"],
        "touche.java": ["src/**/*.java"],
    },
    exclude_package_data={"touche.demo": ["**/__pycache__/*"]},
    cmdclass={"build_py": BuildWithHelpers},
)
