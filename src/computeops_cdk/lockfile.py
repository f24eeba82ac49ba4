"""``computeops.lock.json``: the decisions an app has locked, one entry per workload construct path.

Committed to git like ``.terraform.lock.hcl``: a synth whose intent and pins match an entry emits the
locked placement whatever the catalog says now, and ``computeops reevaluate`` re-decides every entry
against today's catalog. The format (``schemas/lock.schema.json``) is stable (sorted keys, two-space
indent), so a relock is a readable git diff; each entry keeps its intent, enough to re-evaluate it.
Writes are atomic; a read-modify-write holds ``editing()``, so concurrent edits do not collide.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .engine import Calibration, EstimateSummary, LockedPlacement
from .errors import IntentError, LockError, described, did_you_mean, did_you_mean_text, shown
from .intent import WorkloadIntent

__all__ = [
    "LOCKFILE_NAME",
    "LOCKFILE_VERSION",
    "MAX_LOCKFILE_BYTES",
    "LockEntry",
    "Lockfile",
    "Observation",
    "Pins",
    "editing",
    "estimate_of",
    "load_json",
]

LOCKFILE_NAME = "computeops.lock.json"
LOCKFILE_VERSION = 1
MAX_LOCKFILE_BYTES = 16 * 1024 * 1024
"""A lockfile larger than this is refused unread (a lock entry is a few kilobytes)."""
_SHA256 = re.compile(r"[0-9a-f]{64}")
EDIT_WAIT_S = 60.0
"""Longest wait for another process's edit of the same lockfile (a synth or a relock takes seconds)."""
MAX_OBSERVATIONS = 20
"""Observations kept per entry, newest last: enough history to see a trend, small enough to diff."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pins:
    """The pins a workload was decided with; a changed pin means a fresh decision."""

    provider: str | None = None
    region: str | None = None
    cluster: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "region": self.region, "cluster": self.cluster}

    @classmethod
    def from_dict(cls, data: object, *, path: str) -> Pins:
        if not isinstance(data, Mapping):
            raise LockError(f"must be an object (got {described(data)})", path=path)
        unknown = [key for key in data if key not in ("provider", "region", "cluster")]
        if unknown:  # lock.schema.json: additionalProperties false (a 'zone' pin was read and ignored)
            raise LockError(
                f"unknown pin {shown(unknown[0], limit=40)}; a pin is provider, region or cluster. To fix: "
                "remove it, or restore the file from git",
                path=path,
            )
        values = {}
        for name in ("provider", "region", "cluster"):
            value = data.get(name)
            if value is not None and (not isinstance(value, str) or not value):
                raise LockError(
                    f"must be a non-empty string or null (got {described(value)}). To fix: write the "
                    f"workload's {name} prop as it is (null when not given), or restore the file from git",
                    path=f"{path}.{name}",
                )
            values[name] = value
        check_pins(values["provider"], values["region"], path)
        problem = cluster_problem(values["cluster"]) if values["cluster"] is not None else None
        if problem is not None:
            raise LockError(
                f"{problem}. To fix: write the workload's cluster prop as it is (null when not given), or "
                "restore the file from git",
                path=f"{path}.cluster",
            )
        return cls(**values)


MAX_CLUSTER_CHARS = 512
"""A cluster prop's longest value: a bound on what is read, well past any name or resource id (an AKS id)."""

_CDK_TOKEN = re.compile(r"\$\{TfToken\[[A-Za-z0-9_.\-]+\]\}")
"""A cdktn token (another resource's attribute, ``aks.id``), as targets/_escape.py leaves it intact."""
_NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def cluster_problem(cluster: str) -> str | None:
    """Why ``cluster`` cannot be a workload's cluster prop (and so a lock's cluster pin), or None:
    one rule for the construct and the lockfile, so every lock the construct writes reads back."""
    if len(cluster) > MAX_CLUSTER_CHARS:
        return (
            f"a cluster of {len(cluster):,} characters is longer than a cluster name or resource id "
            f"(at most {MAX_CLUSTER_CHARS})"
        )
    if _NOT_ONE_LINE.search(cluster):
        return f"cluster {shown(cluster, limit=60)} holds a control character (one line of text expected)"
    literal = _CDK_TOKEN.sub("", cluster)
    if "${" in literal or "%{" in literal:
        return (
            f"cluster {shown(cluster, limit=60)} holds Terraform template syntax ('${{' or '%{{'); a "
            "cluster is a name, a resource id or another resource's attribute"
        )
    return None


