# Source this at the start of a device-tool command (run from the repo root):
#   source benchmarks/device_setup.sh
# Installs the carried wheels in .whl/ (python-graphblas and suitesparse-graphblas with cffi,
# pycparser and donfig; networkx 3.6.1, whose backend tests need that version) into /tmp/site,
# registers hpgraph's networkx backend there (networkx finds backends only through entry
# points, and the working tree is not installed), and puts the working tree on PYTHONPATH;
# the device has no network, so nothing else can be installed there.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || { echo "wheel install failed"; return 1 2>/dev/null || exit 1; }
mkdir -p /tmp/site/hpgraph-0.1.0.dist-info
printf 'Metadata-Version: 2.1\nName: hpgraph\nVersion: 0.1.0\n' > /tmp/site/hpgraph-0.1.0.dist-info/METADATA
printf '[networkx.backends]\nhpgraph = hpgraph.nx_backend.interface:backend_interface\n\n[networkx.backend_info]\nhpgraph = hpgraph.nx_backend._info:get_info\n' \
  > /tmp/site/hpgraph-0.1.0.dist-info/entry_points.txt
export PYTHONPATH="$PWD:/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
