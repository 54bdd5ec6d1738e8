"""In-place policies: whose rules and whose words apply (``pytorch``, ``paddle``, ``paddle-legacy``).

The dispatcher asks the active policy what to do at the moments where the
frameworks differ: an in-place op on a leaf or a view of a leaf, whether a view
modified in place rewrites its base's history, the text of a saved-tensor
error, non-scalar ``backward()``, and (legacy Paddle) in-place ops whose
backward needs the overwritten input.

>>> import inplace_lab as il
>>> with il.inplace_policy("paddle"):
...     pass
"""
from __future__ import annotations

import contextlib

from . import errors

POLICIES = ("pytorch", "paddle", "paddle-legacy")
_current = "pytorch"

# > 0 while the core's own code runs on the user's tensors: a composite op (matmul's reshape
# + bmm, einsum) or a backward formula (bmm's ``mat2.transpose(1, 2)``). That code calls
# tensor methods with PyTorch's signatures; a facade tensor whose methods take the framework's
# own (``paddle.Tensor.transpose(perm)``, ``reshape(shape)``) answers those calls with the
# core's methods while this is set. A list, so that readers share one mutable cell.
core_calls = [0]


def get_inplace_policy() -> str:
    return _current


def set_inplace_policy(name: str) -> None:
    """Switch the rules for the whole session: 'pytorch' (default), 'paddle' or 'paddle-legacy'."""
    global _current
    if name not in POLICIES:
        raise ValueError(f"unknown in-place policy {name!r}: choose one of {', '.join(POLICIES)}")
    _current = name


@contextlib.contextmanager
def inplace_policy(name: str):
    """``with inplace_policy('paddle'):`` runs a block under another framework's rules."""
    prev = _current
    set_inplace_policy(name)
    try:
        yield
    finally:
        set_inplace_policy(prev)


def policy_of(t) -> str:
    """The policy for an op on ``t``: a facade's tensor keeps its facade's rules."""
    return t._policy or _current


def is_paddle(name) -> bool:
    return name in ("paddle", "paddle-legacy")


# ---- Paddle's type promotion -------------------------------------------------------------------

# Ops whose Paddle kernels check the two tensors' dtypes before running (Paddle's type
# promotion white list; the table's names): int with float, or two int widths, is a TypeError.
PADDLE_PROMOTED = frozenset((
    "add", "sub", "mul", "div", "pow", "floor_divide", "remainder", "maximum", "minimum",
    "fmax", "fmin", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "logical_xor"))
# Of those, the ones whose Python API takes a 0-D tensor as it takes a number (no check, and
# no promotion by it: float32 + float64 0-D is float32); the others promote by a 0-D operand
# as by any (float32 max float64 0-D is float64). floor_divide only skips the check.
PADDLE_ZERO_DIM_AS_NUMBER = frozenset((
    "add", "sub", "mul", "div", "pow", "remainder", "floor_divide", "eq", "ne", "lt", "le",
    "gt", "ge"))


def check_paddle_promotion(x, y, inplace: bool = False, op: str = "add") -> None:
    """Paddle 3.3.1's ``NeedTypePromotion``: two tensors of different dtypes may meet only if
    both are floating point or one is complex. Out of place, a 0-D tensor takes part like a
    Python number in arithmetic (no check); an in-place op checks it too (``x.add_(0-D
    float)``), and so do ``maximum``, ``atan2``, ``logical_and`` ... (``op``)."""
    if not (hasattr(x, "_vc") and hasattr(y, "_vc")):
        return
    a, b = x._dtype, y._dtype
    if a is b or not inplace and (not x._shape or not y._shape) and \
            op in PADDLE_ZERO_DIM_AS_NUMBER:
        return
    if (a.is_floating_point and b.is_floating_point) or a.is_complex or b.is_complex:
        return
    raise TypeError(
        "(InvalidType) Type promotion only support calculations between floating-point numbers "
        f"and between complex and real numbers. But got different data type x: {a.name}, "
        f"y: {b.name}. (at /paddle/paddle/phi/common/type_promotion.h:220)\n")