def check_pins(provider: object, region: object, path: str) -> None:
    """Refuse a pin no workload's props can give: a provider not in the catalog, a malformed region
    (a well-formed region the catalog no longer lists passes; ``reevaluate`` reports it)."""
    from .catalog import PROVIDER_IDS
    from .catalog._validate import identifier_problem

    fix = (
        "To fix: write the workload's provider/region props as they are (null when not given), or "
        "restore the file from git"
    )
    for name, value in (("provider", provider), ("region", region)):
        if value is not None and (not isinstance(value, str) or not value):
            raise LockError(
                f"must be a non-empty string or null (got {described(value)}). {fix}", path=f"{path}.{name}"
            )
    assert provider is None or isinstance(provider, str)
    assert region is None or isinstance(region, str)
    if provider is not None and provider not in PROVIDER_IDS:
        raise LockError(
            f"unknown provider {shown(provider)}{did_you_mean_text(did_you_mean(provider, PROVIDER_IDS))}; "
            f"a pin is one of {', '.join(PROVIDER_IDS)}. {fix}",
            path=f"{path}.provider",
        )
    problem = identifier_problem("region_code", region) if region is not None else None
    if problem is not None:
        raise LockError(f"{shown(region)} {problem}. {fix}", path=f"{path}.region")


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
    """Throughput measured in production, recorded against the estimate the lock was sized with.

    Attributes:
        observed_at: when the second scrape was taken (ISO-8601 UTC).
        source: where the metrics came from (URL or file names).
        interval_s: seconds between the two scrapes.
        output_tokens_per_s: measured output tokens per second (whole deployment as scraped).
        prompt_tokens_per_s: measured prompt tokens per second.
        estimated_tokens_per_s: what the locked placement's estimate said for the deployment.
        requests_running: mean requests in flight (gauge, mean of the two scrapes).
        estimated_batch: requests in flight the estimate assumed for the scraped servers (None unknown).
        model, accelerator, precision: what was measured (the key the next decision applies it to).
        ttft_ms_p50, ttft_ms_p90, tpot_ms_p50, tpot_ms_p90: latency percentiles over the interval.
        kv_cache_usage: KV-cache usage fraction (gauge), None when not served.
        gpu_utilization: mean DCGM GPU utilisation in percent, None when not served.
        efficiency: measured tokens/s per scraped replica divided by the performance model's estimate
            for one replica at the measured concurrency and prompt/completion ratio: the factor the next
            decision sizes at for the same model on the same accelerator (None when idle).
    """

    observed_at: str
    source: str
    interval_s: float
    output_tokens_per_s: float
    prompt_tokens_per_s: float
    estimated_tokens_per_s: float
    requests_running: float
    estimated_batch: float | None
    ttft_ms_p50: float | None
    ttft_ms_p90: float | None
    tpot_ms_p50: float | None
    tpot_ms_p90: float | None
    kv_cache_usage: float | None
    gpu_utilization: float | None
    efficiency: float | None
    model: str = ""
    accelerator: str = ""
    precision: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: object, *, path: str) -> Observation:
        if not isinstance(data, Mapping):
            raise LockError(f"must be an object (got {described(data)})", path=path)
        values: dict[str, Any] = {}
        for name, spec in cls.__dataclass_fields__.items():
            value = data.get(name, spec.default)
            kind = str(spec.type)
            if "str" in kind:
                if not isinstance(value, str):
                    raise LockError(f"must be a string (got {described(value)})", path=f"{path}.{name}")
            elif value is not None or "None" not in kind:
                if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                    raise LockError(
                        f"must be a finite number (got {described(value)})", path=f"{path}.{name}"
                    )
                value = float(value)
            values[name] = value
        return cls(**values)

    def describe(self) -> str:
        """``estimate 20,054 tok/s, observed 14,210 tok/s at 71 % of the batch the estimate assumed``."""
        text = (
            f"estimate {self.estimated_tokens_per_s:,.0f} tok/s, "
            f"observed {self.output_tokens_per_s:,.0f} tok/s"
        )
        if self.estimated_batch:
            text += (
                f" at {self.requests_running / self.estimated_batch:.0%} of the batch the estimate assumed"
            )
        if self.efficiency is not None:
            text += f" (efficiency {self.efficiency:.2f}: measured / estimated tokens/s at the measured load)"
        return text


