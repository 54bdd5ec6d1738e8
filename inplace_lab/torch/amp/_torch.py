"""The inplace_lab.torch facade as the vendored GradScaler sees ``torch``: everything of the
facade, plus ATen's two fused AMP kernels written with the facade's own in-place ops."""
from __future__ import annotations

import types

import inplace_lab.torch as _facade
from inplace_lab import cuda as _cuda


def __getattr__(name):
    return getattr(_facade, name)


def _amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    """Each gradient times ``inv_scale``, in place; ``found_inf`` set to 1 if any value of any
    gradient is inf or NaN (before the multiply, as the kernel reads it)."""
    for g in grads:
        if not bool(_facade.isfinite(g).all()):
            found_inf.fill_(1.0)
        g.mul_(inv_scale)


def _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                       growth_interval):
    """``_amp_update_scale_``: back off after an inf/NaN step, else count successful steps and
    grow the scale every ``growth_interval`` of them (if the grown scale stays finite)."""
    if float(found_inf.item()) != 0.0:
        scale.mul_(backoff_factor)
        growth_tracker.fill_(0)
        return scale
    successful = int(growth_tracker.item()) + 1
    if successful == growth_interval:
        grown = float(scale.item()) * growth_factor
        if grown != float("inf"):
            scale.fill_(grown)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)
    return scale


cuda = types.SimpleNamespace(**{k: getattr(_facade.cuda, k) for k in dir(_facade.cuda)
                                if not k.startswith("__")})
cuda.amp = types.SimpleNamespace(common=types.SimpleNamespace(
    amp_definitely_not_available=lambda: not _cuda.is_available()))


def device(spec, *args):
    """The facade's device; Apple's "mps" (which GradScaler compares against) is a plain marker
    here, equal to no device of this library."""
    if isinstance(spec, str) and spec.startswith("mps"):
        return ("mps", spec)
    return _facade.device(spec, *args)
