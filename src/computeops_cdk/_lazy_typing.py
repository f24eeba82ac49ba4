"""What our modules need of ``typing`` at run time, without importing it on a cold start.

``typing`` (with ``contextlib`` and ``warnings``) is about 3-4 ms of a cold ``computeops decide``
(benchmarks/STARTUP.md), and our modules use it almost only in annotations, which mypy reads under
``if TYPE_CHECKING:``. The few run-time uses get these stand-ins there (mypy keeps seeing typing's):

- ``cast``: typing's own is ``return val`` too;
- ``Generic``: a base for a class whose parameters only annotations read (``Column(Generic["K"])``,
  ``Column[str]`` in an annotation); subscripted at run time it is itself, a class with no state;
- ``literal_aliases``: a module's public ``Literal`` aliases (``PriceModel``, ``Precision``, ...),
  made by ``typing.Literal`` when first read and then kept, so ``get_args`` and ``==`` see what they
  saw before. A test compares each with the alias mypy reads (the module's ``TYPE_CHECKING`` block).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["Generic", "cast", "literal_aliases"]


def cast(typ: object, val: object) -> object:
    """``typing.cast``: ``val`` itself (``typ`` is for the type checker)."""
    return val


class Generic:
    """``typing.Generic`` for annotations only: ``Generic["K"]`` (any subscript) is this class."""

    __slots__ = ()

    def __class_getitem__(cls, params: object) -> type[Generic]:
        return cls


def literal_aliases(
    namespace: dict[str, object], aliases: Mapping[str, tuple[str, ...]]
) -> Callable[[str], object]:
    """A module ``__getattr__`` making ``typing.Literal[values]`` of each name of ``aliases`` when first
    read and keeping it in ``namespace`` (the module's globals); any other name is an AttributeError
    worded as Python words it."""

    def __getattr__(name: str) -> object:
        values = aliases.get(name)
        if values is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        from typing import Literal

        alias = namespace[name] = Literal[values]
        return alias

    return __getattr__