def paddle_promote(op: str, ins, dt):
    """``(dtype, operands)`` as Paddle's type promotion runs a binary op on two tensors of
    different dtypes: the result's dtype (a 0-D operand counts unless the op takes it as a
    number), and each tensor operand of another dtype cast to it before the kernel runs (a
    CastGradNode in the graph): the op saves the cast copy, so an in-place change of the
    original after ``x32 * y64`` does not break backward."""
    from . import dtypes

    x, y = ins[0], ins[1]
    if not (hasattr(x, "_vc") and hasattr(y, "_vc")) or x._dtype is y._dtype:
        return dt, ins  # (a number operand, or one dtype: nothing to cast)
    if op not in PADDLE_ZERO_DIM_AS_NUMBER or op == "floor_divide" and \
            x._dtype.is_floating_point and y._dtype.is_floating_point:
        if dt.is_floating_point or dt.is_complex:
            dt = dtypes.promote_types(x._dtype, y._dtype)
    if not (dt.is_floating_point or dt.is_complex):
        return dt, ins
    return dt, [t.astype(dt) if i < 2 and t._dtype is not dt else t for i, t in enumerate(ins)]


# What Paddle's grad nodes keep beyond PyTorch's saved tensors (and check, like them, when
# backward reaches the node): CumsumGradNode keeps x, DivideGradNode its output.
PADDLE_EXTRA_SAVES = {"cumsum": "self", "div": "result"}
# What PyTorch's node keeps and checks but Paddle's does not (MaskedSelectGradNode keeps x
# for its shape only, unchecked): (op, saved name) pairs.
PADDLE_UNSAVED = frozenset((("masked_select", "self"),))


def check_paddle_broadcast(xs, ys) -> None:
    """Paddle's elementwise broadcast check (common_shape.h), its ValueError and words."""
    n = max(len(xs), len(ys))
    a, b = [1] * (n - len(xs)) + list(xs), [1] * (n - len(ys)) + list(ys)
    for i, (p, q) in enumerate(zip(a, b)):
        if p != q and not (p <= 1 and p != 0) and not (q <= 1 and q != 0):
            cond = ("x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && "
                    "x_dims_array[i] != 0) || (y_dims_array[i] <= 1 && y_dims_array[i] != 0)")
            raise ValueError(
                "(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast "
                f"together with the shape of X = {list(xs)} and the shape of Y = {list(ys)}. "
                f"Received [{p}] in X is not equal to [{q}] in Y at i:{i}.\n  [Hint: Expected "
                f"{cond} == true, but received {cond}:0 != true:1.] (at "
                "/paddle/paddle/phi/kernels/funcs/common_shape.h:72)\n")


# ---- Paddle's CPU kernels and the dtypes they are registered for ------------------------------

