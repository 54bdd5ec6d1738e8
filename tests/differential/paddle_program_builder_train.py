"""Random Paddle training-lesson programs: ``paddle.nn`` layers, losses, optimizers and writes.

The Paddle twin of ``program_builder_train``: small layers (``Linear``, ``Sequential`` with
activations, ``LayerNorm``, ``BatchNorm1D``, ``Dropout``), forward passes, losses and
``backward``, ``paddle.optimizer`` steps and ``clear_grad``, and the writes a student makes
between them (to a parameter under ``no_grad``, ``clear_gradient``, ``stop_gradient`` flips,
``train``/``eval``), mixed with the core Paddle steps on the same tensors. ``P.seed(seed)``
comes first: inplace_lab's generator is Paddle's, so the layers start from the same weights.
Layers are ``m0, m1, ...``, optimizers ``o0, o1, ...``.
"""
from __future__ import annotations

from . import paddle_program_builder
from .program_builder import build as _build
from .program_builder_train import ModuleLessons


class TrainBuilder(ModuleLessons, paddle_program_builder.Builder):
    STEPS = ("module", "forward", "forward", "forward", "loss_backward", "loss_backward",
             "optim_step", "optim_step", "param_write", "param_write", "view", "inplace",
             "out_of_place")

    def __init__(self, seed: int):
        super().__init__(seed)
        self._start(f"P.seed({seed % 1000})")

    def backward(self):  # (the step ``build`` ends on, most of the time)
        self.loss_backward()

    def module(self):
        r = self.rng
        f = r.choice([3, 4])
        kinds = [
            (f"P.nn.Linear({f}, 2)", ["weight", "bias"]),
            (f"P.nn.Sequential(P.nn.Linear({f}, 4), P.nn.ReLU(), P.nn.Linear(4, 2))",
             ["0.weight", "2.bias"]),
            (f"P.nn.Sequential(P.nn.Linear({f}, 3), P.nn.Sigmoid())", ["0.weight"]),
            (f"P.nn.Sequential(P.nn.Linear({f}, 3), P.nn.Tanh(), P.nn.Linear(3, 2))",
             ["0.bias", "2.weight"]),
            (f"P.nn.Sequential(P.nn.Linear({f}, 3), P.nn.LeakyReLU(0.1))", ["0.weight"]),
            (f"P.nn.Sequential(P.nn.LayerNorm({f}), P.nn.Linear({f}, 2))", ["0.weight"]),
            (f"P.nn.Sequential(P.nn.Linear({f}, 3), P.nn.Dropout(0.5))", ["0.weight"]),
            (f"P.nn.Sequential(P.nn.Linear({f}, 3), P.nn.Softmax())", ["0.bias"]),
            # (no BatchNorm1D: its float32 normalised batch sums to ~0 and its gradients cancel
            # the same way, so Paddle's kernel's rounding shows; its one-sample copy-through is
            # pinned in tests/paddle/test_training_vs_paddle.py)
        ]
        expr, params = r.choice(kinds)
        self._add_module(expr, params, f)

    def _input(self, f):
        r = self.rng
        fits = self.tensors(lambda t: len(t.shape) == 2 and t.shape[-1] == f and
                            "float32" in str(t.dtype))
        if fits and r.random() < 0.4:
            return r.choice(fits)
        name = self.new()
        rows = r.choice([2, 2, 3])
        vals = [[round(r.uniform(-2, 2), 2) for _ in range(f)] for _ in range(rows)]
        sg = "True" if r.random() < 0.7 else "False"
        self.emit(f"{name} = P.to_tensor({vals!r}, dtype='float32', stop_gradient={sg})")
        return name

    def forward(self):
        m = self._module()
        x = self._input(self.modules[m][0])
        y = self.new()
        self.emit(f"{y} = {m}({x})")
        if self.rng.random() < 0.2:
            self.emit(self.rng.choice([f"F.relu_({y})", f"{y}.scale_(2.0)", f"{y}[0] = 0.0"]))

    def loss_backward(self):
        r = self.rng
        y = self.pick(lambda t: not t.stop_gradient and len(t.shape) == 2 and
                      "float" in str(t.dtype))
        if y is None:
            return self.forward()
        n, c = self.t(y).shape
        label = [r.randrange(c) for _ in range(n)]
        losses = [f"({y} * {y}).sum()", f"{y}.sum()", f"F.mse_loss({y}, P.zeros_like({y}))",
                  f"{y}.abs().mean()", f"F.cross_entropy({y}, P.to_tensor({label}))",
                  f"F.smooth_l1_loss({y}, P.ones_like({y}))"]
        loss, how = self.new(), r.choice(losses)
        self.emit(f"{loss} = {how}")
        # (not twice through cross_entropy: Paddle's softmax-with-cross-entropy grad kernel
        # writes into the softmax its node keeps, so a second backward reads it altered)
        if r.random() < 0.7 or "cross_entropy" in how:
            self.emit(f"{loss}.backward()")
        else:
            self.emit(f"{loss}.backward(retain_graph=True)")
            if r.random() < 0.5:
                r.choice([self.optim_step, self.param_write])()
            self.emit(f"{loss}.backward()")

    def optim_step(self):
        r = self.rng
        if not self.optims or self.off(0.2):
            m = self._module()
            opt = r.choice([
                "P.optimizer.SGD(learning_rate=0.1, parameters={p})",
                "P.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters={p})",
                "P.optimizer.Adam(learning_rate=0.01, parameters={p})",
                "P.optimizer.AdamW(learning_rate=0.01, parameters={p})",
                "P.optimizer.RMSProp(learning_rate=0.01, parameters={p})",
                "P.optimizer.Adagrad(learning_rate=0.1, parameters={p})",
                "P.optimizer.SGD(learning_rate=0.1, parameters={p}, weight_decay=0.01)"])
            name = f"o{len(self.optims)}"
            self.emit(f"{name} = " + opt.format(p=f"{m}.parameters()"))
            self.optims[name] = m
        o = r.choice(sorted(self.optims))
        what = r.random()
        if what < 0.6:
            self.emit(f"{o}.step()")
        elif what < 0.85:
            self.emit(f"{o}.clear_grad()")
        else:
            self.emit(f"{o}.step(); {o}.clear_grad()")

    def param_write(self):
        r = self.rng
        m = self._module()
        bound = self.modules[m][1]
        p = r.choice(bound) if bound and r.random() < 0.7 else None
        ops = [f"{m}.clear_gradients()", f"{m}.eval()", f"{m}.train()"]
        if p is not None:
            ops += [f"with P.no_grad(): {p}.scale_(0.5)", f"{p}.scale_(0.5)",
                    f"{p}.clear_gradient()", f"{p}.stop_gradient = True",
                    f"with P.no_grad(): {p}.add_(P.ones_like({p}))",
                    f"{p}.set_value(P.zeros_like({p}))", f"{p}.clip_(-0.1, 0.1)"]
        self.emit(r.choice(ops))


def build(seed: int, length: int | None = None) -> list[str]:
    """One Paddle training-lesson program for ``seed`` (``program_builder.build``'s steps)."""
    return _build(seed, length, TrainBuilder)
