#!/usr/bin/env bash
# One GPU session's ground truth in one command, on a lent GPU machine (docs/performance.md,
# "Running on a GPU").  Prepared here, beforehand:
#
#   python benchmarks/gpu_prepare.py .gpu      # tileir's and tileiras's cubins + manifest
#   python benchmarks/gpu_prepare.py .gpu_tma --option tma_feeds=true   # optional: TMA feeds
#   git worktree add /tmp/base <commit>         # optional: an A/B against an earlier tree,
#   python /tmp/base/benchmarks/gpu_prepare.py $PWD/.gpu_base   # built by that tree
#   pip download ... -d .whl xdsl immutabledict ordered-set cuda-tile   # for the GPU's Python
#
# then run there with `.gpu` (and `.gpu_tma`, `.gpu_base`) and `.whl` carried.  Results go
# to $OUT (default /tmp/gpu-out), 8 files, as many as a device call brings back:
#   gpu.txt          the machine, the tools, the commits and options the cubins were built
#                    at, each step's end time, then the tables' progress lines
#   bench_corpus.md  every corpus kernel: both compilers' cubins against the interpreter,
#                    and their times
#   bench_large.md   memory-bound kernels at hundreds of MB, GEMMs at 4096^3 and 8192^3
#                    beside cuBLAS, attention at 2048 queries and keys
#   bench_tma.md     when `.gpu_tma` is there: the TMA-fed GEMMs at large shapes side by
#                    side with bench_large.md's cp.async rows and tileiras, then the TMA
#                    table itself (checked against numpy), the corpus kernels whose PTX
#                    the option changed (checked against the interpreter), and
#                    tests/gpu/test_tma_gpu.py (ragged shapes, pool slots reused over many
#                    launches and shared by concurrent streams).  docs/performance.md,
#                    "The TMA feeds' checklist", says what to read first
#   bench_base.md    the large GEMM and attention rows with `.gpu_base`'s cubins (an A/B
#                    on the same machine) side by side with bench_large.md's, when
#                    `.gpu_base` is there
#   pytest_gpu.log, pytest.xml   tests/gpu but test_tma_gpu.py (tileir compiled on the machine)
#   tools.log        compute-sanitizer on one pipelined GEMM, ncu on two GEMMs (Firecracker)
# Each step has its own time limit (the *_TIMEOUT variables), cut to what is left of
# SESSION_BUDGET (default 560 s, inside the device call's 600), so one that overruns costs
# only its own rows and the ones after it; a step with under 10 s left is skipped, saying so.
# Without a GPU (nvidia-smi fails) or without `.gpu/manifest.json` it stops at once.
set -u
SECONDS=0
OUT=${OUT:-/tmp/gpu-out}
BUDGET=${SESSION_BUDGET:-560}
mkdir -p "$OUT"
if ! nvidia-smi -L >"$OUT/gpu.txt" 2>&1; then
  echo "gpu_session.sh: no usable GPU here (nvidia-smi -L failed: $(head -c 300 "$OUT/gpu.txt"))" \
    | tee -a "$OUT/gpu.txt" >&2
  exit 2
fi
for d in .gpu .gpu_tma .gpu_base; do
  if [ "$d" = .gpu ] || [ -d "$d" ]; then
    if [ ! -f "$d/manifest.json" ]; then
      echo "gpu_session.sh: no $d/manifest.json in $PWD: build it first" \
        "(python benchmarks/gpu_prepare.py $d ...) and carry it" | tee -a "$OUT/gpu.txt" >&2
      exit 2
    fi
  fi
done
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
  for d in .gpu .gpu_tma .gpu_base; do
    [ -d "$d" ] && echo "$d: $(cat "$d/COMMIT" 2>/dev/null || echo 'no COMMIT')"
  done
} 2>&1 | tee -a "$OUT/gpu.txt"
WORK=$(mktemp -d)

