"""In-place random fills: ``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``,
``geometric_``, ``cauchy_``, ``log_normal_``, ``random_``; and functional ``bernoulli``,
``multinomial``, ``poisson``.

They are ordinary in-place table ops: the same leaf/view checks, one version bump,
and on a graph tensor a node (``UniformBackward0``...) whose gradient is zero, since
the new values do not depend on the old ones. On the CPU the draws are PyTorch's own
(``inplace_lab/rng.py``: its Mersenne Twister, its kernels, its TensorIterator order), from
the generator ``manual_seed`` seeds or a ``generator=`` argument; on a GPU cupy's.

>>> import inplace_lab as il
>>> _ = il.manual_seed(0); a = il.empty(3).uniform_()
>>> _ = il.manual_seed(0); b = il.empty(3).uniform_()
>>> bool((a == b).all()), a._version
(True, 1)
"""
from __future__ import annotations

import math

from .. import rng
from .elementwise import arg, is_tensor, overload
from .table import OpSpec, register


def _gen(xp, generator=None):
    """The seeded generator: PyTorch's CPU one (``rng``) or cupy's global one."""
    if xp.__name__ == "numpy":
        from .. import creation

        return creation.cpu_generator(generator)
    return xp.random


def _cpu(xp) -> bool:
    return xp.__name__ == "numpy"


def _put(out, draw):
    """``draw(k)`` (PyTorch's next k values) into the target in TensorIterator order: a
    contiguous one a chunk at a time (small temporaries), a strided one in one go."""
    if out.flags.c_contiguous:
        rng.fill(out.reshape(-1), draw)
        return out
    return rng.write(out, draw(out.size).astype(out.dtype, copy=False))


def _cpu_fill(xp, out, generator, method, *args):
    """The CPU path of a fill: ``generator.<method>(k, *args)``'s draws into ``out``."""
    g = _gen(xp, generator)
    return _put(out, lambda k: getattr(g, method)(k, *args))


def _draw(xp, out, method, *args):
    """cupy: fill ``out`` from ``cupy.random.<method>``."""
    out[...] = getattr(xp.random, method)(*args, size=out.shape)
    return out


def _float_only(kernel, style="kernel"):
    """dtype rule: the target must be floating point (PyTorch's messages differ by op)."""

    def rule(spec, ins, params):
        dt = ins[0]._dtype
        if dt.category != 2:
            if style == "kernel":
                raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')
            long_name = {"Long": "long int", "Int": "int", "Short": "short int", "Bool": "bool",
                         "Byte": "unsigned char", "Char": "signed char"}.get(dt.torch_name)
            name = dt.torch_name if style == "Exponential" else long_name
            raise RuntimeError(f"{style} distribution is a continuous probability distribution. "
                               f"dtype must be a floating point but you specified {name}")
        _validate(spec.name, params)
        return dt

    return rule


def _any_dtype(spec, ins, params):
    _validate(spec.name, params, ins)
    return ins[0]._dtype


def _g(v):
    """A number as PyTorch's messages print a double (C++ ostream: 1, 0.5, -1)."""
    return format(v, "g") if isinstance(v, float) else str(v)


