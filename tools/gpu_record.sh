#!/usr/bin/env bash
# Record the GPU trials on a machine that has only Python (3.11 or 3.12) and torch:
# nothing is installed and nothing is downloaded. Each trial group is a separate
# record run, so a group that hangs or crashes (stopped by `timeout`) loses only itself:
# every finished group is already committed, atomically, to the record set.
#
#   tools/gpu_record.sh [RESULTS_DIR]     (default: results/ of this checkout)
#
# Then, in a checkout with the docs tools: python -m harness publish check
set -uo pipefail
cd "$(dirname "$0")/.."
results="${1:-results}"
device="${DEVICE:-cuda}"
python="${PYTHON:-python3}"
per_group="${GROUP_TIMEOUT:-240}"
mkdir -p "$results"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$python" - <<'PY'
import platform, torch
print("python", platform.python_version(), "torch", torch.__version__,
      "cuda available", torch.cuda.is_available(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
PY
status=0
for group in matmul sync mlp autograd; do
    echo "== group $group"
    timeout "$per_group" "$python" -m harness record --device "$device" --only trials \
        --groups "$group" --results "$results" || status=1
done
# Locks are only for concurrent writers on this machine; they are not records.
find "$results" -name '.*.lock' -delete
exit "$status"
