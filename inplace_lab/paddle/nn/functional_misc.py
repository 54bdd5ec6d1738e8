"""``paddle.nn.functional.temporal_shift`` and ``affine_grid``, composed from facade ops.

- ``temporal_shift`` (TSM): of each clip's ``seg_num`` frames, the first
  ``int(C * shift_ratio)`` channels read the previous frame, the next
  ``int(C * 2 * shift_ratio)`` minus those read the next frame (zeros past the ends), the
  rest stay;
- ``grid_sample`` (4-D): read ``x`` at the grid's normalised (x, y) points; bilinear
  blends the four neighbours (out-of-range ones read 0 under 'zeros'), nearest rounds half
  to even; 'border' clamps the coordinates first. Values are gathered with
  the core's ``gather``, so gradients reach both ``x`` and ``grid``;
- ``gather_tree``: beam-search back-tracking (integers, no gradient);
- ``sdp_kernel``: a context manager choosing attention backends; the facade has only the
  math backend, so it changes nothing;
- ``affine_grid``: the sampling grid ``theta @ [x, y, (z,) 1]`` over a base grid in [-1, 1]
  (``align_corners=True``: the corner pixels' centres; False: their outer edges).
"""
from __future__ import annotations

import numpy as np

import inplace_lab as _il

__all__ = ["temporal_shift", "affine_grid", "grid_sample", "gather_tree", "sdp_kernel"]


