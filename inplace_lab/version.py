"""VersionCounter: one integer shared by a tensor, all its views and ``detach()``.

Every in-place write bumps it; autograd records it when it saves a tensor and
compares at backward. It is an object (not an int on the tensor) because views
must *share* it: bumping through one view is seen by the base and siblings.
"""


class VersionCounter:
    __slots__ = ("version", "__weakref__")

    def __init__(self, version: int = 0):
        self.version = version

    def bump(self, by: int = 1) -> int:
        self.version += by
        return self.version

    def __repr__(self) -> str:
        return f"VersionCounter({self.version})"