_FC = "float64, complex128, float32, complex64"
_F = "float64, float32"
_IFC = "int32, int64, float64, complex128, float32, complex64"
_IF = "int32, int64, float64, float32"
_LOG = "int64, float64, complex128, float16, float32, complex64, int32, bfloat16"
_EXP = "int32, int64, float64, complex128, float16, float32, complex64"
_TRI = "int32, int64, float64, complex128, float16, float32, complex64, bool"
_CUMSUM = "int16, float64, complex128, int32, uint8, float32, complex64, int64, int8"
# table op (its name without leading or trailing underscores) -> (Paddle kernel, its CPU dtypes
# as Paddle's message lists them, whether Paddle's Python API casts an integer tensor to
# float32 before an out-of-place call)
PADDLE_KERNELS = {
    "exp": ("exp", _EXP, True), "expm1": ("expm1", _EXP, True),
    "sqrt": ("sqrt", _FC, True), "sin": ("sin", _FC, True), "cos": ("cos", _FC, True),
    "tanh": ("tanh", _FC, True), "sigmoid": ("sigmoid", _FC, True),
    "reciprocal": ("reciprocal", _FC, True), "log": ("log", _LOG, True),
    "log1p": ("log1p", _LOG, True), "erf": ("erf", "float64, float16, float32", True),
    "rsqrt": ("rsqrt", _F, True), "logsumexp": ("logsumexp", _F, True),
    "relu": ("relu", _F, False), "softmax": ("softmax", _F, False),
    "log_softmax": ("log_softmax", _F, False), "gelu": ("gelu", _F, False),
    "leaky_relu": ("leaky_relu", _F, False),
    "abs": ("abs", _IFC, False), "square": ("square", _IFC, False), "round": ("round", _IFC, False),
    "prod": ("prod", _IFC, False), "cumprod": ("cumprod", _IFC, False), "pow": ("pow", _IFC, False),
    "sort_front": ("argsort", "int64, int16, float64, float16, float32, int32, uint8, bfloat16",
                    False),
    "mm": ("matmul", _IFC, False), "clamp": ("clip", _IF, False), "amax": ("max", _IF, False),
    "amin": ("min", _IF, False), "cumsum": ("cumsum", _CUMSUM, False),
    "floor": ("floor", "int16, float64, float16, float32, int32, uint8, bfloat16, int64, int8",
              False),
    "sign": ("sign", _CUMSUM, False),
    "argmax": ("argmax", "int64, int16, float64, int32, uint8, float32", False),
    "norm": ("p_norm", _F, False),
    "log2": ("log2", _LOG, True), "log10": ("log10", _LOG, True),
    "digamma": ("digamma", _F, True), "lgamma": ("lgamma", _F, True), "i0": ("i0", _F, True),
    "logit": ("logit", _F, True), "erfinv": ("erfinv", _F, True),
    "asin": ("asin", _FC, True), "acos": ("acos", _FC, True), "atan": ("atan", _FC, True),
    "sinh": ("sinh", _FC, True), "cosh": ("cosh", _FC, True), "tan": ("tan", _FC, True),
    "asinh": ("asinh", _FC, True), "acosh": ("acosh", _FC, True), "atanh": ("atanh", _FC, True),
    "ceil": ("ceil", "int16, float64, float16, float32, int32, uint8, bfloat16, int64, int8",
             False),
    "trunc": ("trunc", _IF, False),
    "tril": ("tril", _TRI, False), "triu": ("triu", _TRI, False),
}
# In-place only (the out-of-place names are creation functions or other kernels): the random
# fills run Paddle's ``*_inplace`` kernels, float only.
PADDLE_INPLACE_KERNELS = {
    "exponential": ("exponential", _F), "uniform": ("uniform_inplace", _F),
    "bernoulli": ("uniform_inplace", _F), "normal": ("gaussian_inplace", _FC),
    "cauchy": ("gaussian_inplace", _FC), "log_normal": ("gaussian_inplace", _FC),
}
_KERNEL_SETS = {k: frozenset(v[1].split(", ")) for k, v in PADDLE_KERNELS.items()}
_INT_KEYS = frozenset(("int32", "int64"))
_INPLACE_KERNEL_SETS = {k: frozenset(v[1].split(", ")) for k, v in PADDLE_INPLACE_KERNELS.items()}


def paddle_int_to_float_inplace(spec, x) -> bool:
    """Does Paddle's in-place kernel turn x (an int32/int64 tensor) into float32? The float
    math kernels registered for integers (exp, log, log1p, log2, log10) allocate a float32
    output, and in place that output is x itself: x's dtype changes (``x.exp_()``)."""
    hit = PADDLE_KERNELS.get(spec.name.strip("_"))
    return hit is not None and hit[2] and x._dtype.name in ("int32", "int64") and \
        x._dtype.name in _KERNEL_SETS[spec.name.strip("_")]


def check_paddle_kernel(spec, x, inplace: bool = False, other=None) -> None:
    """Paddle's kernel lookup: a CPU kernel not registered for x's dtype is its RuntimeError
    (``F.relu`` of an int64 tensor, ``exp`` of a bool one, ``x.sqrt_()`` of an int one). An
    integer tensor reaches the float-math kernels (exp, sqrt, tanh...) out of place already
    cast to float32 by Paddle's Python API."""
    name = spec.name.strip("_")  # (_softmax, _sort_front: the op's own entry)
    hit = PADDLE_KERNELS.get(name)
    if inplace and hit is None and name in PADDLE_INPLACE_KERNELS and hasattr(x, "_dtype"):
        kernel, listed = PADDLE_INPLACE_KERNELS[name]
        if x._dtype.name not in _INPLACE_KERNEL_SETS[name]:
            raise paddle_kernel_error(kernel, x._dtype.name, listed,
                                      "CPU" if x._storage.device.type == "cpu" else "GPU")
        return
    if hit is None or not hasattr(x, "_dtype") or name == "pow" and hasattr(other, "_dtype"):
        return  # (a tensor exponent is another kernel, elementwise_pow)
    dt = x._dtype.name
    if dt in _KERNEL_SETS[name]:
        return
    kernel, listed, casts = hit
    if casts and not inplace and dt != "bool" and not x._dtype.is_floating_point and \
            not x._dtype.is_complex and not _KERNEL_SETS[name] & _INT_KEYS:
        return  # (a kernel registered for int32/int64 gets every integer dtype uncast: exp)
    # (a GPU tensor gets the same refusal in Paddle's words with the GPU's key; the dtypes
    # listed are the CPU registry's, measured here: a GPU's may name more, float16 and such)
    raise paddle_kernel_error(kernel, dt, listed,
                              "CPU" if x._storage.device.type == "cpu" else "GPU")


