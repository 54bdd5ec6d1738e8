"""``paddle.nn`` recurrent layers, built as Paddle 3.3.1 builds them: a cell computes one
step (``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``), ``RNN`` / ``BiRNN`` run a cell over
time, and ``SimpleRNN`` / ``LSTM`` / ``GRU`` (``rnn_layers.py``) are a ``LayerList`` of those,
one per layer.

The weight layout is PyTorch's (``[gates*hidden, in]``, LSTM gates i, f, g, o; GRU gates
r, z, c with the reset gate applied to ``W_hc h + b_hc``), the same as the core's
``inplace_lab.nn.rnn``; the steps are written in Paddle's form (``matmul(x, W,
transpose_y=True)``, GRU ``h' = (h - c) * z + c``) so a wrong input size raises Paddle's
matmul error. Each step is table ops autograd can see; Paddle's CPU layers run a fused
``rnn`` kernel with the same maths. What is Paddle's:

* input ``[batch, time, size]`` unless ``time_major``; ``direction`` 'forward',
  'bidirect' or 'bidirectional'; a call returns ``(outputs, final_states)``;
* a cell returns ``(output, new_states)`` (``(h, (h, c))`` for the LSTM cell);
* the multi-layer parameters are the cells' (``0.cell.weight_ih``, named
  ``lstm_cell_0.w_0``) and also attributes of the top layer (``weight_ih_l0``,
  ``weight_hh_l0_reverse`` ...): ``named_parameters`` lists the short names once,
  ``state_dict`` lists both;
* ``sequence_length``: a sequence's padded steps keep its state, and in the multi-layer
  layers (Paddle's fused ``rnn`` kernel) their outputs are zero and the reverse direction
  starts at the sequence's last real step.
"""
from __future__ import annotations

import math

from .container import LayerList
from .initializer import Constant, Uniform
from .layers import Layer

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN",
           "SimpleRNN", "LSTM", "GRU"]


def _pd():
    import inplace_lab.paddle as paddle

    return paddle


def _map(fn, *trees):
    """``paddle.utils.map_structure`` for tensors in (nested) tuples and lists."""
    first = trees[0]
    if isinstance(first, (list, tuple)):
        out = [_map(fn, *parts) for parts in zip(*trees)]
        return out if isinstance(first, list) else tuple(out)
    return fn(*trees)


def _flatten(tree):
    if isinstance(tree, (list, tuple)):
        return [t for part in tree for t in _flatten(part)]
    return [tree]


# ---------------------------------------------------------------- cells
class RNNCellBase(Layer):
    """A one-step cell; ``get_initial_states`` makes zero states of ``state_shape``."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with ``init_value``, their batch size read from ``batch_ref``."""
        batch = _flatten(batch_ref)[0].shape[batch_dim_idx]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = "float32"

        def make(s):
            s = list(s)
            s = [batch] + (s[1:] if s and s[0] == -1 else s)
            return _pd().full(s, init_value, _flatten(dtype)[0])

        if isinstance(shapes, tuple) and shapes and isinstance(shapes[0], (tuple, list)):
            return tuple(make(s) for s in shapes)
        return make(shapes)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementation for `state_shape` in the used "
                                  "cell.")

    @property
    def state_dtype(self):
        raise NotImplementedError("Please add implementation for `state_dtype` in the used "
                                  "cell.")

    def _make_weights(self, gates, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                      bias_ih_attr, bias_hh_attr, hh_cols=None):
        """Paddle's four parameters, ``Uniform(-1/sqrt(hidden), 1/sqrt(hidden))``; an attr
        of False gives a frozen constant (ones for a weight, zeros for a bias), not None."""
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, "
                             f"but now equals to {hidden_size}")
        std = 1.0 / math.sqrt(hidden_size)
        specs = [("weight_ih", (gates * hidden_size, input_size), weight_ih_attr, False),
                 ("weight_hh", (gates * hidden_size, hh_cols or hidden_size), weight_hh_attr,
                  False),
                 ("bias_ih", (gates * hidden_size,), bias_ih_attr, True),
                 ("bias_hh", (gates * hidden_size,), bias_hh_attr, True)]
        for name, shape, attr, is_bias in specs:
            if attr is not False:
                p = self.create_parameter(list(shape), attr, is_bias=is_bias,
                                          default_initializer=Uniform(-std, std))
            else:
                p = self.create_parameter(list(shape), None, is_bias=is_bias,
                                          default_initializer=Constant(0.0 if is_bias else 1.0))
                p.stop_gradient = True
            setattr(self, name, p)
        self.hidden_size, self.input_size = hidden_size, input_size

    @staticmethod
    def _project(x, weight, bias):
        """``x @ weight^T + bias`` as Paddle's cells write it (and with its shape error)."""
        return _pd().matmul(x, weight, transpose_y=True) + bias


