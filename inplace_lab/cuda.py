"""``inplace_lab.cuda``: the GPU device in PyTorch's shape (a real one via cupy, or the simulated one).

``memory_allocated`` / ``max_memory_allocated`` read ``inplace_lab.memory`` for the cuda
device: exact bytes of tensor storage, so the classic figure holds (``relu`` on a
[1, 64, 512, 512] float32 tensor peaks at 134,217,728 bytes, ``relu_`` at 67,108,864).
``with inplace_lab.cuda.device(i):`` sets the current device (checked against what exists).
"""
from __future__ import annotations

import contextlib

from . import backend, memory

_current = [0]


def is_available() -> bool:
    return backend.gpu_count() > 0


def device_count() -> int:
    return backend.gpu_count()


def current_device() -> int:
    return _current[0]


def _index(device) -> int:
    if device is None:
        return _current[0]
    if isinstance(device, int):
        return device
    d = backend.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return d.index if d.index is not None else _current[0]


def _check(index: int) -> None:
    n = backend.gpu_count()
    if n == 0:
        backend.check_device(backend.device("cuda", index))  # raises the no-GPU explanation
    if not 0 <= index < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index}; "
                           f"{n} device(s) available)")


def set_device(device) -> None:
    i = _index(device)
    _check(i)
    _current[0] = i


@contextlib.contextmanager
def device(device):
    """``with cuda.device(i):`` makes ``i`` the current device for the block, then restores."""
    i = _index(device)
    if i >= 0:
        _check(i)
    old = _current[0]
    _current[0] = i if i >= 0 else old
    try:
        yield
    finally:
        _current[0] = old


def _dev(device=None):
    return backend.device("cuda", _index(device))


def memory_allocated(device=None) -> int:
    return memory.memory_allocated(_dev(device))


def max_memory_allocated(device=None) -> int:
    return memory.max_memory_allocated(_dev(device))


def reset_peak_memory_stats(device=None) -> None:
    memory.reset_peak_memory_stats(_dev(device))


reset_max_memory_allocated = reset_peak_memory_stats


def synchronize(device=None) -> None:
    """Wait for the device's queued work (cupy), a no-op on the simulated GPU."""
    if backend.is_real_gpu(_dev(device)):
        xp = backend.xp_of(_dev(device))
        xp.cuda.Device(_index(device)).synchronize()


def empty_cache() -> None:
    """inplace_lab frees a storage when its last tensor dies; cupy's pool is emptied too."""
    if is_available() and backend.is_real_gpu(_dev()):
        backend.xp_of(_dev()).get_default_memory_pool().free_all_blocks()


# ---- random state: seeding boilerplate (torch.cuda.manual_seed_all) runs anywhere -------------

_seed = [None]  # the GPU generator's seed (initial_seed)


def manual_seed(seed) -> None:
    """Seed the GPU's generator (cupy's; its draws are not torch CUDA's Philox stream).
    Without a GPU it only remembers the seed, as PyTorch queues it until CUDA starts."""
    _seed[0] = int(seed)
    if backend._CUPY_DEVICES:
        backend._cupy.random.seed(int(seed) % (1 << 64))


manual_seed_all = manual_seed


def seed() -> None:
    """Seed the GPU's generator from the OS's entropy (nothing without a GPU)."""
    import os

    manual_seed(int.from_bytes(os.urandom(8), "little"))


seed_all = seed


def initial_seed() -> int:
    """The GPU generator's seed; without a GPU, PyTorch's CPU build's AssertionError."""
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    return _seed[0] if _seed[0] is not None else 0


def get_rng_state(device="cuda"):
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise NotImplementedError("the GPU's random state is cupy's generator and cannot be saved "
                              "as torch's: re-seed with torch.cuda.manual_seed(s) instead")


def set_rng_state(new_state, device="cuda"):
    get_rng_state(device)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, s in enumerate(new_states):
        set_rng_state(s, i)


# ---- what memory lessons print: reserved bytes, stats, the device's name -------------------

def memory_reserved(device=None) -> int:
    """Bytes the allocator holds: cupy's pool (in use and cached) on a real GPU; the simulated
    GPU has no cache (a freed storage goes back at once), so it reserves what is allocated.
    0 without a GPU, as PyTorch's CPU build answers."""
    if not is_available():
        return 0
    dev = _dev(device)
    if not backend.is_real_gpu(dev):
        return memory.memory_allocated(dev)
    with backend.xp_of(dev).cuda.Device(dev.index or 0):
        return int(backend.xp_of(dev).get_default_memory_pool().total_bytes())


def max_memory_reserved(device=None) -> int:
    """At least the allocated peak (what was reserved then), and what is reserved now (cupy's
    pool keeps freed blocks until ``empty_cache``)."""
    if not is_available():
        return 0
    return max(memory_reserved(device), memory.max_memory_allocated(_dev(device)))


def memory_stats(device=None) -> dict:
    """The allocator's counters PyTorch's memory lessons read (empty without a GPU)."""
    import collections

    if not is_available():
        return collections.OrderedDict()
    dev = _dev(device)
    return collections.OrderedDict([
        ("allocated_bytes.all.current", memory.memory_allocated(dev)),
        ("allocated_bytes.all.peak", memory.max_memory_allocated(dev)),
        ("reserved_bytes.all.current", memory_reserved(device)),
        ("reserved_bytes.all.peak", max_memory_reserved(device))])


def memory_summary(device=None, abbreviated: bool = False) -> str:
    stats = memory_stats(device)
    if not stats:  # (PyTorch's CPU build fails on its own empty stats)
        raise KeyError("allocated_bytes.all.current")
    rows = [("Allocated memory", "allocated_bytes"), ("GPU reserved memory", "reserved_bytes")]
    lines = [f"|{'inplace_lab CUDA memory summary, device ID ' + str(_index(device)):^73}|",
             f"| {'Metric':<24}| {'Cur Usage':>22} | {'Peak Usage':>21} |"]
    for label, key in rows:
        lines.append(f"| {label:<24}| {stats[key + '.all.current']:>20} B | "
                     f"{stats[key + '.all.peak']:>19} B |")
    bar = "|" + "=" * 73 + "|"
    return "\n".join([bar, lines[0], bar, lines[1], bar] + lines[2:] + [bar])


def get_device_name(device=None) -> str:
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    dev = _dev(device)
    if not backend.is_real_gpu(dev):
        return "inplace_lab simulated GPU"
    props = backend.xp_of(dev).cuda.runtime.getDeviceProperties(dev.index or 0)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def get_device_properties(device=None):
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    import types

    dev = _dev(device)
    if backend.is_real_gpu(dev):
        p = backend.xp_of(dev).cuda.runtime.getDeviceProperties(dev.index or 0)
        total, major, minor = int(p["totalGlobalMem"]), int(p["major"]), int(p["minor"])
        count = int(p["multiProcessorCount"])
    else:
        total, major, minor, count = 0, 0, 0, 0
    return types.SimpleNamespace(name=get_device_name(device), total_memory=total,
                                 major=major, minor=minor, multi_processor_count=count)
