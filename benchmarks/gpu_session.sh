#!/usr/bin/env bash
# One GPU session's ground truth in one command, on a lent GPU machine (docs/performance.md,
# "Running on a GPU").  Prepared here, beforehand:
#
#   python benchmarks/gpu_prepare.py .gpu      # tileir's and tileiras's cubins + manifest
#   pip download ... -d .whl xdsl immutabledict ordered-set cuda-tile   # for the GPU's Python
#
# then run there with `.gpu` and `.whl` carried.  Results go to $OUT (default /tmp/gpu-out):
# gpu.txt, bench_corpus.md (every corpus kernel: both compilers' cubins against the
# interpreter, and their times), bench_large.md (memory-bound kernels at hundreds of MB, the
# GEMMs at 4096^3 beside cuBLAS), pytest_gpu.log (tests/gpu: tileir compiled on the machine).
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
  echo "ptxas: $ptxas"; "$ptxas" --version | tail -1; python3 --version; cat .gpu/COMMIT 2>/dev/null; } 2>&1 | tee "$OUT/gpu.txt"
SECONDS=0
# A kernel that hangs (a deadlocked mbarrier wait) is killed by --watchdog and becomes a
# HANG row; the tables go on without it.
timeout "${CORPUS_TIMEOUT:-200}" python3 benchmarks/bench_gpu.py --prebuilt .gpu --check \
  --markdown --watchdog 30 >"$OUT/bench_corpus.md" 2>"$OUT/bench_corpus.err"
echo "corpus table: ${SECONDS}s"
timeout "${LARGE_TIMEOUT:-220}" python3 benchmarks/bench_gpu.py --prebuilt .gpu --check \
  --large --repeat 20 --markdown --watchdog 60 >"$OUT/bench_large.md" 2>"$OUT/bench_large.err"
echo "large table: ${SECONDS}s"
# Each test at most 60 s (pytest-timeout, in the machine's image): a kernel that hangs is
# a failure with its name, not the end of the run; the names of failures are listed (-rf)
# and kept in pytest.xml.
timeout "${PYTEST_TIMEOUT:-150}" python3 -m pytest -q -p no:cacheprovider -n 16 --timeout=60 \
  -rfs --junitxml="$OUT/pytest.xml" tests/gpu >"$OUT/pytest_gpu.log" 2>&1
echo "pytest: ${SECONDS}s (exit $?)"
tail -c 1500 "$OUT/bench_corpus.err"; tail -c 1500 "$OUT/bench_large.err"
cat "$OUT/bench_corpus.md" "$OUT/bench_large.md"; tail -n 25 "$OUT/pytest_gpu.log"
# compute-sanitizer (Firecracker machines only) on one warp-specialized, pipelined GEMM:
# memory errors, shared-memory races and barrier misuse, at the corpus shape.
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    timeout "${SANITIZER_TIMEOUT:-45}" compute-sanitizer --tool "$tool" --print-limit 10 \
      python3 benchmarks/bench_gpu.py --prebuilt .gpu --only "${SANITIZE:-gemm_f16}" --repeat 1 \
      >"$OUT/sanitizer_now.log" 2>&1
    echo "compute-sanitizer $tool: exit $? at ${SECONDS}s"; tail -n 4 "$OUT/sanitizer_now.log"
    { echo "== $tool"; cat "$OUT/sanitizer_now.log"; } >>"$OUT/sanitizer.log"
  done
  rm -f "$OUT/sanitizer_now.log"
fi
