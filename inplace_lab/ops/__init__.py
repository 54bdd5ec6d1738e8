"""Install the op table as functions and Tensor methods.

For every entry of ``OPS``: ``inplace_lab.<name>`` (if ``function``),
``Tensor.<name>`` (if ``method``), ``Tensor.<name>_`` and ``inplace_lab.<name>_``
(if ``inplace``), and the same for each alias. Nothing else lists op names.
"""
from __future__ import annotations

from . import activation_reduce, copy, elementwise, linalg, reduction, shape  # noqa: F401  (register their ops)
from . import activation, gather_scatter, join, random, unary  # noqa: F401  (register their ops)
from . import nn_ops  # noqa: F401  (conv2d, pooling, batch norm, embedding, losses)
from . import nn_extra  # noqa: F401  (avg/adaptive pooling, conv1d, pad, more losses)
from . import nn_conv_more, nn_pool_more  # noqa: F401  (transposed/3-d convs, unfold; pools with indices)
from . import linalg_more, scatter_more  # noqa: F401  (addmv/addr/qr/lu ...; *_scatter, splits ...)
from . import paddle_ops  # noqa: F401  (fill_diagonal, put_along_axis, renorm ...)
from . import linalg_extra  # noqa: F401  (einsum, tensordot, cross, cdist, det, inverse, svd, quantile ...)
from . import extra_numeric, extra_shape  # noqa: F401  (torch.reshape/flatten/diag/diff/isclose/searchsorted ...)
from . import sorting  # noqa: F401  (sort, argsort, topk, kthvalue, median, mode, cummax, unique)
from . import tensor_extras  # noqa: F401  (tensor_split, argwhere, type_as, storage() ...)
from . import nn_shrink  # noqa: F401  (hardshrink, softshrink, _rrelu_with_noise)
from . import backward_arrays  # noqa: F401  (array-level backward of the hottest ops)
from . import linalg_solve, nn_sample, tensor_misc  # noqa: F401  (solves and factorisations; grid sampling; memory formats, copies)
from . import special_fns  # noqa: F401  (torch.special's functions)
from . import nn_packing, nn_weight_norm  # noqa: F401  (torch.nn.utils: _pack_padded_sequence, _weight_norm_interface)
from . import nn_upsample  # noqa: F401  (F.interpolate's kernels: upsample_nearest2d, upsample_bilinear2d ...)
from . import dispatch
from .table import OPS, OpSpec

functions: dict = {}  # public name -> callable (read by inplace_lab.__init__ and the facades)


def _make(spec: OpSpec):
    fn = dispatch.entry(spec)
    fn.__doc__ = spec.doc or f"{spec.name}: see the op table (saves {spec.saves_summary()})."
    return fn


def _make_inplace(spec: OpSpec):
    fn_ = dispatch.inplace_entry(spec)
    fn_.__doc__ = f"In-place {spec.name}: writes into the first argument and bumps its version."
    return fn_


def install(tensor_cls) -> None:
    for spec in list(OPS.values()):
        fn = _make(spec)
        fn_ = _make_inplace(spec) if spec.inplace else None
        for name in (spec.name,) + tuple(spec.aliases):
            if spec.function:
                functions[name] = fn
            if spec.method:
                setattr(tensor_cls, name, fn)
            if fn_ is not None:
                setattr(tensor_cls, name + "_", fn_)
                functions[name + "_"] = fn_
    from . import methods

    methods.install(tensor_cls)
