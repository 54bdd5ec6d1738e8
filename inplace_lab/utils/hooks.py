"""``torch.utils.hooks.RemovableHandle``: what every ``register_*hook`` returns.

``handle.remove()`` takes the hook off (twice is harmless); ``with handle:`` removes it at the
end of the block. ``handle.id`` numbers the handles in the order they were made.
"""
from __future__ import annotations


class RemovableHandle:
    """A handle on one registered hook: in a dict (module hooks, keyed by ``id``) or a list
    (tensor and node hooks, in registration order)."""

    next_id: int = 0

    def __init__(self, hooks, hook=None):
        self._hooks, self._hook = hooks, hook
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self) -> None:
        hooks = self._hooks
        if isinstance(hooks, dict):
            hooks.pop(self.id, None)
        elif self._hook in hooks:
            hooks.remove(self._hook)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
