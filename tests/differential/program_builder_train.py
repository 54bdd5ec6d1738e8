"""Random training-lesson programs: modules, losses, optimizers and the in-place writes between.

``program_builder.Builder`` writes tensor-level lessons. This builder writes the lesson that
follows them: small ``nn`` modules (``Linear``, ``Sequential`` with ``ReLU(inplace=True)``,
norms, dropout, a small convolution and pooling over 5x5 images, embeddings of token ids),
forward passes, losses and ``backward``, optimizers' ``step`` and ``zero_grad`` (now and then
with a learning-rate schedule), and the writes a student makes between them (to a parameter
under ``no_grad`` or without it, through ``.data``, to ``.grad``, ``clip_grad_norm_``,
``train``/``eval``), mixed with the core steps on the same tensors (parameters are bound to
``t`` names, so the core's views and in-place ops reach them). ``T.manual_seed(seed)`` comes
first: inplace_lab's generator is torch's, so the modules start from the same weights.
Modules are ``m0, m1, ...``, optimizers ``o0, o1, ...``.
"""
from __future__ import annotations

from .program_builder import Builder
from .program_builder import build as _build

F = "T.nn.functional"


class ModuleLessons:
    """What both training builders (PyTorch's here, Paddle's in paddle_program_builder_train)
    keep: modules ``m0, m1, ...`` whose listed parameters are, now and then, bound to new ``t``
    names, the optimizers made so far, and the seed line that starts the program."""

    def _start(self, seed_line: str) -> None:
        self.modules: dict = {}  # name -> (in features, its parameters' t names)
        self.optims: dict = {}  # name -> module name
        self.m = 0
        self.emit(seed_line)

    def _add_module(self, expr: str, params, features) -> None:
        r = self.rng
        name = f"m{self.m}"
        self.m += 1
        self.emit(f"{name} = {expr}")
        bound = []
        for p in params:
            if r.random() < 0.7:
                t = self.new()
                path = "".join(f"[{k}]" if k.isdigit() else f".{k}" for k in p.split("."))
                self.emit(f"{t} = {name}{path}")
                bound.append(t)
        self.modules[name] = (features, bound)

    def _module(self):
        if not self.modules or self.off(0.15):
            self.module()
        return self.rng.choice(sorted(self.modules))


