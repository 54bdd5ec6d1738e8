"""N-d convolution kernels: ``_convnd`` (conv3d), ``_conv_transpose`` (conv_transpose1d/2d/3d),
``_im2col`` (unfold) and ``_col2im`` (fold).

Every convolution is two pieces of index work and one GEMM (an ``einsum`` that numpy and
cupy hand to BLAS):

- **windows** (im2col): a strided *view* of the padded input with one axis per output
  position and one per kernel tap, ``(N, C, *out, *k)``; no copy until the GEMM reads it;
- **scatter** (col2im): the adjoint, adding every tap's contribution back to the input
  pixel it came from, one strided slice per kernel tap.

A convolution is ``windows`` then a GEMM; its input gradient is a GEMM then ``scatter``;
its weight gradient is ``windows`` of the input against the output gradient. A
*transposed* convolution is exactly a convolution's input gradient, so it is the same
scatter, and its own gradients swap the roles: grad_input is an ordinary convolution of
the upstream gradient with the same weight, grad_weight is the weight-gradient kernel
with the input as "grad_output" and the upstream gradient as "input". Both ops record
``ConvolutionBackward0`` (saves input and weight), as PyTorch's one ``convolution`` does.

The kernels take the output's spatial size explicitly (``out_sp``): a transposed conv with
``output_padding`` has output rows no tap reaches, so the size is not implied by the rest.
The argument checks with PyTorch's words and order live in ``check_convolution`` (pure
functions of shapes and dtypes, which the functionals call before any data is touched);
the kernels only compute.
"""
from __future__ import annotations

import itertools

from . import dispatch
from .table import OpSpec, register

_OUT, _KER = "pqr", "ijk"  # einsum letters: output positions, kernel taps (up to 3-d)


# ---- geometry and checks (pure functions of shapes) ---------------------------------------------

def expand_param(v, nd, name):
    """``stride=2`` -> ``(2, 2)``; a sequence must have 1 or ``nd`` entries (ATen's wording)."""
    if isinstance(v, int):
        return (v,) * nd
    v = tuple(int(e) for e in v)
    if len(v) == 1:
        return v * nd
    if len(v) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} "
                           f"values to match the convolution dimensions, but got {name}={list(v)}")
    return v


def conv_output_size(xshape, wshape, stride, padding, dilation):
    """A convolution's output spatial size (its arguments checked by ``check_convolution``)."""
    return tuple((h + 2 * p - (d * (k - 1) + 1)) // s + 1 for h, k, s, p, d in zip(
        xshape[2:], wshape[2:], stride, padding, dilation))


def conv_transpose_output_size(xshape, wshape, stride, padding, output_padding, dilation):
    """``(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1`` per dim;
    ``output_padding`` only adds rows no input reaches (``check_convolution`` keeps it below
    the stride or the dilation)."""
    return tuple((h - 1) * s - 2 * p + d * (k - 1) + o + 1 for h, s, p, d, k, o in zip(
        xshape[2:], stride, padding, dilation, wshape[2:], output_padding))


_AXES = {1: ("height", "width"), 2: ("height", "width"), 3: ("depth", "height", "width")}


# ---- ATen's argument checks, in its order, before any data is touched ----------------------------
#
# ``check_convolution`` is what ``at::_convolution`` checks on a batched input (the conv1d/2d/3d
# and conv_transpose front ends call it after ``batchify``): the weight's rank and ``groups``,
# the parameter lists (``expand_param_if_needed``), ``check_shape_forward``, and then what the
# backend ATen picks for these arguments checks itself (a 1-d convolution is a 2-d one of
# height 1 from there on, so those messages print 2-d lists). The backend matters for the
# words: a float32 convolution that oneDNN (mkldnn) takes reports a dtype mismatch or a zero
# dilation differently from ATen's reference kernels (``use_mkldnn`` below, as ATen decides).

def _legacy_type(d) -> str:
    """``Tensor::toString()``: a legacy type name, ``CPU...Type`` where there is none."""
    return f"CPU{d.torch_name}Type" if d.is_complex else f"torch.{d.torch_name}Tensor"


