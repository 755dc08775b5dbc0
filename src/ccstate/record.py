"""`Record`: an immutable value object over `__slots__`, for code the hooks reach.

Not a dataclass: `import dataclasses` (with inspect) costs a hook about as much as the
rest of its work (docs/BENCHMARKS.md). Subclasses declare `__slots__` and call `_init`.
"""

from __future__ import annotations


class Record:
    """Equality and repr over the slots; setting an attribute after `_init` raises."""

    __slots__: tuple[str, ...] = ()

    def _init(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, n) == getattr(other, n) for n in self.__slots__
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({inner})"
