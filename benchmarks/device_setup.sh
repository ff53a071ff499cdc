# Source this at the start of a device-tool command (run from the repo root):
#   source benchmarks/device_setup.sh
# Installs the carried wheels in .whl/ (python-graphblas, hypothesis, ...) into /tmp/site and puts
# the working tree on PYTHONPATH; the device has no network, so nothing else can be installed there.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || { echo "wheel install failed"; return 1 2>/dev/null || exit 1; }
export PYTHONPATH="$PWD:/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
