#!/usr/bin/env bash
# Sets up the environment on first use, then runs the test suite (one JVM per session).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$ROOT/scripts/ensure_env.sh"
cd "$ROOT"
exec python -m pytest "$@"
