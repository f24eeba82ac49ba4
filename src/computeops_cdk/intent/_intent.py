"""The workload intent: what a workload must do, its hard constraints and its soft preferences."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, ValidationError, model_validator

from .._files import MIB, UnreadableFile, read_regular_file, shown_path
from ..errors import IntentError
from ._base import IntentModel, fail
from ._bounds import MAX_INTENT_BYTES
from ._constraints import Constraints, Preferences
from ._errors import intent_error
from ._json import json_data
from ._workload import Workload
from ._yaml import dump_yaml, yaml_data

__all__ = ["API_VERSION", "MAX_INTENT_BYTES", "WorkloadIntent"]

API_VERSION: Literal["computeops.dev/v1"] = "computeops.dev/v1"


class WorkloadIntent(IntentModel):
    """A typed, validated workload intent (the YAML users write).

    Every invalid input raises IntentError naming the field path; names that need the catalog
    (accelerators, region ids) are checked when deciding, with the same error type.

    Attributes:
        apiVersion: always ``computeops.dev/v1``.
        kind: always ``WorkloadIntent``.
        name: a DNS-label-like name (lower-case letters, digits, ``-``), used for resource names.
        workload: what runs (see Workload).
        constraints: hard filters. Default: none beyond ``pricing: [on_demand]``.
        preferences: soft ranking. Default: the default weights, no preferred regions.
    """

    api_version: Literal["computeops.dev/v1"] = Field(default=API_VERSION, alias="apiVersion")
    kind: Literal["WorkloadIntent"] = "WorkloadIntent"
    name: str = Field(min_length=1, max_length=63, pattern=r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
    workload: Workload
    constraints: Constraints = Field(default_factory=Constraints)
    preferences: Preferences = Field(default_factory=Preferences)

    @model_validator(mode="after")
    def _total_cap_is_for_jobs(self) -> Self:
        if self.constraints.max_total_usd is not None and self.workload.type == "inference":
            raise fail(
                "only applies to training and fine_tuning workloads. To fix: use max_hourly_usd or "
                "max_monthly_usd for a service",
                field="constraints.max_total_usd",
            )
        return self

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Any) -> WorkloadIntent:
        """Validate a mapping (parsed YAML/JSON); IntentError on any problem."""
        if not isinstance(data, dict):
            raise IntentError(f"an intent must be a mapping of fields (got {type(data).__name__})")
        try:
            return cls.model_validate(data)
        except ValidationError as err:
            raise intent_error(err, cls) from None

    @classmethod
    def from_yaml(cls, text: str, *, source: str = "<string>") -> WorkloadIntent:
        """Parse YAML (or JSON, a subset of YAML) text; syntax errors name the line and column."""
        if not isinstance(text, str):
            raise IntentError(
                f"{source}: intent text must be a str (got {type(text).__name__}). "
                "To fix: pass the YAML text, or use WorkloadIntent.from_file(path)"
            )
        if len(text) > MAX_INTENT_BYTES:
            raise IntentError(
                f"{source}: intent text is {len(text) / MIB:,.1f} MiB, over the 1 MiB limit. To fix: an "
                "intent is a few hundred bytes of YAML; pass the intent itself"
            )
        return cls.from_dict(yaml_data(text, source=source))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> WorkloadIntent:
        """Read an intent from a ``.yaml``/``.yml`` or ``.json`` file."""
        if not isinstance(path, str | os.PathLike):
            raise IntentError(
                f"intent path must be a str or os.PathLike (got {type(path).__name__}). "
                "To fix: pass the path of a YAML or JSON intent (see examples/)"
            )
        file = Path(path)
        try:
            text = read_regular_file(file, limit=MAX_INTENT_BYTES).decode("utf-8")
        except UnreadableFile as err:
            raise IntentError(
                f"cannot read intent file {shown_path(file)}: {err.reason}. To fix: pass a YAML or JSON "
                "intent file of at most 1 MiB (see examples/)"
            ) from None
        except FileNotFoundError:
            raise IntentError(
                f"intent file not found: {file}. To fix: pass the path of a YAML or JSON intent "
                "(see examples/)"
            ) from None
        except IsADirectoryError:
            raise IntentError(
                f"{file} is a directory, not an intent file. To fix: pass the YAML or JSON file itself "
                "(e.g. examples/support-chat.yaml)"
            ) from None
        except UnicodeDecodeError:
            raise IntentError(
                f"{file} is not a text file (not UTF-8). To fix: pass a YAML or JSON intent (see examples/)"
            ) from None
        except OSError as err:
            raise IntentError(
                f"cannot read intent file {file} ({err.strerror or err}). To fix: check the path and "
                "its permissions"
            ) from None
        if not text.strip():
            raise IntentError(
                f"{file} is empty. To fix: write an intent in it (computeops decide --help shows one)"
            )
        if file.suffix.lower() == ".json":
            return cls.from_dict(json_data(text, file))
        return cls.from_yaml(text, source=str(file))

    # -- output -------------------------------------------------------------------------------

    def to_yaml(self) -> str:
        """YAML text that ``from_yaml`` reads back to an equal intent (unset optionals omitted)."""
        data = self.to_dict(exclude_none=True)
        return dump_yaml(data)

    def canonical_json(self) -> str:
        """Sorted keys, no whitespace, defaults filled: equal intents give equal bytes."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @property
    def sha256(self) -> str:
        """sha256 of ``canonical_json()``: identifies the intent in a decision record."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()
