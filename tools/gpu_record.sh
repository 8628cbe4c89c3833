#!/usr/bin/env bash
# Record on a GPU machine that has only Python (3.11 or 3.12) and torch: nothing is
# installed and nothing is downloaded; the harness travels in this checkout. One run of
# at most about 9 minutes (RECORD_BUDGET seconds) records, in this order:
#   1. the examples' observations on the GPU (<device>.examples.jsonl);
#   2. the sync trials (groups sync and sync_calls: few calls, three clocks);
#   3. the dtype sweep (group matmul, 256 to 8192 with 4096 between), [method] runs each:
#      every run a fresh process whose first call is timed before any other, so the first
#      call the page shows is really first, and the runs the «más rápido» claims count;
#   4. matmul_8192_bfloat16 again, with --bare-loop: the harness's latency against a bare
#      loop of the same step timed with device events in the same process, stored in the
#      record's environment (bare_loop) for the page.
# The environment records whether float32 matmuls may use TF32 (torch's defaults: no).
# Each step is a separate record run under `timeout`, so a step that hangs or crashes
# loses only itself: every finished step is already committed, atomically, to the set.
#
#   tools/gpu_record.sh [RESULTS_DIR]      (default: results/ of this checkout)
#   HARNESS_GPU_DRY=1 tools/gpu_record.sh  the same entry points on the CPU with tiny
#                                          sizes, into a scratch folder (never results/)
#
# With $OUT set (the device machine's output folder), the record sets, whose folder names
# hold '+' (2.11.0+cu130), come back packed in $OUT/results.tar, with the log beside it.
# Then, in a checkout with the docs tools: python -m harness publish check
set -uo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
budget="${RECORD_BUDGET:-540}"
trials_file=trials/trials.toml
bare_trial=matmul_8192_bfloat16
sweep=(--groups matmul)
sync_runs=(--runs 3)
extra=()
scale=1
if [ "${HARNESS_GPU_DRY:-0}" = 1 ]; then
    # It proves the entry points, not timings: its limits are backstops against a hang
    # that a busy machine (the test suite's) cannot reach.
    budget="${RECORD_BUDGET:-5400}"
    scale=10
    device=cpu
    scratch="$(mktemp -d)"
    results="${1:-$scratch/results}"
    trials_file="$scratch/trials.toml"
    # Tiny sizes, and every trial applies to the CPU, so each step has work to record.
    sed -e 's/^shape = \[\(4096\|8192\), \(4096\|8192\)\]/shape = [64, 64]/' \
        -e 's/^devices = .*/devices = ["cpu", "cuda", "mps", "xpu"]/' \
        trials/trials.toml >"$trials_file"
    # One run each and only the 4096 trio: the dry run proves the entry points, not timings.
    extra=(--min-run-time 0.05)
    sync_runs=(--runs 1)
    sweep=(--runs 1 --trials matmul_4096_float32 matmul_4096_bfloat16 matmul_4096_float64)
else
    device="${DEVICE:-cuda}"
    results="${1:-results}"
fi
mkdir -p "$results"
log="${OUT:-$(mktemp -d)}/gpu_record.log"
mkdir -p "$(dirname "$log")"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
exec > >(tee -a "$log") 2>&1
tee_pid=$!
"$python" - <<'PY' || exit 1
import platform, sys
if sys.version_info < (3, 11):
    sys.exit(f"python {platform.python_version()}: the harness needs Python 3.11 or later")
import torch
print("python", platform.python_version(), "torch", torch.__version__,
      "cuda available", torch.cuda.is_available(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
PY
status=0
step() {  # step NAME LIMIT ARGS...: one record run, within what is left of the budget
    local name="$1" limit=$(($2 * scale)) left=$((budget - SECONDS))
    shift 2
    [ "$left" -lt "$limit" ] && limit="$left"
    if [ "$limit" -le 5 ]; then
        echo "== $name: skipped, the ${budget} s budget is spent"
        status=1
        return
    fi
    echo "== $name (at most ${limit} s)"
    timeout "$limit" "$python" -m harness record --device "$device" --results "$results" \
        --trials-file "$trials_file" "${extra[@]}" "$@" || status=1
}
step examples 150 --only examples
step sync 90 --only trials --groups sync sync_calls "${sync_runs[@]}"
step dtypes 240 --only trials --min-run-time 0.2 "${sweep[@]}"
step bare-loop 60 --only trials --trials "$bare_trial" --bare-loop "$bare_trial" --runs 1
# Locks are only for concurrent writers on this machine; they are not records.
find "$results" -name '.*.lock' -delete
if [ -n "${OUT:-}" ]; then
    (cd "$results" && find . -maxdepth 1 -type d -name '*+*' -printf '%P\n' |
        tar -cf "$OUT/results.tar" -T -) || status=1
    [ -f "$results/unsigned.sha256" ] && cp "$results/unsigned.sha256" "$OUT/"
    echo "packed: $(tar -tf "$OUT/results.tar" | grep -c .) files in $OUT/results.tar"
fi
echo "== done in ${SECONDS} s, status $status, records in $results"
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null  # the log is whole before the machine hands $OUT back
exit "$status"