def check_shape_forward(xshape, wshape, bshape, stride, padding, dilation, transposed,
                        output_padding, groups):
    """ATen's ``check_shape_forward``: shapes and parameter signs, in ATen's order."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    k, wd = len(xshape), len(wshape)
    if wd != k:
        raise RuntimeError(f"Expected {wd}-dimensional input for {wd}-dimensional weight "
                           f"{list(wshape)}, but got {k}-dimensional input of size "
                           f"{list(xshape)} instead")
    if wshape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(wshape)} instead")
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size [{list(wshape)}] instead")
    if not transposed:
        if xshape[1] != wshape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {list(wshape)}, expected "
                               f"input{list(xshape)} to have {wshape[1] * groups} channels, but "
                               f"got {xshape[1]} channels instead")
        if bshape is not None and (len(bshape) != 1 or bshape[0] != wshape[0]):
            raise RuntimeError(f"Given weight of size {list(wshape)}, expected bias to be "
                               f"1-dimensional with {wshape[0]} elements, but got bias of size "
                               f"{list(bshape)} instead")
        padded = [h + 2 * p for h, p in zip(xshape[2:], padding)]
        eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, wshape[2:])]
        if any(h < e for h, e in zip(padded, eff)):
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(map(str, padded))}). Kernel size: "
                               f"({' x '.join(map(str, eff))}). Kernel size can't be greater "
                               "than actual input size")
    else:
        if xshape[1] != wshape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {list(wshape)}, expected "
                               f"input{list(xshape)} to have {wshape[0]} channels, but got "
                               f"{xshape[1]} channels instead")
        n_out = wshape[1] * groups
        if bshape is not None and (len(bshape) != 1 or bshape[0] != n_out):
            raise RuntimeError(f"Given transposed=1, weight of size {list(wshape)}, expected bias "
                               f"to be 1-dimensional with {n_out} elements, but got bias of size "
                               f"{list(bshape)} instead")


def use_mkldnn(xdt, x4, w4, stride, dilation, output_padding, transposed, groups) -> bool:
    """ATen's ``ConvParams::use_mkldnn`` for a CPU tensor (shapes after the 1-d -> 2-d view):
    float32 only, and only where oneDNN is expected to be faster."""
    if xdt.torch_name != "Float":
        return False
    if transposed and any(o >= s for o, s in zip(output_padding, stride)):
        return False
    import os

    strided, dilated = any(s != 1 for s in stride), any(d != 1 for d in dilation)
    threads = os.cpu_count() or 1  # (at::get_num_threads(): the machine's cores by default)
    if not (strided or dilated or x4[0] >= 16 or w4[-1] != 1 or w4[-2] != 1 or threads > 1):
        return False
    return (groups > 1 or (w4[-1] > 3 and w4[-2] > 3) or x4[0] > 1 or
            x4[0] * x4[1] * x4[2] * x4[3] > 20480)


def check_convolution(input, weight, bias, stride, padding, dilation, transposed,
                      output_padding, groups):
    """``at::_convolution``'s checks on a batched input, in ATen's order, with its messages.

    Returns the expanded ``(stride, padding, dilation, output_padding)``. Raises what
    torch 2.13 raises on the CPU for the same arguments (shape checks first, then the chosen
    backend's: a zero dilation, a dtype mismatch, a transposed conv's output size)."""
    wshape, xshape = tuple(weight.shape), tuple(input.shape)
    bshape = None if bias is None else tuple(bias.shape)
    dim = len(wshape) - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride, padding, dilation, output_padding = (
        expand_param(v, dim, n) for v, n in ((stride, "stride"), (padding, "padding"),
                                             (dilation, "dilation"),
                                             (output_padding, "output_padding")))
    check_shape_forward(xshape, wshape, bshape, stride, padding, dilation, transposed,
                        output_padding, groups)
    # the backend's own checks: ATen views a 1-d convolution as a 2-d one of height 1
    if dim == 1:
        x4, w4 = xshape[:2] + (1,) + xshape[2:], wshape[:2] + (1,) + wshape[2:]
        s2, p2, d2, o2 = (1,) + stride, (0,) + padding, (1,) + dilation, (0,) + output_padding
    else:
        x4, w4, s2, p2, d2, o2 = xshape, wshape, stride, padding, dilation, output_padding
    xdt, wdt = input._dtype, weight._dtype
    bdt = None if bias is None else bias._dtype
    if xdt.is_complex:  # (ATen's complex_convolution: three real ones, after this check)
        if wdt is not xdt:
            raise RuntimeError(f"Input type ({_legacy_type(xdt)}) and weight type "
                               f"({_legacy_type(wdt)}) should be the same")
        return stride, padding, dilation, output_padding
    if use_mkldnn(xdt, x4, w4, s2, d2, o2, transposed, groups):
        _check_mkldnn(xdt, wdt, bdt, x4, w4, s2, p2, d2, o2, transposed)
    elif transposed:
        _check_slow_transpose(xdt, wdt, bdt, x4, w4, s2, p2, d2, o2)
    else:
        _check_slow(xdt, wdt, x4, w4, s2, p2, d2)
    return stride, padding, dilation, output_padding


def _check_mkldnn(xdt, wdt, bdt, x4, w4, s, p, d, o, transposed):
    for name, t in (("weight", wdt), ("bias", bdt)):
        if t is not None and t is not xdt:
            raise RuntimeError(f"Input type ({_legacy_type(xdt)}) and {name} type "
                               f"({_legacy_type(t)}) should be the same or input should be a "
                               f"MKLDNN tensor and {name} is a dense tensor")
    if not transposed:
        if any(v <= 0 for v in d):
            raise RuntimeError("non-positive dilation is not supported")
        return
    # (oneDNN's own words: a negative output size, then a zero dilation)
    if any(v < 0 for v in _transposed_size(x4, w4, s, p, d, o)):
        raise RuntimeError("could not construct a memory descriptor using a format tag")
    if len(w4) == 5 and any(v <= 0 for v in d) or \
            any(v <= 0 and k > 1 for v, k in zip(d, w4[2:])):
        raise RuntimeError("dimensions are invalid" if len(w4) == 5 else
                           "could not create a primitive descriptor for the deconvolution "
                           "forward propagation primitive. Run workload with environment "
                           "variable ONEDNN_VERBOSE=all to get additional diagnostic "
                           "information.")


def _transposed_size(x4, w4, s, p, d, o):
    return tuple((h - 1) * ss - 2 * pp + dd * (k - 1) + oo + 1
                 for h, k, ss, pp, dd, oo in zip(x4[2:], w4[2:], s, p, d, o))


def _check_slow(xdt, wdt, x4, w4, s, p, d):
    """The reference kernels (slow_conv2d / slow_conv3d / slow_conv_dilated): a zero dilation,
    then one dtype for input and weight (a bias of another dtype is cast)."""
    dilated = any(v != 1 for v in d)
    if dilated and any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(d)}")
    if xdt.torch_name == "Bool":  # (the kernel's dtype dispatch comes first)
        if dilated:
            kernel = "slow_conv_dilated<>"
        elif len(w4) == 4:
            kernel = "slow_conv2d_cpu"
        else:
            plain = all(v == 1 for v in w4[2:] + s) and not any(p)
            kernel = "slow_conv3d_cpu" if plain else "compute_columns3d"
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if wdt is not xdt:
        raise RuntimeError(f"expected scalar type {xdt.torch_name} but found {wdt.torch_name}")


def _check_slow_transpose(xdt, wdt, bdt, x4, w4, s, p, d, o):
    """slow_conv_transpose2d/3d's shape check, then its dtypes (the 3-d one wants the bias's
    too; the 2-d one casts it, into an integer result only from an integer)."""
    axes = _AXES[len(w4) - 2]
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got " +
                           ", ".join(f"dilation_{a}: {v}" for a, v in zip(axes, d)))
    if any(oo >= ss and oo >= dd for oo, ss, dd in zip(o, s, d)):
        parts = [f"{what}_{a}: {v}" for what, vals in (("output_padding", o), ("stride", s),
                                                        ("dilation", d))
                 for a, v in zip(axes, vals)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(parts))
    out = _transposed_size(x4, w4, s, p, d, o)
    if any(v < 1 for v in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x4[2:]))}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, out))}). "
                           "Output size is too small")
    nd = len(w4) - 2
    if not xdt.is_floating_point and xdt.torch_name != "Long":  # (floats and int64 only)
        raise NotImplementedError(f'"slow_conv_transpose{nd}d_out_cpu" not implemented for '
                                  f"'{xdt.torch_name}'")
    for t in (wdt, bdt if nd == 3 else None):
        if t is not None and t is not xdt:
            raise RuntimeError(f"expected scalar type {xdt.torch_name} but found {t.torch_name}")
    if bdt is not None and bdt is not xdt and xdt.category < bdt.category:
        from ..dtypes import result_type_of

        common = result_type_of([xdt, bdt], [], [])
        raise RuntimeError(f"result type {common.torch_name} can't be cast to the desired output "
                           f"type {xdt.torch_name}")


# ---- kernels (arrays of the device's module xp) ---------------------------------------------------

def _windows(xp, x, k, s, p, d, out_sp):
    """``(N, C, *out, *k)``: every receptive field of the zero-padded input, a strided view."""
    if any(p):
        x = xp.pad(x, ((0, 0), (0, 0)) + tuple((q, q) for q in p))
    st = x.strides
    nd = len(k)
    strides = st[:2] + tuple(st[2 + i] * s[i] for i in range(nd)) + \
        tuple(st[2 + i] * d[i] for i in range(nd))
    return xp.lib.stride_tricks.as_strided(x, x.shape[:2] + tuple(out_sp) + tuple(k), strides)


def _scatter(xp, contrib, in_sp, k, s, p, d):
    """The adjoint of ``_windows``: ``contrib`` ``(N, C, *out, *k)`` added back into a zero
    ``(N, C, *in_sp)`` image (each kernel tap is one strided slice of the padded image)."""
    n, c = contrib.shape[:2]
    out_sp = contrib.shape[2:2 + len(k)]
    padded = xp.zeros((n, c) + tuple(h + 2 * q for h, q in zip(in_sp, p)), dtype=contrib.dtype)
    for tap in itertools.product(*(range(kk) for kk in k)):
        sl = tuple(slice(t * dd, t * dd + ss * (o - 1) + 1, ss)
                   for t, dd, ss, o in zip(tap, d, s, out_sp))
        padded[(slice(None), slice(None)) + sl] += contrib[(Ellipsis,) + tap]
    crop = tuple(slice(q, q + h) for q, h in zip(p, in_sp))
    return xp.ascontiguousarray(padded[(slice(None), slice(None)) + crop])


def _conv_arrays(xp, x, w, s, p, d, groups, out_sp):
    """The convolution of ``x`` with ``w`` as one GEMM over the windows: ``(N, O, *out)``."""
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    k = w.shape[2:]
    nd = len(k)
    win = _windows(xp, x, k, s, p, d, out_sp).reshape((n, groups, cg) + tuple(out_sp) + tuple(k))
    wg = w.reshape((groups, o // groups, cg) + tuple(k))
    po, ik = _OUT[:nd], _KER[:nd]
    y = xp.einsum(f"ngc{po}{ik},goc{ik}->ngo{po}", win, wg, optimize=True)
    return xp.ascontiguousarray(y.reshape((n, o) + tuple(out_sp)))


def _input_grad_arrays(xp, g, w, s, p, d, groups, in_sp):
    """The adjoint of ``_conv_arrays`` in its input: ``(N, C, *in_sp)`` from g ``(N, O, *out)``."""
    n, o = g.shape[:2]
    cg = w.shape[1]
    k = w.shape[2:]
    nd = len(k)
    out_sp = g.shape[2:]
    gg = g.reshape((n, groups, o // groups) + tuple(out_sp))
    wg = w.reshape((groups, o // groups, cg) + tuple(k))
    po, ik = _OUT[:nd], _KER[:nd]
    contrib = xp.einsum(f"ngo{po},goc{ik}->ngc{po}{ik}", gg, wg, optimize=True)
    return _scatter(xp, contrib.reshape((n, groups * cg) + tuple(out_sp) + tuple(k)), in_sp, k,
                    s, p, d)


def _weight_grad_arrays(xp, g, x, s, p, d, groups, wshape):
    """The convolution's gradient in its weight: windows of ``x`` against ``g``, summed."""
    n, o = g.shape[:2]
    cg = wshape[1]
    k = tuple(wshape[2:])
    nd = len(k)
    out_sp = g.shape[2:]
    win = _windows(xp, x, k, s, p, d, out_sp).reshape((n, groups, cg) + tuple(out_sp) + k)
    gg = g.reshape((n, groups, o // groups) + tuple(out_sp))
    po, ik = _OUT[:nd], _KER[:nd]
    gw = xp.einsum(f"ngo{po},ngc{po}{ik}->goc{ik}", gg, win, optimize=True)
    return xp.ascontiguousarray(gw.reshape(tuple(wshape)))


def _geo(params, nd):
    return tuple(expand_param(params[n], nd, n) for n in ("stride", "padding", "dilation"))


def _bias_shape(b, nd):
    return b.reshape((1, -1) + (1,) * nd)


# ---- dtype rule: one floating dtype for input, weight and bias (ATen's messages) ----------------

def _conv_dtype(spec, ins, params):
    """The input's dtype. ``check_convolution`` (the front ends') has checked input, weight
    and bias with ATen's words; what gets here is a combination ATen computes (a bias of
    another dtype is cast to the input's, as ATen's reference kernels do)."""
    x, w = ins[0]._dtype, ins[1]._dtype
    if w is not x and not (x.is_complex or w.is_complex):
        raise RuntimeError(f"expected scalar type {x.torch_name} but found {w.torch_name}")
    return x


def _helper(name, fwd, args, params):
    """A kernel only backward formulas call (no public name, no backward of its own)."""
    spec = register(OpSpec(name=name, forward=fwd, args=args, dtype_rule="self", params=params,
                           method=False, function=False, out=False))
    return lambda *a, **p: dispatch.call(spec, a, p)


_GEO = {"stride": 1, "padding": 0, "dilation": 1, "groups": 1}


# ---- _convnd: the convolution of any dimension (conv3d) ----------------------------------------

def _convnd_fwd(xp, x, w, b, out=None, dt=None, stride=1, padding=0, dilation=1, groups=1):
    nd = w.ndim - 2
    s, p, d = _geo({"stride": stride, "padding": padding, "dilation": dilation}, nd)
    out_sp = conv_output_size(x.shape, w.shape, s, p, d)
    y = _conv_arrays(xp, x, w, s, p, d, groups, out_sp)
    if b is not None:
        y += _bias_shape(b, nd).astype(y.dtype, copy=False)
    return y.astype(dt.np, copy=False)


def _convnd_grad_input_fwd(xp, g, w, out=None, dt=None, input_shape=None, stride=1, padding=0,
                           dilation=1, groups=1):
    s, p, d = _geo({"stride": stride, "padding": padding, "dilation": dilation}, w.ndim - 2)
    return _input_grad_arrays(xp, g, w, s, p, d, groups, tuple(input_shape[2:]))


def _convnd_grad_weight_fwd(xp, g, x, out=None, dt=None, weight_shape=None, stride=1, padding=0,
                            dilation=1, groups=1):
    s, p, d = _geo({"stride": stride, "padding": padding, "dilation": dilation},
                   len(weight_shape) - 2)
    return _weight_grad_arrays(xp, g, x, s, p, d, groups, weight_shape)


_grad_input = _helper("_convnd_grad_input", _convnd_grad_input_fwd, ("self", "weight"),
                      {"input_shape": None, **_GEO})
_grad_weight = _helper("_convnd_grad_weight", _convnd_grad_weight_fwd, ("self", "input"),
                       {"weight_shape": None, **_GEO})


def _sum_bias(g):
    return g.sum((0,) + tuple(range(2, g.ndim)))


def _convnd_bw(c, g):
    geo = {k: c[k] for k in _GEO}
    x, w = c["self"], c["weight"]
    need = c.needs_input_grad
    gx = _grad_input(g, w, input_shape=tuple(x.shape), **geo) if need[0] else None
    gw = _grad_weight(g, x, weight_shape=tuple(w.shape), **geo) if need[1] else None
    return (gx, gw, _sum_bias(g) if need[2] else None)


CONVND = register(OpSpec(
    name="_convnd", forward=_convnd_fwd, backward=_convnd_bw, args=("self", "weight", "bias"),
    optional_args=("bias",), params=dict(_GEO), saves=("self", "weight"), dtype_rule=_conv_dtype,
    method=False, function=False, out=False, node_name="ConvolutionBackward0",
    doc="convolution(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) of any "
        "dimension (conv3d): saves input and weight."))


# ---- _conv_transpose: the adjoint of a convolution ----------------------------------------------

_TGEO = {"stride": 1, "padding": 0, "output_padding": 0, "groups": 1, "dilation": 1}


def _conv_transpose_fwd(xp, x, w, b, out=None, dt=None, stride=1, padding=0, output_padding=0,
                        groups=1, dilation=1):
    nd = w.ndim - 2
    out_sp = conv_transpose_output_size(x.shape, w.shape, *(expand_param(v, nd, n) for v, n in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"),
        (dilation, "dilation"))))
    s, p, d = _geo({"stride": stride, "padding": padding, "dilation": dilation}, nd)
    # the input gradient of the convolution (N, Cout, *out_sp) -> (N, Cin, *x) with weight w
    y = _input_grad_arrays(xp, x, w, s, p, d, groups, out_sp)
    if b is not None:
        y += _bias_shape(b, nd).astype(y.dtype, copy=False)
    return y.astype(dt.np, copy=False)


def _conv_transpose_bw(c, g):
    geo = {"stride": c["stride"], "padding": c["padding"], "dilation": c["dilation"],
           "groups": c["groups"]}
    x, w = c["self"], c["weight"]
    need = c.needs_input_grad
    gx = None
    if need[0]:  # (output_padding >= stride: the convolution reaches further; those are cut)
        gx = dispatch.call(CONVND, (g, w, None), geo)
        if tuple(gx.shape) != tuple(x.shape):
            gx = gx[(slice(None), slice(None)) + tuple(slice(0, h) for h in x.shape[2:])]
    gw = _grad_weight(x, g, weight_shape=tuple(w.shape), **geo) if need[1] else None
    return (gx, gw, _sum_bias(g) if need[2] else None)


CONV_TRANSPOSE = register(OpSpec(
    name="_conv_transpose", forward=_conv_transpose_fwd, backward=_conv_transpose_bw,
    args=("self", "weight", "bias"), optional_args=("bias",), params=dict(_TGEO),
    saves=("self", "weight"), dtype_rule=_conv_dtype, method=False, function=False, out=False,
    node_name="ConvolutionBackward0",
    doc="conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, "
        "groups=1, dilation=1), 1-d to 3-d: saves input and weight (the convolution's input "
        "gradient as a forward)."))


# ---- _im2col / _col2im: unfold and fold -----------------------------------------------------------

def _blocks(sp, k, d, p, s):
    """Sliding blocks per dim, with C's truncating division (ATen's formula)."""
    return tuple(int((h + 2 * q - (dd * (kk - 1) + 1)) / ss) + 1
                 for h, kk, dd, q, ss in zip(sp, k, d, p, s))


def _check_block_params(kernel_size, dilation, padding, stride):
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} "
                           f"kernel_width: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} "
                           f"stride_width: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dh} "
                           f"dilation_width: {dw}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} "
                           f"pad_width: {pw}")


