"""``torch.cuda``: ``inplace_lab.cuda`` under PyTorch's module name (one implementation).

``memory_allocated`` / ``max_memory_allocated`` are exact bytes of tensor storage on the
device, so the classic figure holds: ``relu(x)`` on a [1, 64, 512, 512] float32 tensor
peaks at 134,217,728 bytes, ``relu_(x)`` at 67,108,864.
"""
from inplace_lab.cuda import (current_device, device, device_count, empty_cache,  # noqa: F401
                              get_device_name, get_device_properties, get_rng_state,
                              get_rng_state_all, initial_seed, is_available, manual_seed,
                              manual_seed_all, max_memory_allocated, max_memory_reserved,
                              memory_allocated, memory_reserved, memory_stats, memory_summary,
                              reset_max_memory_allocated, reset_peak_memory_stats, seed,
                              seed_all, set_device, set_rng_state, set_rng_state_all,
                              synchronize)


class _CudaAmp:
    """``torch.cuda.amp``: the deprecated spellings of ``torch.amp``'s, with torch's warning."""

    @staticmethod
    def GradScaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                   growth_interval=2000, enabled=True):
        import warnings

        from inplace_lab.torch import amp

        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        return amp.GradScaler("cuda", init_scale, growth_factor, backoff_factor,
                              growth_interval, enabled)

    @staticmethod
    def autocast(enabled=True, dtype=None, cache_enabled=True):
        import warnings

        from inplace_lab.torch import amp

        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        return amp.autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


amp = _CudaAmp()
