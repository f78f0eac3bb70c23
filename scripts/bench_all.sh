#!/usr/bin/env bash
# The published comparison, reproduced: every mode side by side on both workloads, one process each.
# Usage: scripts/bench_all.sh [N] [DTYPE]   (results in out/bench_<workload>.json and .txt)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
dtype=${2:-auto}
mkdir -p out
for workload in long-prefix short-prompt; do
  .venv/bin/triage-app bench --model random:qwen2.5-0.5b --dtype "$dtype" --n "$n" --workload "$workload" \
    --json "out/bench_$workload.json" | tee "out/bench_$workload.txt"
done
