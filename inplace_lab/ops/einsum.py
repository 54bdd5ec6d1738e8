"""``einsum``, as PyTorch 2.13 computes it: no maths of its own, only table ops.

PyTorch's einsum (ATen ``Linear.cpp``) is a *composite*: it lines every operand up on one
common axis order (output labels first, then the labels summed away), taking a diagonal
for a repeated label (``'ii->i'``) and an unsqueeze for a label the operand lacks; then it
multiplies operands pairwise, left to right, each pair as permute -> reshape -> ``bmm`` ->
view -> permute (``sumproduct_pair``), and sums a label away as soon as no later operand
uses it. The same steps here give the same graph, so autograd needs nothing new and a
student sees the nodes PyTorch shows:

>>> import inplace_lab as il
>>> a, b = il.ones(2, 3, requires_grad=True), il.ones(3, 4)
>>> il.einsum('ij,jk->ik', a, b).grad_fn.name()   # the final view over BmmBackward0
'ViewBackward0'

With three or more operands PyTorch lets the ``opt_einsum`` package (when installed)
choose which pairs to contract first; so does this one, with the same strategy ('auto').
"""
from __future__ import annotations

from ..tensor import Tensor
from .table import OpSpec, register

_ELL = "..."


def _parse_operand(spec: str, op_index: int, offset: int):
    """One operand's labels: a list of letters, with ``...`` as one entry."""
    labels, i = [], 0
    while i < len(spec):
        ch = spec[i]
        if ch == " ":
            i += 1
            continue
        if ch == ".":
            if _ELL in labels:
                raise RuntimeError(f"einsum(): found '.' for operand {op_index} for which an "
                                   "ellipsis was already found")
            if spec[i:i + 3] != _ELL:
                raise RuntimeError(f"einsum(): found '.' for operand {op_index} that is not "
                                   "part of any ellipsis")
            labels.append(_ELL)
            i += 3
            continue
        if not (ch.isascii() and ch.isalpha()):
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        labels.append(ch)
        i += 1
    return labels


def _parse(equation: str, operands):
    """(labels per operand, output labels or None for the implicit form)."""
    lhs, arrow, rhs = equation.partition("->")
    parts = lhs.split(",")
    if len(parts) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(parts) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    op_labels, offset = [], 0
    for k, part in enumerate(parts):
        op_labels.append(_parse_operand(part, k, offset))
        offset += len(part) + 1
    out = None
    if arrow:
        out, i = [], 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == " ":
                i += 1
                continue
            if ch == ".":
                if _ELL in out:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                       "already found")
                if rhs[i:i + 3] != _ELL:
                    raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                       "ellipsis (...)")
                out.append(_ELL)
                i += 3
                continue
            if not (ch.isascii() and ch.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i}"
                                   " in the equation string, subscripts must be in [a-zA-Z]")
            out.append(ch)
            i += 1
    return op_labels, out


def _order(ch):
    """PyTorch numbers labels A-Z before a-z: the implicit output is in that order."""
    return (ch.islower(), ch)


def _plan(op_labels, out, operands):
    """Where each label goes in the common axis order; (perm index, output ndim, ell index, ell ndim)."""
    count, ell_ndim = {}, 0
    for k, (labels, t) in enumerate(zip(op_labels, operands)):
        n = sum(lab != _ELL for lab in labels)
        has_ell = _ELL in labels
        for lab in labels:
            if lab != _ELL:
                count[lab] = count.get(lab, 0) + 1
        if has_ell:
            ell_ndim = max(ell_ndim, t.ndim - n)
        if (n > t.ndim) if has_ell else (n != t.ndim):
            what = ") is more than the number of dimensions (" if has_ell else \
                ") does not match the number of dimensions ("
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}{what}"
                               f"{t.ndim}) for operand {k}" +
                               ("" if has_ell else " and no ellipsis was given"))
    index, pos, ell_index, ell_out = {}, 0, 0, False
    if out is None:  # implicit: the ellipsis, then every label used once, alphabetically
        pos, ell_out = ell_ndim, True
        for lab in sorted((lab for lab, c in count.items() if c == 1), key=_order):
            index[lab] = pos
            pos += 1
    else:
        for lab in out:
            if lab == _ELL:
                ell_index, ell_out = pos, True
                pos += ell_ndim
                continue
            if lab not in count or lab in index:
                why = " appears more than once in the output" if lab in index else \
                    " does not appear in the equation for any input operand"
                raise RuntimeError(f"einsum(): output subscript {lab}{why}")
            index[lab] = pos
            pos += 1
    out_ndim = pos
    if not ell_out:  # an ellipsis missing from the output is summed away
        ell_index = pos
        pos += ell_ndim
    for lab in sorted(count, key=_order):
        if lab not in index:
            index[lab] = pos
            pos += 1
    return index, pos, out_ndim, ell_index, ell_ndim


