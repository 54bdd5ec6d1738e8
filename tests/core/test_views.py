"""Views exactly as SEMANTICS.md section 3, run side by side on torch and inplace_lab.

Each case is a program ``f(lib, x)`` over a fresh ``x = lib.arange(24.).reshape(2, 3, 4)``
(or a view of it); both libraries run it and must agree on: is it a view, ``_base`` (always
the root), shape, ``stride()``, ``storage_offset()``, the data pointer relative to the base,
shared version counter (both directions and between siblings) and values.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab import layout

torch = pytest.importorskip("torch")

VIEWS = {
    "view": lambda L, x: x.view(6, 4),
    "view_minus_one": lambda L, x: x.view(-1),
    "view_as": lambda L, x: x.view_as(L.zeros(4, 6)),
    "reshape_viewable": lambda L, x: x.reshape(3, 8),
    "reshape_as_viewable": lambda L, x: x.reshape_as(L.zeros(24)),
    "flatten": lambda L, x: x.flatten(),
    "flatten_partial": lambda L, x: x.flatten(1),
    "ravel": lambda L, x: x.ravel(),
    "t": lambda L, x: x[0].t(),
    "T": lambda L, x: x[0].T,
    "mT": lambda L, x: x.mT,
    "transpose": lambda L, x: x.transpose(0, 2),
    "transpose_neg": lambda L, x: x.transpose(-1, -2),
    "swapaxes": lambda L, x: x.swapaxes(0, 1),
    "permute": lambda L, x: x.permute(2, 0, 1),
    "permute_list": lambda L, x: x.permute([1, 2, 0]),
    "movedim": lambda L, x: x.movedim(0, -1),
    "movedim_tuple": lambda L, x: x.movedim((0, 1), (2, 0)),
    "squeeze": lambda L, x: x[:, :1].squeeze(),
    "squeeze_dim": lambda L, x: x[:, :1].squeeze(1),
    "squeeze_noop_dim": lambda L, x: x.squeeze(0),
    "squeeze_tuple": lambda L, x: x[:1, :1].squeeze((0, 1)),
    "unsqueeze": lambda L, x: x.unsqueeze(1),
    "unsqueeze_end": lambda L, x: x.unsqueeze(-1),
    "unflatten": lambda L, x: x.unflatten(2, (2, 2)),
    "unflatten_minus_one": lambda L, x: x.unflatten(-1, (-1, 2)),
    "expand": lambda L, x: x[:, :1].expand(2, 3, 4),
    "expand_new_dims": lambda L, x: x[0, 0].expand(5, 4),
    "expand_as": lambda L, x: x[:1].expand_as(x),
    "narrow": lambda L, x: x.narrow(1, 1, 2),
    "narrow_neg_start": lambda L, x: x.narrow(-1, -3, 2),
    "select": lambda L, x: x.select(1, 2),
    "select_neg": lambda L, x: x.select(-1, -1),
    "diagonal": lambda L, x: x.diagonal(),
    "diagonal_offset": lambda L, x: x.diagonal(1, 1, 2),
    "diagonal_neg_offset": lambda L, x: x.diagonal(-1, -2, -1),
    "unfold": lambda L, x: x.unfold(2, 2, 1),
    "unfold_step": lambda L, x: x.unfold(1, 2, 2),
    "as_strided": lambda L, x: x.as_strided((3, 3), (4, 1), 2),
    "int_index": lambda L, x: x[1],
    "slice_index": lambda L, x: x[:, 1:3],
    "step_index": lambda L, x: x[..., ::2],
    "none_index": lambda L, x: x[None, 0, :, None],
    "ellipsis_index": lambda L, x: x[..., 1],
    "neg_index": lambda L, x: x[-1, -2],
    "empty_slice": lambda L, x: x[:, 3:],
    "full_slice": lambda L, x: x[:],
    "view_of_view": lambda L, x: x[1].t()[1:].unsqueeze(0),
    "view_of_transpose": lambda L, x: x.transpose(0, 1).select(0, 1),
}

MULTI = {
    "split": lambda L, x: x.split(2, 2),
    "split_sizes": lambda L, x: x.split([1, 2], 1),
    "chunk": lambda L, x: x.chunk(2, -1),
    "chunk_uneven": lambda L, x: x.chunk(2, 1),
    "unbind": lambda L, x: x.unbind(1),
    "iter": lambda L, x: tuple(x),
}

COPIES = {
    "reshape_copying": lambda L, x: x.transpose(0, 1).reshape(-1),
    "flatten_copying": lambda L, x: x.transpose(1, 2).flatten(),
    "reshape_as_copying": lambda L, x: x.mT.reshape_as(L.zeros(24)),
    "ravel_copying": lambda L, x: x[..., ::2].ravel(),
    "advanced_index": lambda L, x: x[[0, 1]],
    "bool_index": lambda L, x: x[x > 5],
    "clone": lambda L, x: x.clone(),
    "contiguous_copy": lambda L, x: x.transpose(0, 1).contiguous(),
}


def both(f):
    xt = torch.arange(24.).reshape(2, 3, 4).clone()
    xi = il.arange(24.).reshape(2, 3, 4).clone()
    return (xt, f(torch, xt)), (xi, f(il, xi))


def _describe(root, v):
    it = v.element_size()
    return {
        "is_view": v._is_view(),
        "base_is_root": v._base is root,
        "shape": tuple(v.shape),
        "stride": tuple(v.stride()),
        "offset": v.storage_offset(),
        "ptr_delta": (v.data_ptr() - root.data_ptr()) // it if v.numel() else None,
        "values": np.asarray(v.detach() if hasattr(v, "detach") else v).tolist(),
    }


@pytest.mark.parametrize("name", VIEWS)
def test_view_metadata_matches_torch(name):
    (xt, vt), (xi, vi) = both(VIEWS[name])
    assert _describe(xi, vi) == _describe(xt, vt)
    assert vi._is_view() and vi._base is xi
    assert vi.untyped_storage() is xi.untyped_storage()


@pytest.mark.parametrize("name", MULTI)
def test_multi_output_views_match_torch(name):
    (xt, vts), (xi, vis) = both(MULTI[name])
    assert len(vis) == len(vts)
    for vt, vi in zip(vts, vis):
        assert _describe(xi, vi) == _describe(xt, vt)


@pytest.mark.parametrize("name", COPIES)
def test_copying_ops_are_not_views(name):
    (xt, ct), (xi, ci) = both(COPIES[name])
    assert ci._base is not xi and ci.untyped_storage() is not xi.untyped_storage()
    assert ct._is_view() == ci._is_view()  # ravel is a view of a fresh contiguous copy
    assert np.asarray(ci).tolist() == ct.tolist()
    assert ci.is_contiguous() and ci.stride() == ct.stride()
    before = np.asarray(xi).copy()
    ci.add_(1) if ci.numel() else None
    assert np.array_equal(np.asarray(xi), before)  # writes to a copy never reach x
    assert xi._version == 0 and ci._version == (1 if ci.numel() else 0)


def _version_trace(L, f):
    """Bump through the view, the base and a sibling; record every version after each step."""
    x = L.arange(24.).reshape(2, 3, 4).clone()
    v = f(L, x)
    v = v[0] if isinstance(v, tuple) else v
    w = x[0]
    trace = [(x._version, v._version, w._version)]
    for target in (v, x, w):
        if target is v and layout.has_internal_overlap(tuple(v.shape), v.stride()):
            target = x  # expand/overlapping unfold: in-place writes refused (see below)
        target.add_(0)
        trace.append((x._version, v._version, w._version))
    return trace


@pytest.mark.parametrize("name", list(VIEWS) + list(MULTI))
def test_views_share_the_version_counter_in_both_directions(name):
    f = {**VIEWS, **MULTI}[name]
    theirs = _version_trace(torch, f)
    assert _version_trace(il, f) == theirs
    assert theirs[-1] == (3, 3, 3)


@pytest.mark.parametrize("name", list(VIEWS))
def test_writes_through_a_view_reach_the_base(name):
    def prog(L):
        x = L.arange(24.).reshape(2, 3, 4).clone()
        v = VIEWS[name](L, x)
        if layout.has_internal_overlap(tuple(v.shape), v.stride()):
            return x.tolist()
        v.mul_(-1)
        return x.tolist()

    assert prog(il) == prog(torch)


def test_new_view_starts_at_the_base_version():
    x = il.zeros(3)
    x.add_(1)
    x.add_(1)
    v = x[1:]
    assert v._version == 2


def test_contiguous_returns_self_when_contiguous():
    x = il.zeros(2, 3)
    assert x.contiguous() is x
    y = x.t().contiguous()
    assert y is not x and not y._is_view() and y.is_contiguous()


def test_detach_shares_storage_and_counter_but_is_not_a_view():
    x = il.zeros(3, requires_grad=True)
    d = x.detach()
    assert not d._is_view() and d._base is None
    assert d.data_ptr() == x.data_ptr() and d.untyped_storage() is x.untyped_storage()
    d.add_(1)
    assert x._version == 1 and x.tolist() == [1.0, 1.0, 1.0]
    assert not d.requires_grad


def test_clone_gets_a_fresh_counter():
    x = il.zeros(3)
    x.add_(1)
    c = x.clone()
    assert c._version == 0 and c.data_ptr() != x.data_ptr()
    c.add_(1)
    assert x._version == 1


def test_data_shares_storage_with_a_fresh_counter():
    x = il.zeros(3, requires_grad=True)
    with il.no_grad():
        x.add_(1)
    d = x.data
    assert d.data_ptr() == x.data_ptr() and d._version == 0 and not d._is_view()
    d.zero_()
    assert x._version == 1 and d._version == 1 and x.tolist() == [0.0, 0.0, 0.0]


ERRORS = {
    "view_bad_size": lambda L: L.zeros(2, 3).view(4),
    "view_non_viewable": lambda L: L.zeros(2, 3).t().view(6),
    "view_two_minus_one": lambda L: L.zeros(2, 3).view(-1, -1),
    "reshape_bad_size": lambda L: L.zeros(2, 3).reshape(5),
    "permute_bad_len": lambda L: L.zeros(2, 3).permute(0),
    "permute_dup": lambda L: L.zeros(2, 3).permute(0, 0),
    "transpose_bad_dim": lambda L: L.zeros(2, 3).transpose(0, 2),
    "select_bad_index": lambda L: L.zeros(2, 3).select(1, 3),
    "select_bad_dim": lambda L: L.zeros(2, 3).select(2, 0),
    "select_0d": lambda L: L.tensor(1.).select(0, 0),
    "squeeze_bad_dim": lambda L: L.zeros(2, 1).squeeze(2),
    "unsqueeze_bad_dim": lambda L: L.zeros(2, 3).unsqueeze(3),
    "expand_bad_size": lambda L: L.zeros(2, 3).expand(2, 4),
    "expand_too_few": lambda L: L.zeros(2, 3).expand(3),
    "expand_neg_leading": lambda L: L.zeros(3).expand(-1, 3),
    "narrow_too_long": lambda L: L.zeros(2, 3).narrow(1, 2, 2),
    "t_3d": lambda L: L.zeros(2, 3, 4).t(),
    "mT_1d": lambda L: L.zeros(3).mT,
    "diagonal_same_dims": lambda L: L.zeros(2, 3).diagonal(0, 1, 1),
    "unfold_too_big": lambda L: L.zeros(3).unfold(0, 4, 1),
    "unfold_bad_step": lambda L: L.zeros(3).unfold(0, 2, 0),
    "as_strided_oob": lambda L: L.zeros(4).as_strided((3,), (2,)),
    "index_oob": lambda L: L.zeros(2, 3)[2],
    "index_too_many": lambda L: L.zeros(2, 3)[0, 0, 0],
    "index_0d": lambda L: L.tensor(1.)[0],
    "split_bad_sizes": lambda L: L.zeros(4).split([1, 2]),
    "chunk_zero": lambda L: L.zeros(4).chunk(0),
    "flatten_bad_order": lambda L: L.zeros(2, 3, 4).flatten(2, 1),
    "unflatten_bad": lambda L: L.zeros(2, 6).unflatten(1, (4, 2)),
    "unflatten_bad_infer": lambda L: L.zeros(2, 6).unflatten(1, (-1, 4)),
    "unflatten_empty": lambda L: L.zeros(2, 6).unflatten(1, ()),
    "narrow_bad_start": lambda L: L.zeros(3).narrow(0, -4, 1),
    "narrow_neg_length": lambda L: L.zeros(3).narrow(0, 1, -1),
    "select_neg_oob": lambda L: L.zeros(2, 3).select(1, -4),
}


@pytest.mark.parametrize("name", ERRORS)
def test_view_errors_match_torch(name):
    with pytest.raises(Exception) as want:
        ERRORS[name](torch)
    with pytest.raises(Exception) as got:
        ERRORS[name](il)
    assert isinstance(got.value, type(want.value)), (type(got.value), type(want.value))
    w = str(want.value).split("\n")[0]
    assert str(got.value).split("\n")[0] == w


def test_expanded_view_refuses_in_place_writes_like_torch():
    for L in (torch, il):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            L.zeros(3).expand(2, 3).add_(1)


def test_overlapping_unfold_is_refused_where_torch_gives_order_dependent_values():
    """Deliberate deviation: torch cannot prove the overlap ("too hard") and applies the op once
    per *element*, so shared cells change several times; inplace_lab refuses the write."""
    t = torch.arange(6.)
    t.unfold(0, 3, 1).add_(1)
    assert t.tolist() == [1., 3., 5., 6., 6., 6.]  # cells shared by k windows got +k
    x = il.arange(6.)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.unfold(0, 3, 1).add_(1)
    assert x.tolist() == [0., 1., 2., 3., 4., 5.] and x._version == 0


def _grad_trace(L, f):
    x = L.arange(24.).reshape(2, 3, 4).clone().requires_grad_()
    v = f(L, x * 1)
    outs = v if isinstance(v, tuple) else (v,)
    w = L.arange(float(outs[0].numel())).reshape(outs[0].shape) if outs[0].numel() else 0
    (outs[0] * w).sum().backward()
    return [o.grad_fn.name() for o in outs], x.grad.tolist()


@pytest.mark.parametrize("name", list(VIEWS) + list(MULTI))
def test_view_grad_fn_names_and_gradients_match_torch(name):
    f = {**VIEWS, **MULTI}[name]
    assert _grad_trace(il, f) == _grad_trace(torch, f)


INPLACE_META = {
    "t_": lambda y: y[0].clone().t_(),
    "transpose_": lambda y: y.transpose_(0, 2),
    "swapaxes_": lambda y: y.swapaxes_(1, 2),
    "squeeze_": lambda y: y[:, :1].clone().squeeze_(),
    "squeeze_dim": lambda y: y[:, :1].clone().squeeze_(1),
    "squeeze_noop": lambda y: y.squeeze_(0),
    "squeeze_dims": lambda y: y[:1, :1].clone().squeeze_((0, 1)),
    "unsqueeze_": lambda y: y.unsqueeze_(1),
    "as_strided_": lambda y: y.as_strided_((3, 4), (4, 1), 4),
}


@pytest.mark.parametrize("name", INPLACE_META)
def test_inplace_metadata_ops_match_torch(name):
    def run(L):
        x = L.arange(24.).reshape(2, 3, 4).clone().requires_grad_()
        y = x * 1
        r = INPLACE_META[name](y)
        w = L.arange(float(r.numel())).reshape(r.shape)
        (r * w).sum().backward()
        return [r.grad_fn.name(), r._version, tuple(r.shape), r.stride(), x.grad.tolist()]

    assert run(il) == run(torch)
