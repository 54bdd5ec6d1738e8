"""The op table: the single source of truth about every op.

For each op: its forward kernel, its backward formula, what the backward
saves (inputs, result, nothing), whether it is a view, whether it has an
in-place variant in PyTorch and in Paddle, and how its result dtype is found.
The public functions, the Tensor methods, the facades, the in-place checks,
the coverage table in the docs and the renderers' labels all read this table.

>>> from inplace_lab.ops.table import OPS
>>> OPS["exp"].saves
('result',)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .. import layout

OPS: dict[str, "OpSpec"] = {}
NONDIFF_ARGS = {"dim", "index", "indices", "mask", "condition"}  # integer/bool arguments


@dataclass(eq=False)
class OpSpec:
    """One op. See the module docstring; ``kind`` is "normal", "view" or "inplace"."""

    name: str
    forward: Callable
    backward: Optional[Callable] = None
    kind: str = "normal"
    args: tuple = ("self",)  # positional tensor-or-scalar arguments
    optional_args: tuple = ()  # entries of args that may be left out (then None: clamp's min/max)
    params: dict = field(default_factory=dict)  # keyword parameters (positional after args)
    saves: tuple = ()  # "self", "other", ..., "result"
    save_if: dict = field(default_factory=dict)  # saved name -> arg whose requires_grad needs it
    dtype_rule: object = "promote"  # promote | float | bool | self | callable(spec, ins, params)
    inplace: bool = False  # has a name_ variant here
    torch_inplace: Optional[bool] = None  # does PyTorch have name_ (default: inplace)
    paddle_inplace: Optional[bool] = None  # does Paddle 3.3.1 have name_ (default: False)
    method: bool = True  # installed as a Tensor method
    function: bool = True  # installed as inplace_lab.<name>
    out: bool = True  # accepts out=
    node_name: str = ""
    multi_output: bool = False  # view op returning several views (split/chunk/unbind)
    integer_ok: bool = True  # in-place allowed on integer targets (else cast error)
    aliases: tuple = ()  # other names for the same op (e.g. "multiply" for "mul")
    inplace_check: Optional[Callable] = None  # (target, ins, params): own shape rule (scatter_)
    variadic: bool = False  # view ops taking sizes/dims as *args or one sequence (view, permute)
    perm_of: Optional[Callable] = None  # permutation views: (t, *args) -> the permutation
    internal_overlap_ok: bool = False  # in-place on an expanded target allowed (fill_, zero_ ...)
    # In place: the written tensor may not share cells with an input (False: masked_scatter_,
    # whose TensorIterator skips that check and whose source is read as a contiguous copy; a
    # callable (target, ins, params) -> bool decides per call: fill_(Tensor) reads its value)
    overlap_inputs: Any = True
    # PyTorch's deprecation warning for an expanded target: "Use of <name>_ on expanded tensors
    # is deprecated ... e.g. <this example>" (masked_fill_, index_fill_, index_put_)
    expanded_warning: str = ""
    out_direct: bool = False  # kernel writes a correct result into any out= array of the
    #                           broadcast shape and result dtype (ufuncs): out= needs no temporary
    nondiff: Optional[tuple] = None  # args that never get an edge (default: NONDIFF_ARGS)
    scalar_edges: Optional[bool] = None  # Python numbers get a (None, 0) edge (binary arithmetic)
    select: Optional[Callable] = None  # overloads: (args, kwargs) -> another OpSpec or None
    outputs: tuple = ()  # several results (max(dim) -> values, indices); only the first has grad
    # Results the kernel makes for backward alone (native_layer_norm's mean and rstd): the
    # forward returns them after the result; the call returns the result only and the node
    # saves them under these names (also in ``saves``), as PyTorch's ``_saved_result1``
    saved_results: tuple = ()
    inplace_spec: Optional["OpSpec"] = None  # the in-place form's own overload (elu_: EluBackward1)
    # (node, grads) -> grads or None: the backward on raw arrays when it is not recorded
    # (ops/backward_arrays.py; None there, or here: the tensor formula ``backward`` runs)
    backward_array: Optional[Callable] = None
    # The numpy/cupy ufunc that computes the op with its default params on operands of one
    # floating dtype (the dispatcher's fast lane calls it directly: ``dispatch.lane``). Only
    # where a ``select`` gives this very spec for a Tensor first argument, and the kernel is
    # that ufunc call (uf(name) sets it; add, sub and div name theirs).
    ufunc: str = ""
    doc: str = ""
    # How many in-place writes PyTorch's backward formula makes into the fresh gradient it
    # returns (IndexBackward0: zeros().index_put_(): 1; max(dim): an out-of-place scatter into
    # zeros: 2): the gradient arrives with that version, and a leaf's .grad keeps it.
    grad_writes: int = 0
    # The in-place cast error names the target's dtype as C++ does ("long int": the Scalar
    # overloads of clamp_, clamp_min_, clamp_max_), not as ScalarType does ("Long").
    cpp_cast_error: bool = False
    # An op's own in-place / out= dtype refusal, checked before the generic cast rule (and
    # before the shape checks): (ins, dt, target dtype, inplace) -> the message, or None
    # (ldexp_: "ldexp can't be cast ...", float_power_: "the base given to float_power_ ...")
    cast_error: Optional[Callable] = None
    # How PyTorch lays out the result where numpy's own layout can differ (dispatch.
    # result_layout): "ti" (TensorIterator: strides follow the first input with an opinion),
    # "ti_rev" (the same, the first two inputs swapped: rsub), "ti1" (a Python number is no
    # operand: Scalar overloads that are unary kernels, clamp, lerp's weight), "pow" ("ti1",
    # but a number base gives a contiguous result, as pow(Scalar, Tensor)), "preserve"
    # (empty_like of the first input), "contiguous", "cat" (contiguous unless every input is
    # channels-last), "roll" ("contiguous", but along dims an empty input's clone: "preserve"),
    # "rot90" (flip, then a transposed view), "nonzero" (an (n, ndim) result
    # with strides (1, n)); "" keeps numpy's. Default: RESULT_LAYOUTS by name, else "ti" for
    # elementwise ops (ufunc ops and those of _ELEMENTWISE_MODULES).
    layout: str = ""
    # How the input gradient of a pointwise op is laid out (GRAD_LAYOUTS): ATen's backward
    # kernel is a TensorIterator over ("grad", saved input) in this order (elu_backward,
    # hardtanh_backward ...: the gradient's layout wins), or over (saved input, "grad")
    # (erf's ``exp(-x*x) * grad``: the input's), or ("contiguous",). () keeps what the
    # formula's ops give.
    grad_layout: tuple = ()
    # The ``_saved_<name>`` attributes where torch's node differs from ``saves`` + ``params``
    # (NODE_ATTRS by node name, else by op name: set here, so a dataclasses.replace copy under
    # another node name looks its own up).
    node_attrs: dict = field(default=None, init=False, repr=False)
    # The OpNode class named node_name (autograd.node.node_class), cached by make_node; not an
    # __init__ argument, so a dataclasses.replace copy with another node_name looks its own up.
    node_cls: Optional[type] = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if not self.node_name:
            self.node_name = "".join(p.capitalize() for p in self.name.split("_")) + "Backward0"
        if not self.ufunc:
            self.ufunc = getattr(self.forward, "ufunc", "")
        if not self.grad_layout:
            self.grad_layout = GRAD_LAYOUTS.get(self.name, ())
        if not self.layout:
            self.layout = RESULT_LAYOUTS.get(self.name, "ti" if self.ufunc or getattr(
                self.forward, "__module__", "") in _ELEMENTWISE_MODULES else "")
        if self.torch_inplace is None:
            self.torch_inplace = self.inplace
        if self.paddle_inplace is None:
            self.paddle_inplace = False
        self.param_names = tuple(self.params)
        self.node_attrs = {**{k: PARAM_FORMS[k] for k in (*self.args, *self.params)
                              if k in PARAM_FORMS},
                           **NODE_ATTRS.get(self.node_name, NODE_ATTRS.get(self.name, {}))}
        self.hidden_attrs = frozenset(
            v if isinstance(v, str) else k for k, v in self.node_attrs.items()
            if v is None or isinstance(v, str))
        self.n_args = len(self.args)
        # Which arguments get an edge in next_functions (PyTorch: the differentiable Tensor
        # arguments; a Python number gets (None, 0) only where torch wraps it in a tensor,
        # i.e. the "other" of binary arithmetic).
        # What save_inputs saves, worked out once: (name, arg index, index of the argument
        # whose requires_grad decides it, or -1) per saved input; and whether the result is.
        # In the order of their names, as PyTorch's generated nodes save them (mul: other,
        # then self; a pack hook sees that order), the results after them.
        self.input_saves = tuple(
            (s, self.args.index(s),
             self.args.index(self.save_if[s]) if s in self.save_if else -1)
            for s in sorted(self.saves) if s != "result" and s in self.args)
        self.saves_result = "result" in self.saves
        nondiff = NONDIFF_ARGS if self.nondiff is None else set(self.nondiff)
        self.edge_args = tuple(i for i, a in enumerate(self.args) if a not in nondiff)
        if self.scalar_edges is None:
            self.scalar_edges = "other" in self.args
        if self.outputs:  # like torch.return_types.max(values=..., indices=...)
            from collections import namedtuple

            self.return_type = namedtuple(self.name, self.outputs, module="inplace_lab.return_types")

    @property
    def saves_input_for_inplace(self) -> bool:
        """In-place form needs a copy of its input first (clone-before-overwrite)."""
        return "self" in self.saves

    @property
    def differentiable(self) -> bool:
        return self.backward is not None

    def saves_summary(self) -> str:
        kinds = {"result" if s == "result" else "inputs" for s in self.saves}
        if not kinds:
            return "nothing"
        return " and ".join(sorted(kinds, key=lambda k: k != "inputs"))


# The modules whose normal ops are elementwise (TensorIterator ops in PyTorch): "ti" unless
# RESULT_LAYOUTS says otherwise
_ELEMENTWISE_MODULES = {"inplace_lab.ops.elementwise", "inplace_lab.ops.unary",
                        "inplace_lab.ops.activation", "inplace_lab.ops.nn_shrink"}
# PyTorch's result layouts by op name, where numpy's differ (OpSpec.layout says what each
# means). Elementwise ops of several tensors follow TensorIterator; the others allocate
# contiguous results (``at::empty``) or keep their input's layout (``empty_like``).
RESULT_LAYOUTS = {
    "isclose": "ti",  # (elementwise, outside those modules)
    "rsub": "ti_rev",
    "roll": "roll",
    **dict.fromkeys(("clamp", "clamp_min", "clamp_max", "lerp"), "ti1"),
    **dict.fromkeys(("pow", "float_power"), "pow"),
    **dict.fromkeys((
        "stack", "masked_fill", "masked_scatter", "cumsum", "cumprod", "cummax",
        "cummin", "softmax", "log_softmax", "tril", "triu", "linalg_cross",
        "mvlgamma", "index", "index_select", "gather", "repeat",
        # reductions: ATen allocates their results contiguous (numpy keeps the input's order)
        "sum", "_sum_dim", "mean", "_mean_dim", "prod", "_prod_dim", "max", "amax", "argmax",
        "min", "amin", "argmin", "var", "std", "norm", "all", "any", "count_nonzero",
        "logsumexp", "nansum", "_std_mean", "_var_mean", "median", "nanmedian",
        "_log_sigmoid", "_rrelu_with_noise", "renorm", "_bernoulli_tensor"), "contiguous"),
    "cat": "cat",
    "_batch_norm": "suggest",
    "_layer_norm": "contiguous",
    # the pointwise losses (reduction="none") run TensorIterator over input and target
    **dict.fromkeys(("_mse_loss", "_binary_cross_entropy", "_smooth_l1_loss", "_huber_loss"),
                    "ti"),
    **dict.fromkeys(("clone", "_to_copy", "flip", "sort", "argsort", "msort", "put",
                     # (elementwise through an ``empty_like(self)`` output, not TensorIterator's)
                     "hardtanh", "relu6", "nan_to_num", "deg2rad", "rad2deg", "_prelu"),
                    "preserve"),
    "rot90": "rot90",
    **dict.fromkeys(("nonzero", "argwhere"), "nonzero"),
}


# Losses whose structured meta allocates the elementwise output (input-sized) and, for a
# "mean"/"sum" reduction, resizes it to 0-dim: the 0-dim loss keeps that storage (torch 2.13's
# mse_loss(x, t).untyped_storage().nbytes() is x's), which memory figures count.
RESIZED_LOSSES = frozenset(("_mse_loss", "_smooth_l1_loss", "_binary_cross_entropy",
                            "_soft_margin_loss"))


# OpSpec.grad_layout by op name, measured against torch 2.13 with a transposed input.
GRAD_LAYOUTS = {
    **dict.fromkeys(("elu", "celu", "selu", "hardshrink", "softshrink", "hardsigmoid",
                     "hardswish", "hardtanh", "relu6", "logit", "_log_sigmoid"), ("grad", "self")),
    **dict.fromkeys(("erf", "erfc", "erfinv", "sinc", "_prelu"), ("self", "grad")),
    # (the legacy loss backwards write into ``zeros_like(self, LEGACY_CONTIGUOUS)``)
    **dict.fromkeys(("_mse_loss", "_smooth_l1_loss", "_huber_loss", "_soft_margin_loss"),
                    ("contiguous",)),
}


# What ``dir(y.grad_fn)`` lists where torch 2.13's node differs from ``saves`` + ``params``
# (OpSpec.node_attrs), by node name (or op name, where one node has several ops that save
# different things under "result": qr's Q or R): torch's attribute name (``_saved_`` left off) -> where
# its value comes from: None (a param or saved name torch's node does not keep: hidden),
# another saved or param name (a rename: that name is hidden), ("sizes", arg) / ("numel",
# arg) / ("argsize", arg, i) (an input's shape, a tuple of ints, read from node.input_meta
# when asked; arg "result": the first output's), or a callable(node). Only the ``_saved_``
# view changes: backward formulas keep reading their own names (``c["dim"]``).
def _unsigned(v):
    """An int64_t (or IntArrayRef) attribute as torch's getter gives it: a negative number
    as unsigned (dim=-1: 18446744073709551615), a sequence as a tuple."""
    if isinstance(v, (tuple, list)):
        return tuple(_unsigned(d) for d in v)
    return v + 2 ** 64 if isinstance(v, int) and not isinstance(v, bool) and v < 0 else v


def _narrow_start(node):  # (narrow is a slice from its start, wrapped, on)
    start = node.params["start"]
    return start + node.input_meta[0][0][node.params["dim"]] if start < 0 else start


def _correction(node):  # std/var: None for the defaults over every dim (x.std())
    p = node.params
    if p.get("correction") is not None:
        return p["correction"]
    if p.get("unbiased") is None:
        return None if p.get("dim") is None else 1
    return int(p["unbiased"])


def _param(name, form):
    """An attribute read from the param ``name`` in torch's form (``form(value)``)."""
    return lambda node: form(node.params.get(name))


