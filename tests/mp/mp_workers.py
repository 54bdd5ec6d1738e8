"""Child-process bodies for the shared-memory tests (importable by spawned children)."""
from __future__ import annotations


def add_one_in_place(q_in, q_out):
    import inplace_lab.multiprocessing  # noqa: F401  (registers the shared-memory reducers)

    t = q_in.get(timeout=20)
    t.add_(1)  # in place, in the child, on the shared segment
    q_out.put((t.is_shared(), t._version, t.tolist()))


def write_views(q_in, q_out):
    import inplace_lab.multiprocessing  # noqa: F401

    a, b = q_in.get(timeout=20)
    same = a.untyped_storage() is b.untyped_storage()
    b.fill_(7.0)
    q_out.put((same, a.tolist()))
    q_out.put(b)  # back to the parent: it must land on the parent's own storage
