"""Gradcheck cases for F.interpolate's kernels (inplace_lab/ops/nn_upsample.py), read by
test_gradcheck_all.py. The backward kernels ``<op>_backward`` have no backward of their own."""
from __future__ import annotations

SKIP: dict = {}


def _kw(size, scales, sizes, align=None):
    names = {1: ("scales",), 2: ("scales_h", "scales_w"),
             3: ("scales_d", "scales_h", "scales_w")}[len(size)]
    kw = {"output_size": size, **dict(zip(names, scales)), "self_sym_sizes": sizes}
    if align is not None:
        kw["align_corners"] = align
    return kw


def _backward_case(C, name, forward_case):
    """``<name>_backward`` (the gradient kernel, differentiable again: its backward is the
    forward kernel): its input is an output-shaped gradient."""
    def build(r):
        case = forward_case(r)
        kw = dict(case["kw"])
        sizes = kw.pop("self_sym_sizes")
        g = r(*sizes[:2], *kw["output_size"])
        return C([g], {**kw, "input_size": sizes})
    return build


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    forward = _forward_cases(C, R, idx)
    return {**forward, **{f"{n}_backward": _backward_case(C, n, b) for n, b in forward.items()}}


def _forward_cases(C, R, idx):
    return {
        "upsample_nearest1d": lambda r: C([r(1, 2, 3)], _kw((5,), (None,), (1, 2, 3))),
        "upsample_nearest2d": lambda r: C([r(1, 2, 3, 4)],
                                          _kw((5, 3), (None, None), (1, 2, 3, 4))),
        "upsample_nearest3d": lambda r: C([r(1, 1, 2, 3, 2)],
                                          _kw((3, 2, 4), (1.5, 0.7, 2.0), (1, 1, 2, 3, 2))),
        "_upsample_nearest_exact1d": lambda r: C([r(1, 2, 4)], _kw((7,), (None,), (1, 2, 4))),
        "_upsample_nearest_exact2d": lambda r: C([r(1, 2, 3, 4)],
                                                 _kw((4, 2), (None, None), (1, 2, 3, 4))),
        "_upsample_nearest_exact3d": lambda r: C([r(1, 1, 2, 3, 2)],
                                                 _kw((3, 4, 3), (None,) * 3, (1, 1, 2, 3, 2))),
        "upsample_linear1d": lambda r: C([r(1, 2, 4)], _kw((7,), (1.8,), (1, 2, 4), False)),
        "upsample_bilinear2d": lambda r: C([r(1, 2, 3, 4)],
                                           _kw((5, 3), (None, None), (1, 2, 3, 4), True)),
        "upsample_trilinear3d": lambda r: C([r(1, 1, 2, 3, 2)],
                                            _kw((3, 2, 4), (None,) * 3, (1, 1, 2, 3, 2), False)),
        "upsample_bicubic2d": lambda r: C([r(1, 2, 3, 4)],
                                          _kw((5, 6), (None, 1.5), (1, 2, 3, 4), False)),
        "_upsample_bilinear2d_aa": lambda r: C([r(1, 2, 7, 4)],
                                               _kw((3, 6), (None, None), (1, 2, 7, 4), False)),
        "_upsample_bicubic2d_aa": lambda r: C([r(1, 1, 6, 7)],
                                              _kw((2, 3), (None, 0.45), (1, 1, 6, 7), True)),
        "_upsample_lanczos2d_aa": lambda r: C([r(1, 1, 7, 5)],
                                              _kw((3, 8), (None, None), (1, 1, 7, 5), False)),
    }
