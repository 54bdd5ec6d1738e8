"""``paddle.nn.functional.pad`` and ``zeropad2d``: Paddle's two padding rules.

- ``mode='constant'`` with a pad list whose length is not ``2 * (ndim - 2)`` pads *any* dims:
  ``2 * ndim`` values go per dimension from the FIRST dim (while ``pad_from_left_axis``, the
  default); a shorter list pads the LAST dims first, as ``torch.nn.functional.pad``;
- otherwise (every other mode, or exactly ``2 * (ndim - 2)`` values) the list covers the
  spatial dims of ``data_format`` (3-D to 5-D input only), last spatial dim first:
  ``[left, right, top, bottom, front, back]``.

The arithmetic is the core's ``pad`` (torch order: last dim first); ``'circular'`` wraps
by concatenating slices, so its gradient adds the wrapped cells back.
"""
from __future__ import annotations

__all__ = ["pad", "zeropad2d"]

_LAYOUTS = {3: ["NCL", "NLC"], 4: ["NCHW", "NHWC"], 5: ["NCDHW", "NDHWC"]}


def _core():
    from inplace_lab.nn import functional as core

    return core


def _renamed(kernel, mode, n_pairs):
    """The core's pad op under Paddle's kernel name (PadGradNode, Pad3dGradNode)."""
    import dataclasses

    from inplace_lab.nn import functional_layers as fl

    spec = fl._CONSTANT_PAD if mode == "constant" else fl._INDEX_PADS.get((mode, n_pairs))
    # (Paddle's pad grad nodes keep x for its shape only, unchecked: they save nothing here;
    # torch's reflect/replicate nodes save their input)
    return None if spec is None else dataclasses.replace(spec, name=kernel, select=None, saves=())


def _core_pad(kernel, x, amounts, mode, value=0.0):
    from inplace_lab.ops import dispatch

    spec = _renamed(kernel, mode, len(amounts) // 2)
    if spec is None:  # (the core's own error)
        return _core().pad(x, amounts, mode=mode)
    if mode == "constant":
        params = {"pad": tuple(amounts), "value": float(value)}
    else:  # (reflect, replicate: torch's name for the amounts, ``_saved_padding``)
        params = {"padding": tuple(amounts)}
    return dispatch.call(spec, (x,), params)


def _circular(x, amounts):
    """Wrap-pad the trailing dims; ``amounts`` is in torch order (last dim first)."""
    from inplace_lab import paddle as pd

    for i in range(len(amounts) // 2):
        dim = x.ndim - 1 - i
        before, after = amounts[2 * i], amounts[2 * i + 1]
        n = x.shape[dim]
        parts = []
        if before:
            parts.append(x[(slice(None),) * dim + (slice(n - before, n),)])
        parts.append(x)
        if after:
            parts.append(x[(slice(None),) * dim + (slice(0, after),)])
        x = pd.concat(parts, axis=dim) if len(parts) > 1 else x
    return x


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """Pad ``x`` (see the module docstring for which dims a pad list covers)."""
    if hasattr(pad, "tolist"):
        if pad.size == 0:
            return x.clone()
        pad = pad.tolist()
    nd = x.ndim
    if mode == "constant" and isinstance(pad, (list, tuple)) and len(pad) != (nd - 2) * 2:
        amounts = list(pad) + [0] * (2 * nd - len(pad))
        if len(pad) == 2 * nd and pad_from_left_axis:  # per dim from the first: reverse pairs
            amounts = [v for i in reversed(range(nd)) for v in amounts[2 * i:2 * i + 2]]
        return _core_pad("pad", x, tuple(amounts), "constant", value)
    assert nd in [3, 4, 5], f"input tensor dimension must be in [3, 4, 5] but got {nd}"
    if data_format is None:
        data_format = _LAYOUTS[nd][0]
    data_format = data_format.upper()
    assert data_format in ["NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"], (
        "data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], "
        f"but got {data_format}")
    assert data_format in _LAYOUTS[nd], (
        f"input tensor dimension is {nd}, it's data format should be in {_LAYOUTS[nd]} but got "
        f"{data_format}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(f"mode should be one of constant, reflect, replicate, circular, but "
                         f"got {mode}")
    channel_last = data_format[-1] == "C"
    if channel_last:
        x = x.transpose([0, nd - 1] + list(range(1, nd - 1)))
    amounts = tuple(int(v) for v in pad)
    if mode == "circular":
        y = _circular(x, amounts)
    else:
        y = _core_pad("pad3d", x, amounts, mode, value)
    if channel_last:
        y = y.transpose([0] + list(range(2, nd)) + [1])
    if nd < 5:  # (Paddle pads a 3-D or 4-D input as 5-D: unsqueeze, pad3d, squeeze)
        from inplace_lab import paddle as pd

        dims = {(3, False): [3, 4], (4, False): [2], (3, True): [2, 3], (4, True): [1]}[
            nd, channel_last]
        y = pd.squeeze(pd.unsqueeze(y, dims), dims)
    return y


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding ``[left, right, top, bottom]`` of a 4-D input."""
    return pad(x, pad=padding, mode="constant", value=0, data_format=data_format, name=name)