# Paddle's kernels with stride support (measured: ``x.t()`` fed to them and then written in
# place breaks their backward); every other kernel runs on a contiguous copy of a strided
# input, and its grad node saves that copy (a later write to the view does not reach it).
PADDLE_STRIDED_KERNELS = frozenset((
    "abs", "log", "square", "sin", "cos", "tan", "atan", "sinh", "cosh", "log1p", "log2",
    "log10", "maximum", "minimum", "fmax", "fmin", "remainder", "heaviside", "elu", "celu",
    "softplus", "leaky_relu", "silu", "mish", "log_sigmoid", "hardtanh", "softshrink",
    "softsign", "prod", "prod_dim", "amax", "amin", "paddle_amax", "paddle_amin", "max", "min",
    "mul", "div", "mm", "bmm", "mv", "matmul", "dot"))


def paddle_saves_copy(spec, x) -> bool:
    """Does Paddle's grad node for ``spec`` save a contiguous copy of the input x?"""
    if spec.name.strip("_") in PADDLE_STRIDED_KERNELS:
        return False
    from .paddle.views import is_contiguous

    return not is_contiguous(x)


def paddle_kernel_error(kernel: str, dt: str, listed: str, backend: str = "CPU") -> RuntimeError:
    """Paddle's error for a kernel with no registration for ``dt`` on ``backend``."""
    return RuntimeError(
        f"(NotFound) The kernel with key ({backend}, Undefined(AnyLayout), {dt}) of kernel "
        f"`{kernel}` is not registered. Selected wrong DataType `{dt}`. Paddle support following "
        f"DataTypes: {listed}.\n  [Hint: Expected kernel_iter == iter->second.end() && "
        "kernel_key.backend() == Backend::CPU != true, but received kernel_iter == "
        "iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at "
        "/paddle/paddle/phi/core/kernel_factory.cc:317)\n")


# ---- Paddle's grad node names --------------------------------------------------------------

# Table ops whose Paddle kernel (hence GradNode) has another name: ``clone`` is Paddle's
# ``assign``, a reshape is ``reshape``, a permutation ``transpose``...
_PADDLE_NODE_BASE = {
    "clone": "Assign", "select": "Slice", "slice": "Slice", "view": "Reshape",
    "reshape": "Reshape", "unsafe_view": "Reshape", "reshape_alias": "Reshape",
    "permute": "Transpose", "t": "Transpose", "transpose": "Transpose", "to_copy": "Cast",
    "clamp": "Clip", "clamp_min": "Clip", "clamp_max": "Clip", "cat": "Concat", "amax": "Max",
    "amin": "Min", "mm": "Matmul", "mv": "Matmul", "neg": "Scale", "split_with_sizes": "Split",
    "fill": "Fill", "zero": "Fill", "index": "IndexElementwiseGet", "mean_all": "MeanAll",
    "squeeze_dim": "Squeeze", "squeeze_dims": "Squeeze"}
_PADDLE_NODE_FULL = {"add_n": "AddNGradNodeFinal", "paddle_huber_loss": "HuberLossGradNode", "norm": "PNormGradNode", "sum_dim": "SumGradNode",
                     "mean_dim": "MeanGradNode", "prod_dim": "ProdGradNode",
                     "nansum": "SumGradNode", "mT": "TransposeGradNode", "repeat": "TileGradNode",
                     "sort_stable": "ArgsortGradNode", "unfold": "TensorUnfoldGradNode",
                     "moveaxis": "TransposeGradNode", "frac": "SubtractGradNode",
                     "linalg_cross": "CrossGradNode", "std": "SqrtGradNode",
                     "var": "DivideGradNode", "conv2d": "Conv2dGradNodeFinal",
                     "paddle_amax": "AmaxGradNode", "paddle_amin": "AminGradNode"}
