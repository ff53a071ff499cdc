"""Importing hpgraph is cheap: no cupy, no compilation; public names resolve lazily."""

import subprocess
import sys


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_import_loads_no_cupy_and_no_heavy_modules():
    out = _run("import sys, hpgraph\n"
               "heavy = [m for m in ('cupy', 'cupyx', 'networkx', 'graphblas', 'matplotlib', "
               "'hpgraph.spmv', 'hpgraph.engine', 'hpgraph.compiler') if m in sys.modules]\n"
               "print(heavy)")
    assert out.strip() == "[]"


def test_public_names_resolve():
    import hpgraph as hp

    for name in hp.__all__:
        assert getattr(hp, name) is not None, name
    assert callable(hp.bfs) and callable(hp.mxv) and isinstance(hp.Graph, type)
    assert "pagerank" in dir(hp)


def test_algorithms_alone_do_not_load_cupy_on_cpu():
    out = _run("import sys, numpy as np, hpgraph as hp\n"
               "G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend='cpu')\n"
               "hp.bfs(G, 0, backend='cpu'); hp.sssp(G, 0, backend='cpu')\n"
               "print('cupy' in sys.modules)")
    assert out.strip() == "False"


def test_stub_lists_exactly_the_public_names():
    """__init__.pyi (for editors and type checkers) names every lazily loaded public name."""
    import ast
    import pathlib

    import hpgraph as hp

    stub = pathlib.Path(hp.__file__).with_name("__init__.pyi")
    names = set()
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module != "typing":
            for alias in node.names:
                names.add(alias.asname or alias.name)
                target = f"hpgraph{'.' + node.module if node.module else ''}"
                mod, attr = hp._LAZY[alias.asname]
                assert (mod, attr) in ((target, alias.name), (f"{target}.{alias.name}", None)), alias.asname
    assert names == set(hp.__all__)


def test_package_data_ships_license_and_typing_marker():
    import pathlib

    import hpgraph as hp

    root = pathlib.Path(hp.__file__).parent
    assert (root / "py.typed").exists()
    license_text = (root.parent / "LICENSE").read_text()
    assert "BSD 3-Clause License" in license_text and "hpgraph developers" in license_text


def test_tables_import_lazily():
    out = _run("import sys, hpgraph as hp\n"
               "hp.tables, hp.labels, hp.exchange, hp.VertexLabels\n"
               "print([m for m in ('pandas', 'pyarrow', 'torch', 'cupy') if m in sys.modules])")
    assert out.strip() == "[]"


def test_readme_test_command_is_what_ci_runs():
    """The README's test command block appears, line for line, in .ci/run."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    block = re.search(r"exactly what CI runs.*?```bash\n(.*?)```", readme, re.S).group(1).strip().splitlines()
    ci = (root / ".ci" / "run").read_text().splitlines()
    assert len(block) == 2 and block[0].startswith("python3 -m pip install")
    for line in block:
        assert line in ci, line


def test_api_reference_has_every_public_name():
    """docs/api.md (written by docs/gen_api.py) has a section for each name of hpgraph.__all__."""
    import pathlib

    import hpgraph as hp

    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    missing = [n for n in hp.__all__ if f"### `{n}`" not in text]
    assert missing == [], f"run PYTHONPATH=$PWD python3 docs/gen_api.py; missing: {missing}"
