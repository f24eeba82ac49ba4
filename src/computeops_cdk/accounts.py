"""The team's own accounts: which providers it can use, quotas, negotiated rates, capacity it owns.

``computeops.accounts.yaml`` (JSON Schema: ``schemas/accounts.schema.json``)::

    version: 1
    providers:                       # only these providers are enabled (others: account.not_enabled)
      aws:
        quotas:                      # accelerators the deployment may use, by region ("*": any region)
          us-east-1: 16
          "*": 8
        discounts:                   # negotiated, off list price; the most specific match wins
          - percent: 12
            family: p5               # optional: instance family (the name's prefix before "." / "_" / "-")
            pricing: on_demand       # optional: on_demand, spot or reserved
        owned:                       # capacity already paid for: zero marginal cost up to its size
          - instance_type: p5.48xlarge
            region: us-east-1
            instances: 2
      lambda: {}

Decisions record the file's sha256. Parsing is strict: unknown keys, wrong types, percentages
outside 0..100 and names not in the catalog's own form are ``AccountsError``; the file is capped at
256 KiB and read as YAML without aliases. A well-formed name the catalog does not list only warns
(``engine._accounts.unlisted_names``), so a catalog change never stops a locked workload's synth.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .catalog import PRICE_MODELS, PROVIDER_IDS
from .catalog._types import INSTANCE_TYPE_NAME, REGION_CODE
from .errors import AccountsError, described, did_you_mean

__all__ = [
    "ACCOUNTS_ENV",
    "Accounts",
    "Discount",
    "Owned",
    "ProviderAccount",
    "load_accounts",
    "sha256_label",
]

ACCOUNTS_ENV = "COMPUTEOPS_ACCOUNTS"
"""The accounts file used when none is passed (``decide --accounts``, the construct prop)."""
MAX_BYTES = 256 * 1024
_KEYS = {"version", "providers"}
_PROVIDER_KEYS = {"quotas", "discounts", "owned"}
_DISCOUNT_KEYS = {"percent", "family", "pricing"}
_OWNED_KEYS = {"instance_type", "region", "instances"}
_IDENTIFIERS = {
    "region": (REGION_CODE, "a region code (letters, digits and '-', at most 64 characters)"),
    "instance type": (
        INSTANCE_TYPE_NAME,
        "an instance type name (letters, digits, '.', '_' and '-', at most 80 characters)",
    ),
    "family": (
        r"[A-Za-z0-9]{1,80}",
        "an instance family (letters and digits: the instance type name's part before its first "
        "'.', '_' or '-', p5 for p5.48xlarge)",
    ),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Discount:
    """A negotiated discount off list price."""

    percent: float
    family: str | None = None
    pricing: str | None = None

    def matches(self, instance_type: str, pricing: str) -> bool:
        return (self.family is None or family_of(instance_type) == self.family.lower()) and (
            self.pricing is None or self.pricing == pricing
        )

    @property
    def specificity(self) -> int:
        return (self.family is not None) * 2 + (self.pricing is not None)

    def label(self, provider: str) -> str:
        scope = " ".join(x for x in (provider, self.family, self.pricing) if x)
        return f"{self.percent:g} % negotiated discount on {scope}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Owned:
    """Instances already paid for (a reservation, committed nodes)."""

    instance_type: str
    region: str
    instances: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderAccount:
    """What the team has at one provider."""

    quotas: dict[str, int]
    discounts: tuple[Discount, ...]
    owned: tuple[Owned, ...]

    def quota(self, region: str) -> int | None:
        """Accelerators allowed in ``region`` (its own entry, else "*"), None when unlimited."""
        return self.quotas.get(region, self.quotas.get("*"))

    def discount(self, instance_type: str, pricing: str) -> Discount | None:
        """The most specific matching discount (family + pricing beats family beats pricing beats all)."""
        hits = [d for d in self.discounts if d.matches(instance_type, pricing)]
        return max(hits, key=lambda d: (d.specificity, d.percent)) if hits else None

    def owned_instances(self, instance_type: str, region: str) -> int:
        return sum(o.instances for o in self.owned if o.instance_type == instance_type and o.region == region)


@dataclass(frozen=True, slots=True, kw_only=True)
class Accounts:
    """A parsed accounts file."""

    providers: dict[str, ProviderAccount]
    sha256: str
    path: str = ""

    def account(self, provider: str) -> ProviderAccount | None:
        """The provider's account, None when the team has none there (not enabled)."""
        return self.providers.get(provider)