_ESTIMATE_FIELDS = (
    "tokens_per_s",
    "ttft_ms",
    "tpot_ms",
    "tensor_parallel",
    "replicas",
    "concurrency_per_replica",
)


def estimate_of(summary: EstimateSummary) -> dict[str, Any]:
    """What a lock keeps of the placement's estimate: throughput, latencies and the serving layout."""
    full = summary.to_dict()
    return {"model": summary.model, **{name: full[name] for name in _ESTIMATE_FIELDS}}


@dataclass(frozen=True, slots=True, kw_only=True)
class LockEntry:
    """One workload's locked decision.

    Attributes:
        intent: the intent as decided (validated again on read).
        pins: the pins it was decided with.
        placement: the locked placement (offer, size, price, unit cost, score, when, which catalog).
        engine_version: computeops-cdk version that decided it.
        estimate: the placement's estimate when locked (``estimate_of``): ``model`` (performance-model
            version), ``tokens_per_s`` (whole deployment), ``ttft_ms``, ``tpot_ms``,
            ``tensor_parallel``, ``replicas`` and ``concurrency_per_replica`` (inference).
        observations: production measurements, oldest first.
        accounts_sha256: sha256 of the accounts file the placement was decided under (None without one).
            A changed accounts file does not move the lock; the placement is re-checked at every synth.
        image: the machine image the target emits, as the target names it (AWS ``{"ami_name",
            "ami_owner"}``, GCP ``{"image"}``, Azure ``{"publisher", "offer", "sku", "version"}``), so a
            newer library default never moves a locked fleet's image. None: no image to pin.
    """

    intent: WorkloadIntent
    pins: Pins
    placement: LockedPlacement
    engine_version: str
    estimate: Mapping[str, Any]
    observations: tuple[Observation, ...] = ()
    accounts_sha256: str | None = None
    image: Mapping[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "intent": json.loads(self.intent.canonical_json()),
            "intent_sha256": self.intent.sha256,
            "pins": self.pins.to_dict(),
            "placement": self.placement.to_dict(),
            "engine_version": self.engine_version,
            "estimate": dict(self.estimate),
            "observations": [o.to_dict() for o in self.observations],
            "accounts_sha256": self.accounts_sha256,
            "image": dict(sorted(self.image.items())) if self.image is not None else None,
        }

    def matches(self, intent: WorkloadIntent, pins: Pins) -> bool:
        """True when ``intent`` and ``pins`` are the ones this entry was decided with."""
        return self.intent.sha256 == intent.sha256 and self.pins == pins

    def observed(self, observation: Observation) -> LockEntry:
        """This entry with ``observation`` appended (the oldest dropped past ``MAX_OBSERVATIONS``)."""
        return replace(self, observations=(*self.observations, observation)[-MAX_OBSERVATIONS:])

    @classmethod
    def from_dict(cls, data: object, *, path: str) -> LockEntry:
        if not isinstance(data, Mapping):
            raise LockError(f"must be an object (got {described(data)})", path=path)
        try:
            intent = WorkloadIntent.from_dict(data.get("intent"))
        except IntentError as err:
            raise LockError(f"the locked intent is invalid: {err}", path=f"{path}.intent") from None
        if data.get("intent_sha256") != intent.sha256:
            raise LockError(
                "intent_sha256 does not match the intent it records (the entry was edited by hand). "
                "To fix: `computeops lock update --workload PATH` rewrites the entry",
                path=f"{path}.intent_sha256",
            )
        observations = data.get("observations", [])
        if not isinstance(observations, list):
            raise LockError(f"must be a list (got {described(observations)})", path=f"{path}.observations")
        if not isinstance(data.get("engine_version"), str):
            raise LockError(
                f"must be a string (got {described(data.get('engine_version'))})",
                path=f"{path}.engine_version",
            )
        accounts_sha256 = data.get("accounts_sha256")
        if accounts_sha256 is not None and not (
            isinstance(accounts_sha256, str) and _SHA256.fullmatch(accounts_sha256)
        ):
            raise LockError(
                f"must be 64 lowercase hex digits or null (got {described(accounts_sha256)})",
                path=f"{path}.accounts_sha256",
            )
        return cls(
            intent=intent,
            pins=Pins.from_dict(data.get("pins", {}), path=f"{path}.pins"),
            placement=LockedPlacement.from_dict(data.get("placement"), path=f"{path}.placement"),
            engine_version=data["engine_version"],
            estimate=_estimate(data.get("estimate"), path=f"{path}.estimate"),
            observations=tuple(
                Observation.from_dict(o, path=f"{path}.observations[{i}]") for i, o in enumerate(observations)
            ),
            accounts_sha256=accounts_sha256,
            image=_image(data.get("image"), path=f"{path}.image"),
        )


