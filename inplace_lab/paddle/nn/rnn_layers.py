"""``paddle.nn`` stacked recurrent layers ``SimpleRNN``, ``LSTM``, ``GRU``: a ``LayerList``
of ``RNN`` / ``BiRNN`` wrappers (``rnn.py``), one per layer, with Paddle 3.3.1's
parameter aliases (``weight_ih_l0`` ...), the fused kernel's input checks and its
``sequence_length`` behaviour (padded outputs are zero)."""
from __future__ import annotations

from .container import LayerList
from .rnn import BiRNN, GRUCell, LSTMCell, RNN, SimpleRNNCell, _flatten, _pd, _step_mask

__all__ = ["SimpleRNN", "LSTM", "GRU"]


def _split_states(states, bidirectional, components):
    """[layers*dirs, B, H] (one per component) -> per layer: a state, or ``(fw, bw)``."""
    if components == 1:
        per = list(states.unbind(0))
    else:
        per = list(zip(*[s.unbind(0) for s in states]))
    return list(zip(per[::2], per[1::2])) if bidirectional else per


def _concat_states(states, components):
    flat = _flatten(states)
    if components == 1:
        return _pd().stack(flat)
    return tuple(_pd().stack(flat[i::components]) for i in range(components))


def _fused(outputs, states, time_major):
    """The results as Paddle's fused ``rnn`` kernel leaves them: outputs and final states
    recorded by an RnnGradNode (a batch-major output transposed back: TransposeGradNode)."""
    from ..views import _copy

    def label(t):
        return t if t.stop_gradient else _copy(t, "rnn")

    if time_major:
        outputs = label(outputs)
    elif not outputs.stop_gradient:
        outputs = label(outputs.transpose([1, 0, 2])).transpose([1, 0, 2])
    states = tuple(label(s) for s in states) if isinstance(states, tuple) else label(states)
    return outputs, states


