"""The provider configuration (``provider "computeops" { catalog = ... }``) and the catalog it names.

One provider process serves one configuration; the catalog is loaded once, when first needed (the
schema and validation processes never load it).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ._framework import STRING, UNKNOWN, Attr, Diagnostics

if TYPE_CHECKING:
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
    )
]


class Settings:
    """The configured catalog path and the catalog loaded from it (thread-safe: gRPC serves calls
    on a thread pool)."""

    def __init__(self) -> None:
        self.catalog_path: str | None = None
        self._catalog: Catalog | None = None
        self._lock = threading.Lock()

    def configure(self, diags: Diagnostics, config: dict[str, Any]) -> None:
        path = config.get("catalog")
        if path is UNKNOWN:
            diags.error(
                "Invalid catalog",
                "catalog is not known until apply. To fix: give a path known at plan time",
                attribute="catalog",
            )
            return
        with self._lock:
            self.catalog_path = path or None
            self._catalog = None
        if path:
            self.catalog(diags)  # a bad file is reported on the provider block, where it is named

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


SETTINGS = Settings()
"""The one configuration of this provider process."""