def sha256_label(sha256: str | None) -> str:
    """An accounts file's identity in a message: ``sha256 1a2b3c4d``, or ``none`` without one."""
    return f"sha256 {sha256[:8]}" if sha256 else "none"


def family_of(instance_type: str) -> str:
    """The family of an instance type name: ``p5.48xlarge`` -> ``p5``, ``gpu_8x_h100_sxm5`` -> ``gpu``."""
    return re.split(r"[._-]", instance_type.lower(), maxsplit=1)[0]


def load_accounts(path: str | os.PathLike[str] | None = None) -> Accounts | None:
    """Read an accounts file; ``None`` path means ``$COMPUTEOPS_ACCOUNTS`` or no accounts (None).

    Raises:
        AccountsError: the file is missing, too large, not YAML, or not the documented shape.
    """
    if path is None:
        path = os.environ.get(ACCOUNTS_ENV) or None
        if path is None:
            return None
    if not isinstance(path, str | os.PathLike) or "\x00" in str(path):
        raise AccountsError(
            f"the accounts path must be a file path (got {described(path)}). To fix: pass the path of "
            "computeops.accounts.yaml."
        )
    file = Path(path)
    try:
        if not file.is_file():
            raise AccountsError(
                f"accounts file {str(file)!r} does not exist or is not a regular file. To fix: pass an "
                "existing computeops.accounts.yaml (see schemas/accounts.schema.json)."
            )
        with file.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as err:
        raise AccountsError(f"accounts file {str(file)!r} cannot be read ({err.strerror or err}).") from None
    if len(raw) > MAX_BYTES:
        raise AccountsError(
            f"accounts file {str(file)!r} is larger than {MAX_BYTES // 1024} KiB. To fix: trim it."
        )
    return parse_accounts(raw, path=str(file))