class RNNBase(LayerList):
    """``num_layers`` RNN / BiRNN layers; layer k > 0 reads layer k-1's outputs through
    dropout (upscale_in_train)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0):
        super().__init__()
        bidirectional_list = ["bidirectional", "bidirect"]
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.dropout, self.time_major, self.num_layers = dropout, time_major, num_layers
        self.num_directions = 2 if direction in bidirectional_list else 1
        self.state_components = 2 if mode == "LSTM" else 1
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                  "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        self.proj_size = proj_size
        if proj_size > 0:
            assert mode == "LSTM"
        if mode == "LSTM":
            cell_cls = LSTMCell
            kwargs["proj_size"] = proj_size
        elif mode == "GRU":
            cell_cls = GRUCell
        else:
            cell_cls = SimpleRNNCell
            kwargs["activation"] = "relu" if mode == "RNN_RELU" else "tanh"
        in_size = proj_size or hidden_size
        if direction in ["forward"]:
            for k in range(num_layers):
                cell = cell_cls(input_size if k == 0 else in_size, hidden_size, **kwargs)
                self.append(RNN(cell, False, time_major))
        elif direction in bidirectional_list:
            for k in range(num_layers):
                size = input_size if k == 0 else 2 * in_size
                self.append(BiRNN(cell_cls(size, hidden_size, **kwargs),
                                  cell_cls(size, hidden_size, **kwargs), time_major))
        else:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        names = []
        for layer in range(num_layers):  # (Paddle pairs names and parameters by position)
            for d in range(self.num_directions):
                sfx = "_reverse" if d == 1 else ""
                names += [f"weight_ih_l{layer}{sfx}", f"weight_hh_l{layer}{sfx}"]
                names += [f"bias_ih_l{layer}{sfx}"] if bias_ih_attr is not False else []
                names += [f"bias_hh_l{layer}{sfx}"] if bias_hh_attr is not False else []
        for name, param in zip(names, self.parameters()):
            setattr(self, name, param)

    def flatten_parameters(self):
        """A no-op: Paddle packs the weights for its fused kernel; the steps here read the
        cells' own parameters."""

    def _check(self, inputs, states):
        """The fused ``rnn`` kernel's checks, in its order, with its messages."""
        def bad(msg):
            return ValueError("(InvalidArgument) " + msg)

        if not self.time_major and inputs.ndim < 3:  # (Paddle transposes [1, 0, 2] first)
            raise bad("The input tensor's dimension should be equal to or greater than the "
                      f"axis's size. But received input tensor's dimension is {inputs.ndim}, "
                      "axis's size is 3")
        if inputs.ndim != 3:
            raise bad(f"The rank of Input in RNN  must be 3. But received Input's rank is "
                      f"{inputs.ndim}.")
        if self.mode == "LSTM" and len(states) != 2:
            raise bad(f"The number of tensors in PreState of LSTM should be 2, but received "
                      f"{len(states)}.")
        if states[0].ndim != 3:
            raise bad(f"The rank of PreState in RNN  must be 3. But the received rank is "
                      f"{states[0].ndim}.")
        for k, st in enumerate(states[1:] if not self.proj_size else [], 1):
            if list(st.shape) != list(states[0].shape):
                dims = [", ".join(str(d) for d in t.shape) for t in (states[0], st)]
                raise bad(f"The dims of all tensors in PreState should be same. But received "
                          f"PreState[0] is {dims[0]} and PreState[{k}] is {dims[1]}.")
        if states[0].shape[0] != self.num_layers * self.num_directions:
            raise bad(f"The num_layers of in RNN layer must be the same as first dim of init "
                      f"hidden, but received num_layers:{self.num_layers}, "
                      f"dim:{states[0].shape[0]}")
        batch = inputs.shape[1 if self.time_major else 0]
        if states[0].shape[1] != batch:
            raise bad(f"The second dimension size (representing for batch size) of Input and "
                      f"PreState should be equal. But received {batch} and "
                      f"{states[0].shape[1]}.")
        for width, height in ((inputs.shape[2], self.input_size),
                              (states[0].shape[2], self.proj_size or self.hidden_size)):
            if width != height:
                raise bad(f"The first matrix width should be same as second matrix height,but "
                          f"received first matrix width {width}, second matrix height {height}")

    def forward(self, inputs, initial_states=None, sequence_length=None):
        batch = inputs.shape[1 if self.time_major else 0] if inputs.ndim > 1 else 0
        if initial_states is None:
            dims = ([self.proj_size or self.hidden_size], [self.hidden_size])
            shape = [self.num_layers * self.num_directions, batch]
            initial_states = tuple(_pd().full(shape + dims[i], 0, inputs.dtype)
                                   for i in range(self.state_components))
        self._check(inputs, list(initial_states) if isinstance(initial_states, (list, tuple))
                    else [initial_states])
        if self.state_components == 1 and isinstance(initial_states, (list, tuple)):
            initial_states = initial_states[0]
        states = _split_states(initial_states, self.num_directions == 2,
                               self.state_components)
        mask = None
        if sequence_length is not None:
            steps = inputs.shape[0 if self.time_major else 1]
            mask = _step_mask(sequence_length, steps, inputs.dtype).unsqueeze(-1)
            if not self.time_major:
                mask = mask.transpose([1, 0, 2])
        final_states = []
        for i, layer in enumerate(self):
            if i > 0 and self.dropout != 0:  # (F.dropout returns x itself for p=0)
                inputs = _pd().nn.functional.dropout(inputs, self.dropout,
                                                     training=self.training,
                                                     mode="upscale_in_train")
            outputs, state = layer(inputs, states[i], sequence_length)
            if mask is not None:  # (the fused kernel's padded outputs are zero)
                outputs = outputs * mask
            final_states.append(state)
            inputs = outputs
        return _fused(outputs, _concat_states(final_states, self.state_components),
                      self.time_major)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.time_major is not False:
            s += ", time_major={time_major}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        return s.format(**self.__dict__)


class SimpleRNN(RNNBase):
    """Elman RNN layers, ``activation`` 'tanh' or 'relu'; states ``h`` [L*D, B, H]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation == "tanh":
            mode = "RNN_TANH"
        elif activation == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown activation '{activation}'")
        super().__init__(mode, input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, 0)
        self.activation = activation


class LSTM(RNNBase):
    """LSTM layers; states ``(h, c)``, each [L*D, B, H]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         proj_size)


class GRU(RNNBase):
    """GRU layers; states ``h`` [L*D, B, H]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, 0)
