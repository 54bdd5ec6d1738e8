"""Recurrent layers: RNN, LSTM, GRU and their one-step cells, in PyTorch's shape.

Each step is composed of table ops (``linear``, ``sigmoid``, ``tanh``, ``mul``, ``add``,
``chunk``, ``stack``, ``cat``), so autograd, version checks and traces work as for any
other graph; no fused kernel hides the gates. The input projection of a whole layer is
one ``linear`` over all time steps (as cuDNN does), the recurrent projection one per step.

Parameter names, shapes, gate order and initialisation are PyTorch's, so a
``state_dict`` moves between the two libraries unchanged:
``weight_ih_l{k}[_reverse]`` ``[gates*hidden, in]``, ``weight_hh_l{k}`` ``[gates*hidden, hidden]``,
``bias_ih_l{k}``, ``bias_hh_l{k}``; LSTM gates ``i, f, g, o``; GRU gates ``r, z, n`` with
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``; every parameter
``uniform(-1/sqrt(hidden), 1/sqrt(hidden))``.
"""
from __future__ import annotations

import math
import numbers
import warnings

import inplace_lab as _il

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---------------------------------------------------------------- one step of each kind
def _rnn_step(act):
    def step(xw, h, c, w_hh, b_hh):
        return act(xw + F.linear(h, w_hh, b_hh)), None
    return step