# Arithmetic with a Python number runs Paddle's ``scale`` kernel.
_PADDLE_BINARY = {"mul": "Multiply", "add": "Add", "sub": "Subtract", "div": "Divide",
                  "rsub": "Subtract"}


def _bool_index(indices) -> bool:
    from . import dtypes

    return bool(indices) and len(indices) == 1 and getattr(indices[0], "_dtype", None) is \
        dtypes.bool_


def paddle_node_name(node) -> str:
    """The name Paddle 3.3.1 gives the grad node of the op an OpNode recorded
    (``x * y``: MultiplyGradNode, ``x * 2``: ScaleGradNode, ``x.clone()``: AssignGradNode)."""
    n = node.spec.name.strip("_")  # (in-place forms and internal overloads: the op's name)
    if n in _PADDLE_NODE_FULL:  # (a few of Paddle's nodes are named otherwise: AddNGradNodeFinal)
        return _PADDLE_NODE_FULL[n]
    params = node.params
    if n in _PADDLE_BINARY:
        base = ("DivScale" if n == "div" else "Scale") if "other" in params else \
            _PADDLE_BINARY[n]
    elif n == "pow":
        base = "Pow" if "exponent" in params else "ElementwisePow" if "self" in params else \
            "Square" if not node.next_functions[1:] else "ElementwisePow"
    elif n == "index" and _bool_index(params.get("indices")):
        base = "MaskedSelect"  # (x[mask] is Paddle's masked_select)
    elif n == "slice" and params.get("step") not in (None, 1):
        base = "StridedSlice"
    else:
        base = _PADDLE_NODE_BASE.get(n) or "".join(w.capitalize() for w in n.split("_"))
    return base + "GradNode"


def paddle_released_error(node):
    """Paddle's error when backward reaches a node an earlier backward released."""
    name = node.name()  # (every node of a Paddle graph answers with Paddle's name)
    return errors.PaddleBackwardTwiceError(
        f"(Fatal) The TensorWrappers of {name} do not exist. This may be because:\nYou "
        "calculate backward twice for the same subgraph without setting retain_graph=True. "
        "Please set retain_graph=True in the first backward/grad call.\n\n  [Hint: Expected "
        "node->IsTensorWrappersCleared() != true, but received "
        "node->IsTensorWrappersCleared():1 == true:1.] (at "
        "/paddle/paddle/fluid/eager/backward.cc:204)\n", node=node)


# ---- error texts ---------------------------------------------------------------------------

def leaf_error(t, pol: str, *, setitem: bool = False, view: bool = False, op: str = ""):
    """The error for an in-place write to a leaf (or view of a leaf) that requires grad."""
    if is_paddle(pol):
        nm = t._name or ""  # the C++ name: Paddle's lazily made eager_tmp_N is not in it
        kind = "Tensor" if setitem else "Var"
        msg = f"(InvalidArgument) Leaf {kind} ({nm}) that doesn't stop gradient can't use inplace strategy."
        return errors.LeafInplaceError(msg, tensor=t, op=op, policy=pol)
    if view:
        msg = "a view of a leaf Variable that requires grad is being used in an in-place operation."
        return errors.ViewOfLeafInplaceError(msg, tensor=t, leaf=t._base, op=op, policy=pol)
    msg = "a leaf Variable that requires grad is being used in an in-place operation."
    return errors.LeafInplaceError(msg, tensor=t, op=op, policy=pol)


def check_autograd_inplace(op: str, target, pol: str, *, setitem: bool = False) -> None:
    """May ``target`` be written in place while autograd records? Raises the policy's error.

    Called only when grad mode is on and some input requires grad. PyTorch's order
    (``check_inplace`` in VariableTypeUtils.h): a view's creation meta first (no_grad /
    inference / multi-output views), then "view of a leaf", then "leaf". Paddle only
    refuses leaves themselves; its views of leaves are written silently.
    """
    if is_paddle(pol):
        if target._requires_grad and target._grad_fn is None:  # (Paddle: no grad node = leaf, view or not)
            raise leaf_error(target, pol, setitem=setitem, op=op)
        return
    base = target._base
    if base is not None and target._view_meta is not None:
        target._view_meta.check_inplace(target, op)
        # (the base need not require grad: ``arange(6.).view(2, 3).requires_grad_()`` is a view
        # whose base is a plain leaf, and torch reports "a view of a leaf" for it)
        if target._requires_grad and base._grad_fn is None:
            raise leaf_error(target, pol, view=True, op=op)
    if target._requires_grad and target._grad_fn is None:  # PyTorch's is_leaf: the raw
        raise leaf_error(target, pol, setitem=setitem, op=op)  # field, no view regeneration


