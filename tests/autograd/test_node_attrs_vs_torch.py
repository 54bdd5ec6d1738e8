"""A node's ``_saved_*`` attributes are torch 2.13's: the names ``dir(y.grad_fn)`` lists and
their values.

Students find what a node keeps with ``dir(y.grad_fn)``: torch's nodes list neither the
scalar arguments their formulas do not read (softmax's dtype, a full sum's dim and keepdim,
a true division's rounding_mode) nor them under our names (``ord``, not ``p``), and they list
sizes they keep as ints (``_saved_self_sym_sizes``: a tuple). The table says so per node
(``OpSpec.node_attrs``, ``ops/table.py``'s NODE_ATTRS). A saved tensor is compared by its role
(which of the program's tensors it is) or, if it is none of them, by shape and dtype.
"""
import pytest

from tests.differential.harness import compare_torch


def _t(T, *shape):
    n = 1
    for d in shape:
        n *= d
    return (T.arange(float(n), dtype=T.float64).reshape(shape) / n + 0.5).requires_grad_()


# name -> (program on T, F and the inputs dict it fills, attributes whose value forms differ
# still: their names are compared, not their values)
_CASES = {
    "sum": (lambda T, F, v: T.sum(v.setdefault("x", _t(T, 4, 3))), ()),
    "sum dim": (lambda T, F, v: T.sum(v.setdefault("x", _t(T, 4, 3)), (0,)), ()),
    "mean": (lambda T, F, v: T.mean(v.setdefault("x", _t(T, 4, 3))), ()),
    "mean dim": (lambda T, F, v: T.mean(v.setdefault("x", _t(T, 4, 3)), (1,)), ()),
    "l1_loss": (lambda T, F, v: F.l1_loss(v.setdefault("x", _t(T, 4, 3)), _t(T, 4, 3)), ()),
    "prod": (lambda T, F, v: T.prod(v.setdefault("x", _t(T, 4, 3))), ()),
    "prod dim": (lambda T, F, v: T.prod(v.setdefault("x", _t(T, 4, 3)), 0), ()),
    "cumsum": (lambda T, F, v: T.cumsum(v.setdefault("x", _t(T, 4, 3)), 0), ()),
    "cumprod": (lambda T, F, v: T.cumprod(v.setdefault("x", _t(T, 4, 3)), 0), ()),
    "softmax": (lambda T, F, v: T.softmax(v.setdefault("x", _t(T, 4, 3)), 0), ()),
    "log_softmax": (lambda T, F, v: T.log_softmax(v.setdefault("x", _t(T, 4, 3)), 1), ()),
    "true div": (lambda T, F, v: v.setdefault("x", _t(T, 4, 3)) / v.setdefault("y", _t(T, 4, 3)),
                 ()),
    "div number": (lambda T, F, v: T.div(v.setdefault("x", _t(T, 4, 3)), 4), ()),
    "std": (lambda T, F, v: T.std(v.setdefault("x", _t(T, 4, 3)), 0), ()),
    "var_mean": (lambda T, F, v: T.var_mean(v.setdefault("x", _t(T, 4, 3)), 0)[0],
                 ()),
    "vector_norm": (lambda T, F, v: T.linalg.vector_norm(v.setdefault("x", _t(T, 4, 3)), 3),
                    ()),
    "vector_norm dim": (lambda T, F, v: T.linalg.vector_norm(
        v.setdefault("x", _t(T, 4, 3)), 3, dim=0), ()),
    "kthvalue": (lambda T, F, v: T.kthvalue(v.setdefault("x", _t(T, 4, 3)), 2, 0)[0], ()),
    "sort": (lambda T, F, v: T.sort(v.setdefault("x", _t(T, 4, 3)), 0)[0], ()),
    "topk": (lambda T, F, v: T.topk(v.setdefault("x", _t(T, 4, 3)), 2, 0)[0], ()),
    "max dim": (lambda T, F, v: T.max(v.setdefault("x", _t(T, 4, 3)), 0)[0], ()),
    "nanmedian dim": (lambda T, F, v: T.nanmedian(v.setdefault("x", _t(T, 4, 3)), 0)[0], ()),
    "trace": (lambda T, F, v: T.trace(v.setdefault("x", _t(T, 4, 3))), ()),
    "view": (lambda T, F, v: v.setdefault("x", _t(T, 4, 3)).view(2, 6), ()),
    "tensordot": (lambda T, F, v: T.tensordot(_t(T, 4, 3), _t(T, 3, 2), 1), ()),
    "kron": (lambda T, F, v: T.kron(_t(T, 2, 3), _t(T, 2, 2)), ()),
    "matmul 1d2d": (lambda T, F, v: T.matmul(_t(T, 3), _t(T, 3, 2)), ()),
    "masked_scatter": (lambda T, F, v: (lambda s: s.masked_scatter(
        s > 1, v.setdefault("src", _t(T, 3, 4))))(v.setdefault("s", _t(T, 3, 4))), ()),
    "addbmm": (lambda T, F, v: T.addbmm(_t(T, 4, 2), v.setdefault("b1", _t(T, 2, 4, 3)),
                                        v.setdefault("b2", _t(T, 2, 3, 2))), ()),
    "unfold": (lambda T, F, v: F.unfold(v.setdefault("x", _t(T, 1, 2, 4, 4)), 2), ()),
    "layer_norm": (lambda T, F, v: F.layer_norm(v.setdefault("x", _t(T, 4, 3)), (3,),
                                                v.setdefault("w", _t(T, 3)),
                                                v.setdefault("b", _t(T, 3))), ()),
    "embedding": (lambda T, F, v: F.embedding(v.setdefault("i", T.tensor([0, 2, 4])),
                                              v.setdefault("w", _t(T, 5, 3))), ()),
    "adaptive_avg_pool2d": (lambda T, F, v: F.adaptive_avg_pool2d(
        v.setdefault("x", _t(T, 1, 2, 4, 4) * 1), 2), ()),
    "constant pad": (lambda T, F, v: F.pad(v.setdefault("x", _t(T, 1, 2, 4)), (1, 2), value=.5),
                     ()),
    "inverse": (lambda T, F, v: T.linalg.inv(_t(T, 3, 3) + T.eye(3, dtype=T.float64) * 3), ()),
    "cholesky": (lambda T, F, v: T.linalg.cholesky(
        (lambda a: a @ a.mT + T.eye(3, dtype=T.float64))(_t(T, 3, 3))), ()),
    "conv1d": (lambda T, F, v: F.conv1d(v.setdefault("x", _t(T, 1, 2, 5)), v.setdefault(
        "w", _t(T, 3, 2, 2)), _t(T, 3)), ()),
    "conv2d no bias": (lambda T, F, v: F.conv2d(v.setdefault("x", _t(T, 1, 2, 5, 5)),
                                                v.setdefault("w", _t(T, 3, 2, 2, 2)),
                                                stride=2, padding=1), ()),
    "conv_transpose2d": (lambda T, F, v: F.conv_transpose2d(
        v.setdefault("x", _t(T, 1, 2, 5, 5)), v.setdefault("w", _t(T, 2, 3, 2, 2)), _t(T, 3),
        stride=2, output_padding=1), ()),
    "group_norm": (lambda T, F, v: F.group_norm(v.setdefault("x", _t(T, 2, 4, 3, 2)), 2,
                                                v.setdefault("w", _t(T, 4)), _t(T, 4)), ()),
    "qr Q": (lambda T, F, v: T.linalg.qr(_t(T, 4, 3))[0], ()),
    "qr R": (lambda T, F, v: T.linalg.qr(_t(T, 4, 3))[1], ()),
    "svdvals": (lambda T, F, v: T.linalg.svdvals(_t(T, 4, 3)), ()),
    "eigvalsh": (lambda T, F, v: T.linalg.eigvalsh(_t(T, 3, 3) + _t(T, 3, 3).mT), ()),
    "eigh vectors": (lambda T, F, v: T.linalg.eigh(_t(T, 3, 3) + _t(T, 3, 3).mT)[1], ()),
    # value forms: int64 arguments unsigned when negative, IntArrayRef dims as tuples, a pool's
    # sizes as n ints (stride () when left out), a loss's reduction as a number
    "sum dim -1": (lambda T, F, v: T.sum(v.setdefault("x", _t(T, 4, 3)), -1), ()),
    "std -1 unbiased=False": (lambda T, F, v: T.std(_t(T, 4, 3), -1, unbiased=False), ()),
    "std correction": (lambda T, F, v: T.std(_t(T, 4, 3), (0, 1), correction=0), ()),
    "logsumexp dims": (lambda T, F, v: T.logsumexp(_t(T, 4, 3), (0, -1)), ()),
    "norm fro": (lambda T, F, v: T.norm(_t(T, 4, 3)), ()),
    "softmax -1": (lambda T, F, v: T.softmax(_t(T, 4, 3), -1), ()),
    "transpose": (lambda T, F, v: _t(T, 4, 3).transpose(0, -1), ()),
    "squeeze -1": (lambda T, F, v: _t(T, 4, 1).squeeze(-1), ()),
    "cross": (lambda T, F, v: T.linalg.cross(_t(T, 2, 3), _t(T, 2, 3)), ()),
    "diag_embed": (lambda T, F, v: T.diag_embed(_t(T, 4, 3)), ()),
    "glu": (lambda T, F, v: F.glu(_t(T, 4, 4)), ()),
    "tril -1": (lambda T, F, v: T.tril(_t(T, 4, 3), -1), ()),
    "mse sum": (lambda T, F, v: F.mse_loss(_t(T, 4, 3), _t(T, 4, 3), reduction="sum"), ()),
    "nll_loss": (lambda T, F, v: F.nll_loss(_t(T, 4, 3), T.tensor([0, 1, 2, 0])), ()),
    "embedding padding_idx": (lambda T, F, v: F.embedding(T.tensor([0, 2]), _t(T, 5, 3),
                                                          padding_idx=-2), ()),
    "max_pool2d": (lambda T, F, v: F.max_pool2d(_t(T, 1, 2, 6, 6) * 1, 2), ()),
    "max_pool2d stride": (lambda T, F, v: F.max_pool2d(_t(T, 1, 2, 7, 7) * 1, 3, 2, 1,
                                                       ceil_mode=True), ()),
    "avg_pool2d": (lambda T, F, v: F.avg_pool2d(_t(T, 1, 2, 6, 6) * 1, (2, 3)), ()),
    "max_pool3d": (lambda T, F, v: F.max_pool3d(_t(T, 1, 2, 4, 4, 4) * 1, 2), ()),
    "avg_pool3d": (lambda T, F, v: F.avg_pool3d(_t(T, 1, 2, 4, 4, 4) * 1, 2, 1), ()),
    # views keep their input's sizes, and torch's own names for their arguments
    "squeeze": (lambda T, F, v: _t(T, 4, 1, 3).squeeze(), ()),
    "squeeze dims": (lambda T, F, v: _t(T, 4, 1, 3).squeeze((1,)), ()),
    "expand": (lambda T, F, v: _t(T, 4, 1, 3).expand(2, 4, 2, 3), ()),
    "permute": (lambda T, F, v: _t(T, 4, 1, 3).permute(2, 0, -2), ()),
    "select": (lambda T, F, v: _t(T, 4, 1, 3).select(-1, 1), ()),
    "narrow": (lambda T, F, v: _t(T, 4, 1, 3).narrow(0, -3, 2), ()),
    "slice": (lambda T, F, v: _t(T, 4, 1, 3)[1:3], ()),
    "diagonal": (lambda T, F, v: _t(T, 4, 1, 3).diagonal(0, 0, -1), ()),
    "unfold view": (lambda T, F, v: _t(T, 4, 1, 3).unfold(0, 2, 1), ()),
    "split": (lambda T, F, v: _t(T, 5, 3).split(2)[1], ()),
    "chunk": (lambda T, F, v: _t(T, 5, 3).chunk(2)[1], ()),
    "repeat": (lambda T, F, v: _t(T, 4, 3).repeat(2, 1), ()),
    "nansum": (lambda T, F, v: _t(T, 4, 3).nansum(-1), ()),
    "flip": (lambda T, F, v: _t(T, 4, 3).flip(-1), ()),
    "roll": (lambda T, F, v: _t(T, 4, 3).roll(1, -1), ()),
    "index_select": (lambda T, F, v: _t(T, 4, 3).index_select(-1, T.tensor([0])), ()),
    "gather": (lambda T, F, v: _t(T, 4, 3).gather(-1, T.zeros(4, 1, dtype=T.long)), ()),
    # scalar arguments torch's nodes do not keep
    "add number": (lambda T, F, v: _t(T, 4, 3) + 0.5, ()),
    "sub number": (lambda T, F, v: T.sub(_t(T, 4, 3), 2, alpha=3), ()),
    "mul number": (lambda T, F, v: _t(T, 4, 3) * 2, ()),
    "remainder number": (lambda T, F, v: _t(T, 4, 3).remainder(2), ()),
    "std all": (lambda T, F, v: _t(T, 4, 3).std(), ()),
    "var unbiased": (lambda T, F, v: _t(T, 4, 3).var(unbiased=True), ()),
    "var_mean all": (lambda T, F, v: T.var_mean(_t(T, 4, 3))[0], ()),
    "unflatten": (lambda T, F, v: _t(T, 4, 3).unflatten(-1, (3, 1)), ()),
    "index": (lambda T, F, v: _t(T, 4, 3)[T.tensor([0, 2])], ("indices",)),
    "index_add": (lambda T, F, v: _t(T, 4, 3).index_add(-1, T.tensor([0]), _t(T, 4, 1)), ()),
    "index_copy": (lambda T, F, v: _t(T, 4, 3).index_copy(0, T.tensor([0]), _t(T, 1, 3)), ()),
    "max": (lambda T, F, v: _t(T, 4, 3).max(), ()),
    "min": (lambda T, F, v: _t(T, 4, 3).min(), ()),
    "threshold": (lambda T, F, v: F.threshold(_t(T, 4, 3), 0.1, 0.), ()),
    "masked_fill": (lambda T, F, v: (lambda x: x.masked_fill(x > 1, 0.))(_t(T, 4, 3)), ()),
    "index_fill": (lambda T, F, v: _t(T, 4, 3).index_fill(-1, T.tensor([0]), 1.), ()),
    "scatter value": (lambda T, F, v: _t(T, 4, 3).scatter(-1, T.zeros(4, 1, dtype=T.long), 1.),
                      ()),
    "scatter src": (lambda T, F, v: _t(T, 4, 3).scatter(0, T.zeros(1, 3, dtype=T.long),
                                                        _t(T, 1, 3)), ()),
    "nan_to_num": (lambda T, F, v: _t(T, 4, 3).nan_to_num(), ()),
    "clone": (lambda T, F, v: _t(T, 4, 3).clone(), ()),
    "to": (lambda T, F, v: _t(T, 4, 3).to(T.float32), ()),
    "round decimals": (lambda T, F, v: _t(T, 4, 3).round(decimals=1), ()),
    "diag vector": (lambda T, F, v: _t(T, 3).diag(1), ()),
    "diag matrix": (lambda T, F, v: _t(T, 4, 3).diag(-1), ()),
    "diagflat": (lambda T, F, v: T.diagflat(_t(T, 2, 2)), ()),
}