# The seconds step $1 may take: its own limit, cut to what is left of the budget; 0 (and
# a line saying so) when under 10 s are left.
limit() {
  local left=$((BUDGET - SECONDS))
  if [ "$left" -lt 10 ]; then
    echo "skipped: $2 (the session's ${BUDGET} s are spent at ${SECONDS} s)" \
      | tee -a "$OUT/gpu.txt" >&2
    echo 0
    return
  fi
  echo $(($1 < left ? $1 : left))
}
note() { echo "$1: ${SECONDS}s" | tee -a "$OUT/gpu.txt"; }
bench() {  # bench SECONDS WHAT OUTFILE ARGS...: bench_gpu.py under its limit
  local t
  t=$(limit "$1" "$2")
  [ "$t" -gt 0 ] || return 0
  timeout "$t" python3 benchmarks/bench_gpu.py "${@:4}" >"$3" 2>>"$OUT/gpu.txt"
  note "$2 (exit $?)"
}
# A kernel that hangs (a deadlocked mbarrier wait) is killed by --watchdog and becomes a
# HANG row; the tables go on without it, and a table stopped by its time limit keeps the
# rows it measured.
bench "${CORPUS_TIMEOUT:-150}" "corpus table" "$OUT/bench_corpus.md" \
  --prebuilt .gpu --check --markdown --watchdog 30
bench "${LARGE_TIMEOUT:-240}" "large table" "$OUT/bench_large.md" \
  --prebuilt .gpu --check --large --repeat 20 --markdown --watchdog 60

# The TMA feeds (issue 15): first their GPU tests (ragged shapes against numpy, the pool's
# slots over many launches and concurrent streams; compiled on the machine, so they run
# without .gpu_tma too), then the GEMMs whose operands tileas-tma-feeds feeds at large
# shapes, and the corpus kernels whose PTX the option changes (identical PTX was checked
# above).
t=$(limit "${TMA_PYTEST_TIMEOUT:-100}" "TMA tests")
if [ "$t" -gt 0 ]; then
  timeout "$t" python3 -m pytest -q -p no:cacheprovider -n 8 --timeout=60 -rA \
    tests/gpu/test_tma_gpu.py >"$WORK/tma_pytest.log" 2>&1
  note "TMA tests (exit $?)"
fi
TMA_ROWS=(gemm_f16 gemm_f16_aligned_edges gemm_bf16_deep_k gemm_bf16_big_tile
  gemm_bf16_big_tile@8192 gemm_bf16_two_warpgroups gemm_bf16_two_warpgroups@8192
  gemm_f16_wide_acc batched_matmul_2d_f16 flash_attention_f16 flash_attention_causal_bf16
  attention_wide_kv_bf16)
