#!/usr/bin/env bash
# One device-tool command for the end of a session (run from the repo root):
#   bash benchmarks/device_check.sh [benchmark command ...]
# Sets up the device (benchmarks/device_setup.sh: carried wheels into /tmp/site, the networkx
# backend's entry point, the working tree and /tmp/site on PYTHONPATH -- do not override
# PYTHONPATH afterwards: without /tmp/site the graphblas differential tests are not
# collected and the networkx backend tests fail with "'hpgraph' backend is not installed"),
# runs the whole GPU suite with room to finish (it needs 270-290 s on one H100), writes its
# log and pass line under $OUT, then runs the benchmark command given (if any).
# Exit status: the suite's, or the benchmark's if the suite passed.
source benchmarks/device_setup.sh || exit 1
out=${OUT:-/tmp}
export HPGRAPH_BENCH_COMMIT=${HPGRAPH_BENCH_COMMIT:-$(cat scratch/commit 2>/dev/null)}
timeout "${SUITE_TIMEOUT:-360}" python3 -m pytest -m gpu -q -n 16 -p no:cacheprovider \
    --ignore=tests/distributed tests > "$out/gpu_suite.txt" 2>&1
status=$?
[ $status -eq 124 ] && echo "GPU suite: stopped by its timeout (${SUITE_TIMEOUT:-360} s)" >> "$out/gpu_suite.txt"
tail -3 "$out/gpu_suite.txt"
grep -E "^FAILED|^ERROR" "$out/gpu_suite.txt" | head -20
if [ $# -gt 0 ]; then
    "$@"
    bench=$?
    [ $status -eq 0 ] && status=$bench
fi
exit $status
