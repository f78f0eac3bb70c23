#!/usr/bin/env bash
# Build the Linux onedir bundle from the same spec as the Mac app (dist/Triage/Triage), then run
# its self-test offscreen. Proves the spec (hidden imports, data files) without a Mac.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
# one thread unless told otherwise: on the shared 2-core build machine two threads ran 5x slower
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --distpath dist --workpath build packaging/triage.spec
echo "build: $(( $(date +%s) - start )) s, $(du -sh dist/Triage | cut -f1)"
# a fresh model cache: the self-test must also prove the GGUF conversion path works frozen
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
QT_QPA_PLATFORM=offscreen TRIAGE_CACHE_DIR="$cache" dist/Triage/Triage --self-test
