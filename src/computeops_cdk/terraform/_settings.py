"""The provider configuration (``provider "computeops" { catalog = ..., accounts = ... }``).

One provider process serves one configuration; each file is loaded once, when first needed.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ._framework import STRING, UNKNOWN, Attr, Diagnostics

if TYPE_CHECKING:
    from ..accounts import Accounts
    from ..catalog import Catalog

__all__ = ["PROVIDER_ATTRIBUTES", "SETTINGS", "Settings"]

PROVIDER_ATTRIBUTES = [
    Attr(
        "catalog",
        STRING,
        "Path of a market catalog JSON file (`computeops catalog build --output FILE` writes one), "
        'relative to the directory Terraform runs in (use `"${path.module}/catalog.json"`). '
        "Default: the catalog embedded in the installed computeops-cdk.",
        optional=True,
    ),
    Attr(
        "accounts",
        STRING,
        "Path of the team's accounts file (`computeops.accounts.yaml`: enabled providers, quotas, "
        "negotiated discounts, capacity already owned; JSON Schema `schemas/accounts.schema.json`), "
        "relative to the directory Terraform runs in. Decisions and locks are made under it, as "
        "`computeops decide --accounts`. Default: `$COMPUTEOPS_ACCOUNTS`, else none (every provider at "
        "list price).",
        optional=True,
    ),
]


class Settings:
    """The configured files and what was loaded from them (thread-safe: gRPC uses a thread pool)."""

    def __init__(self) -> None:
        self.catalog_path: str | None = None
        self._catalog: Catalog | None = None
        self.accounts_path: str | None = None
        self._accounts: tuple[Accounts | None] | None = None  # (loaded,) once read; None: not yet
        self._lock = threading.Lock()

    def configure(self, diags: Diagnostics, config: dict[str, Any]) -> None:
        path, accounts = config.get("catalog"), config.get("accounts")
        for name, value in (("catalog", path), ("accounts", accounts)):
            if value is UNKNOWN:
                diags.error(
                    f"Invalid {name}",
                    f"{name} is not known until apply. To fix: give a path known at plan time",
                    attribute=name,
                )
        if path is UNKNOWN or accounts is UNKNOWN:
            return
        with self._lock:
            self.catalog_path = path or None
            self._catalog = None
            self.accounts_path = accounts or None
            self._accounts = None
        # A bad file is reported on the provider block, where it is named.
        if path:
            self.catalog(diags)
        self.accounts(diags)

    def catalog(self, diags: Diagnostics) -> Catalog | None:
        """The configured catalog; an error diagnostic on ``catalog`` (naming the JSON path) if bad."""
        from ..catalog import load_catalog
        from ..errors import CatalogError

        with self._lock:
            if self._catalog is None:
                try:
                    self._catalog = load_catalog(self.catalog_path)
                except CatalogError as err:
                    diags.error("Invalid catalog", str(err), attribute="catalog")
                    return None
            return self._catalog

    def accounts(self, diags: Diagnostics) -> tuple[Accounts | None] | None:
        """``(accounts,)`` (``(None,)`` without a file); ``None`` after an error diagnostic."""
        from ..accounts import load_accounts
        from ..errors import AccountsError

        with self._lock:
            if self._accounts is None:
                try:
                    self._accounts = (load_accounts(self.accounts_path),)
                except AccountsError as err:
                    diags.error("Invalid accounts", str(err), attribute="accounts")
                    return None
            return self._accounts


SETTINGS = Settings()
"""The one configuration of this provider process."""