class TrainBuilder(ModuleLessons, Builder):
    STEPS = ("module", "forward", "forward", "forward", "loss_backward", "loss_backward",
             "optim_step", "optim_step", "param_write", "param_write", "view", "inplace",
             "out_of_place")
    # (no as_strided: a reduced loss keeps an input-sized storage whose other cells torch
    # never writes, so a window on them reads uninitialised memory there)
    AS_STRIDED = 0.0

    def __init__(self, seed: int):
        super().__init__(seed)
        self._start(f"T.manual_seed({seed % 1000})")

    # -- modules ------------------------------------------------------------------------------

    def module(self):
        r = self.rng
        f = r.choice([3, 4])
        ip = r.choice(["True", "False"])
        kinds = [
            (f"T.nn.Linear({f}, 2)", ["weight", "bias"]),
            (f"T.nn.Linear({f}, 3, bias=False)", ["weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 4), T.nn.ReLU(inplace={ip}), T.nn.Linear(4, 2))",
             ["0.weight", "2.bias"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.Sigmoid())", ["0.weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.Tanh(), T.nn.Linear(3, 2))",
             ["0.bias", "2.weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.LeakyReLU(0.1, inplace={ip}))",
             ["0.weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.ELU(inplace={ip}))", ["0.weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.Hardtanh(inplace={ip}))", ["0.bias"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.Dropout(0.5))", ["0.weight"]),
            (f"T.nn.Sequential(T.nn.BatchNorm1d({f}), T.nn.Linear({f}, 2))",
             ["0.weight", "0.running_mean"]),
            (f"T.nn.Sequential(T.nn.LayerNorm({f}), T.nn.ReLU(inplace={ip}))", ["0.weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.Softmax(dim=-1))", ["0.weight"]),
            (f"T.nn.Sequential(T.nn.Linear({f}, 3), T.nn.SiLU(inplace={ip}), T.nn.Linear(3, 2))",
             ["0.weight"]),
        ]
        if r.random() < 0.1:  # an embedding lesson: integer token ids
            f = "ids"
            kinds = [("T.nn.Sequential(T.nn.Embedding(6, 3), T.nn.Flatten(), T.nn.Linear(6, 2))",
                      ["0.weight"]),
                     ("T.nn.Embedding(6, 2, padding_idx=0)", ["weight"]),
                     ("T.nn.Sequential(T.nn.Embedding(6, 4, max_norm=1.0), T.nn.Flatten(), "
                      "T.nn.Linear(8, 2))", ["0.weight"])]
        elif r.random() < 0.25:  # an image lesson: (N, 1, 5, 5) inputs
            f, ip = "img", r.choice(["True", "False"])
            kinds = [
                (f"T.nn.Sequential(T.nn.Conv2d(1, 2, 2), T.nn.ReLU(inplace={ip}), "
                 "T.nn.MaxPool2d(2), T.nn.Flatten(), T.nn.Linear(8, 2))", ["0.weight", "4.bias"]),
                # (no BatchNorm2d: its CPU kernel's float32 sums are not replayed, and a channel
                # made constant, conv weights zeroed, amplifies their last bits by 1/sqrt(eps))
                ("T.nn.Sequential(T.nn.Conv2d(1, 2, 3, padding=1), "
                 f"T.nn.ReLU(inplace={ip}), T.nn.AvgPool2d(5), T.nn.Flatten())",
                 ["0.weight", "0.bias"]),
                ("T.nn.Sequential(T.nn.Conv2d(1, 3, 2, stride=2, bias=False), T.nn.Tanh(), "
                 "T.nn.Flatten(), T.nn.Dropout(0.25), T.nn.Linear(12, 2))", ["0.weight"]),
            ]
        expr, params = r.choice(kinds)
        if r.random() < 0.3:
            expr += ".double()"
        self._add_module(expr, params, f)

    def _input(self, f):
        """A batch (or one sample) of ``f`` features, new or one that exists ("img": a batch
        of one-channel 5x5 images)."""
        r = self.rng
        if f == "ids":
            name = self.new()
            ids = [[r.randrange(6) for _ in range(2)] for _ in range(r.choice([2, 3]))]
            self.emit(f"{name} = T.tensor({ids})")
            return name
        if f == "img":
            fits = self.tensors(lambda t: tuple(t.shape[1:]) == (1, 5, 5))
            if fits and r.random() < 0.4:
                return r.choice(fits)
            name = self.new()
            n = r.choice([2, 3])
            rg = ".requires_grad_()" if r.random() < 0.3 else ""
            self.emit(f"{name} = (T.arange({25.0 * n}).reshape({n}, 1, 5, 5) / 25 - "
                      f"{round(r.uniform(0, 2), 2)}){rg}")
            return name
        fits = self.tensors(lambda t: t.dim() in (1, 2) and t.shape[-1] == f and
                            t.is_floating_point())
        if fits and r.random() < 0.4:
            return r.choice(fits)
        name = self.new()
        rows = r.choice([2, 2, 3, 1])
        vals = [[round(r.uniform(-2, 2), 2) for _ in range(f)] for _ in range(rows)]
        data = vals[0] if r.random() < 0.15 else vals
        rg = ", requires_grad=True" if r.random() < 0.3 else ""
        dt = r.choice(["", "", ", dtype=T.float64"])
        self.emit(f"{name} = T.tensor({data!r}{dt}{rg})")
        return name

    def forward(self):
        m = self._module()
        x = self._input(self.modules[m][0])
        y = self.new()
        call = f"{m}({x})"
        if self.off(0.2):
            call = f"{m}({x}.double())" if self.rng.random() < 0.5 else f"{m}({x}.float())"
        self.emit(f"{y} = {call}")
        if self.rng.random() < 0.2:  # a student's in-place tweak of the output
            self.emit(self._context(self.rng.choice(
                [f"{y}.relu_()", f"{y}.mul_(2)", f"{y}[0] = 0.0", f"{y}.sigmoid_()"])))

    # -- losses and backward ------------------------------------------------------------------

    def loss_backward(self):
        r = self.rng
        y = self.pick(lambda t: t.requires_grad and t.dim() in (1, 2) and t.is_floating_point())
        if y is None:
            return self.forward()
        t = self.t(y)
        losses = [f"{y}.pow(2).sum()", f"{y}.sum()", f"{F}.mse_loss({y}, T.zeros_like({y}))",
                  f"{y}.abs().mean()", f"{F}.smooth_l1_loss({y}, T.ones_like({y}))"]
        if t.dim() == 2:
            n, c = t.shape
            target = [r.randrange(c) for _ in range(n)]
            losses += [f"{F}.cross_entropy({y}, T.tensor({target}))",
                       f"{F}.nll_loss({y}.log_softmax(1), T.tensor({target}))",
                       f"{F}.cross_entropy({y}, T.tensor({target}), label_smoothing=0.1)"]
        loss = self.new()
        self.emit(f"{loss} = {r.choice(losses)}")
        how = r.random()
        if how < 0.6:
            self.emit(f"{loss}.backward()")
        elif how < 0.8:
            self.emit(f"{loss}.backward(retain_graph=True)")
            if r.random() < 0.5:
                r.choice([self.optim_step, self.param_write])()
            self.emit(f"{loss}.backward()")
        else:
            leaves = self.tensors(lambda u: u.is_leaf and u.requires_grad)
            if leaves:
                g = f"g{self.g}"
                self.g += 1
                chosen = r.sample(leaves, min(len(leaves), 2))
                self.emit(f"{g} = T.autograd.grad({loss}, [{', '.join(chosen)}], "
                          f"allow_unused=True)")
            else:
                self.emit(f"{loss}.backward()")

    # -- optimizers -----------------------------------------------------------------------------

    def optim_step(self):
        r = self.rng
        if not self.optims or self.off(0.2):
            m = self._module()
            opt = r.choice([
                "T.optim.SGD({p}, lr=0.1)", "T.optim.SGD({p}, lr=0.1, momentum=0.9)",
                "T.optim.SGD({p}, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)",
                "T.optim.Adam({p}, lr=0.01)", "T.optim.Adam({p}, lr=0.01, amsgrad=True)",
                "T.optim.AdamW({p}, lr=0.01)", "T.optim.RMSprop({p}, lr=0.01)",
                "T.optim.Adagrad({p}, lr=0.1)", "T.optim.SGD({p}, lr=0.1, maximize=True)",
                "T.optim.Adam({p}, lr=0.01, foreach=False)"])
            name = f"o{len(self.optims)}"
            self.emit(f"{name} = " + opt.format(p=f"{m}.parameters()"))
            self.optims[name] = m
        o = r.choice(sorted(self.optims))
        what = r.random()
        if what < 0.08:  # a schedule on the optimizer, stepped after it
            s = f"s{o[1:]}"
            self.emit(f"{s} = " + r.choice([
                f"T.optim.lr_scheduler.StepLR({o}, step_size=1, gamma=0.5)",
                f"T.optim.lr_scheduler.ExponentialLR({o}, gamma=0.9)",
                f"T.optim.lr_scheduler.LambdaLR({o}, lambda e: 1.0 / (e + 1))"]))
            self.emit(f"{o}.step(); {s}.step()")
        elif what < 0.6:
            self.emit(f"{o}.step()")
        elif what < 0.8:
            self.emit(f"{o}.zero_grad()")
        elif what < 0.9:
            self.emit(f"{o}.zero_grad(set_to_none=False)")
        else:
            self.emit(f"{o}.step(); {o}.zero_grad()")

    def param_write(self):
        r = self.rng
        m = self._module()
        bound = self.modules[m][1]
        p = r.choice(bound) if bound and r.random() < 0.7 else None
        ops = [f"{m}.zero_grad()", f"{m}.eval()", f"{m}.train()",
               f"T.nn.utils.clip_grad_norm_({m}.parameters(), 0.5)",
               f"T.nn.utils.clip_grad_value_({m}.parameters(), 0.01)",
               f"{m}.requires_grad_(False)", f"{m}.requires_grad_(True)",
               f"{m}.zero_grad(set_to_none=False)"]
        if p is not None:
            ops += [f"with T.no_grad(): {p}.mul_(0.5)", f"{p}.mul_(0.5)",
                    f"{p}.data.add_(1.0)", f"with T.no_grad(): {p} -= 0.1 * {p}.grad",
                    f"{p}.grad.zero_()", f"{p}.grad = None", f"{p}.data = {p}.data * 2",
                    f"with T.no_grad(): {p}.copy_(T.zeros_like({p}))",
                    f"{p}.requires_grad_(False)", f"{p}.detach_()",
                    f"with T.no_grad(): {p}.clamp_(-0.1, 0.1)"]
        self.emit(r.choice(ops))


def build(seed: int, length: int | None = None) -> list[str]:
    """One training-lesson program for ``seed`` (``program_builder.build``'s steps)."""
    return _build(seed, length, TrainBuilder)
