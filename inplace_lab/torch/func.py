"""``torch.func``: ``functional_call`` (a module called with other parameters and buffers) and
the function transforms ``grad``, ``grad_and_value``, ``vjp``, ``jacrev`` and ``vmap``.

The transforms are written on the library's own autograd, so a student can watch them: ``grad``
runs ``f`` on inputs that require grad and calls ``autograd.grad`` (``create_graph`` while an
outer transform or graph needs the result, which is how ``grad(grad(f))`` works); ``vmap``
runs ``f`` once per index of the mapped dimension and stacks the results (the values, shapes and
errors of torch's batching rules, not its single batched kernel call).
"""
from __future__ import annotations

from collections.abc import Sequence

from inplace_lab.nn.utils.stateless import _functional_call

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jacrev", "vmap"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with the named tensors of one dict (or of several dicts,
    no key repeated) in place of its own, for this call only."""
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


# ---- function transforms ------------------------------------------------------------------------

def _tensor_cls():
    from inplace_lab.tensor import Tensor

    return Tensor


def _as_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _flatten(tree):
    """(the tensors of a pytree of dicts, lists and tuples, a function rebuilding it)."""
    T = _tensor_cls()
    if isinstance(tree, T) or not isinstance(tree, (dict, list, tuple)):
        return [tree], lambda leaves: leaves[0]
    items = list(tree.items()) if isinstance(tree, dict) else list(enumerate(tree))
    parts = [_flatten(v) for _, v in items]
    sizes = [len(leaves) for leaves, _ in parts]

    def build(leaves):
        out, i = [], 0
        for (leaves_k, rebuild), n in zip(parts, sizes):
            out.append(rebuild(leaves[i:i + n]))
            i += n
        if isinstance(tree, dict):
            return type(tree)(zip([k for k, _ in items], out))
        return type(tree)(out)

    return [x for leaves, _ in parts for x in leaves], build


def _prepare(args, argnums):
    """The differentiated inputs (pytrees of tensors), made to require grad (a tensor an outer
    transform already tracks is used as it is, so its graph reaches the result). Returns the
    arguments, the differentiated tensors (flat) and ``regroup``, which puts one value per
    differentiated tensor back in the arguments' shape (a tuple of them for a tuple argnums)."""
    n = len(args)
    for a in _as_tuple(argnums):
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    args = list(args)
    groups, diff = [], []
    for a in _as_tuple(argnums):
        leaves, build = _flatten(args[a])
        leaves = [x if x.requires_grad else x.detach().requires_grad_(True) for x in leaves]
        args[a] = build(leaves)
        groups.append((len(leaves), build))
        diff += leaves

    def regroup(values):
        per, i = [], 0
        for count, build in groups:
            per.append(build(values[i:i + count]))
            i += count
        return per[0] if isinstance(argnums, int) else tuple(per)

    return args, diff, regroup


def _grads(outputs, inputs, cotangents=None, **kw):
    """``autograd.grad`` with zeros for the inputs the outputs do not reach (as torch.func)."""
    import inplace_lab.torch as torch

    grads = torch.autograd.grad(outputs, inputs, cotangents, allow_unused=True, **kw)
    return [g if g is not None else torch.zeros_like(x) for g, x in zip(grads, inputs)]


def _detached(tree):
    leaves, build = _flatten(tree)
    return build([x.detach() if isinstance(x, _tensor_cls()) else x for x in leaves])


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient of func's scalar output w.r.t. args[argnums], the output)``."""
    import inplace_lab.torch as torch

    def wrapper(*args, **kwargs):
        outer = torch.is_grad_enabled() and any(
            isinstance(a, _tensor_cls()) and a.requires_grad for a in args)
        with torch.enable_grad():
            inputs, diff, regroup = _prepare(args, argnums)
            result = func(*inputs, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should "
                                       "be a tuple: (output, aux) if has_aux is True")
                result, aux = result
            if not isinstance(result, _tensor_cls()):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(result)}")
            if result.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {result.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            grads = _grads(result, diff, create_graph=outer)
        if not outer:
            grads = [g.detach() for g in grads]
            result, aux = result.detach(), _detached(aux)
        g = regroup(grads)
        return (g, (result, aux)) if has_aux else (g, result)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of func's scalar output w.r.t. ``args[argnums]`` (``(grad, aux)`` with
    ``has_aux``)."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` is ``v``'s pull-back to each primal."""
    import inplace_lab.torch as torch

    with torch.enable_grad():
        inputs, diff, regroup = _prepare(primals, tuple(range(len(primals))))
        out = func(*inputs)
    aux = None
    if has_aux:
        out, aux = out

    def vjp_fn(*cotangents):
        outs = out if isinstance(out, (tuple, list)) else (out,)
        vs = cotangents if isinstance(out, (tuple, list)) else cotangents[:1]
        return regroup(_grads(outs, diff, vs, retain_graph=True))

    result = out.detach() if isinstance(out, _tensor_cls()) else out
    return (result, vjp_fn, aux) if has_aux else (result, vjp_fn)


def jacrev(func, argnums=0, has_aux=False):
    """The Jacobian by reverse mode: one pull-back per output element, shaped
    ``output.shape + input.shape``."""
    import inplace_lab.torch as torch

    def wrapper(*args, **kwargs):
        with torch.enable_grad():
            inputs, diff, regroup = _prepare(args, argnums)
            out = func(*inputs, **kwargs)
            aux = None
            if has_aux:
                out, aux = out
            flat = out.reshape(-1)
            rows = [_grads(flat[i], diff, retain_graph=True) for i in range(flat.numel())]
        jacs = []
        for k, x in enumerate(diff):
            j = torch.stack([r[k] for r in rows]) if rows else torch.zeros(0, *x.shape)
            jacs.append(j.reshape(tuple(out.shape) + tuple(x.shape)).detach())
        j = regroup(jacs)
        return (j, aux) if has_aux else j

    return wrapper


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs: one call per index, results stacked
    along ``out_dims``."""
    import inplace_lab.torch as torch

    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(func, in_dims={tuple(in_dims)}, ...)(<inputs>): in_dims is "
                             f"not compatible with the structure of `inputs`. in_dims has "
                             f"structure {len(dims)} but inputs has structure {len(args)}.")
        sizes = {a.shape[d] for a, d in zip(args, dims)
                 if d is not None and isinstance(a, _tensor_cls())}
        if not sizes:
            raise ValueError("vmap(func)(<inputs>): At least one of the inputs must be a Tensor "
                             "to be mapped over (in_dims not None)")
        if len(sizes) > 1:
            got = [a.shape[d] for a, d in zip(args, dims)
                   if d is not None and isinstance(a, _tensor_cls())]
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {got} for the mapped dimension")
        n = sizes.pop()
        results = [func(*[a.select(d, i) if d is not None and isinstance(a, _tensor_cls())
                          else a for a, d in zip(args, dims)], **kwargs) for i in range(n)]
        flat = [_flatten(r) for r in results]
        build = flat[0][1]
        count = len(flat[0][0])
        odims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * count
        return build([torch.stack([torch.as_tensor(leaves[k]) for leaves, _ in flat],
                                  dim=odims[k]) for k in range(count)])

    return wrapper
