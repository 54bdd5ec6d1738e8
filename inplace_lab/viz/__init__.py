"""Pure renderers: trace data or tensors in, SVG/DOT/HTML out (no Jupyter needed).

Each returns a ``Picture`` that shows itself in Jupyter and has ``to_svg()``,
``to_html()`` and ``save(path)``.
"""
from .storage import storage_diagram  # noqa: F401
from .svg import Picture  # noqa: F401
