"""Every error computeops-cdk raises on purpose.

    ComputeOpsError                 catch-all; `str(err)` is a complete, user-facing message
    ├── IntentError                 the workload intent is invalid (carries `.path`, `.suggestions`)
    │   └── AccountsError           the accounts file is missing or malformed
    ├── CatalogError                the catalog is missing, corrupt or fails its schema (carries `.path`)
    │   └── CatalogRefreshError     a public price feed could not be read or parsed
    ├── EstimateError               the performance model cannot estimate this combination
    │   └── DoesNotFitError         the model does not fit in the accelerators' memory
    ├── NoFeasiblePlacementError    no candidate met every hard constraint (`.rejections`, `.nearest_misses`)
    ├── LockError                   a lockfile or lock entry is unreadable or invalid (carries `.path`)
    │   └── LockedPlacementError    a locked placement breaks a hard constraint today (`.rule`, `.reasons`)
    ├── MetricsError                production metrics could not be read or make no sense (nothing recorded)
    └── TargetError                 a Terraform target cannot express the decision
        ├── PinnedPlacementError    a pinned provider/region violates the intent (carries `.rule`)
        └── MissingExtraError       the chosen target's binding is not installed (carries `.extra`)

Messages follow one shape: what failed, then "To fix: ...", then "did you mean ..." where a name was
unknown. The CLI maps them to exit codes (2 invalid input, 3 no feasible placement / does not fit).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

__all__ = [
    "AccountsError",
    "CatalogError",
    "CatalogRefreshError",
    "ComputeOpsError",
    "DoesNotFitError",
    "EstimateError",
    "IntentError",
    "LockError",
    "LockedPlacementError",
    "MetricsError",
    "MissingExtraError",
    "NoFeasiblePlacementError",
    "PinnedPlacementError",
    "TargetError",
    "described",
    "did_you_mean",
    "did_you_mean_text",
    "shown",
]


def shown(value: object, *, limit: int = 80) -> str:
    """``repr(value)`` for a message, cut at ``limit`` characters, built without reading all of it
    (an alias bomb, a pasted megabyte). A huge integer shows its size (``repr`` could raise), a type
    other than plain data its type name (its ``__repr__`` could do anything)."""
    out: list[str] = []
    size = 0
    for piece in _pieces(value, limit + 1, set()):
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pieces(value: object, budget: int, active: set[int]) -> Iterator[str]:
    """The pieces of ``repr(value)``, lazily; strings and bytes cut at ``budget`` characters."""
    if isinstance(value, str | bytes | bytearray):
        yield repr(value[:budget])
    elif isinstance(value, bool) or value is None or isinstance(value, float | complex):
        yield repr(value)
    elif isinstance(value, int):
        digits = int(value.bit_length() * 0.30103) + 1
        yield repr(value) if digits < 60 else f"<an integer of about {digits:,} digits>"
    elif type(value).__module__ == "datetime":  # a YAML date; no import of datetime at start-up
        yield repr(value)
    elif isinstance(value, list | tuple | set | frozenset | dict):
        if id(value) in active:  # a structure that contains itself
            yield "[...]" if isinstance(value, list) else "{...}"
            return
        active.add(id(value))
        yield from _container(value, budget, active)
        active.discard(id(value))
    else:
        yield f"<{type(value).__name__}>"


def _container(value: Any, budget: int, active: set[int]) -> Iterator[str]:
    if isinstance(value, set | frozenset) and not value:
        yield f"{type(value).__name__}()"
        return
    if isinstance(value, frozenset):
        opening, closing = "frozenset({", "})"
    elif isinstance(value, list):
        opening, closing = "[", "]"
    elif isinstance(value, tuple):
        opening, closing = "(", ")"
    else:
        opening, closing = "{", "}"
    yield opening
    items = value.items() if isinstance(value, dict) else value
    for index, item in enumerate(items):
        if index:
            yield ", "
        if isinstance(value, dict):
            yield from _pieces(item[0], budget, active)
            yield ": "
            yield from _pieces(item[1], budget, active)
        else:
            yield from _pieces(item, budget, active)
    if isinstance(value, tuple) and len(value) == 1:
        yield ","
    yield closing


def described(value: object, *, limit: int = 80) -> str:
    """A bad value for a message: its type and repr, cut at ``limit`` characters."""
    return f"{type(value).__name__} {shown(value, limit=limit)}"


DID_YOU_MEAN_CUTOFF = 0.65
"""Least difflib ratio of a suggestion: difflib's 0.6 offered ``llama-3-8b`` for ``llama-4-scout``,
while a real typo (``awz`` -> ``aws``) scores 0.67."""


def did_you_mean(name: str, choices: Iterable[str], *, n: int = 3) -> list[str]:
    """Close matches for an unknown `name` among `choices` (case-insensitive), best first."""
    import difflib  # on first use: it imports re, which `computeops --version` does not need

    by_lower = {c.lower(): c for c in choices}
    hits = difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=DID_YOU_MEAN_CUTOFF)
    return [by_lower[h] for h in hits]


def did_you_mean_text(suggestions: Iterable[str]) -> str:
    """`` (did you mean 'a' or 'b'?)`` for a message, or "" when there is no suggestion."""
    shown = " or ".join(repr(s) for s in suggestions)
    return f" (did you mean {shown}?)" if shown else ""


class ComputeOpsError(Exception):
    """Base class of every error raised on purpose by computeops-cdk."""


class IntentError(ComputeOpsError, ValueError):
    """The workload intent is invalid.

    Attributes:
        path: dotted field path of the offending value (e.g. ``constraints.providers.allow[1]``), or "".
        suggestions: close matches for an unknown name, best first.
    """

    def __init__(self, message: str, *, path: str = "", suggestions: Sequence[str] = ()) -> None:
        self.path = path
        self.suggestions = list(suggestions)
        text = f"{path}: {message}" if path else message
        text += did_you_mean_text(self.suggestions)
        super().__init__(text)


class CatalogError(ComputeOpsError, ValueError):
    """The market catalog is missing, corrupt or does not match its schema.

    Attributes:
        path: JSON path of the offending value (e.g. ``$.offers[12].hourly_usd``), or "".
    """

    def __init__(self, message: str, *, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class AccountsError(IntentError):
    """The accounts file (computeops.accounts.yaml) is missing or not its documented shape."""


class CatalogRefreshError(CatalogError):
    """A public price feed could not be fetched or parsed; the catalog on disk is left untouched."""


class EstimateError(ComputeOpsError, ValueError):
    """The performance model cannot produce an estimate for this combination of inputs."""


class DoesNotFitError(EstimateError):
    """The model does not fit in the memory of the given accelerators.

    Attributes:
        needed_gb: memory needed per accelerator (GB).
        available_gb: memory available per accelerator (GB).
    """

    def __init__(self, message: str, *, needed_gb: float, available_gb: float) -> None:
        self.needed_gb = needed_gb
        self.available_gb = available_gb
        super().__init__(message)


class NoFeasiblePlacementError(ComputeOpsError):
    """No candidate satisfied every hard constraint of the intent.

    Attributes:
        rejections: every rejected candidate with its reasons (the same objects a Decision carries).
        nearest_misses: human-readable relaxations that would admit a candidate, nearest first.
        document: the JSON-ready decision document with ``decision: None`` (what ``--format json``
            prints), built on first access.
        decision: the engine's ``Decision`` with ``chosen`` None, or None.
    """

    def __init__(
        self,
        message: str,
        *,
        rejections: Sequence[Any] = (),
        nearest_misses: Sequence[str] = (),
        document: dict[str, Any] | Callable[[], dict[str, Any] | None] | None = None,
        decision: Any = None,
    ) -> None:
        # A list is copied, an iterator read now; a lazy sequence (the engine's ``Rejections``) is kept.
        lazy = hasattr(rejections, "__len__") and not isinstance(rejections, list)
        self._rejections = rejections if lazy else list(rejections)
        self.decision = decision
        self.nearest_misses = list(nearest_misses)
        self._document = document
        super().__init__(message)

    @property
    def rejections(self) -> list[Any]:
        """The rejections as a list, made on first access."""
        if not isinstance(self._rejections, list):
            self._rejections = list(self._rejections)
        return self._rejections

    @rejections.setter
    def rejections(self, value: Sequence[Any]) -> None:
        self._rejections = list(value)

    @property
    def document(self) -> dict[str, Any] | None:
        """The decision document with ``decision: None``; None when the raiser gave none."""
        if callable(self._document):
            self._document = self._document()
        return self._document


class LockError(ComputeOpsError, ValueError):
    """A lockfile (``computeops.lock.json``) or one of its entries is unreadable or invalid.

    Attributes:
        path: the lockfile and/or JSON path of the offending value, or "".
    """

    def __init__(self, message: str, *, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class LockedPlacementError(LockError):
    """A locked placement breaks a hard constraint of its intent on today's catalog (synth refuses it).

    Attributes:
        rule: the first rule id that rejects it (e.g. ``price.max_hourly`` or ``offer.gone``).
        reasons: every (rule, message) pair, with the numbers.
    """

    def __init__(
        self, message: str, *, rule: str, reasons: Sequence[tuple[str, str]] = (), path: str = ""
    ) -> None:
        self.rule = rule
        self.reasons = list(reasons)
        super().__init__(message, path=path)


class MetricsError(ComputeOpsError, ValueError):
    """Production metrics (vLLM / DCGM Prometheus text) are unreadable or nonsensical; nothing is recorded."""


class TargetError(ComputeOpsError):
    """A Terraform target cannot express the decision (unsupported feature, bad prop)."""


class PinnedPlacementError(TargetError):
    """A pinned provider or region violates a hard constraint of the intent.

    Attributes:
        rule: the rule id that rejected the pinned placement (e.g. ``compliance.hipaa``).
        reasons: every (rule, message) pair that rejected it, with the numbers (may be empty).
    """

    def __init__(self, message: str, *, rule: str, reasons: Sequence[tuple[str, str]] = ()) -> None:
        self.rule = rule
        self.reasons = list(reasons)
        super().__init__(message)


class MissingExtraError(TargetError, ImportError):
    """The prebuilt binding for the chosen target is not installed.

    Attributes:
        extra: the pip extra that installs it (e.g. ``gcp`` for ``computeops-cdk[gcp]``).
    """

    def __init__(self, message: str, *, extra: str) -> None:
        self.extra = extra
        super().__init__(message)
