"""Pure renderers: trace data or tensors in, SVG/DOT/HTML out (no Jupyter needed).

- ``storage_diagram(*tensors_or_step)``: storages as strips of cells, tensors over them
- ``version_timeline(trace)``: one lane per version counter, bumps, saves, checks
- ``graph(tensor_or_error)``: the backward graph (Graphviz), errors highlighted
- ``memory_timeline(trace_or_traces)``: live bytes per device, peak marked
- ``explain(error_or_trace)``: one HTML panel with the pictures and the words
- ``report(trace, path)``: a self-contained HTML page with all of the above

Pictures (``Picture``) show themselves in Jupyter and have ``to_svg()``,
``to_html()`` and ``save(path)`` (.svg, .html, .png); ``explain`` and ``report``
return an HTML ``Panel``.
"""
from .explain import explain  # noqa: F401
from .graph import graph  # noqa: F401
from .memory import memory_timeline  # noqa: F401
from .page import Panel  # noqa: F401
from .report import report  # noqa: F401
from .storage import storage_diagram  # noqa: F401
from .svg import Picture  # noqa: F401
from .timeline import version_timeline  # noqa: F401