def _observe(T, case):
    f, loose = _CASES[case]
    v = {}
    y = f(T, T.nn.functional, v)
    node = y.grad_fn
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    values = {}
    for n in names:
        if n[len("_saved_"):] in loose:
            continue
        a = getattr(node, n)
        if isinstance(a, T.Tensor):
            a = next((k for k, t in v.items() if t is a), None) or (
                "tensor", tuple(a.shape), str(a.dtype).split(".")[-1])
        values[n] = a
    return {"node": node.name(), "names": names, "values": values}


@pytest.mark.parametrize("case", list(_CASES))
def test_saved_attributes_are_torchs(case):
    compare_torch(lambda T: _observe(T, case), facade=True)


def test_formulas_keep_their_names():
    """Hiding ``_saved_dim`` from a full sum or renaming ``p`` changes only the attributes:
    the backward formulas still read their own names, and the gradients are torch's."""
    def prog(T):
        F = T.nn.functional
        x = _t(T, 4, 3)
        w = _t(T, 2, 3)
        (T.sum(x) + T.linalg.vector_norm(x, 3) + T.softmax(x, 0)[0, 0] +
         T.topk(x, 2, 0)[0].sum() + x.view(2, 6).sum() + T.mean(x) +
         F.conv1d(x[None], w[:, :, None]).sum() + F.group_norm(x[None], 3).pow(2).sum() +
         T.linalg.qr(x)[0].sum()).backward()
        return {"grad": x.grad, "w": w.grad}
    compare_torch(prog, facade=True)
