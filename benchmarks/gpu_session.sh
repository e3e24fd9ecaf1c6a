#!/usr/bin/env bash
# One GPU session's ground truth in one command, on a lent GPU machine (docs/performance.md,
# "Running on a GPU").  Prepared here, beforehand:
#
#   python benchmarks/gpu_prepare.py .gpu      # tileir's and tileiras's cubins + manifest
#   git worktree add /tmp/base <commit>         # optional: an A/B against an earlier tree,
#   python /tmp/base/benchmarks/gpu_prepare.py $PWD/.gpu_base   # built by that tree
#   pip download ... -d .whl xdsl immutabledict ordered-set cuda-tile   # for the GPU's Python
#
# then run there with `.gpu` (and `.gpu_base`) and `.whl` carried.  Results go to $OUT
# (default /tmp/gpu-out), 8 files, as many as a device call brings back:
#   gpu.txt          the machine, the tools, the commit the cubins were built at
#   bench_corpus.md  every corpus kernel: both compilers' cubins against the interpreter,
#                    and their times
#   bench_large.md   memory-bound kernels at hundreds of MB, GEMMs at 4096^3 and 8192^3
#                    beside cuBLAS, attention at 2048 queries and keys
#   bench_base.md    the large GEMM and attention rows with `.gpu_base`'s cubins (an A/B
#                    on the same machine), when `.gpu_base` is there
#   bench.err        the tables' progress lines (each row as it is measured)
#   pytest_gpu.log, pytest.xml   tests/gpu (tileir compiled on the machine)
#   tools.log        compute-sanitizer on one pipelined GEMM, ncu on two GEMMs (Firecracker)
# Each step has its own time limit (the *_TIMEOUT variables), so one that overruns costs
# only its own rows.
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)
[ -n "$ptxas" ] && export CUDA_HOME=$(dirname "$(dirname "$ptxas")")
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  echo "ptxas: $ptxas"; "$ptxas" --version | tail -1; python3 --version
  echo "cubins: $(cat .gpu/COMMIT 2>/dev/null)"; echo "base: $(cat .gpu_base/COMMIT 2>/dev/null)"
} 2>&1 | tee "$OUT/gpu.txt"
SECONDS=0
: >"$OUT/bench.err"
# A kernel that hangs (a deadlocked mbarrier wait) is killed by --watchdog and becomes a
# HANG row; the tables go on without it, and a table stopped by its time limit keeps the
# rows it measured.
timeout "${CORPUS_TIMEOUT:-150}" python3 benchmarks/bench_gpu.py --prebuilt .gpu --check \
  --markdown --watchdog 30 >"$OUT/bench_corpus.md" 2>>"$OUT/bench.err"
echo "corpus table: ${SECONDS}s"
timeout "${LARGE_TIMEOUT:-240}" python3 benchmarks/bench_gpu.py --prebuilt .gpu --check \
  --large --repeat 20 --markdown --watchdog 60 >"$OUT/bench_large.md" 2>>"$OUT/bench.err"
echo "large table: ${SECONDS}s"
AB=(gemm_f16 gemm_bf16_big_tile gemm_bf16_two_warpgroups gemm_bf16_two_warpgroups@8192
  gemm_f16_wide_acc flash_attention_f16 attention_occupancy_f16)
if [ -d .gpu_base ]; then
  timeout "${BASE_TIMEOUT:-120}" python3 benchmarks/bench_gpu.py --prebuilt .gpu_base --large \
    --repeat 20 --markdown --watchdog 60 $(printf -- '--only %s ' "${AB[@]}") \
    >"$OUT/bench_base.md" 2>>"$OUT/bench.err"
  echo "base table: ${SECONDS}s"
fi
# Each test at most 60 s (pytest-timeout, in the machine's image): a kernel that hangs is
# a failure with its name, not the end of the run; the names of failures are listed (-rf)
# and kept in pytest.xml.
timeout "${PYTEST_TIMEOUT:-150}" python3 -m pytest -q -p no:cacheprovider -n 16 --timeout=60 \
  -rfs --junitxml="$OUT/pytest.xml" tests/gpu >"$OUT/pytest_gpu.log" 2>&1
echo "pytest: ${SECONDS}s (exit $?)"
tail -c 1500 "$OUT/bench.err"
cat "$OUT/bench_corpus.md" "$OUT/bench_large.md" "$OUT/bench_base.md" 2>/dev/null
tail -n 25 "$OUT/pytest_gpu.log"
: >"$OUT/tools.log"
# compute-sanitizer (Firecracker machines only) on one warp-specialized, pipelined GEMM:
# memory errors, shared-memory races and barrier misuse, at the corpus shape.
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    { echo "== compute-sanitizer $tool"
      timeout "${SANITIZER_TIMEOUT:-30}" compute-sanitizer --tool "$tool" --print-limit 10 \
        python3 benchmarks/bench_gpu.py --prebuilt .gpu --only "${SANITIZE:-gemm_f16}" --repeat 1
      echo "exit $? at ${SECONDS}s"; } >>"$OUT/tools.log" 2>&1
  done
fi
# ncu (hardware counters: Firecracker machines only) on one launch of two GEMMs at
# 4096^3, tileir's cubin and tileiras's: throughput, occupancy, warp stalls.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  for k in ${NCU_KERNELS:-gemm_bf16_two_warpgroups gemm_bf16_big_tile}; do
    for w in tileir tileiras; do
      { echo "== ncu $k $w"
        timeout "${NCU_TIMEOUT:-60}" "$NCU" --clock-control none -c 1 --section SpeedOfLight \
          --section WarpStateStats --section SchedulerStats --section Occupancy \
          --section LaunchStats --section MemoryWorkloadAnalysis \
          python3 benchmarks/gpu_launch_one.py .gpu "$k" "$w" --large
        echo "exit $? at ${SECONDS}s"; } >>"$OUT/tools.log" 2>&1
    done
  done
fi
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|Duration|Compute \(SM\) Throughput|DRAM Throughput|No Eligible" \
  "$OUT/tools.log"