def _pd():
    from inplace_lab import paddle as pd

    return pd


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    if x.shape[0] % seg_num:
        raise ValueError("(InvalidArgument) Input(X) dimension[0] should be divided exactly by "
                         f"Attr(seg_num), but received X dimension[0]({x.shape[0]}) mod "
                         f"seg_num({seg_num}) != 0")
    from inplace_lab.nn import functional as core

    pd = _pd()
    channel_last = data_format == "NHWC"
    if channel_last:
        x = x.transpose([0, 3, 1, 2])
    nt, c, h, w = x.shape
    v = x.reshape([nt // seg_num, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    past = core.pad(v[:, :, :c1], (0, 0, 0, 0, 0, 0, 1, -1))  # frame t reads t - 1
    future = core.pad(v[:, :, c1:c2], (0, 0, 0, 0, 0, 0, -1, 1))  # frame t reads t + 1
    out = pd.concat([past, future, v[:, :, c2:]], axis=2).reshape([nt, c, h, w])
    return out.transpose([0, 2, 3, 1]) if channel_last else out


def _base(n, align_corners):
    if align_corners:
        return np.linspace(-1, 1, n)  # (n == 1: [-1], as Paddle)
    return (2 * np.arange(n) + 1) / n - 1


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """theta [N, 2, 3] with out_shape [N, C, H, W] -> grid [N, H, W, 2]; theta [N, 3, 4]
    with [N, C, D, H, W] -> [N, D, H, W, 3] (x, then y, then z, as ``grid_sample`` reads)."""
    pd = _pd()
    if not hasattr(theta, "shape") or not hasattr(theta, "stop_gradient"):
        raise TypeError("The theta should be a Tensor.")
    if hasattr(out_shape, "tolist"):
        out_shape = out_shape.tolist()
    if len(out_shape) == 0:
        raise ValueError("The out_shape cannot be empty.")
    spatial = [int(s) for s in out_shape[2:]]
    axes = [_base(n, align_corners) for n in reversed(spatial)]  # x (width) first
    mesh = np.meshgrid(*axes, indexing="ij")  # indexed [w, h(, d)]
    coords = np.stack([m.transpose(list(range(len(spatial)))[::-1]) for m in mesh]
                      + [np.ones(spatial)], axis=-1)
    dt = str(theta.dtype).split(".")[-1]
    base = pd.to_tensor(coords.reshape(1, -1, len(spatial) + 1).astype(dt))
    grid = pd.matmul(base.expand([theta.shape[0]] + list(base.shape[1:])), theta,
                     transpose_y=True)
    return grid.reshape([theta.shape[0]] + spatial + [len(spatial)])


def _unnormalize(g, n, align_corners):
    return (g + 1) * ((n - 1) / 2) if align_corners else ((g + 1) * n - 1) / 2


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True,
                name=None):
    """x [N, C, H, W], grid [N, Ho, Wo, 2] -> [N, C, Ho, Wo]. ('reflection' padding and
    5-D input are not implemented.)"""
    if mode not in ("bilinear", "nearest"):
        raise ValueError("(InvalidArgument) The mode of grid sample function should be in "
                         f"['bilinear', 'nearest'], but got: {mode}")
    if padding_mode not in ("zeros", "reflection", "border"):
        raise ValueError("(InvalidArgument) The padding mode of grid sample function should be "
                         f"in ['zeros', 'reflection', 'border'], but got: {padding_mode}")
    if not isinstance(align_corners, bool):
        raise TypeError("(InvalidType) grid_sample(): argument (position 5) must be bool, but "
                        f"got {type(align_corners).__name__}")
    if padding_mode == "reflection" or x.ndim != 4:
        raise NotImplementedError("grid_sample: 'reflection' padding and 5-D input are not "
                                  "implemented in inplace_lab's paddle facade")
    pd = _pd()
    n, c, h, w = x.shape
    ho, wo = grid.shape[1:3]
    ix = _unnormalize(grid[..., 0], w, align_corners)
    iy = _unnormalize(grid[..., 1], h, align_corners)
    if padding_mode == "border":
        ix, iy = pd.clip(ix, 0, w - 1), pd.clip(iy, 0, h - 1)
    flat = x.reshape([n, c, h * w])
    dt = str(x.dtype).split(".")[-1]

    def read(xc, yc):  # numpy integer corners -> [N, C, Ho, Wo], zero where outside
        inside = (xc >= 0) & (xc <= w - 1) & (yc >= 0) & (yc <= h - 1)
        idx = (np.clip(yc, 0, h - 1) * w + np.clip(xc, 0, w - 1)).reshape(n, 1, -1)
        idx = pd.to_tensor(np.broadcast_to(idx, (n, c, ho * wo)).copy())
        vals = _il.gather(flat, 2, idx).reshape([n, c, ho, wo])  # (the core's gather)
        return vals * pd.to_tensor(inside[:, None].astype(dt))

    if mode == "nearest":
        out = read(np.rint(ix.numpy()).astype(np.int64), np.rint(iy.numpy()).astype(np.int64))
        return out + (ix * 0).unsqueeze(1)  # Paddle gives the grid a zero gradient here
    x0 = np.floor(ix.numpy()).astype(np.int64)
    y0 = np.floor(iy.numpy()).astype(np.int64)
    wx1 = (ix - pd.to_tensor(x0.astype(dt))).unsqueeze(1)
    wy1 = (iy - pd.to_tensor(y0.astype(dt))).unsqueeze(1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    return (read(x0, y0) * wx0 * wy0 + read(x0 + 1, y0) * wx1 * wy0
            + read(x0, y0 + 1) * wx0 * wy1 + read(x0 + 1, y0 + 1) * wx1 * wy1)


def gather_tree(ids, parents):
    """Full beam paths from per-step ids and parent beams ([time, batch, beam]): walk back
    from the last step, ``out[t, b, k] = ids[t, b, parent]`` with the parent of step t + 1."""
    if ids.ndim != 3:
        raise ValueError("The input ids must be a 3D tensor with shape [length, batch_size, "
                         "beam_size]")
    if list(parents.shape) != list(ids.shape):
        raise ValueError("(InvalidArgument) The shape of Input(Parents) must be same with the "
                         "shape of Input(Ids).")
    dt = str(ids.dtype).split(".")[-1]
    if dt not in ("int32", "int64"):
        raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {dt}) "
                           "of kernel `gather_tree` is not registered. Selected wrong DataType "
                           f"`{dt}`. Paddle support following DataTypes: int64, int32.")
    i, p = ids.numpy(), parents.numpy()
    out = np.empty_like(i)
    steps, batch, beam = i.shape
    rows = np.arange(batch)[:, None]
    parent = np.broadcast_to(np.arange(beam), (batch, beam))
    for t in reversed(range(steps)):
        out[t] = i[t][rows, parent]
        parent = p[t][rows, parent]
    return _pd().to_tensor(out)


def sdp_kernel(enable_math=False, enable_flash=True, enable_mem_efficient=True):
    """No-op context manager (``with sdp_kernel(...):``): only the math backend exists here."""
    import contextlib

    return contextlib.nullcontext()
