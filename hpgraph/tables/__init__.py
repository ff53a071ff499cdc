"""Edge tables in and out: pandas, Arrow, Parquet and CSV (through pyarrow), with vertex labels.

Users hold edges as table rows whose endpoints are strings or sparse integers.  ``from_pandas``
and ``from_arrow`` renumber those ids to ``0..n-1`` (vectorised: ``pandas.factorize`` or Arrow
dictionary encoding, sorted labels; see :mod:`hpgraph.labels`) and keep the mapping on the graph
as ``G.node_labels``, a :class:`~hpgraph.labels.VertexLabels`; ``result_frame(G, name=result)``
gives any per-vertex result keyed by the original ids, as cuGraph does.

pandas and pyarrow are optional (``pip install hpgraph[tables]``): they are imported on first
use, never by ``import hpgraph``.  Files are written atomically: to a temporary file in the same
folder, then renamed, so an interrupted write never leaves a half file under the final name.
"""

from ._files import read_csv, read_parquet, write_csv, write_parquet
from ._frames import from_arrow, from_pandas, result_frame, to_arrow, to_pandas

__all__ = ["from_pandas", "from_arrow", "to_pandas", "to_arrow", "read_parquet", "write_parquet",
           "read_csv", "write_csv", "result_frame"]
