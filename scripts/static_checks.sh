#!/usr/bin/env bash
# The static checks, as run_tests.sh (so CI) and the pre-commit hook run them: ruff on the whole
# tree, mypy on the product code (both configured in pyproject.toml). Needs the project's
# environment (./run_tests.sh makes it); exits non-zero when either finds a problem.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TOUCHE_VENV:-$ROOT/.venv}"
cd "$ROOT"
# The layer folders install as touche.indexing, touche.retrieval, touche.stemming (setup.py); mypy
# finds them so through these links, on its search path (pyproject.toml [tool.mypy]).
mkdir -p build/mypy/touche
ln -sfn ../../../touche/__init__.py build/mypy/touche/__init__.py
for layer in indexing retrieval stemming; do
  ln -sfn "../../../$layer" "build/mypy/touche/$layer"
done
status=0
"$VENV/bin/ruff" check --quiet . || status=1
# mypy names a layer's file by its link (build/mypy/touche/indexing/…): shown as the file itself
"$VENV/bin/mypy" | sed -e 's#^build/mypy/touche/##' || status=1
exit "$status"