def _dims(v):  # an IntArrayRef dim: (d,) for one d
    return None if v is None else _unsigned((v,) if isinstance(v, int) else v)


def _ntuple(n):  # a pool's kernel_size, stride ... as n ints; stride None: ()
    return lambda v: () if v is None else tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# torch's form of a param by its name, on every node that has it (NODE_ATTRS may override):
# int64_t arguments unsigned, a loss's reduction as at::Reduction's number
PARAM_FORMS = {
    **{k: _param(k, _unsigned) for k in ("dim", "dim0", "dim1", "dim2", "ignore_index",
                                         "offset", "diagonal", "pad")},
    "reduction": _param("reduction", lambda v: {"none": 0, "mean": 1, "sum": 2}.get(v, v)),
    "generator": None,  # (no node keeps its generator)
}
_DIMS = {"dim": _param("dim", _dims)}
_SIZES = {"self_sym_sizes": ("sizes", "self")}
_NO_DTYPE = {"dtype": None}
_FULL = {"dim": None, "keepdim": None, "dtype": None}  # (full reductions keep no dim)
NODE_ATTRS = {
    # the in-place random fills keep nothing (their gradient is zero whatever the draw)
    "uniform": {"from_": None, "to": None}, "normal": {"mean": None, "std": None},
    "exponential": {"lambd": None}, "cauchy": {"median": None, "sigma": None},
    "log_normal": {"mean": None, "std": None}, "geometric": {"p": None},
    **dict.fromkeys(("bernoulli", "BernoulliBackward1"), {"p": None}),
    **dict.fromkeys(("random", "RandomBackward0", "RandomBackward1"),
                    {"from_": None, "to": None}),
    "SumBackward0": {**_FULL, **_SIZES},
    "MeanBackward0": {**_FULL, **_SIZES, "self_sym_numel": ("numel", "self")},
    "ProdBackward0": _FULL,
    "SumBackward1": {**_NO_DTYPE, **_SIZES, **_DIMS},
    "MeanBackward1": {**_NO_DTYPE, **_SIZES, **_DIMS, "self_sym_numel": ("numel", "self")},
    **dict.fromkeys(("AmaxBackward0", "AminBackward0", "LogsumexpBackward0"), _DIMS),
    **dict.fromkeys(("CumsumBackward0", "CumprodBackward0", "ProdBackward1", "SoftmaxBackward0",
                     "LogSoftmaxBackward0"), _NO_DTYPE),
    "NormBackward1": {**_NO_DTYPE, **_DIMS},
    "DivBackward0": {"rounding_mode": None},
    "DivBackward1": {"rounding_mode": None, "self": None},  # (the Scalar overload: other only)
    **dict.fromkeys(("StdBackward0", "VarBackward0", "VarMeanBackward0", "StdMeanBackward0"),
                    {"unbiased": None, **_DIMS, "correction": _correction}),
    "LinalgVectorNormBackward0": {"p": None, "dtype": None, **_DIMS, "ord": _param(
        "p", lambda p: 2 if p is None or p == "fro" else p)},
    **dict.fromkeys(("MaxBackward0", "MinBackward0", "NanmedianBackward1", "MedianBackward1",
                     "ModeBackward0", "TraceBackward0", "UnsafeViewBackward0", "SqueezeBackward4",
                     "SqueezeBackward1", "SqueezeBackward2", "SelectBackward0",
                     "DiagonalBackward0", "UnfoldBackward0", "RepeatBackward0",
                     "IndexSelectBackward0", "IndexBackward0", "slice"), _SIZES),
    **dict.fromkeys(("SqueezeBackward0", "ExpandBackward0"), {"dim": None, "sizes": None,
                                                              **_SIZES}),
    "NansumBackward0": {**_NO_DTYPE, **_DIMS},
    **dict.fromkeys(("FlipBackward0", "RollBackward0"), {"dims": _param("dims", _unsigned)}),
    "permute": {"sizes": None, "dims": _param("sizes", _unsigned)},
    "narrow": {"length": None, **_SIZES, "step": lambda node: 1, "start": _narrow_start,
               "end": lambda node: _narrow_start(node) + node.params["length"]},
    "split": {"split_size_or_sections": None, **_SIZES,
              "split_size": _param("split_size_or_sections", _unsigned)},
    "chunk": {"chunks": None, **_SIZES, "split_size": lambda node: -(-node.input_meta[0][0][
        node.params["dim"]] // node.params["chunks"])},
    "KthvalueBackward0": {"k": None, **_SIZES},
    "SortBackward0": {"descending": None, "stable": None, **_SIZES},
    "TopkBackward0": {"k": None, "largest": None, "sorted": None, **_SIZES},
    "ViewBackward0": {"sizes": None, "dim": None, **_SIZES},  # (unflatten's too)
    "MmBackward0": {"self_sym_sizes": ("sizes", "self"), "mat2_sym_sizes": ("sizes", "mat2")},
    "DiagonalBackward0_copy": {"diagonal": None, "offset": _param("diagonal", _unsigned),
                               "dim1": lambda node: 0,
                               "dim2": lambda node: 1, **_SIZES},  # (diag of a matrix)
    **dict.fromkeys(("IndexAddBackward0", "IndexCopyBackward0"), {
        "source_dim": lambda node: len(node.input_meta[node.spec.args.index("source")][0])}),
    **dict.fromkeys(("MaxBackward1", "MinBackward1"), {"dim": None, "keepdim": None}),
    **dict.fromkeys(("ThresholdBackward0", "MaskedFillBackward0", "IndexFillBackward0"),
                    {"value": None}),
    **dict.fromkeys(("ScatterBackward0", "ScatterBackward1"), {"reduce": None, "value": None}),
    "NanToNumBackward0": {"nan": None, "posinf": None, "neginf": None},
    "CloneBackward0": {"memory_format": None},
    "ToCopyBackward0": _NO_DTYPE,
    **dict.fromkeys(("RoundBackward0", "RoundBackward1"), {"decimals": None}),
    "MaskedScatterBackward0": {"source_sym_sizes": ("sizes", "source")},
    "AddmmBackward0": {"mat1_sym_sizes": ("sizes", "mat1"), "mat2_sym_sizes": ("sizes", "mat2")},
    "AddbmmBackward0": {"batch1_sym_argsize_0": ("argsize", "batch1", 0),
                        "batch1_sym_argsize_1": ("argsize", "batch1", 1),
                        "batch2_sym_argsize_2": ("argsize", "batch2", 2)},
    "Im2ColBackward0": {"self_sym_argsize_minus_1": ("argsize", "self", -1),
                        "self_sym_argsize_minus_2": ("argsize", "self", -2)},
    "NativeLayerNormBackward0": {"eps": None},
    "EmbeddingBackward0": {"indices": "self", "max_norm": None, "norm_type": None,
                           "padding_idx": _param("padding_idx",
                                                 lambda v: _unsigned(-1 if v is None else v)),
                           "weight_sym_argsize_0": ("argsize", "weight", 0)},
    **dict.fromkeys(("AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0",
                     "AdaptiveMaxPool2DBackward0", "AdaptiveMaxPool3DBackward0",
                     "MaxUnpool2DBackward0", "MaxUnpool3DBackward0"), {"output_size": None}),
    "ConstantPadNdBackward0": {"value": None},
    **{f"{kind}Pool{n}D{suffix}Backward0": {k: _param(k, _ntuple(n)) for k in keys}
       for kind, suffix, keys in (
           ("Max", "WithIndices", ("kernel_size", "stride", "padding", "dilation")),
           ("Avg", "", ("kernel_size", "stride", "padding"))) for n in (2, 3)},
    "LinalgInvExBackward0": {"inverse": "result", "check_errors": None},
    "LinalgCholeskyExBackward0": {"L": "result", "check_errors": None},
    "LinalgSolveExBackward0": {"check_errors": None},
    "LinalgDetBackward0": {"A": "self"},
    **dict.fromkeys(("_linalg_qr_q", "_linalg_qr_q_colmajor"), {"Q": "result"}),
    **dict.fromkeys(("_linalg_qr_r", "_linalg_qr_r_colmajor"), {"R": "result"}),
    "_linalg_svd": {"S": "result", "S_sym_argsize_minus_1": ("argsize", "result", -1),
                    "full_matrices": lambda node: False},  # (svdvals: the reduced SVD)
    **dict.fromkeys(("_linalg_eigh_w", "_paddle_eigvalsh"), {"eigenvalues": "result",
                                                             "UPLO": None}),
    "_linalg_eigh_v": {"eigenvectors": "result", "UPLO": None},
    "ConvolutionBackward0": {
        "input": "self", "bias": None,
        "bias_sym_sizes_opt": lambda node: tuple(node.input_meta[2][0])
        if node.input_meta[2] is not None else [0],  # (torch's, for no bias: [0])
        "transposed": lambda node: node.spec.name == "_conv_transpose",
        "output_padding": lambda node: node.params.get("output_padding") or
        (0,) * len(node.params["stride"])},
    "NativeGroupNormBackward0": {"group": "num_groups", "N": ("argsize", "input", 0),
                                 "C": ("argsize", "input", 1),
                                 "HxW": lambda node: layout.numel(node.input_meta[0][0][2:])},
}


def register(spec: OpSpec) -> OpSpec:
    if spec.name in OPS:
        raise ValueError(f"op {spec.name!r} registered twice")
    OPS[spec.name] = spec
    return spec


def op(name: str, **kw) -> Callable:
    """Decorator form: ``@op("exp", saves=("result",))`` on the forward kernel."""

    def deco(fwd):
        register(OpSpec(name=name, forward=fwd, **kw))
        return fwd

    return deco


def backward_of(name: str) -> Callable:
    """Decorator that attaches a backward formula to an already registered op."""

    def deco(fn):
        OPS[name].backward = fn
        return fn

    return deco
