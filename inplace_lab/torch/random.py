"""``torch.random``: the default CPU generator's seeding and state (``inplace_lab.rng``)."""
from __future__ import annotations

import contextlib

from inplace_lab import rng as _rng

from .more import get_rng_state, initial_seed, set_rng_state  # noqa: F401

default_generator = _rng.default_generator


def manual_seed(seed):
    import inplace_lab.torch as _t

    return _t.manual_seed(seed)


def seed() -> int:
    import inplace_lab.torch as _t

    return _t.seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Restore the CPU generator's state (draws, cached normal) when the block ends."""
    if not enabled:
        yield
        return
    state = default_generator.state_bytes()
    try:
        yield
    finally:
        default_generator.set_state(state)