def _align(op_labels, operands, index, total, ell_index, ell_ndim):
    """Each operand on the common axis order (diagonals, unsqueezes, one permute), and for
    each axis how many operands have it with a size other than 1."""
    label_size, ell_size = {}, [1] * ell_ndim
    counts = [0] * total
    aligned = []
    for k, (labels, op) in enumerate(zip(op_labels, operands)):
        perm = [-1] * total
        dim = 0
        for lab in labels:
            if lab == _ELL:
                n = op.ndim - (len(labels) - 1)
                for j in range(ell_ndim - n, ell_ndim):
                    size = op.shape[dim]
                    if size != 1:
                        if ell_size[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {k}has "
                                f"size {size} which does not broadcast with previously seen "
                                f"ellipsis with size {ell_size[j]} for the respective dimension")
                        ell_size[j] = size
                        counts[ell_index + j] += 1
                    perm[ell_index + j] = dim
                    dim += 1
            elif perm[index[lab]] == -1:
                size = op.shape[dim]
                if size != 1:
                    seen = label_size.get(lab, 1)
                    if seen not in (1, size):
                        raise RuntimeError(f"einsum(): subscript {lab} has size {size} for operand "
                                           f"{k} which does not broadcast with previously seen "
                                           f"size {seen}")
                    label_size[lab] = size
                    counts[index[lab]] += 1
                perm[index[lab]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, put where the label first was
                prev = perm[index[lab]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {lab} is repeated for operand {k} but "
                                       f"the sizes don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for j in range(total):
            if perm[j] == -1:
                op = op.unsqueeze(dim)
                perm[j] = dim
                dim += 1
        aligned.append(op.permute(perm))
    return aligned, counts


def sumproduct_pair(left, right, sum_dims, keepdim=True):
    """``(left * right).sum(sum_dims)`` as one ``bmm`` (PyTorch's sumproduct_pair).

    Both operands have the same number of axes (1 where absent). Axes in both and in the
    output form the bmm's batch, axes in one only its rows or columns, summed axes the
    inner dimension; an axis to sum that only one operand has is summed right away.
    """
    if not sum_dims:
        return left * right
    ndim = left.ndim
    sums = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sums:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + \
        [1] * len(sum_dims) + [right.shape[d] for d in ro]
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = left.permute(lperm).reshape(lro_size, lo_size, sum_size)
    right = right.permute(rperm).reshape(lro_size, sum_size, ro_size)
    result = left.bmm(right).view(out_size).permute(operm)
    if not keepdim:
        result = result.view([n for i, n in enumerate(result.shape) if i not in sums])
    return result


def _sublist_equation(args):
    """``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` -> ('ab,bc->ac', (op1, op2))."""
    def letters(sub):
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += _ELL
            elif isinstance(v, int) and 0 <= v < 52:
                s += chr(ord("A") + v) if v < 26 else chr(ord("a") + v - 26)
            else:
                raise ValueError("einsum(): expected subscript to be within the range [0, 52)")
        return s

    operands = args[0::2]
    subs = args[1::2]
    out = None
    if len(args) % 2 == 1:  # the last entry is the output's sublist
        operands, out = args[0:-1:2], args[-1]
        subs = args[1:-1:2]
    eq = ",".join(letters(s) for s in subs)
    if out is not None:
        eq += "->" + letters(out)
    return eq, tuple(operands)


def _opt_path(equation, operands):
    """With three or more operands PyTorch asks opt_einsum (when installed) for the pairing
    order, strategy 'auto'; each pair's result goes to the end of the list. None: left to right."""
    if len(operands) < 3:
        return None
    try:
        import opt_einsum
    except ImportError:
        return None
    try:
        path = opt_einsum.contract_path(equation, *[tuple(t.shape) for t in operands],
                                        optimize="auto", shapes=True)[0]
    except Exception:  # noqa: BLE001 - an equation opt_einsum refuses: PyTorch's own order
        return None
    return [tuple(p) for p in path]


def einsum(*args):
    """``torch.einsum(equation, *operands)`` (or a list of operands, or PyTorch's sublist
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``): Einstein summation as table ops."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    op_labels, out = _parse(equation, operands)
    index, total, out_ndim, ell_index, ell_ndim = _plan(op_labels, out, operands)
    ops, counts = _align(op_labels, operands, index, total, ell_index, ell_ndim)
    path = _opt_path(equation, operands)
    while len(ops) > 1:  # contract pairs, summing each axis once its last user is in
        if path:
            i, j = sorted(path.pop(0))
            b, a = ops.pop(j), ops.pop(i)
        else:
            a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_ndim, total):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, True)
        if b_sum:
            b = b.sum(b_sum, True)
        pair = sumproduct_pair(a, b, sum_dims, True)
        if path is not None:
            ops.append(pair)
        else:
            ops.insert(0, pair)
    result = ops[0]
    if total > out_ndim:
        if len(operands) > 1:  # every summed axis has size 1 by now
            return result.view(list(result.shape[:out_ndim]))
        return result.sum(list(range(out_ndim, total)))
    return result


register(OpSpec(name="einsum", forward=einsum, kind="composite", method=False,
                doc=einsum.__doc__))
