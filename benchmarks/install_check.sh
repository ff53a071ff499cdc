# The README's first command in a fresh virtual environment on the device, with no system CUDA on
# the path and no network: pip takes the wheels that `pip download "cupy-cuda12x[ctk]>=14" numpy
# scipy "setuptools>=77" pip` fetched here (PIP_NO_INDEX + PIP_FIND_LINKS; the files PyPI serves).
# They are 1.2 GB and one device call carries 64 MiB, so they travel as a tar split into 59 MiB
# parts (.inst/p00 .. p20, .inst/sha its sha256), one part a call, each moved to /tmp/chunks on the
# warm machine; the last call carries p20, this script and the checksum:  bash .inst/check.sh
set -o pipefail
L=$OUT/install.txt; exec > >(tee $L) 2>&1
t0=$(date +%s)
mv .inst/p20 /tmp/chunks/ && cat /tmp/chunks/p?? > /tmp/w.tar && rm -rf /tmp/chunks && echo "tar sha256 $(sha256sum < /tmp/w.tar | cut -d' ' -f1) expected $(cat .inst/sha)"
tar xf /tmp/w.tar -C /tmp && rm /tmp/w.tar && ls /tmp/w
PY=$(command -v python3); echo "base python: $PY $($PY -V)"; ls -d /usr/local/cuda* 2>/dev/null
export PATH=$(echo "$PATH" | tr : '\n' | grep -v -i -e cuda -e /opt/torch | paste -sd:)
export LD_LIBRARY_PATH=$(echo "${LD_LIBRARY_PATH:-}" | tr : '\n' | grep -v -i cuda | paste -sd:)
unset CUDA_PATH CUDA_HOME CUDA_ROOT CUPY_CUDA_PATH PYTHONPATH
echo "PATH=$PATH"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; command -v nvcc || echo "nvcc: not on PATH"
$PY -m venv /tmp/fresh || exit 3
source /tmp/fresh/bin/activate; echo "venv python: $(command -v python3)"; python3 -m pip list 2>/dev/null
export PIP_NO_INDEX=1 PIP_FIND_LINKS=/tmp/w PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
echo "=== python3 -m pip install -e \".[cuda12]\" && hpgraph demo"
t1=$(date +%s)
python3 -m pip install -e ".[cuda12]" && echo "install $(( $(date +%s) - t1 )) s" && t2=$(date +%s) && hpgraph demo; rc=$?
echo "=== rc=$rc demo $(( $(date +%s) - ${t2:-0} )) s"
python3 -m pip list 2>/dev/null | grep -i -E "cupy|nvidia|cuda|numpy|scipy|hpgraph"
python3 - <<'PY'
import cupy, hpgraph as hp
g = hp.generators.rmat(12, seed=3, backend="gpu")
d = hp.bfs(g, 0)
print("bfs on the GPU:", type(d.depth).__module__, int((d.depth >= 0).sum()), "reached")
print("cupy", cupy.__version__, cupy.__file__)
print("nvrtc version", cupy.cuda.nvrtc.getVersion(), "runtime", cupy.cuda.runtime.runtimeGetVersion())
print("device", cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
maps = open("/proc/self/maps").read().split("\n")
libs = sorted({l.split()[-1] for l in maps if "nvrtc" in l or "cudart" in l or "libcuda." in l})
print("loaded CUDA libraries:", *libs, sep="\n  ")
PY
echo "total $(( $(date +%s) - t0 )) s"
