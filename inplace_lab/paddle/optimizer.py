"""``paddle.optimizer``: SGD and Adam with Paddle's names over ``inplace_lab.optim``.

Paddle spells the constructor ``Opt(learning_rate=, parameters=, weight_decay=)`` and
clears gradients with ``clear_grad()`` (zeroing them, by default, instead of dropping
them). The update rules are the core's: Paddle's Adam
(``lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps * sqrt(1 - beta2^t))``) is
algebraically PyTorch's. One observable difference is kept, to the letter: Paddle's
optimizer kernels write parameters without moving ``_inplace_version()``, so a step
leaves every parameter's version where it was (and a graph saved before the step does
not notice the new values).

>>> import inplace_lab.paddle as paddle
>>> lin = paddle.nn.Linear(3, 1)
>>> opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
>>> lin(paddle.ones([2, 3])).sum().backward(); opt.step()
>>> lin.weight.inplace_version
0
"""
from __future__ import annotations

from inplace_lab import optim as _optim
from inplace_lab.tensor import Tensor as _Core


def _core_alias(p):
    """A core-class tensor on p's storage and version counter (what the core optimizer updates).

    The core's update rules call PyTorch's methods (``addcmul_``, ``add_(alpha=)``), which a
    ``paddle.Tensor`` hides; the alias has them, and its writes land in p.
    """
    q = p.detach()
    q._policy = "pytorch"
    q.__class__ = _Core
    return q


class Optimizer:
    """Paddle's optimizer surface over a core optimizer (built by the subclasses)."""

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 **core_kwargs):
        if parameters is None:
            raise AttributeError("parameters argument given to the Optimizer should not be None "
                                 "in dygraph mode.")
        if grad_clip is not None:
            raise NotImplementedError("grad_clip is not supported by inplace_lab's paddle "
                                      "optimizers; clip the gradients before step()")
        if weight_decay is not None and not isinstance(weight_decay, (int, float)):
            weight_decay = getattr(weight_decay, "_coeff", getattr(weight_decay, "coeff", None))
            if weight_decay is None:
                raise TypeError("weight_decay must be a float (an L2 coefficient)")
        self._learning_rate = float(learning_rate)
        self._parameter_list = list(parameters)
        self._aliases = [_core_alias(p) for p in self._parameter_list]
        self._core = self._make(self._aliases, float(learning_rate), float(weight_decay or 0.0),
                                **core_kwargs)

    def _make(self, params, lr, weight_decay, **kw):
        raise NotImplementedError

    def step(self) -> None:
        """One update; parameters keep their versions (Paddle's kernels do not bump)."""
        for i, (p, q) in enumerate(zip(self._parameter_list, self._aliases)):
            if q._storage is not p._storage or q._vc is not p._vc:  # p was re-pointed (set_)
                self._aliases[i] = self._realias(q, p)
        for p, q in zip(self._parameter_list, self._aliases):
            q.grad = None if p.grad is None else _core_alias(p.grad)
        before = [(p, p._vc.version) for p in self._parameter_list]
        try:
            self._core.step()
        finally:
            for p, v in before:
                p._vc.version = v
            for q in self._aliases:
                q.grad = None

    def _realias(self, old, p):
        new = _core_alias(p)
        for g in self._core.param_groups:
            g["params"] = [new if x is old else x for x in g["params"]]
        if old in self._core.state:
            self._core.state[new] = self._core.state.pop(old)
        return new

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Dygraph ``minimize``: apply the gradients already computed by ``loss.backward()``."""
        self.step()
        return None, [(p, p.grad) for p in self._parameter_list]

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Zero every gradient in place (``set_to_zero=False``: drop them, grad becomes None)."""
        for p in self._parameter_list:
            p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    def get_lr(self) -> float:
        return self._learning_rate

    def set_lr(self, value: float) -> None:
        self._learning_rate = float(value)
        for g in self._core.param_groups:
            g["lr"] = float(value)

    def state_dict(self) -> dict:
        return self._core.state_dict()

    def set_state_dict(self, state_dict: dict) -> None:
        self._core.load_state_dict(state_dict)


class SGD(Optimizer):
    """``paddle.optimizer.SGD(learning_rate=0.001, parameters=None, weight_decay=None)``."""

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip)

    def _make(self, params, lr, weight_decay):
        return _optim.SGD(params, lr=lr, weight_decay=weight_decay)


class Adam(Optimizer):
    """``paddle.optimizer.Adam(learning_rate, beta1, beta2, epsilon, parameters, weight_decay)``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip,
                         betas=(float(beta1), float(beta2)), eps=float(epsilon), amsgrad=amsgrad)

    def _make(self, params, lr, weight_decay, betas, eps, amsgrad):
        return _optim.Adam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                           amsgrad=amsgrad)
