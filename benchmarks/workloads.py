"""The programs every section times, written once for any torch-like library (torch or
inplace_lab: same names, same semantics), so both sides run the same code."""
from __future__ import annotations


def small_inputs(lib, n: int = 8, requires_grad: bool = False):
    x = lib.full((n, n), 0.75, requires_grad=requires_grad)
    w = lib.full((n, n), 0.5)
    b = lib.full((n, n), 0.125)
    return x, w, b


def chain(x, w, b, n_ops: int):
    """``n_ops`` elementwise ops (mul, add, tanh, sub, repeating)."""
    y = x
    for _ in range(n_ops // 4):
        y = y * w
        y = y + b
        y = y.tanh()
        y = y - b
    return y


def chain_numpy(np, x, w, b, n_ops: int):
    """The same chain on raw numpy arrays: the floor a numpy-backed library can reach."""
    y = x
    for _ in range(n_ops // 4):
        y = y * w
        y = y + b
        y = np.tanh(y)
        y = y - b
    return y


def chain_backward(x, w, b, n_ops: int):
    chain(x, w, b, n_ops).sum().backward()


# ---- MLP (784-512-512-10) from plain ops: matmul, add, relu, log_softmax ---------------------

def mlp_params(lib, sizes, seed: int = 0):
    """Leaf parameters, Kaiming-uniform-like, identical values on every library."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ps = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        W = rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)
        bb = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
        ps += [lib.tensor(W, requires_grad=True), lib.tensor(bb, requires_grad=True)]
    return ps


def mlp_batch(lib, batch: int, n_in: int, n_out: int, seed: int = 1):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal((batch, n_in)).astype(np.float32))
    onehot = np.zeros((batch, n_out), np.float32)
    onehot[np.arange(batch), rng.integers(0, n_out, batch)] = 1.0
    return x, lib.tensor(onehot)


def mlp_loss(params, x, onehot):
    h = x
    for i in range(0, len(params), 2):
        h = h.matmul(params[i]) + params[i + 1]
        if i + 2 < len(params):
            h = h.relu()
    return -(h.log_softmax(1) * onehot).sum() / x.shape[0]


class PlainSGD:
    """p -= lr * p.grad, in place under no_grad (what torch.optim.SGD does without momentum)."""

    def __init__(self, lib, params, lr=0.01):
        self.lib, self.params, self.lr = lib, params, lr

    def step(self):
        with self.lib.no_grad():
            for p in self.params:
                p.add_(p.grad, alpha=-self.lr)

    def zero_grad(self):
        for p in self.params:
            p.grad = None


class PlainAdam:
    """torch.optim.Adam's update (single-tensor path) written with in-place ops."""

    def __init__(self, lib, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.lib, self.params, self.lr, self.betas, self.eps = lib, params, lr, betas, eps
        self.m = [lib.zeros_like(p) for p in params]
        self.v = [lib.zeros_like(p) for p in params]
        self.t = 0

    def step(self):
        b1, b2 = self.betas
        self.t += 1
        bc1, bc2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        with self.lib.no_grad():
            for p, m, v in zip(self.params, self.m, self.v):
                g = p.grad
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = (v.sqrt() / (bc2 ** 0.5)).add_(self.eps)
                p.addcdiv_(m, denom, value=-self.lr / bc1)

    def zero_grad(self):
        for p in self.params:
            p.grad = None


def train_step(params, opt, x, onehot):
    opt.zero_grad()
    loss = mlp_loss(params, x, onehot)
    loss.backward()
    opt.step()
    return loss
