#!/usr/bin/env bash
# The main job. With no arguments: index the demo collection, write all five Task 1 runs and an
# evaluation table into ./out. TIRA: run_all.sh -i $inputDataset -o $outputDir (offline).
#   -i DIR     input directory (corpus files + topics.xml)
#   -o DIR     output directory (default ./out); run.txt is the suite's primary variant
#   -c FILE    run a single variant (it becomes run.txt)
#   -s FILE    suite of variants (default configs/task1/suite.yaml)
# Other options are passed to `touche run-all` (see `touche run-all --help`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$ROOT/scripts/ensure_env.sh"
args=()
needs_value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then
    printf 'run_all.sh: error: %s needs a value (see ./run_all.sh --help)\n' "$1" >&2
    exit 2
  fi
}
while [ $# -gt 0 ]; do
  case "$1" in
    -i|--input) needs_value "$@"; args+=(--input "$2"); shift 2 ;;
    -o|--output) needs_value "$@"; args+=(--output "$2"); shift 2 ;;
    -c|--config) needs_value "$@"; args+=(--config "$2"); shift 2 ;;
    -s|--suite) needs_value "$@"; args+=(--suite "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
exec touche run-all "${args[@]}"