def parse_accounts(raw: bytes, *, path: str = "") -> Accounts:
    """An Accounts from the file's bytes (see load_accounts)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise AccountsError("the accounts file is not UTF-8 text.") from None
    if "&" in text and re.search(r"(^|[\s:\[,-])&\w", text):
        raise AccountsError(
            "YAML anchors/aliases are not accepted in an accounts file. To fix: write values out."
        )
    doc = _mapping(_document(text), "$", _KEYS)
    if doc.get("version", 1) != 1:
        raise AccountsError(
            f"version: only 1 is known (got {described(doc.get('version'))}). To fix: version: 1"
        )
    providers_doc = _mapping(doc.get("providers"), "providers", None, required=True)
    providers: dict[str, ProviderAccount] = {}
    for name, body in providers_doc.items():
        if name not in PROVIDER_IDS:
            hint = did_you_mean(str(name), PROVIDER_IDS)
            raise AccountsError(
                f"providers.{str(name)[:40]}: unknown provider. To fix: use one of {', '.join(PROVIDER_IDS)}",
                suggestions=hint,
            )
        providers[name] = _provider(body, f"providers.{name}")
    return Accounts(providers=providers, sha256=hashlib.sha256(raw).hexdigest(), path=path)


def _document(text: str) -> Any:
    """The file's data under the intent's YAML rules (no key twice, no YAML 1.1 numbers)."""
    import yaml

    from .intent._yaml import load_yaml, yaml_problem

    try:
        return load_yaml(text)
    except (yaml.YAMLError, UnicodeEncodeError) as err:
        raise AccountsError(f"the accounts file is not valid YAML{yaml_problem(err, text)}") from None


def _mapping(value: Any, where: str, keys: set[str] | None, *, required: bool = False) -> dict[str, Any]:
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise AccountsError(f"{where}: expected a mapping (got {described(value)}).")
    if keys is not None:
        for key in value:
            if key not in keys:
                hint = did_you_mean(str(key), keys)
                known = ", ".join(sorted(keys))
                raise AccountsError(
                    f"{where}.{str(key)[:40]}: unknown key. To fix: use {known}", suggestions=hint
                )
    return value


def _provider(body: Any, where: str) -> ProviderAccount:
    body = _mapping(body, where, _PROVIDER_KEYS)
    quotas = {}
    for region, count in _mapping(body.get("quotas"), f"{where}.quotas", None).items():
        if region != "*":
            _identifier(region, f"{where}.quotas", "region")
        quotas[str(region)] = _int(count, f"{where}.quotas.{region}", low=0)
    discounts = tuple(
        _discount(d, f"{where}.discounts[{i}]")
        for i, d in enumerate(_list(body.get("discounts"), f"{where}.discounts"))
    )
    owned = tuple(
        _owned(o, f"{where}.owned[{i}]") for i, o in enumerate(_list(body.get("owned"), f"{where}.owned"))
    )
    return ProviderAccount(quotas=quotas, discounts=discounts, owned=owned)


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise AccountsError(f"{where}: expected a list (got {described(value)}).")
    if len(value) > 1000:
        raise AccountsError(f"{where}: more than 1,000 entries.")
    return value


def _discount(value: Any, where: str) -> Discount:
    body = _mapping(value, where, _DISCOUNT_KEYS, required=True)
    if "percent" not in body:
        raise AccountsError(f"{where}.percent: required (the discount off list price, 0..100).")
    percent = body["percent"]
    if isinstance(percent, bool) or not isinstance(percent, int | float) or not 0 <= percent <= 100:
        raise AccountsError(f"{where}.percent: expected a number 0..100 (got {described(percent)}).")
    family = body.get("family")
    if family is not None:
        _identifier(family, f"{where}.family", "family")
    pricing = body.get("pricing")
    if pricing is not None and pricing not in PRICE_MODELS:
        raise AccountsError(
            f"{where}.pricing: expected one of {', '.join(PRICE_MODELS)} (got {described(pricing)})."
        )
    return Discount(percent=float(percent), family=family, pricing=pricing)


def _owned(value: Any, where: str) -> Owned:
    body = _mapping(value, where, _OWNED_KEYS, required=True)
    for key in ("instance_type", "region", "instances"):
        if key not in body:
            raise AccountsError(f"{where}.{key}: required.")
    _identifier(body["instance_type"], f"{where}.instance_type", "instance type")
    _identifier(body["region"], f"{where}.region", "region")
    return Owned(
        instance_type=body["instance_type"],
        region=body["region"],
        instances=_int(body["instances"], f"{where}.instances", low=1),
    )


def _identifier(value: Any, where: str, kind: str) -> None:
    """Refuse a region, instance type or family not in the catalog's own form."""
    pattern, what = _IDENTIFIERS[kind]
    if not isinstance(value, str) or not re.fullmatch(pattern, value):
        shows = "the start of an instance type" if kind == "family" else f"the {kind}"
        raise AccountsError(
            f"{where}: {described(value)} is not {what}. To fix: write {shows} as "
            "`computeops catalog list` shows it"
            + (' (or "*" for every region)' if where.endswith(".quotas") else "")
        )


def _int(value: Any, where: str, *, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 1_000_000:
        raise AccountsError(f"{where}: expected a whole number {low}..1,000,000 (got {described(value)}).")
    return value