def _validate(name, p, ins=None):
    """PyTorch's argument checks, raised before anything is written."""
    bad = {
        "uniform": lambda: p["from_"] > p["to"] and
        f"uniform_ expects to return a [from, to) range, but found from={_g(p['from_'])} > to={_g(p['to'])}",
        "normal": lambda: p["std"] < 0 and f"normal expects std >= 0.0, but found std {_g(p['std'])}",
        "exponential": lambda: p["lambd"] <= 0 and
        f"exponential_ expects lambda > 0.0, but found lambda={_g(p['lambd'])}",
        "geometric": lambda: not 0 < p["p"] < 1 and
        f"geometric_ expects p to be in (0, 1), but got p={_g(p['p'])}",
        "cauchy": lambda: p["sigma"] <= 0 and f"cauchy_ expects sigma > 0.0, but found sigma={_g(p['sigma'])}",
        "log_normal": lambda: p["std"] <= 0 and
        f"log_normal_ expects std > 0.0, but found std={_g(p['std'])}",
        "random": lambda: p["to"] is not None and p["from_"] >= p["to"] and
        f"random_ expects 'from' to be less than 'to', but got from={_g(p['from_'])} >= to={_g(p['to'])}",
    }.get(name, lambda: False)()
    if bad:
        raise RuntimeError(bad)
    if name == "bernoulli" and ins is not None:
        pr = ins[1]
        if pr is not None and not is_tensor(pr) and not 0 <= pr <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(pr)}")
        if is_tensor(pr) and not bool(((pr._a >= 0) & (pr._a <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                               "this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")


def _zero_grad(c, g):
    """The new values do not depend on the old ones (nor on a tensor ``p``)."""
    return (g * 0 if c.needs_input_grad[0] else None,) + (None,) * (len(c.input_meta) - 1)


def rand_op(name, fwd, dtype_rule, params, args=("self",), **kw):
    params = {**params, "generator": None}  # (a torch.Generator, else the default one)
    return register(OpSpec(name=name, forward=fwd, backward=_zero_grad, args=args, params=params,
                           dtype_rule=dtype_rule, inplace=True, torch_inplace=True,
                           paddle_inplace=True, method=False, function=False, out=False, **kw))


# ---- continuous ---------------------------------------------------------------------------------

def _uniform_fwd(xp, a, out=None, dt=None, from_=0.0, to=1.0, generator=None):
    if _cpu(xp):
        return _cpu_fill(xp, out, generator, "uniform", out.dtype, from_, to)
    _draw(xp, out, "random")
    if (from_, to) != (0.0, 1.0):
        out *= (to - from_)
        out += from_
    return out


def _normal_fwd(xp, a, out=None, dt=None, mean=0.0, std=1.0, generator=None):
    if _cpu(xp):
        g = _gen(xp, generator)
        if out.flags.c_contiguous:
            g.normal_into(out.reshape(-1), mean, std)
            return out
        return _put(out, lambda k: g.normal(k, out.dtype, mean, std, False))
    _draw(xp, out, "standard_normal")
    if std != 1.0:
        out *= std
    if mean != 0.0:
        out += mean
    return out


def _exponential_fwd(xp, a, out=None, dt=None, lambd=1.0, generator=None):
    if _cpu(xp):
        return _cpu_fill(xp, out, generator, "exponential", lambd)
    _draw(xp, out, "standard_exponential")
    if lambd != 1.0:
        out /= lambd
    return out


def _cauchy_fwd(xp, a, out=None, dt=None, median=0.0, sigma=1.0, generator=None):
    """median + sigma * tan(pi * (u - 1/2)), transformed in place (PyTorch's formula)."""
    if _cpu(xp):
        return _cpu_fill(xp, out, generator, "cauchy", median, sigma)
    _draw(xp, out, "random")
    out -= 0.5
    out *= math.pi
    xp.tan(out, out=out)
    out *= sigma
    out += median
    return out


def _log_normal_fwd(xp, a, out=None, dt=None, mean=1.0, std=2.0, generator=None):
    if _cpu(xp):
        return _cpu_fill(xp, out, generator, "log_normal", mean, std)
    _normal_fwd(xp, a, out, dt, mean, std)
    return xp.exp(out, out=out)


rand_op("uniform", _uniform_fwd, _float_only("check_uniform_bounds"), {"from_": 0.0, "to": 1.0})
rand_op("normal", _normal_fwd, _float_only("normal_kernel_cpu"), {"mean": 0.0, "std": 1.0})
rand_op("exponential", _exponential_fwd, _float_only("", "Exponential"), {"lambd": 1.0})
rand_op("cauchy", _cauchy_fwd, _float_only("", "Cauchy"), {"median": 0.0, "sigma": 1.0})
rand_op("log_normal", _log_normal_fwd, _float_only("log_normal_cpu"), {"mean": 1.0, "std": 2.0})


# ---- discrete --------------------------------------------------------------------------------------

def _geometric_fwd(xp, a, out=None, dt=None, p=0.5, generator=None):
    """Number of trials to the first success: ceil(log(u) / log(1 - p)), u in (0, 1]."""
    if _cpu(xp):
        return _cpu_fill(xp, out, generator, "geometric", p)
    if out.dtype.kind == "f":
        _draw(xp, out, "random")
        xp.subtract(1, out, out=out)  # (0, 1]: log(0) never happens
        xp.log(out, out=out)
        out /= math.log1p(-p)
        return xp.ceil(out, out=out)
    out[...] = _gen(xp).geometric(p, size=out.shape)
    return out


def _bernoulli_fwd(xp, a, p=None, out=None, dt=None, generator=None):
    p = 0.5 if p is None else p
    if _cpu(xp):
        if isinstance(p, (int, float)):
            return _cpu_fill(xp, out, generator, "bernoulli", p)
        g = _gen(xp, generator)
        axes = rng.iteration_axes(out)  # (p broadcast to the target, read in the same order)
        view, pv = out.transpose(axes), xp.broadcast_to(p, out.shape).transpose(axes)
        view[...] = g.bernoulli_tensor(xp.ascontiguousarray(pv)).reshape(view.shape)
        return out
    u = _gen(xp).random(size=out.shape, dtype=out.dtype if out.dtype.kind == "f" and
                        out.dtype.itemsize >= 4 else "float64")
    xp.less(u, p, out=out, casting="unsafe")
    return out


def _bernoulli_shape(target, ins, params):
    p = ins[1]
    if is_tensor(p) and p._shape != target._shape:
        from .. import layout

        try:
            bshape = layout.broadcast_shapes(target._shape, p._shape)
        except Exception:
            bshape = None
        if bshape != target._shape:
            raise RuntimeError(
                f"expand(torch.{p._dtype.torch_name}Tensor{{{list(p._shape)}}}, size="
                f"{list(target._shape)}): the number of sizes provided ({len(target._shape)}) "
                f"must be greater or equal to the number of dimensions in the tensor "
                f"({len(p._shape)})")


def _random_fwd(xp, a, out=None, dt=None, from_=0, to=None, generator=None):
    if _cpu(xp):
        if to is None and from_ == 0:
            return _cpu_fill(xp, out, generator, "random_full", out.dtype)
        lo, span = _torch_range(out.dtype, from_, to)
        return _cpu_fill(xp, out, generator, "random_from_to", out.dtype, lo, span)
    if to is None:
        to = _default_to(out.dtype)
    out[...] = _gen(xp).integers(from_, to, size=out.shape)
    return out


def _user_level() -> int:
    """The ``stacklevel`` of the first frame outside inplace_lab (where torch's warning points)."""
    import os
    import sys

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith(pkg):
        f, level = f.f_back, level + 1
    return level


_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bool": "bool",
                "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                "int32": "int", "int64": "long int"}


def _torch_range(npd, lo, to):
    """(from, range) as ``random_from_to_impl`` works them out: a float target moves from and
    to inward to values its dtype holds (``update_from``/``update_to``) and warns past
    2**digits; ``to=None`` means up to 2**digits (floats) or the dtype's max, inclusive."""
    import warnings

    import numpy as np

    npd = np.dtype(npd)
    if npd.kind == "f":
        digits = np.finfo(npd).nmant + 1
        ct = npd.type

        def bits(v):
            return max(abs(v).bit_length() - 1, 0)

        if int(ct(lo + 1)) < lo:  # (update_from)
            lo = int(ct(lo + 1)) + (1 << (bits(lo + 1) - digits + 1))
        if to is None:
            to_inc = 1 << digits
        else:
            if int(ct(to - 1)) >= to:  # (update_to)
                to = int(ct(to - 1)) - (1 << (bits(to - 1) - digits + 1))
            to_inc = to - 1
        for v, name in ((lo, "from"), (to_inc, "to - 1")):
            if not -(1 << digits) <= v <= 1 << digits:
                warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {_DTYPE_NAMES.get(npd.name, npd.name)} can "
                              "support discrete uniform distribution only within this range. "
                              "This warning will become an error in version 1.7 release, please "
                              "fix the code in advance", UserWarning, stacklevel=_user_level())
        return lo, to_inc - lo + 1
    if to is None:
        to = (1 if npd.kind == "b" else int(np.iinfo(npd).max)) + 1
    lowest, top = (0, 1) if npd.kind == "b" else (int(np.iinfo(npd).min), int(np.iinfo(npd).max))
    for v, name in ((lo, "from"), (to - 1, "to - 1")):
        if not lowest <= v <= top:
            raise RuntimeError(f"{name} is out of bounds for {_DTYPE_NAMES[npd.name]}")
    return lo, to - lo


def _default_to(npd):
    """PyTorch's random_() range: [0, 2**mantissa] for floats, the dtype's max for integers."""
    import numpy as np

    if npd.kind == "f":
        return 2 ** (np.finfo(npd).nmant + 1) + 1
    if npd.kind == "b":
        return 2
    return int(np.iinfo(npd).max)


def _random_select(args, kw):
    """random_() is RandomBackward2, random_(to) RandomBackward1, random_(from, to) RandomBackward0."""
    n = len(args) - 1 + len([k for k in kw if k in ("from_", "to")])
    if n == 1 and "from_" not in kw:
        return _RANDOM_TO
    return _RANDOM_FROM_TO if n == 2 else None


rand_op("geometric", _geometric_fwd, _any_dtype, {"p": 0.5})
BERNOULLI = rand_op("bernoulli", _bernoulli_fwd, _any_dtype, {}, args=("self", "p"),
                    optional_args=("p",), node_name="BernoulliBackward2", inplace_check=_bernoulli_shape)
BERNOULLI.select = lambda args, kw: _BERNOULLI1 if is_tensor(arg(args, kw, 1, "p")) else None
_BERNOULLI1 = overload(BERNOULLI, "BernoulliBackward1")
RANDOM = rand_op("random", _random_fwd, _any_dtype, {"from_": 0, "to": None},
                 node_name="RandomBackward2")
RANDOM.select = _random_select
_RANDOM_TO = overload(RANDOM, "RandomBackward1", params={"to": None, "from_": 0})  # random_(to)
_RANDOM_FROM_TO = overload(RANDOM, "RandomBackward0")