def _lstm_step(xw, h, c, w_hh, b_hh):
    i, f, g, o = (xw + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = _il.sigmoid(f) * c + _il.sigmoid(i) * _il.tanh(g)
    return _il.sigmoid(o) * _il.tanh(c), c


def _gru_step(xw, h, c, w_hh, b_hh):
    xr, xz, xn = xw.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = _il.sigmoid(xr + hr)
    z = _il.sigmoid(xz + hz)
    n = _il.tanh(xn + r * hn)
    return (1 - z) * n + z * h, None


def _step_fn(mode):
    if mode == "LSTM":
        return _lstm_step
    if mode == "GRU":
        return _gru_step
    return _rnn_step(_il.relu if mode == "RNN_RELU" else _il.tanh)


# ---------------------------------------------------------------- multi-layer modules
class RNNBase(Module):
    """Shared constructor, parameters, checks and the layer/direction/time loop."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                          stacklevel=3)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size != 0:
            raise NotImplementedError("inplace_lab: proj_size is not supported")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, 0
        gate = _GATES[mode] * hidden_size
        fac = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        for layer in range(num_layers):
            for sfx in ("", "_reverse")[:2 if bidirectional else 1]:
                in_size = input_size if layer == 0 else hidden_size * (2 if bidirectional else 1)
                shapes = [("weight_ih", (gate, in_size)), ("weight_hh", (gate, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))]
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{sfx}"
                    setattr(self, name, Parameter(creation.empty(tuple(shape), **fac)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact."""

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        per = 4 if self.bias else 2
        w = self._flat_weights
        return [w[k:k + per] for k in range(0, len(w), per)]

    def _layer_params(self, layer, sfx):
        g = lambda kind: getattr(self, f"{kind}_l{layer}{sfx}")  # noqa: E731
        if self.bias:
            return g("weight_ih"), g("weight_hh"), g("bias_ih"), g("bias_hh")
        return g("weight_ih"), g("weight_hh"), None, None

    def _check_hidden(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def forward(self, input, hx=None):
        from .utils.rnn import PackedSequence

        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        name = type(self).__name__
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        lstm = self.mode == "LSTM"
        if hx is not None:
            hs = tuple(hx) if lstm else (hx,)
            if lstm and len(hs) != 2:
                raise RuntimeError("lstm expects two hidden states")
            want = 3 if batched else 2
            if any(h.dim() != want for h in hs):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if lstm:
                    got = ", ".join(f"{h.dim()}-D" for h in hs)
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but "
                                       f"got ({got}) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{hs[0].dim()}-D tensor")
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                hs = tuple(h.unsqueeze(1) for h in hs)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        ndir = 2 if self.bidirectional else 1
        expected = (self.num_layers * ndir, input.shape[1], self.hidden_size)
        if hx is None:
            zeros = creation.zeros(tuple(expected), dtype=input.dtype, device=input.device)
            hs = (zeros, zeros) if lstm else (zeros,)
        elif lstm:
            self._check_hidden(hs[0], expected, "Expected hidden[0] size {}, got {}")
            self._check_hidden(hs[1], expected, "Expected hidden[1] size {}, got {}")
        else:
            self._check_hidden(hs[0], expected)
        output, h_n, c_n = self._run(input, hs)
        if not batched:
            output = output.squeeze(1)
            h_n, c_n = h_n.squeeze(1), (c_n.squeeze(1) if lstm else None)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if lstm else (output, h_n)

    def _forward_packed(self, packed, hx):
        """torch's packed path: the hidden state is permuted into the packed (sorted) order,
        each step runs only the sequences still going, and ``h_n`` holds every sequence's
        last valid step, permuted back by ``unsorted_indices``."""
        from .utils.rnn import PackedSequence

        data, batch_sizes, sorted_indices, unsorted_indices = packed
        lstm = self.mode == "LSTM"
        bs = [int(b) for b in batch_sizes.tolist()]
        ndir = 2 if self.bidirectional else 1
        expected = (self.num_layers * ndir, bs[0], self.hidden_size)
        if hx is None:
            zeros = creation.zeros(tuple(expected), dtype=data.dtype, device=data.device)
            zeros._policy = data._policy
            hs = (zeros, zeros) if lstm else (zeros,)
        else:
            hs = tuple(hx) if lstm else (hx,)
            if sorted_indices is not None:
                hs = tuple(h.index_select(1, sorted_indices) for h in hs)
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {data.shape[-1]}")
        if lstm:
            self._check_hidden(hs[0], expected, "Expected hidden[0] size {}, got {}")
            self._check_hidden(hs[1], expected, "Expected hidden[1] size {}, got {}")
        else:
            self._check_hidden(hs[0], expected)
        output, h_n, c_n = self._run(data, hs, bs)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if lstm else None
        out = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return (out, (h_n, c_n)) if lstm else (out, h_n)

    @staticmethod
    def _packed_direction(step, xw, h0, c0, w_hh, b_hh, bs, reverse):
        """ATen's packed layer (one direction) over ``xw`` ([sum(bs), gates*H]): forwards,
        the batch shrinks and each finished sequence's state is put aside; backwards, it
        starts with the shortest batch and grows, taking the new sequences' initial states."""
        lstm = c0 is not None
        offsets = [0]
        for b in bs:
            offsets.append(offsets[-1] + b)
        outs = [None] * len(bs)
        if not reverse:
            h, c, last = h0, c0, bs[0]
            done_h, done_c = [], []
            for t, b in enumerate(bs):
                if b < last:
                    done_h.append(h.narrow(0, b, last - b))
                    h = h.narrow(0, 0, b)
                    if lstm:
                        done_c.append(c.narrow(0, b, last - b))
                        c = c.narrow(0, 0, b)
                h, c = step(xw.narrow(0, offsets[t], b), h, c, w_hh, b_hh)
                outs[t] = h
                last = b
            done_h.append(h)
            h = _il.cat(done_h[::-1], 0) if len(done_h) > 1 else h
            if lstm:
                done_c.append(c)
                c = _il.cat(done_c[::-1], 0) if len(done_c) > 1 else c
        else:
            last = bs[-1]
            h = h0.narrow(0, 0, last)
            c = c0.narrow(0, 0, last) if lstm else None
            for t in range(len(bs) - 1, -1, -1):
                b = bs[t]
                if b > last:
                    h = _il.cat([h, h0.narrow(0, last, b - last)], 0)
                    if lstm:
                        c = _il.cat([c, c0.narrow(0, last, b - last)], 0)
                h, c = step(xw.narrow(0, offsets[t], b), h, c, w_hh, b_hh)
                outs[t] = h
                last = b
        return _il.cat(outs, 0), h, c

    def _run(self, x, hs, batch_sizes=None):
        """Layer by layer, direction by direction, step by step (``x`` is [T, B, in])."""
        step, lstm = _step_fn(self.mode), self.mode == "LSTM"
        sfxs = ("", "_reverse")[:2 if self.bidirectional else 1]
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outs = []
            for d, sfx in enumerate(sfxs):
                w_ih, w_hh, b_ih, b_hh = self._layer_params(layer, sfx)
                k = layer * len(sfxs) + d
                h, c = hs[0][k], (hs[1][k] if lstm else None)
                if batch_sizes is not None:  # x is a PackedSequence's data
                    y, h, c = self._packed_direction(step, F.linear(x, w_ih, b_ih), h, c, w_hh,
                                                     b_hh, batch_sizes, bool(d))
                    outs.append(y)
                    h_out.append(h)
                    c_out.append(c)
                    continue
                xw = F.linear(x, w_ih, b_ih).unbind(0)
                order = range(len(xw) - 1, -1, -1) if d else range(len(xw))
                ys = [None] * len(xw)
                for t in order:
                    h, c = step(xw[t], h, c, w_hh, b_hh)
                    ys[t] = h
                outs.append(_il.stack(ys, 0))
                h_out.append(h)
                c_out.append(c)
            x = outs[0] if len(outs) == 1 else _il.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, _il.stack(h_out, 0), (_il.stack(c_out, 0) if lstm else None)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h' = act(W_ih x + b_ih + W_hh h + b_hh)``, act ``tanh`` or ``relu``."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """LSTM; returns ``(output, (h_n, c_n))``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device=device, dtype=dtype)


class GRU(RNNBase):
    """GRU; returns ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, device=device, dtype=dtype)


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
    _mode = ""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gate = _GATES[self._mode] * hidden_size
        fac = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(creation.empty(gate, input_size, **fac))
        self.weight_hh = Parameter(creation.empty(gate, hidden_size, **fac))
        if bias:
            self.bias_ih = Parameter(creation.empty(gate, **fac))
            self.bias_hh = Parameter(creation.empty(gate, **fac))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _check(self, input, hxs):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for h in hxs:
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {h.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        hxs = [None if h is None else (h if batched else h.unsqueeze(0)) for h in hxs]
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        out = []
        for k, h in enumerate(hxs):
            if h is None:
                h = creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype,
                                   device=input.device)
            elif input.shape[0] != h.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} "
                                   f"batch size {h.shape[0]}")
            elif h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, "
                                   f"expected {self.hidden_size}")
            out.append(h)
        return input, out, batched

    def _xw(self, input):
        return F.linear(input, self.weight_ih, self.bias_ih)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = getattr(self, "nonlinearity", "tanh")
        if nl != "tanh":
            s += f", nonlinearity={nl}"
        return s


class RNNCell(RNNCellBase):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, (h,), batched = self._check(input, [hx])
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h, _ = _step_fn(mode)(self._xw(x), h, None, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    _mode = "LSTM"

    def forward(self, input, hx=None):
        if hx is not None and len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        x, (h, c), batched = self._check(input, [None, None] if hx is None else list(hx))
        h, c = _lstm_step(self._xw(x), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    _mode = "GRU"

    def forward(self, input, hx=None):
        x, (h,), batched = self._check(input, [hx])
        h, _ = _gru_step(self._xw(x), h, None, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