def _tup(v):
    return f"({v[0]}, {v[1]})"


def check_im2col(shape, kernel_size, dilation, padding, stride):
    """unfold's blocks per dim ``(Ho, Wo)``, or ATen's error (``im2col_shape_check``)."""
    _check_block_params(kernel_size, dilation, padding, stride)
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(shape)}")
    out = _blocks(shape[-2:], kernel_size, dilation, padding, stride)
    if min(out) < 1:
        raise RuntimeError(f"Given input with spatial size {_tup(shape[-2:])}, kernel_size="
                           f"{_tup(kernel_size)}, dilation={_tup(dilation)}, padding="
                           f"{_tup(padding)}, calculated shape of the array of sliding blocks as "
                           f"{_tup(out)}, but its components must be at least one.")
    return out


def check_col2im(shape, output_size, kernel_size, dilation, padding, stride):
    """fold's blocks per dim, or ATen's error (``col2im_shape_check``)."""
    _check_block_params(kernel_size, dilation, padding, stride)
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: {list(shape)}")
    kk = kernel_size[0] * kernel_size[1]
    if shape[-2] % kk:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={shape[-2]} and kernel_size="
                           f"{_tup(kernel_size)}.")
    out = _blocks(output_size, kernel_size, dilation, padding, stride)
    given = (f"Given output_size={_tup(output_size)}, kernel_size={_tup(kernel_size)}, dilation="
             f"{_tup(dilation)}, padding={_tup(padding)}, stride={_tup(stride)}, ")
    if shape[-1] != out[0] * out[1]:
        raise RuntimeError(given + "expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, but "
                           f"got input.size(2)={shape[-1]}.")
    if min(out) < 1:
        raise RuntimeError(given + f"calculated shape of the array of sliding blocks as "
                           f"{_tup(out)}, but its components must be at least one.")
    return out


