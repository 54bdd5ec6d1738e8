"""Jupyter widgets over the renderers (ipywidgets 8 + a small anywidget front end).

- ``Inspector(trace)``: step through a recorded program, four linked pictures.
- ``inspect(*tensors)``: a live Inspector that follows later cells.
- ``%load_ext inplace_lab``: the ``%%inplace_trace`` cell magic and explained errors.

The tensor core never imports this package: events flow core -> hooks -> trace ->
renderers -> widgets.
"""
from .inspector import Inspector  # noqa: F401
from .live import LiveInspector, inspect  # noqa: F401
from .magic import load_ipython_extension, unload_ipython_extension  # noqa: F401
from .picture import PictureView  # noqa: F401
