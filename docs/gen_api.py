"""Write docs/api.md, the API reference, from the docstrings of hpgraph's public names.

Run from the repository root: ``PYTHONPATH=$PWD python3 docs/gen_api.py``.  Each public name of
``hpgraph.__all__`` gets its signature and the first paragraph of its docstring; each public
module also lists its own public functions and classes (its ``__all__``).  The docstrings are the
reference: edit them, then run this again.  tests/test_package.py checks that every public name
has a section here.
"""

from __future__ import annotations

import inspect
import pathlib
import sys
import types

GROUPS = [
    ("Graphs", ["Graph", "VertexLabels"]),
    ("Tables, files and exchange", ["read", "write", "from_pandas", "from_arrow", "read_parquet", "write_parquet",
                                    "result_frame", "from_dlpack", "from_edge_index", "to_edge_index"]),
    ("Algorithms", ["bfs", "sssp", "pagerank", "hits", "triangle_count", "triangles", "connected_components",
                    "k_core", "widest_path", "betweenness_centrality", "label_propagation"]),
    ("Semirings and sparse products", ["mxv", "vxm", "BinaryOp", "Monoid", "Semiring", "binary", "monoid",
                                       "semiring"]),
    ("Vertex programs", ["VertexProgram", "run"]),
    ("Generators", ["rmat", "grid_2d", "erdos_renyi"]),
    ("Sparse formats", ["COO", "CSR", "CSC", "ELL", "HYB", "Bitmask"]),
    ("Backend", ["has_gpu"]),
]


def first_paragraph(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    para = doc.strip().split("\n\n")[0]
    return " ".join(line.strip() for line in para.splitlines())


def signature(name, obj) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return name
    return f"{name}{sig}"


def entry(qualname, obj, level="###") -> list[str]:
    if isinstance(obj, types.ModuleType):
        return [f"{level} `{qualname}`", "", first_paragraph(obj), ""]
    kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "object"
    out = [f"{level} `{qualname}`", "", f"```python\n{signature(qualname, obj)}\n```", ""]
    text = first_paragraph(obj)
    if text:
        out += [text, ""]
    if kind == "class":
        members = [(n, m) for n, m in vars(obj).items() if not n.startswith("_")]
        rows = []
        for n, m in members:
            if isinstance(m, property):
                text = first_paragraph(m)
                rows.append(f"- `{n}` (property)" + (f": {text}" if text else ""))
            elif isinstance(m, (classmethod, staticmethod)):
                rows.append(f"- `{signature(n, getattr(obj, n))}` ({type(m).__name__}): {first_paragraph(m.__func__)}")
            elif callable(m):
                sig = signature(n, m).replace("(self, ", "(").replace("(self)", "()")
                rows.append(f"- `{sig}`: {first_paragraph(m)}")
        if rows:
            out += rows + [""]
    return out


def config_table(config) -> list[str]:
    """The keys of ``hp.config``: name, default and what each does (``config.describe``)."""
    out = ["## Configuration keys", "",
           "`hp.config[key]`, `hp.config.set(key=value)` (validated: a wrong type or value raises "
           "`InvalidValue` naming the key), `with hp.config.set(...):` (restored at the block's end), "
           "`HPGRAPH_<KEY>` environment variables (read at import). Every key is read where it is "
           "used, when it is used.", "",
           "| key | default | what it does |", "|---|---|---|"]
    for key in config.keys():
        default = repr(config.default(key)).replace("|", "\\|")
        text = config.describe(key).replace("|", "\\|")
        out.append(f"| `{key}` | `{default}` | {text} |")
    return out + [""]


def main() -> str:
    import hpgraph as hp

    lines = ["# hpgraph API reference", "",
             "Generated from the docstrings by `docs/gen_api.py` (run it after changing a public "
             "docstring). `import hpgraph as hp`; every name below is `hp.<name>`. The full parameter "
             "lists are in the docstrings (`help(hp.bfs)`); the module contracts are in "
             "[INTERNALS.md](INTERNALS.md).", ""]
    done = set()
    for title, names in GROUPS:
        lines += [f"## {title}", ""]
        for name in names:
            lines += entry(name, getattr(hp, name))
            done.add(name)
    lines += config_table(hp.config)
    lines += ["## Modules", ""]
    for name in hp.__all__:
        obj = getattr(hp, name)
        if name in done or not isinstance(obj, types.ModuleType):
            continue
        lines += entry(name, obj)
        for sub in getattr(obj, "__all__", []):
            member = getattr(obj, sub, None)
            if member is not None and not isinstance(member, types.ModuleType) and callable(member):
                lines += entry(f"{name}.{sub}", member, level="####")
        done.add(name)
    missing = sorted(set(hp.__all__) - done)
    if missing:
        lines += ["## Other names", ""]
        for name in missing:
            lines += entry(name, getattr(hp, name))
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    text = main()
    out = pathlib.Path(__file__).with_name("api.md")
    out.write_text(text)
    print(f"wrote {out} ({len(text.splitlines())} lines)", file=sys.stderr)
