"""``Optimizer``: param groups, per-parameter state, ``zero_grad``, state dicts.

``step()`` runs under no_grad and updates each parameter *in place* (``add_``,
``addcdiv_``...): a trace of a training step shows one version bump per update and no
leaf error, because grad mode is off. ``zero_grad()`` sets grads to None (torch 2.x
default); ``zero_grad(set_to_none=False)`` zeroes them in place (their version bumps).
"""
from __future__ import annotations

import copy
from collections import defaultdict

from ..autograd import no_grad
from ..tensor import Tensor


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self.state: dict = defaultdict(dict)
        self.param_groups: list = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            if v is required and k not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {k}")
            param_group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from ..autograd import enable_grad

            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad, group, self.state[p])
        return loss

    def _update(self, p, grad, group, state):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    # ---- state dicts ------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index...]}]}`` as torch."""
        index, groups, i = {}, [], 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                if id(p) not in index:
                    index[id(p)] = i
                    i += 1
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = copy.deepcopy(state_dict)
        groups, saved = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {sid: p for g, s in zip(groups, saved) for sid, p in zip(s["params"], g["params"])}
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            p = id_map.get(int(k))
            if p is None:
                continue
            self.state[p] = {n: (t.to(p.device, p._dtype) if isinstance(t, Tensor) and
                                 t.is_floating_point() and n != "step" else t)
                             for n, t in v.items()}
        for g, s in zip(groups, saved):
            s = dict(s)
            s["params"] = g["params"]
            g.clear()
            g.update(s)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


def _step_tensor(p):
    """Adam & co. keep ``step`` as a float32 0-dim tensor (torch 2.x); incremented in place."""
    from .. import creation, dtypes

    return creation.tensor(0.0, dtype=dtypes.float32)
