"""Sphinx configuration of hpgraph's documentation site.

Build from the repository root (``pip install -e ".[docs]"`` first)::

    python3 -m sphinx -W --keep-going -b html docs docs/_build/html

The user guide is Markdown (MyST) under ``docs/guide``; the API reference (``reference.rst``) is
written here at every build from ``hpgraph.__all__`` grouped as ``docs/gen_api.py`` groups it,
and autosummary / numpydoc render each public name from its docstring.
"""

from __future__ import annotations

import os
import pathlib
import sys
import types

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))
os.environ.setdefault("HPGRAPH_BACKEND", "cpu")  # the build never needs a GPU

import hpgraph as hp  # noqa: E402
from gen_api import GROUPS  # noqa: E402

project = "hpgraph"
author = "hpgraph developers"
copyright = "hpgraph developers, BSD-3-Clause"
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx.ext.extlinks",
]
# roles used by the SciPy docstrings that hpgraph.csgraph's wrappers carry
extlinks = {"doi": ("https://doi.org/%s", "doi:%s"), "arxiv": ("https://arxiv.org/abs/%s", "arXiv:%s")}
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "api.md", "INTERNALS.md", "ARCHITECTURE.md", "generated/*.md"]
templates_path = []
html_theme = "alabaster"
html_theme_options = {"description": "GraphBLAS-style graph analytics on NVIDIA GPUs"}
html_static_path = []

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]


def _reference() -> str:
    """The API reference page: one autosummary table per group, then each public module."""
    out = ["API reference", "=============", "",
           "Every name is ``hp.<name>`` after ``import hpgraph as hp``. Each page is generated from "
           "the docstring (NumPy style).", "", ".. currentmodule:: hpgraph", ""]
    done = set()
    seen = set()  # ids of the objects with a page already: a class re-exported twice gets one
    for title, names in GROUPS:
        out += [title, "-" * len(title), "", ".. autosummary::", "   :toctree: generated", ""]
        # a namespace module (hp.monoid is hpgraph.ops.monoid) is documented under its own name
        out += [f"   ~{obj.__name__[len('hpgraph.'):]}" if isinstance(obj, types.ModuleType) else f"   {name}"
                for name, obj in ((n, getattr(hp, n)) for n in names)]
        out.append("")
        done.update(names)
        seen.update(id(getattr(hp, n)) for n in names)
    rest = [n for n in hp.__all__ if n not in done and not isinstance(getattr(hp, n), types.ModuleType)]
    if rest:
        out += ["More algorithms and operations", "------------------------------", "",
                ".. autosummary::", "   :toctree: generated", ""]
        out += [f"   {name}" for name in rest] + [""]
        seen.update(id(getattr(hp, n)) for n in rest)
    out += ["Modules", "-------", ""]
    for name in hp.__all__:
        mod = getattr(hp, name)
        if not isinstance(mod, types.ModuleType) or name in done:
            continue
        members = [m for m in getattr(mod, "__all__", [])
                   if not isinstance(getattr(mod, m, None), (types.ModuleType, type(None)))
                   and callable(getattr(mod, m)) and id(getattr(mod, m)) not in seen]
        seen.update(id(getattr(mod, m)) for m in members)
        title = f"hpgraph.{name}"
        out += [title, "~" * len(title), "", f".. automodule:: hpgraph.{name}", "   :no-members:", ""]
        if members:
            out += [f".. currentmodule:: hpgraph.{name}", "", ".. autosummary::", "   :toctree: generated", ""]
            out += [f"   {m}" for m in members] + ["", ".. currentmodule:: hpgraph", ""]
    return "\n".join(out) + "\n"


_text = _reference()
_path = DOCS / "reference.rst"
if not _path.exists() or _path.read_text() != _text:
    _path.write_text(_text)


def _drop_cython_signature(app, what, name, obj, options, lines):
    """SciPy's compiled functions repeat their signature as the docstring's first lines (with a
    bare ``*``, which reST reads as emphasis); hpgraph.csgraph's wrappers copy those docstrings."""
    if not name.startswith("hpgraph.csgraph."):
        return
    short = name.rsplit(".", 1)[-1]
    for i, line in enumerate(lines):
        if line.strip().startswith(short + "("):
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            del lines[i:j]
            break


def setup(app):
    app.connect("autodoc-process-docstring", _drop_cython_signature)