def torch_type_name(t) -> str:
    """``x.type()``: torch.FloatTensor, torch.cuda.FloatTensor on a GPU (error texts print it)."""
    return legacy_type_name(t._dtype, t._storage.device.type == "cuda")


def legacy_type_name(dt, cuda: bool = False) -> str:
    """torch's legacy tensor type name of a dtype: torch.FloatTensor, torch.cuda.LongTensor."""
    return f"torch.{'cuda.' if cuda else ''}{dt.torch_name}Tensor"


def aten_type_name(t) -> str:
    """ATen's name of a tensor's type, as expand's error prints it: CPUBoolType, CUDABoolType."""
    return f"{'CUDA' if t._storage.device.type == 'cuda' else 'CPU'}{t._dtype.torch_name}Type"


def saved_error(saved, found: int, pol: str):
    """The error when a saved tensor's version moved on before backward.

    Paddle 3.3.1 prints ``Tensor ''`` whatever the tensor's name: its TensorWrapper
    keeps a nameless copy of the saved tensor (checked against paddle, named or not).
    """
    t = saved.tensor_for_message()
    if is_paddle(pol):
        msg = ("(PermissionDenied) Tensor '' used in gradient computation has been "
               f"modified by an inplace operation. Its version is {found} but the expected version "
               f"is {saved.version}. Please fix your code to void calling an inplace operator after "
               "using the Tensor which will used in gradient computation.")
    else:
        producer = ""
        if saved.producer_name:
            producer = f", which is output {saved.output_nr} of {saved.producer_name},"
        shape = "[" + ", ".join(str(n) for n in t.shape) + "]"
        # (TensorBase::toString: the legacy name, but ATen's CPUBoolType for bool and bfloat16)
        kind = aten_type_name(t) if t._dtype.torch_name in ("Bool", "BFloat16") else torch_type_name(t)
        msg = ("one of the variables needed for gradient computation has been modified by an "
               f"inplace operation: [{kind} {shape}]{producer} is at version {found}; "
               f"expected version {saved.version} instead. Hint: " + _anomaly_hint())
    return errors.SavedTensorModifiedError(
        msg, tensor=t, saved=saved, node=saved.node_name, expected=saved.version, found=found,
        policy=pol)


def _anomaly_hint() -> str:
    """PyTorch's hint differs once anomaly mode already shows the forward traceback."""
    from .autograd.anomaly import state

    if state.enabled:
        return ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    return ("enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


# ---- paddle-legacy --------------------------------------------------------------------------

_PADDLE_NAMES = ("multiply", "divide", "subtract")  # Paddle's names where PyTorch's differ


def legacy_refuses(spec, ins) -> bool:
    """paddle-legacy: would this in-place op, recorded, need the input it overwrites?

    ``save_if`` counts: ``y.mul_(2)`` needs nothing, ``y.mul_(w)`` with ``w`` requiring
    grad needs the old ``y``; nothing is needed when nothing is recorded.
    """
    from .autograd import grad_mode

    if not grad_mode.state.enabled or spec.backward is None or not spec.saves_input_for_inplace:
        return False

    def rg(x):
        return bool(getattr(x, "_requires_grad", False))

    if not any(rg(x) for x in ins):
        return False
    cond = spec.save_if.get("self")
    return cond is None or rg(ins[spec.args.index(cond)])


def legacy_error(spec, target):
    """Why Paddle before 2.6 had no in-place form for this op, and what to write instead."""
    name = next((a for a in spec.aliases if a in _PADDLE_NAMES), spec.name)
    call = f"paddle.{name}(x)" if spec.n_args == 1 else f"paddle.{name}(x, y)"
    msg = (f"(Unimplemented) {spec.name}_ has no in-place form before Paddle 2.6: the backward of "
           f"{spec.name} needs the value of x that {spec.name}_ would overwrite, and Paddle did "
           "not copy it before writing (2.6 added that copy, PR 54683). Use the out-of-place "
           f"{call} instead, or x = x.clone() first.")
    return errors.LegacyInplaceUnsupportedError(msg, tensor=target, op=spec.name,
                                                policy="paddle-legacy")