class SimpleRNNCell(RNNCellBase):
    """``h' = act(W_ih x + b_ih + W_hh h + b_hh)``, ``activation`` 'tanh' or 'relu'."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)
        if activation not in ["tanh", "relu"]:
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        self.activation = activation

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        act = _pd().tanh if self.activation == "tanh" else _pd().nn.functional.relu
        h = act(self._project(inputs, self.weight_ih, self.bias_ih)
                + self._project(states, self.weight_hh, self.bias_hh))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.activation != "tanh":
            s += ", activation={activation}"
        return s.format(**self.__dict__)


class LSTMCell(RNNCellBase):
    """Gates i, f, g, o; ``proj_size`` > 0 projects h by ``weight_ho`` [hidden, proj]."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, "
                             f"but now equals to {hidden_size}")
        if proj_size < 0:  # (Paddle's message names hidden_size here)
            raise ValueError(f"proj_size of {type(self).__name__} must be greater than 0, "
                             f"but now equals to {hidden_size}")
        if proj_size >= hidden_size:
            raise ValueError("proj_size must be smaller than hidden_size")
        self._make_weights(4, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr, hh_cols=proj_size)
        self.proj_size = proj_size
        if proj_size > 0:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-std, std))

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        pd = _pd()
        gates = self._project(inputs, self.weight_ih, self.bias_ih) \
            + self._project(pre_hidden, self.weight_hh, self.bias_hh)
        i, f, g, o = pd.split(gates, num_or_sections=4, axis=-1)
        c = pd.nn.functional.sigmoid(f) * pre_cell + pd.nn.functional.sigmoid(i) * pd.tanh(g)
        h = pd.nn.functional.sigmoid(o) * pd.tanh(c)
        if self.proj_size > 0:
            h = h.matmul(self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self):
        """h [proj or hidden], c [hidden]. (Paddle 3.3.1 swaps them, so its projected cell
        called without states fails in matmul; that bug is not copied.)"""
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        return "{input_size}, {hidden_size}".format(**self.__dict__)


class GRUCell(RNNCellBase):
    """Gates r, z, c: ``c = tanh(x_c + r * h_c)``, ``h' = (h - c) * z + c``."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(3, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pd = _pd()
        x_r, x_z, x_c = pd.split(self._project(inputs, self.weight_ih, self.bias_ih), 3, 1)
        h_r, h_z, h_c = pd.split(self._project(states, self.weight_hh, self.bias_hh), 3, 1)
        r = pd.nn.functional.sigmoid(x_r + h_r)
        z = pd.nn.functional.sigmoid(x_z + h_z)
        c = pd.tanh(x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        return "{input_size}, {hidden_size}".format(**self.__dict__)


# ---------------------------------------------------------------- a cell over time
def _step_mask(sequence_length, steps, dtype):
    """[time, batch]: 1 where step t is inside sequence b, else 0."""
    pd = _pd()
    t = pd.arange(steps, dtype=sequence_length.dtype).unsqueeze(1)
    return pd.cast(t < sequence_length.unsqueeze(0), dtype)


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
        is_reverse=False, **kwargs):
    """Run ``cell`` step by step (Paddle's dynamic-graph ``rnn``). With ``sequence_length``
    a padded step keeps the previous state; its output is still the cell's output."""
    pd = _pd()
    steps = inputs.shape[0 if time_major else 1]
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs,
                                                 batch_dim_idx=1 if time_major else 0)
    if not time_major:
        inputs = inputs.transpose([1, 0] + list(range(2, inputs.ndim)))
    mask = None if sequence_length is None else \
        _step_mask(sequence_length, steps, inputs.dtype)
    order = range(steps - 1, -1, -1) if is_reverse else range(steps)
    states, outputs = initial_states, [None] * steps
    for i in order:
        out, new_states = cell(inputs[i], states, **kwargs)
        if mask is not None:
            m = mask[i].unsqueeze(-1)
            new_states = _map(lambda old, new: new * m + old * (1 - m), states, new_states)
        states, outputs[i] = new_states, out
    return pd.stack(outputs, axis=0 if time_major else 1), states


def birnn(cell_fw, cell_bw, inputs, initial_states=None, sequence_length=None,
          time_major=False, **kwargs):
    """Both directions; outputs concatenated on the last axis, states ``(fw, bw)``."""
    if initial_states is None:  # (Paddle asks cell_fw for both)
        batch_dim = 1 if time_major else 0
        states_fw = cell_fw.get_initial_states(batch_ref=inputs, batch_dim_idx=batch_dim)
        states_bw = cell_fw.get_initial_states(batch_ref=inputs, batch_dim_idx=batch_dim)
    else:
        states_fw, states_bw = initial_states
    out_fw, states_fw = rnn(cell_fw, inputs, states_fw, sequence_length, time_major, **kwargs)
    out_bw, states_bw = rnn(cell_bw, inputs, states_bw, sequence_length, time_major,
                            is_reverse=True, **kwargs)
    return _pd().concat([out_fw, out_bw], -1), (states_fw, states_bw)


class RNN(Layer):
    """Wraps a cell: ``(outputs, final_states)`` over the whole sequence."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        if not hasattr(self.cell, "call"):
            self.cell.call = self.cell.forward
        self.is_reverse, self.time_major = is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return rnn(self.cell, inputs, initial_states, sequence_length, self.time_major,
                   self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over the same inputs."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not "
                             f"equalsthat of backward cell({cell_bw.input_size})")
        for cell in (cell_fw, cell_bw):
            if not hasattr(cell, "call"):
                cell.call = cell.forward
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)):
            assert len(initial_states) == 2, \
                "length of initial_states should be 2 when it is a list/tuple"
        return birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length,
                     self.time_major, **kwargs)


from .rnn_layers import GRU, LSTM, SimpleRNN  # noqa: E402