def _float_only(kernel):
    def rule(spec, ins, params):
        dt = ins[0]._dtype
        if not dt.is_floating_point and not dt.is_complex:
            raise NotImplementedError(f'"{kernel}_out_cpu" not implemented for '
                                      f"'{dt.torch_name}'")
        return dt
    return rule


_BLOCK = {"kernel_size": (1, 1), "dilation": (1, 1), "padding": (0, 0), "stride": (1, 1)}


def _im2col_fwd(xp, x, out=None, dt=None, kernel_size=(1, 1), dilation=(1, 1), padding=(0, 0),
                stride=(1, 1)):
    hw = check_im2col(x.shape, kernel_size, dilation, padding, stride)
    x4 = x if x.ndim == 4 else x[None]
    n, c = x4.shape[:2]
    win = _windows(xp, x4, kernel_size, stride, padding, dilation, hw)  # (N, C, Ho, Wo, kh, kw)
    cols = xp.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(
        n, c * kernel_size[0] * kernel_size[1], hw[0] * hw[1])
    return cols if x.ndim == 4 else cols[0]


def _col2im_fwd(xp, cols, out=None, dt=None, output_size=(1, 1), kernel_size=(1, 1),
                dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
    hw = check_col2im(cols.shape, output_size, kernel_size, dilation, padding, stride)
    c3 = cols if cols.ndim == 3 else cols[None]
    n = c3.shape[0]
    kh, kw = kernel_size
    contrib = c3.reshape(n, -1, kh, kw, *hw).transpose(0, 1, 4, 5, 2, 3)  # (N, C, Ho, Wo, kh, kw)
    img = _scatter(xp, contrib, tuple(output_size), kernel_size, stride, padding, dilation)
    return img if cols.ndim == 3 else img[0]


def _im2col_bw(c, g):
    x = c.input_meta[0][0]
    return (dispatch.call(COL2IM, (g,), {"output_size": tuple(x[-2:]),
                                         **{k: c[k] for k in _BLOCK}}),)


def _col2im_bw(c, g):
    return (dispatch.call(IM2COL, (g,), {k: c[k] for k in _BLOCK}),)


IM2COL = register(OpSpec(
    name="_im2col", forward=_im2col_fwd, backward=_im2col_bw, params=dict(_BLOCK),
    dtype_rule=_float_only("im2col"), method=False, function=False, out=False,
    node_name="Im2ColBackward0",
    doc="unfold(input, kernel_size, dilation, padding, stride): every sliding block as a column; "
        "saves nothing (its backward is fold)."))
COL2IM = register(OpSpec(
    name="_col2im", forward=_col2im_fwd, backward=_col2im_bw,
    params={"output_size": (1, 1), **_BLOCK}, dtype_rule=_float_only("col2im"), method=False,
    function=False, out=False, node_name="Col2ImBackward0",
    doc="fold(input, output_size, kernel_size, dilation, padding, stride): columns summed back "
        "into an image; saves nothing (its backward is unfold)."))