MAX_IMAGE_FIELDS = 8
"""An image reference has a few named parts (Azure's four at most); more is not an image."""


def _image(data: object, *, path: str) -> dict[str, str] | None:
    if data is None:
        return None
    valid = (
        isinstance(data, Mapping)
        and 0 < len(data) <= MAX_IMAGE_FIELDS
        and all(isinstance(k, str) and isinstance(v, str) and 0 < len(v) <= 256 for k, v in data.items())
    )
    if not valid:
        raise LockError(
            f"must be null or an object of up to {MAX_IMAGE_FIELDS} image fields with non-empty strings "
            f"(got {described(data)}). To fix: `computeops lock update` rewrites the entry",
            path=path,
        )
    assert isinstance(data, Mapping)
    return {str(k): str(v) for k, v in sorted(data.items())}


def _estimate(data: object, *, path: str) -> dict[str, Any]:
    if not isinstance(data, Mapping) or not isinstance(data.get("model"), str):
        raise LockError(
            f"must be an object with the performance model's version (got {described(data)})", path=path
        )
    out: dict[str, Any] = {"model": data["model"]}
    for name in _ESTIMATE_FIELDS:
        value = data.get(name)
        finite = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if value is not None and not (finite and value >= 0):
            raise LockError(
                f"must be a finite number >= 0 or null (got {described(value)})", path=f"{path}.{name}"
            )
        if name == "tokens_per_s" and value is None:
            raise LockError("must be a number (got null)", path=f"{path}.{name}")
        out[name] = value
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Lockfile:
    """A lockfile's entries by workload construct path (``Lockfile.read`` / ``write``)."""

    path: Path
    workloads: Mapping[str, LockEntry] = field(default_factory=dict)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, missing_ok: bool = True) -> Lockfile:
        """Read and validate ``path``; an absent file is an empty lockfile when ``missing_ok``."""
        where = Path(path)
        if not where.exists():
            if missing_ok:
                return cls(path=where)
            raise LockError(
                f"no lockfile at {where}. To fix: synthesize the app once, or name the right file"
            )
        if not where.is_file():
            raise LockError(f"{where} is not a regular file. To fix: name the computeops.lock.json file")
        if where.stat().st_size > MAX_LOCKFILE_BYTES:
            raise LockError(
                f"{where} is larger than {MAX_LOCKFILE_BYTES // (1024 * 1024)} MiB: not a lockfile"
            )
        try:
            document = load_json(where.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError) as err:
            raise LockError(
                f"{where} is not valid JSON ({err}). "
                "To fix: restore it from git, or delete it to decide afresh"
            ) from None
        return cls.from_document(document, path=where)

    @classmethod
    def from_document(cls, document: object, *, path: Path) -> Lockfile:
        if not isinstance(document, Mapping):
            raise LockError(f"{path}: the top level must be an object (got {described(document)})")
        version = document.get("lockfile_version")
        if version != LOCKFILE_VERSION or isinstance(version, bool):  # true == 1 in Python, not in JSON
            raise LockError(
                f"{path}: lockfile_version {version!r} is not {LOCKFILE_VERSION}. "
                "To fix: regenerate it with this version of computeops-cdk (`computeops lock update`)"
            )
        workloads = document.get("workloads")
        if not isinstance(workloads, Mapping):
            raise LockError(f"{path}: workloads must be an object (got {described(workloads)})")
        entries = {}
        for name, entry in workloads.items():
            entries[name] = LockEntry.from_dict(entry, path=f"{path}: workloads[{name!r}]")
        return cls(path=path, workloads=dict(sorted(entries.items())))

    def calibrations(self) -> tuple[Calibration, ...]:
        """The newest measured efficiency per (model, precision, accelerator), for ``decide()``."""
        newest: dict[tuple[str, str, str], tuple[str, Calibration]] = {}
        for name, entry in self.workloads.items():
            for o in entry.observations:
                if o.efficiency is None or not o.model or not o.accelerator:
                    continue
                key = (o.model, o.precision, o.accelerator)
                source = f"computeops observe, {name}, {o.observed_at}"
                found = Calibration(
                    model=o.model,
                    precision=o.precision,
                    accelerator=o.accelerator,
                    factor=min(max(o.efficiency, 0.05), 4.0),
                    source=source,
                )
                if key not in newest or o.observed_at >= newest[key][0]:
                    newest[key] = (o.observed_at, found)
        return tuple(found for _, found in (newest[k] for k in sorted(newest)))

    def with_entry(self, workload: str, entry: LockEntry) -> Lockfile:
        return replace(self, workloads=dict(sorted({**self.workloads, workload: entry}.items())))

    def without(self, workload: str) -> Lockfile:
        return replace(self, workloads={k: v for k, v in self.workloads.items() if k != workload})

    def to_json(self) -> str:
        """The lockfile's bytes: stable key order and indent, so diffs are readable."""
        document = {
            "lockfile_version": LOCKFILE_VERSION,
            "workloads": {name: entry.to_dict() for name, entry in sorted(self.workloads.items())},
        }
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"

    def write(self) -> None:
        """Write atomically: the previous file stays whole until the new one is complete."""
        text = self.to_json()
        directory = self.path.parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".computeops.lock.", suffix=".tmp", dir=directory)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(text)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as err:
            raise LockError(
                f"cannot write {self.path} ({err.strerror or err}); the previous lockfile is unchanged. "
                "To fix: check the directory is writable and the disk has room"
            ) from None


@contextlib.contextmanager
def editing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the lockfile's folder exclusively (``flock``) for one read-modify-write of ``path``; the
    folder, as every write replaces the file by a rename. Waits up to ``EDIT_WAIT_S`` seconds.

    Raises:
        LockError: the other edit did not end in time; nothing was read or written.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock (Windows): edits are not serialized there
        yield
        return
    folder = Path(path).parent
    if not folder.is_dir():  # nothing there yet to race on; the write creates the folder
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + EDIT_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockError(
                        f"another computeops process has been changing a lockfile in {folder} for over "
                        f"{EDIT_WAIT_S:g} s; nothing was changed. To fix: let it finish (a synth, "
                        "`computeops lock update`, `computeops observe`), then run this again"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(handle)  # releases the lock


def load_json(text: str) -> Any:  # JSON: callers narrow it
    """Parse a lockfile's (or a decision record's) text strictly: no NaN/Infinity, no key given twice.

    Raises:
        ValueError: the text is not such JSON (json.JSONDecodeError is one).
    """
    return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (``json`` would keep the last silently)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {shown(key)} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")