if [ -d .gpu_tma ]; then
  bench "${TMA_LARGE_TIMEOUT:-120}" "TMA large table" "$WORK/tma_large.md" \
    --prebuilt .gpu_tma --check --large --repeat 20 --markdown --watchdog 60 \
    $(printf -- '--only %s ' "${TMA_ROWS[@]}")
  changed=()
  for ptx in .gpu_tma/*.tileir.ptx; do
    name=$(basename "$ptx" .tileir.ptx)
    cmp -s "$ptx" ".gpu/$name.tileir.ptx" || changed+=("$name")
  done
  if [ "${#changed[@]}" -gt 0 ]; then
    bench "${TMA_CORPUS_TIMEOUT:-60}" "TMA corpus table" "$WORK/tma_corpus.md" \
      --prebuilt .gpu_tma --check --markdown --watchdog 30 $(printf -- '--only %s ' "${changed[@]}")
  fi
fi
{ echo "# TMA feeds: $(cat .gpu_tma/COMMIT 2>/dev/null || echo 'no .gpu_tma carried')"
  echo
  if [ -f "$WORK/tma_large.md" ]; then
    echo "## Large shapes: cp.async (.gpu) against TMA (.gpu_tma), tileiras"
    echo
    python3 benchmarks/gpu_side_by_side.py "$OUT/bench_large.md" "$WORK/tma_large.md" \
      --labels cp.async TMA
    echo
    echo "## The TMA table"
    echo
    cat "$WORK/tma_large.md"
    echo
  fi
  if [ -f "$WORK/tma_corpus.md" ]; then
    echo "## Corpus shapes, the kernels whose PTX tma_feeds=true changes"
    echo
    cat "$WORK/tma_corpus.md"
    echo
  fi
  echo "## tests/gpu/test_tma_gpu.py"
  echo
  echo '```'
  tail -c 6000 "$WORK/tma_pytest.log" 2>/dev/null
  echo '```'
} >"$OUT/bench_tma.md"

AB=(gemm_f16 gemm_bf16_big_tile gemm_bf16_two_warpgroups gemm_bf16_two_warpgroups@8192
  gemm_f16_wide_acc flash_attention_f16 attention_occupancy_f16)
if [ -d .gpu_base ]; then
  bench "${BASE_TIMEOUT:-120}" "base table" "$WORK/base.md" \
    --prebuilt .gpu_base --large --repeat 20 --markdown --watchdog 60 \
    $(printf -- '--only %s ' "${AB[@]}")
  { python3 benchmarks/gpu_side_by_side.py "$OUT/bench_large.md" "$WORK/base.md" \
      --labels .gpu .gpu_base
    echo; cat "$WORK/base.md"; } >"$OUT/bench_base.md" 2>&1
fi
# Each test at most 60 s (pytest-timeout, in the machine's image): a kernel that hangs is
# a failure with its name, not the end of the run; the names of failures are listed (-rf)
# and kept in pytest.xml.
t=$(limit "${PYTEST_TIMEOUT:-150}" "pytest")
if [ "$t" -gt 0 ]; then
  timeout "$t" python3 -m pytest -q -p no:cacheprovider -n 16 --timeout=60 \
    -rfs --junitxml="$OUT/pytest.xml" --ignore=tests/gpu/test_tma_gpu.py tests/gpu \
    >"$OUT/pytest_gpu.log" 2>&1
  note "pytest (exit $?)"
fi
tail -c 1500 "$OUT/gpu.txt"
cat "$OUT/bench_corpus.md" "$OUT/bench_large.md" "$OUT/bench_base.md" "$OUT/bench_tma.md" \
  2>/dev/null
tail -n 25 "$OUT/pytest_gpu.log" 2>/dev/null
: >"$OUT/tools.log"
# compute-sanitizer (Firecracker machines only) on one warp-specialized, pipelined GEMM:
# memory errors, shared-memory races and barrier misuse, at the corpus shape.  Both tools
# take TOOL_CUBINS's cubins (default .gpu; TOOL_CUBINS=.gpu_tma for the TMA feeds).
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    t=$(limit "${SANITIZER_TIMEOUT:-30}" "compute-sanitizer $tool")
    [ "$t" -gt 0 ] || continue
    { echo "== compute-sanitizer $tool"
      timeout "$t" compute-sanitizer --tool "$tool" --print-limit 10 \
        python3 benchmarks/bench_gpu.py --prebuilt "${TOOL_CUBINS:-.gpu}" \
          --only "${SANITIZE:-gemm_f16}" --repeat 1
      echo "exit $? at ${SECONDS}s"; } >>"$OUT/tools.log" 2>&1
  done
fi
# ncu (hardware counters: Firecracker machines only) on one launch of two GEMMs at
# 4096^3, tileir's cubin and tileiras's: throughput, occupancy, warp stalls.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  for k in ${NCU_KERNELS:-gemm_bf16_two_warpgroups gemm_bf16_big_tile}; do
    for w in tileir tileiras; do
      t=$(limit "${NCU_TIMEOUT:-60}" "ncu $k $w")
      [ "$t" -gt 0 ] || continue
      { echo "== ncu $k $w"
        timeout "$t" "$NCU" --clock-control none -c 1 --section SpeedOfLight \
          --section WarpStateStats --section SchedulerStats --section Occupancy \
          --section LaunchStats --section MemoryWorkloadAnalysis \
          python3 benchmarks/gpu_launch_one.py "${TOOL_CUBINS:-.gpu}" "$k" "$w" --large
        echo "exit $? at ${SECONDS}s"; } >>"$OUT/tools.log" 2>&1
    done
  done
fi
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|Duration|Compute \(SM\) Throughput|DRAM Throughput|No Eligible" \
  "$OUT/tools.log"
rm -rf "$WORK"
