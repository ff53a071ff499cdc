"""The keys of ``hp.config`` (:mod:`hpgraph._config`): name, default, check, documentation.

Each key has a check that returns the normalised value or raises
:class:`~hpgraph.exceptions.InvalidValue` naming the key, what it expects and what it got, and
a parser for its ``HPGRAPH_<KEY>`` environment variable.  Keys are grouped by the prefix of the
part of hpgraph that reads them (``engine_``, ``bfs_``, ``sssp_``, ``spmv_``, ``mxm_``,
``iterate_``, ``build_``, ``distributed_``); every reader looks its key up at call time, so
``with hp.config.set(...)`` applies to the calls inside the block.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import dataclass
from typing import Any, Callable

from .exceptions import InvalidValue

__all__ = ["KEYS"]


@dataclass(frozen=True)
class _Key:
    name: str
    default: Any
    check: Callable[[Any], Any]     # returns the normalised value or raises InvalidValue
    doc: str
    parse: Callable[[str], Any] = str


def _choice(name, choices):
    def check(v):
        if v not in choices:
            raise InvalidValue(f"hp.config[{name!r}] must be one of {choices}, got {v!r}")
        return v
    return check


def _int_or_none(name, lo):
    def check(v):
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidValue(f"hp.config[{name!r}] must be None or an int >= {lo}, got {v!r}")
        return int(v)
    return check


def _int(name, lo):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidValue(f"hp.config[{name!r}] must be an int >= {lo}, got {v!r}")
        return int(v)
    return check


def _positive(name):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 \
                or v == float("inf"):
            raise InvalidValue(f"hp.config[{name!r}] must be a finite number > 0, got {v!r}")
        return float(v)
    return check


def _positive_or_none(name):
    finite = _positive(name)

    def check(v):
        return None if v is None else finite(v)
    return check


def _bool(name):
    def check(v):
        if not isinstance(v, bool):
            raise InvalidValue(f"hp.config[{name!r}] must be True or False, got {v!r}")
        return v
    return check


def _path_or_none(name):
    def check(v):
        if v is None:
            return None
        if not isinstance(v, (str, os.PathLike)) or not str(v):
            raise InvalidValue(f"hp.config[{name!r}] must be None or a directory path, got {v!r}")
        return str(v)
    return check


def _number(name, lo=0.0, hi=math.inf, *, lo_open=False, none=False, inf=False):
    """A real number in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``), finite unless ``inf``,
    or None with ``none``; returned as a float."""
    left = "(" if lo_open else "["
    if hi < math.inf:
        what = f"a number in {left}{lo:g}, {hi:g}]"
    else:
        what = (f"a {'' if inf else 'finite '}number {'>' if lo_open else '>='} {lo:g}"
                + (" (or inf)" if inf else ""))
    what = ("None or " + what) if none else what

    def check(v):
        if v is None and none:
            return None
        ok = (not isinstance(v, bool) and isinstance(v, numbers.Real) and not math.isnan(v)
              and (v > lo if lo_open else v >= lo) and v <= hi and (inf or math.isfinite(v)))
        if not ok:
            raise InvalidValue(f"hp.config[{name!r}] must be {what}, got {v!r}")
        return float(v)
    return check


def _int_range(name, lo, hi):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not lo <= v <= hi:
            raise InvalidValue(f"hp.config[{name!r}] must be an int in [{lo}, {hi}], got {v!r}")
        return int(v)
    return check


def _launch_shape(name):
    """None, or ``(threads per block, blocks per SM)``: a multiple of 32 up to 1024, and >= 1."""
    def check(v):
        if v is None:
            return None
        ok = (isinstance(v, (tuple, list)) and len(v) == 2
              and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
              and 32 <= v[0] <= 1024 and v[0] % 32 == 0 and v[1] >= 1)
        if not ok:
            raise InvalidValue(f"hp.config[{name!r}] must be None or (threads per block, blocks "
                               f"per SM): a multiple of 32 in [32, 1024] and an int >= 1, "
                               f"got {v!r}")
        return (int(v[0]), int(v[1]))
    return check


#: the spmv ``format=`` strings (hpgraph.spmv's FORMATS, the ``:<n>`` forms and ``+relabel``;
#: tests/test_config.py checks that the two lists agree)
SPMV_FORMAT = re.compile(r"(auto|hyb|ell|coo|csr|csc|csr_scalar|csr_vector(:[0-9]+)?"
                         r"|csr_lb(:[0-9]+)?|csr_mp(:[0-9]+)?)(\+relabel)?")


def _spmv_format(name):
    def check(v):
        if v is None:
            return None
        if not isinstance(v, str) or SPMV_FORMAT.fullmatch(v.strip().lower()) is None:
            raise InvalidValue(f"hp.config[{name!r}] must be None or an spmv format string "
                               f"(hpgraph.spmv FORMATS, 'csr_vector:<G>', ...), got {v!r}")
        return v.strip().lower()
    return check


def _parse_bool(s):
    return s.strip().lower() in ("1", "true", "yes", "on")


def _parse_opt_int(s):
    return None if s.strip().lower() in ("", "none") else int(s)


def _parse_opt_float(s):
    return None if s.strip().lower() in ("", "none") else float(s)


def _parse_opt_str(s):
    return None if s.strip().lower() in ("", "none") else s


def _parse_shape(s):
    """``"256x2"`` or ``"256,2"`` -> ``(256, 2)``; ``""`` / ``"none"`` -> None."""
    if s.strip().lower() in ("", "none"):
        return None
    return tuple(int(x) for x in re.split(r"[x,]", s.strip().lower()))


_ENGINE = (
    _Key("engine_loop", "auto", _choice("engine_loop", ("auto", "device", "host")),
         "GPU superstep loop of hp.run: 'device' runs every superstep inside one cooperative "
         "kernel launch (grid barriers between phases, the host reads the state once at the "
         "end; programs with a converged() hook cannot); 'host' launches a fixed kernel "
         "sequence per superstep, replayed blind in CUDA-graph batches with one host read per "
         "batch; 'auto' takes the host loop: it needs no extra module on a program's first use, "
         "and measured as fast or faster for every program tried except the fused ones on "
         "long thin graphs (2048 x 2048 grid on an H100: BFS with parents 28.3 against 32.8 "
         "ms, SSSP with a priority 37.5 against 55.5; benchmarks/README.md, session 26).  "
         "Where the device refuses a cooperative "
         "launch the device loop falls back to the host loop (RunResult.extra['loop'])."),
    _Key("engine_loop_wait", False, _bool("engine_loop_wait"),
         "A run asking for the device loop whose loop module is not compiled yet (a program "
         "new to the kernel cache; hp.bfs and hp.sssp ask for it on sparse graphs): False "
         "runs that call on the host loop while the module compiles in the background "
         "(RunResult.extra['loop_fallback'] says so; later calls take the device loop once it "
         "is ready; a failed compile warns and leaves that program on the host loop), True "
         "waits for the compile (a failed one raises CompileError).  The loop module is a "
         "program's largest: "
         "NVRTC took 350-550 ms for it against 70-250 ms for each host-loop module (2-core "
         "host, sm_90).", _parse_bool),
    _Key("engine_loop_blocks_per_sm", 0, _int("engine_loop_blocks_per_sm", 0),
         "Blocks per SM of the device loop's cooperative grid (capped by occupancy): more "
         "blocks hide latency in heavy supersteps, fewer make each grid barrier cheaper.  0: "
         "by the graph's mean degree, 1 at or below 8 (long thin graphs: many cheap "
         "supersteps), 4 above.", int),
    _Key("engine_relax", True, _bool("engine_relax"),
         "GPU engine: a program that relaxes a property (reduce min / max, update P = "
         "min(P, y), a gather non-decreasing in the sender's P that reads nothing of the "
         "receiver: SSSP, BFS depths, widest paths; hpgraph.engine.relax) runs each push "
         "superstep as one kernel combining messages straight into P by atomics.  P is the CPU engine's (integer "
         "gathers must not wrap around); a witness may name another of several senders "
         "offering the best value; the supersteps and frontiers can differ (a sender lowered "
         "during a superstep sends its new value at once).  False: every superstep as the "
         "CPU engine's.", _parse_bool),
    _Key("engine_small_frontier", 256, _int("engine_small_frontier", 0),
         "GPU host loop of hp.run: supersteps whose frontier has at most this many push edges "
         "run in the block loop (one thread block, __syncthreads between phases, up to 1024 "
         "supersteps per launch) when the program pushes and applies to the receivers without "
         "a priority: long thin graphs (grids, roads) spend most supersteps there.  0: never.",
         int),
    _Key("max_supersteps", None, _int_or_none("max_supersteps", 1),
         "Safety cap on supersteps of hp.run for programs without max_iterations: reaching it "
         "raises SuperstepLimitExceeded instead of looping forever.  None: 10 * n + 1000.",
         _parse_opt_int),
    _Key("push_alpha", None, _positive_or_none("push_alpha"),
         "Direction rule of hp.run: push while frontier_edges * push_alpha < pull_edges + n "
         "(the relative cost of an atomic push edge against a streamed pull edge).  None: by "
         "backend and program -- 4 on the CPU and, on the GPU, where a pull can skip work (an "
         "'any' reduce stops at the first active sender, a mask skips receivers); 1 for "
         "other programs on the GPU, whose pulls read every stored entry (measured on an "
         "H100: benchmarks/README.md, session 15).", _parse_opt_float),
    _Key("dump_source", None, _path_or_none("dump_source"),
         "A directory: every generated CUDA module is saved there as <hash>.cu when it is "
         "compiled (CuPy's CUPY_CACHE_SAVE_CUDA_SOURCE for hpgraph's own kernels); None: not "
         "saved.", _parse_opt_str),
    _Key("triangle_kernel", "auto", _choice("triangle_kernel", ("auto", "hash", "merge")),
         "GPU method of triangle_count/triangles: 'hash' puts each vertex's out-list in a "
         "shared-memory hash table (a warp or a block per vertex) and looks up the wedges "
         "through it; 'merge' intersects the two sorted out-lists of every edge, a thread (or "
         "a warp for long lists) per edge; 'auto' takes 'hash' where the degree-oriented graph "
         "has at least triangle_auto_wedges wedges per edge, else 'merge'.  Both count on the "
         "degree-oriented graph; the benchmark (benchmarks/bench_triangles.py) compares them."),
    _Key("triangle_auto_wedges", 12.0, _number("triangle_auto_wedges"),
         "triangle_kernel='auto': the wedges per edge (sum over vertices of C(out-degree, 2) "
         "in the degree orientation, over its edges) from which the hash kernels count; below "
         "it the merge kernel does.  One H200, hash / merge time: road networks, grids, "
         "meshes and sparse uniform graphs (0.1-8 wedges per edge) 1.1-9.8, Slashdot and "
         "ca-AstroPh (9.7-9.9) 1.13-1.33, R-MAT with 2 edges per vertex (13.8) 0.44, "
         "ego-Twitter (15.6) 0.81, R-MAT 21 (94) 0.20 (benchmarks/README.md, session 31).",
         float),
    _Key("ktruss_method", "auto", _choice("ktruss_method", ("auto", "mxm", "wedges")),
         "How k_truss counts the triangles through each edge every peeling round: 'mxm' the "
         "masked product mxm(C, C, plus_pair, mask=C.S) of the graphblas operations; "
         "'wedges' the oriented 2-paths looked up in the sorted edge keys (array passes); "
         "'auto' mxm on the GPU, wedges on the host (the faster of the two on each: "
         "benchmarks/README.md, session 23)."),
    _Key("kernel_cache", None, _path_or_none("kernel_cache"),
         "Directory of hpgraph's compiled-kernel cache (cubins keyed by source, options, GPU "
         "architecture and NVRTC version): a program compiled once loads from there "
         "in a new process without calling NVRTC.  None: $XDG_CACHE_HOME/hpgraph/kernels "
         "(~/.cache/hpgraph/kernels).", _parse_opt_str),
    _Key("precompile", True, _bool("precompile"),
         "hpgraph's command line (its commands that load a graph on a GPU) files the "
         "shipped, compiled kernels of its fixed set (about 110 CuPy kernels and the "
         "drop-ins' engine modules) in CuPy's and hpgraph's kernel caches the first time it "
         "runs on a machine (hpgraph.precompile; a marker in CuPy's cache directory records "
         "it): a first demo otherwise compiles them one after another.  False: every kernel "
         "compiles on its first use.", _parse_bool),
    _Key("trace", False, _bool("trace"),
         "Log every hp.run's supersteps (direction, frontier size and representation, "
         "frontier edges; on the GPU each superstep's time by CUDA events, the host loop then "
         "running one superstep at a time) to the 'hpgraph.engine' logger at INFO level.",
         _parse_bool),
)

_ALGORITHMS = (
    _Key("bfs_alpha", 15.0, _number("bfs_alpha", lo_open=True),
         "Direction-optimizing BFS (hp.bfs, direction='auto', CPU level loop and GPU kernel): "
         "go bottom-up when the frontier's out-edges exceed the unvisited vertices' in-edges / "
         "bfs_alpha (Beamer et al.: 14-15).", float),
    _Key("bfs_beta", 18.0, _number("bfs_beta", lo_open=True),
         "Direction-optimizing BFS: go back top-down when the frontier has fewer than "
         "n / bfs_beta vertices and shrinks (Beamer et al.: 18-24).", float),
    _Key("bfs_gpu_path", "auto", _choice("bfs_gpu_path", ("auto", "kernel", "engine")),
         "How hp.bfs runs on the GPU: 'kernel', the whole traversal in one cooperative launch "
         "(falling back to the engine where the device refuses it); 'engine', the BFS vertex "
         "program through hp.run on the engine's device loop; 'auto': the kernel above "
         "bfs_gpu_kernel_degree mean out-degree, the engine at or below it (H100: the 2048 x "
         "2048 grid 31 ms by the kernel, 29 by the engine; R-MAT 21 0.38 against 0.9)."),
    _Key("bfs_gpu_kernel_degree", 8.0, _number("bfs_gpu_kernel_degree"),
         "Mean out-degree (stored entries per vertex) above which bfs_gpu_path='auto' takes "
         "the single-launch kernel.", float),
    _Key("bfs_engine_push_alpha", 4.0, _number("bfs_engine_push_alpha", lo_open=True),
         "push_alpha of hp.run for BFS's vertex program (hp.bfs on the engine): a masked "
         "'any' pull superstep costs far less than the pull_edges + n the generic rule "
         "assumes.", float),
    _Key("bfs_pull_format", "csr_vector:4", _spmv_format("bfs_pull_format"),
         "GPU SpMV format of the level loop's bottom-up step: the vector CSR kernel skips "
         "masked (visited) rows without reading them and stops each lane at its first hit; "
         "the load-balanced kernel that auto picks on skewed graphs cannot stop early.  None: "
         "auto.", _parse_opt_str),
    _Key("bfs_gpu_sparse_degree", 8.0, _number("bfs_gpu_sparse_degree"),
         "Mean out-degree up to which the cooperative BFS kernel (and the SSSP kernel) takes "
         "the narrow launch, 256 threads x 1 block per SM, instead of 1024 x 1: sparse graphs "
         "tend to be long and thin, and every thread pays each level's fixed cost (H200, "
         "benchmarks/bench_bfs.py).", float),
    _Key("bfs_gpu_shape", None, _launch_shape("bfs_gpu_shape"),
         "(threads per block, blocks per SM) of the cooperative BFS kernel for every graph "
         "(blocks capped by occupancy); None: by bfs_gpu_sparse_degree.  Environment: "
         "'256x2'.", _parse_shape),
    _Key("bfs_gpu_profile", False, _bool("bfs_gpu_profile"),
         "The cooperative BFS kernel records a timeline (setup, then per level: start time, "
         "frontier size, out-edges, direction; the first 64 levels), read by its plan's "
         "profile().", _parse_bool),
    _Key("sssp_gpu_nearfar", "auto", _choice("sssp_gpu_nearfar", ("auto", "kernel", "engine")),
         "GPU near-far SSSP: 'kernel' (one cooperative launch), 'engine' (the engine's "
         "Bellman-Ford program ordered by distance, priority='dist', on its device loop) or "
         "'auto': the kernel above sssp_gpu_kernel_degree mean out-degree, the engine at or "
         "below it."),
    _Key("sssp_gpu_kernel_degree", 8.0, _number("sssp_gpu_kernel_degree"),
         "Mean out-degree (stored entries per vertex) above which sssp_gpu_nearfar='auto' "
         "takes the single-launch kernel.", float),
    _Key("sssp_gpu_shape", None, _launch_shape("sssp_gpu_shape"),
         "(threads per block, blocks per SM) of the cooperative SSSP kernel for every graph; "
         "None: 256 x 4, or BFS's narrow launch at or below bfs_gpu_sparse_degree.  "
         "Environment: '512x2'.", _parse_shape),
    _Key("sssp_gpu_profile", False, _bool("sssp_gpu_profile"),
         "The cooperative SSSP kernel records a timeline (per step: start time, queue size, "
         "pending count, kind; the first 64 steps), read by its plan's profile().",
         _parse_bool),
    _Key("sssp_delta_factor", 128.0, _number("sssp_delta_factor", lo_open=True),
         "Near-far bucket width: delta = sssp_delta_factor * mean weight / mean out-degree "
         "(Davidson et al. use 32; wider buckets mean fewer far-pile splits and steps: H200, "
         "grid 2048^2 weights 1..64, factor 32 / 64 / 128 / 256 / 512: 47.1 / 39.3 / 35.7 / "
         "34.8 / 37.3 ms).", float),
    _Key("sssp_bf_push_alpha", None, _number("sssp_bf_push_alpha", lo_open=True, none=True),
         "push_alpha of hp.run for the Bellman-Ford vertex program of hp.sssp (negative "
         "weights, method='bellman-ford'); None: push_alpha's.  Results only depend on it "
         "through speed (benchmarks/bench_sssp.py --alpha).", _parse_opt_float),
    _Key("triangle_merge_heavy", 2048, _int("triangle_merge_heavy", 0),
         "triangle_kernel='merge': edges whose two out-lists hold more than this many entries "
         "together are intersected by a whole warp instead of one thread (R-MAT 21, H200: "
         "256 -> 59.6 ms, 512 -> 60.7, 2048 -> 45.3 ms, flat above).", int),
    _Key("triangle_hash_split", 2048, _int("triangle_hash_split", 1),
         "The hash triangle kernels (triangle_kernel 'hash', or 'auto' taking them): a "
         "vertex's in-edges are split into tasks of at most this many, so that a hub is spread "
         "over several blocks (each hashing its out-list again).", int),
    _Key("triangle_hash_block_work", 4096, _int("triangle_hash_block_work", 0),
         "The hash triangle kernels: tasks costing more than this go to the block kernel even "
         "with a short out-list (cost: look-ups + triangle_hash_edge_cost per in-edge).", int),
    _Key("triangle_hash_edge_cost", 8, _int("triangle_hash_edge_cost", 0),
         "What one in-edge of a hash task costs besides its look-ups, in look-ups (three "
         "dependent loads and a share of the chunk's prefix sum).", int),
    _Key("betweenness_cpu_batch_entries", 1 << 23, _int("betweenness_cpu_batch_entries", 1),
         "Exact betweenness centrality on the CPU: sources run in batches of b with n x b "
         "blocks of at most this many entries (about five live at once).", int),
    _Key("betweenness_gpu_batch_entries", 1 << 27, _int("betweenness_gpu_batch_entries", 1),
         "The same on the GPU (64 sources of R-MAT 21, 2M vertices, in one batch).", int),
    _Key("apsp_max_vertices", 20_000, _int("apsp_max_vertices", 0),
         "all_pairs_shortest_path_length builds a dense n x n matrix: graphs with more "
         "vertices than this are refused (InvalidValue) rather than exhausting memory.", int),
    _Key("kcore_blocks_per_sm", 2, _int_range("kcore_blocks_per_sm", 1, 64),
         "Blocks per SM of k_core's device rounds (the selection pass over every remaining "
         "vertex and the push): the last push block closes each round, so fewer blocks make "
         "the many small rounds of a deep core cheaper.", int),
    _Key("labelprop_hub_split_per_sm", 2, _int("labelprop_hub_split_per_sm", 0),
         "GPU label_propagation: a colour class with more hubs (vertices of more than 1,024 "
         "neighbours) than this many per SM gives each hub one block; a class with fewer "
         "spreads each hub's counting over many blocks (512-entry chunks), so that one hub is "
         "not its class's critical path.", int),
    _Key("iterate_stall_contracting", 100, _int("iterate_stall_contracting", 1),
         "Iterations without a new smallest L1 change after which a contracting iteration "
         "(PageRank with damping < 1) is at its rounding floor and stops "
         "(ConvergenceError when above tol).", int),
    _Key("iterate_stall_general", 1000, _int("iterate_stall_general", 1),
         "The same window for iterations that need not shrink the change at every step "
         "(eigenvector, Katz, HITS, PageRank with damping == 1); such a window must also cut "
         "the smallest change by iterate_stall_shrink.", int),
    _Key("iterate_stall_shrink", 0.5, _number("iterate_stall_shrink", 0.0, 1.0, lo_open=True),
         "Factor by which each iterate_stall_general window must cut the smallest L1 change "
         "(else the iteration stalled).", float),
)

_KERNELS = (
    _Key("engine_mixed_batch", 8, _int_range("engine_mixed_batch", 1, 1024),
         "GPU host loop of hp.run: supersteps of a mixed batch (push or pull chosen on the "
         "device per superstep) launched before the host looks again (fewer where the last "
         "complete run of the program on the graph ended sooner).", int),
    _Key("engine_graph_min", 16, _int("engine_graph_min", 2),
         "GPU host loop of hp.run: blind batches at least this long are replayed as CUDA "
         "graphs (captured once per run state); on a reused state every batch of two or more "
         "supersteps is.", int),
    _Key("engine_track_edges", None, _int_or_none("engine_track_edges", 0),
         "GPU engine, programs with apply_to='received': a push superstep whose frontier has "
         "more push edges than this records no receivers (no touched queue); its APPLY scans "
         "every vertex for received values instead (on R-MAT 21 that took a push of 60 M "
         "edges from 1.69 to 0.79 ms); a relaxing program's push of such a frontier loads "
         "each receiver's value before its atomic and skips messages that improve nothing "
         "(hpgraph.engine.relax).  None: n // 2.",
         _parse_opt_int),
    _Key("engine_block_loop_steps", 1024, _int_range("engine_block_loop_steps", 1, 8192),
         "Most supersteps of one block-loop launch (engine_small_frontier).", int),
    _Key("spmv_auto_csr", "csr_lb", _choice("spmv_auto_csr", ("csr_lb", "csr_mp")),
         "GPU CSR kernel that format='csr' and the automatic choice (skewed graphs) run: "
         "'csr_lb' (load-balanced warp chunks) or 'csr_mp' (merge path); products whose edge "
         "value needs the row run csr_lb either way."),
    _Key("spmv_hyb_max_coo_share", 0.10, _number("spmv_hyb_max_coo_share", 0.0, 1.0),
         "The automatic GPU SpMV format is HYB when at most this share of the entries spills "
         "to its COO part and the ELL block is at least spmv_hyb_min_fill full (regular "
         "graphs: grids, meshes); else spmv_auto_csr.", float),
    _Key("spmv_hyb_min_fill", 0.50, _number("spmv_hyb_min_fill", 0.0, 1.0),
         "Least fill of the ELL block (stored entries over rows x K) for the automatic GPU "
         "SpMV format to be HYB (with spmv_hyb_max_coo_share).", float),
    _Key("spmv_auto_relabel", True, _bool("spmv_auto_relabel"),
         "An automatic GPU SpMV format relabels the columns of CSR products of at least "
         "spmv_relabel_min_nnz entries (H200, R-MAT 22: csr_lb 1.017 -> 0.817 ms); "
         "format='<csr kernel>+relabel' asks for it whatever this says.", _parse_bool),
    _Key("spmv_relabel_min_nnz", 1 << 22, _int("spmv_relabel_min_nnz", 0),
         "Fewest stored entries of a product that spmv_auto_relabel relabels.", int),
    _Key("spmv_relabel_memory_share", 0.5, _number("spmv_relabel_memory_share", 0.0, 1.0),
         "spmv_auto_relabel relabels only when the relabeling (one more column-index array) "
         "takes at most this share of the device memory still available (free plus the "
         "pool's cached blocks).", float),
    _Key("spmv_cpu_parallel_min_nnz", 1 << 18, _int("spmv_cpu_parallel_min_nnz", 0),
         "CPU SpMV: products with fewer stored entries run in one thread.", int),
    _Key("mxm_prefer_cusparse", False, _bool("mxm_prefer_cusparse"),
         "mxm(method='auto') on the GPU runs cuSPARSE for unmasked plus_times on floats "
         "(each entry summed in a fixed order; the bitmap SpGEMM's atomic float adds may differ "
         "in the last bits between runs) instead of the bitmap SpGEMM (H100, R-MAT 15: "
         "bitmap 15.5 ms and 1.4 GB peak, cuSPARSE 55.9 ms and 15.0 GB).", _parse_bool),
    _Key("mxm_cusparse_max_flops", 1 << 30, _int("mxm_cusparse_max_flops", 0),
         "mxm_prefer_cusparse skips cuSPARSE for products of more multiply-adds than this "
         "(cupyx's SpGEMM fails on R-MAT 16, 1.24 G).", int),
    _Key("mxm_dot_heavy_cost", 2048, _int("mxm_dot_heavy_cost", 0),
         "Masked-dot mxm on the GPU: mask entries whose intersection costs more than this "
         "many steps are left to a block each instead of a thread, or to the hash kernels "
         "when those apply (see mxm_dot_kernel).", int),
    _Key("mxm_dot_kernel", "auto", _choice("mxm_dot_kernel", ("auto", "hash", "merge")),
         "Masked-dot mxm on the GPU, for add monoids whose result does not depend on the "
         "order of the terms (plus / times on integers, min / max): 'auto' sends a mask "
         "entry to the shared-memory hash kernels (of its row of A and column of B, the one "
         "with more entries within the other's key range hashed) when that one has at least "
         "128 there and "
         "the intersection would cost more than mxm_dot_heavy_cost steps or at least 3 per "
         "element of the shorter list (lengths estimated within the two lists' common key "
         "range: graphblas/_mdot_hash.py); "
         "'hash' every entry, 'merge' none (all stay on the sorted-list intersection, as "
         "other monoids do).",
         str),
    _Key("mxm_hash_split", 512, _int("mxm_hash_split", 1),
         "Masked-dot mxm, hash kernels: the mask entries of a hashed column of B (or row of A) "
         "are split into tasks of at most this many (each task hashes the list again).", int),
    _Key("mxm_hash_block_work", 8192, _int("mxm_hash_block_work", 0),
         "Masked-dot mxm, hash kernels: tasks with more look-ups than this (or a hashed list "
         "longer than 64 entries) go to a block instead of a warp.", int),
    _Key("io_direct_min_bytes", 1 << 20, _int("io_direct_min_bytes", 0),
         "hp.read: Matrix Market and edge-list files of at least this many bytes are parsed "
         "directly by pyarrow (where installed); smaller ones by the readers' own path "
         "(pyarrow's set-up costs more there).", int),
    _Key("io_arrow_min_bytes", 1 << 16, _int("io_arrow_min_bytes", 0),
         "hp.read / hp.write: text bodies of at least this many bytes are parsed (and integer "
         "columns of at least a quarter as many values written) by pyarrow; smaller ones by "
         "numpy.loadtxt / the plain writer.", int),
    _Key("force_int64", False, _bool("force_int64"),
         "Graph builds store int64 indices even where int32 fits (testing the int64 paths).",
         lambda s: s.strip() not in ("", "0")),
    _Key("build_trim_waste", 1 / 16, _number("build_trim_waste", 0.0, 1.0),
         "A graph build copies its column and value arrays to their final size when more "
         "than this share of the counted buffer was duplicates (else it keeps the buffer "
         "and its slack).", float),
    _Key("distributed_bfs_push_alpha", 14.0,
         _number("distributed_bfs_push_alpha", inf=True),
         "hpgraph.distributed.bfs on undirected graphs: a level pushes while the frontier's "
         "edges times this are fewer than the unvisited vertices' edges (0: push whenever "
         "possible, inf: always pull).", float),
    _Key("distributed_comm_timeout", 120.0, _number("distributed_comm_timeout", lo_open=True),
         "Seconds a distributed collective waits for a peer before declaring it lost.",
         float),
)

KEYS = {k.name: k for k in _ENGINE + _ALGORITHMS + _KERNELS}
