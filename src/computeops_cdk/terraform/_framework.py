"""The one module that knows the plugin framework (PyPI ``tf``, protocol 6 over gRPC).

Everything else in ``computeops_cdk.terraform`` describes the provider with the plain records below
(``Attr``, ``DataSourceSpec``, ``ResourceSpec``, ...) and handlers of decoded Python values, so
moving to another framework rewrites this file only. What ``tf`` 1.2 does not do, done here:

- **Numbers.** A number that is not an exact float comes as a decimal string; ``decode`` makes it an
  ``int``/``float``. A float goes out as its shortest decimal string (``repr``): a binary double
  would come back from state as a different number and plan a change on every run.
- **Undecoded configs.** Provider and data-source configurations are decoded against the schema
  here, and a data source's result is encoded here.
- **No Object type.** ``object_of`` is a Terraform object type, encoded as a msgpack map.
- **Replacement.** The framework replaces on any difference of a ``requires_replace`` attribute; an
  imported lock has no intent yet, so a null prior value of a ``replace`` attribute is no change.
- **Errors.** A ``ComputeOpsError`` in a handler is an error diagnostic, anything else an "internal
  error" diagnostic, never a gRPC failure; a function error's detail is folded into its one text.
- **Certificate cache.** The framework's (under ``~/.cache``) fails without a writable HOME; this
  one lives in the first writable directory (``cert_cache_path``), else each start makes a new key.
- **Orphans.** A killed Terraform never calls Shutdown, so the plugin exits when its parent is gone.

Start-up is paid several times per ``terraform plan``: this module imports only the framework; the
handlers import the engine when first called.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import inspect
import json
import math
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tf import runner as _runner
from tf import types as _types
from tf.function import CallContext, FunctionSignature, Parameter, Return
from tf.iface import (
    CreateContext,
    DeleteContext,
    ImportContext,
    PlanContext,
    ReadContext,
    ReadDataContext,
    UpdateContext,
)
from tf.schema import Attribute, Schema
from tf.utils import Diagnostics as _TfDiagnostics

from ..errors import ComputeOpsError

__all__ = [
    "BOOL",
    "NUMBER",
    "STRING",
    "UNKNOWN",
    "Attr",
    "DataSourceSpec",
    "Diagnostics",
    "FunctionError",
    "FunctionSpec",
    "ProviderSpec",
    "ResourceSpec",
    "Type",
    "cert_cache_path",
    "decode",
    "encode",
    "list_of",
    "map_of",
    "object_of",
    "serve",
]

UNKNOWN: Any = _types.Unknown
"""A value Terraform does not know yet (planning); compare with ``is``."""


# -- types ------------------------------------------------------------------------------------


class Type(_types.TfType):  # type: ignore[misc]  # the framework is untyped
    """A Terraform type: its wire encoding and its decoding into plain Python values."""

    def decode(self, value: Any) -> Any:
        return value

    def encode(self, value: Any) -> Any:
        return value

    def semantically_equal(self, a_decoded: Any, b_decoded: Any) -> bool:
        return bool(a_decoded == b_decoded)

    def tf_type(self) -> bytes:  # pragma: no cover - every concrete type overrides it
        raise NotImplementedError


class _Primitive(Type):
    def __init__(self, name: str) -> None:
        self.name = name

    def tf_type(self) -> bytes:
        return f'"{self.name}"'.encode()


class _Number(_Primitive):
    """int/float in Python; an exact decimal on the wire (see the module docstring)."""

    def decode(self, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            try:
                return int(text)
            except ValueError:
                return float(text)
        return value

    def encode(self, value: Any) -> Any:
        if isinstance(value, float) and math.isfinite(value):
            return int(value) if value.is_integer() and abs(value) < 2**53 else repr(value)
        return value


class _Collection(Type):
    def __init__(self, kind: str, element: Type) -> None:
        self.kind = kind
        self.element = element

    def tf_type(self) -> bytes:
        return f'["{self.kind}",{self.element.tf_type().decode()}]'.encode()

    def decode(self, value: Any) -> Any:
        if value is None or value is UNKNOWN:
            return value
        if self.kind == "map":
            return {k: _decode_in(self.element, v) for k, v in value.items()}
        return [_decode_in(self.element, v) for v in value]

    def encode(self, value: Any) -> Any:
        if value is None or value is UNKNOWN:
            return value
        if self.kind == "map":
            return {k: _encode_in(self.element, v) for k, v in value.items()}
        return [_encode_in(self.element, v) for v in value]


class _Object(Type):
    def __init__(self, attributes: Mapping[str, Type]) -> None:
        self.attributes = dict(attributes)

    def tf_type(self) -> bytes:
        inner = ",".join(f'"{k}":{t.tf_type().decode()}' for k, t in sorted(self.attributes.items()))
        return f'["object",{{{inner}}}]'.encode()

    def decode(self, value: Any) -> Any:
        if value is None or value is UNKNOWN:
            return value
        return {k: _decode_in(t, value.get(k)) for k, t in self.attributes.items()}

    def encode(self, value: Any) -> Any:
        if value is None or value is UNKNOWN:
            return value
        return {k: _encode_in(t, value.get(k)) for k, t in self.attributes.items()}


class _Bindable(Type):
    """A ``replace`` attribute: a null prior value (an import not yet bound) is not a change."""

    def __init__(self, inner: Type) -> None:
        self.inner = inner

    def tf_type(self) -> bytes:
        return self.inner.tf_type()

    def decode(self, value: Any) -> Any:
        return self.inner.decode(value)

    def encode(self, value: Any) -> Any:
        return self.inner.encode(value)

    def semantically_equal(self, a_decoded: Any, b_decoded: Any) -> bool:
        return a_decoded is None or self.inner.semantically_equal(a_decoded, b_decoded)


def _decode_in(t: Type, value: Any) -> Any:
    return value if value is UNKNOWN else t.decode(value)


def _encode_in(t: Type, value: Any) -> Any:
    return value if value is UNKNOWN else t.encode(value)


STRING: Type = _Primitive("string")
NUMBER: Type = _Number("number")
BOOL: Type = _Primitive("bool")


def list_of(element: Type) -> Type:
    """Terraform ``list(element)``."""
    return _Collection("list", element)


def map_of(element: Type) -> Type:
    """Terraform ``map(element)``."""
    return _Collection("map", element)


def object_of(**attributes: Type) -> Type:
    """Terraform ``object({...})`` (``tf`` has no object type; this is the wire form Terraform reads)."""
    return _Object(attributes)


# -- schema records ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attr:
    """One attribute of a provider, data source or resource schema.

    Attributes:
        name: the attribute name (never one Terraform reserves: provider, count, for_each, ...).
        type: its Terraform type.
        description: Markdown, shown by ``terraform providers schema`` and in the docs.
        required / optional / computed: as Terraform means them.
        replace: a change of the value replaces the resource. Default: False.
        sensitive: Terraform hides the value in its output. Default: False.
    """

    name: str
    type: Type
    description: str
    required: bool = False
    optional: bool = False
    computed: bool = False
    replace: bool = False
    sensitive: bool = False

    def to_framework(self) -> Attribute:
        return Attribute(
            self.name,
            _Bindable(self.type) if self.replace else self.type,
            description=self.description,
            required=self.required,
            optional=self.optional,
            computed=self.computed,
            sensitive=self.sensitive,
            requires_replace=self.replace or None,
        )


@dataclass(frozen=True, slots=True)
class _Diagnostic:
    severity: str  # "error" | "warning"
    summary: str
    detail: str
    attribute: str | None


@dataclass(slots=True)
class Diagnostics:
    """Errors and warnings a handler reports to Terraform, each with the attribute it is about."""

    items: list[_Diagnostic] = field(default_factory=list)

    def error(self, summary: str, detail: str = "", *, attribute: str | None = None) -> None:
        self.items.append(_Diagnostic("error", summary, detail, attribute))

    def warning(self, summary: str, detail: str = "", *, attribute: str | None = None) -> None:
        self.items.append(_Diagnostic("warning", summary, detail, attribute))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def copy_to(self, target: _TfDiagnostics) -> None:
        for d in self.items:
            path = [d.attribute] if d.attribute else None
            add = target.add_error if d.severity == "error" else target.add_warning
            add(d.summary, d.detail, path=path)


Config = dict[str, Any]
State = dict[str, Any]


@dataclass(frozen=True, slots=True)
class DataSourceSpec:
    """A data source: ``read(diags, config) -> state`` (None after an error)."""

    name: str
    description: str
    attributes: Sequence[Attr]
    read: Callable[[Diagnostics, Config], State | None]
    validate: Callable[[Diagnostics, Config], None] | None = None


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """A managed resource; every handler takes decoded values and returns the new state.
    ``plan(diags, prior, proposed, changed)`` runs for updates and no-ops; ``changed`` names the
    attributes that differ. ``plan_create(diags, planned)`` runs for creates (the framework has no
    such hook; the adapter adds it), where ``planned`` has every computed attribute unknown.
    """

    name: str
    description: str
    attributes: Sequence[Attr]
    create: Callable[[Diagnostics, State], State | None]
    read: Callable[[Diagnostics, State], State | None]
    update: Callable[[Diagnostics, State, State], State | None]
    plan: Callable[[Diagnostics, State, State, set[str]], State]
    import_: Callable[[Diagnostics, str], State | None]
    plan_create: Callable[[Diagnostics, State], State] | None = None
    validate: Callable[[Diagnostics, Config], None] | None = None


class FunctionError(ComputeOpsError):
    """A provider function's error; ``argument`` is the 0-based position of the bad argument."""

    def __init__(self, message: str, *, argument: int | None = None) -> None:
        self.argument = argument
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """A provider function ``provider::NAME::name(params...)``; ``call`` raises FunctionError."""

    name: str
    summary: str
    description: str
    parameters: Sequence[tuple[str, Type, str]]
    returns: Type
    call: Callable[[list[Any]], Any]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """The provider: its source address, configuration and what it serves."""

    address: str  # HOST/NAMESPACE/TYPE
    description: str
    attributes: Sequence[Attr]
    configure: Callable[[Diagnostics, Config], None]
    data_sources: Sequence[DataSourceSpec]
    resources: Sequence[ResourceSpec]
    functions: Sequence[FunctionSpec]
    validate: Callable[[Diagnostics, Config], None] | None = None

    @property
    def type_name(self) -> str:
        return self.address.rsplit("/", 1)[-1]


# -- values -----------------------------------------------------------------------------------


def decode(attributes: Sequence[Attr], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """A raw (wire) configuration or state as Python values, every schema attribute present."""
    raw = raw or {}
    return {a.name: _decode_in(a.type, raw.get(a.name)) for a in attributes}


def encode(attributes: Sequence[Attr], values: Mapping[str, Any]) -> dict[str, Any]:
    """Python values as the wire form Terraform reads, every schema attribute present."""
    return {a.name: _encode_in(a.type, values.get(a.name)) for a in attributes}


_ONE_AT_A_TIME = threading.RLock()
"""gRPC serves calls on a thread pool; the handlers run one at a time (the engine's caches are not
thread-safe)."""


def _guarded(diags: Diagnostics, what: str, call: Callable[[], Any]) -> Any:
    """Run a handler; an exception becomes an error diagnostic, never a traceback in Terraform."""
    try:
        with _ONE_AT_A_TIME:
            return call()
    except ComputeOpsError as err:
        diags.error(f"{what}: {type(err).__name__}", str(err))
    except Exception as err:  # a bug of ours: say so plainly, keep the process serving
        print(f"computeops provider: internal error in {what}: {type(err).__name__}: {err}", file=sys.stderr)
        diags.error(
            f"{what}: internal error in the computeops provider",
            f"{type(err).__name__}: {err}. This is a bug; please report it with the configuration.",
        )
    return None


def _with_diags(tf_diags: _TfDiagnostics, what: str, call: Callable[[Diagnostics], Any]) -> Any:
    diags = Diagnostics()
    result = _guarded(diags, what, lambda: call(diags))
    diags.copy_to(tf_diags)
    return None if diags.has_errors else result


# -- the framework's classes, built from the specs ----------------------------------------------


def _schema(attributes: Sequence[Attr], description: str) -> Schema:
    return Schema(attributes=[a.to_framework() for a in attributes], description=description)


def _common_methods(spec: DataSourceSpec | ResourceSpec) -> dict[str, Any]:
    """The name, schema and validation every data source and resource class has, from its spec."""

    def get_name(cls: type) -> str:
        return spec.name

    def get_schema(cls: type) -> Schema:
        return _schema(spec.attributes, spec.description)

    def validate(self: Any, diags: _TfDiagnostics, type_name: str, config: Config) -> None:
        if spec.validate is not None:
            check = spec.validate
            _with_diags(diags, type_name, lambda d: check(d, decode(spec.attributes, config)))

    return {
        "__init__": lambda self, provider: None,
        "get_name": classmethod(get_name),
        "get_schema": classmethod(get_schema),
        "validate": validate,
    }


def _data_source_class(spec: DataSourceSpec) -> type:
    def read(self: Any, ctx: ReadDataContext, config: Config) -> State | None:
        state = _with_diags(
            ctx.diagnostics, ctx.type_name, lambda d: spec.read(d, decode(spec.attributes, config))
        )
        return None if state is None else encode(spec.attributes, state)

    return type(f"_DataSource_{spec.name}", (), {**_common_methods(spec), "read": read})


def _resource_class(spec: ResourceSpec) -> type:
    names = {a.name for a in spec.attributes}

    def full(state: State | None) -> State | None:
        # The framework decodes only the attributes present; hand every handler the whole schema.
        return None if state is None else {n: state.get(n) for n in names}

    def create(self: Any, ctx: CreateContext, planned: State) -> State | None:
        return full(
            _with_diags(ctx.diagnostics, ctx.type_name, lambda d: spec.create(d, full(planned) or {}))
        )

    def read(self: Any, ctx: ReadContext, current: State) -> State | None:
        # A read that fails keeps the prior state (returning None would tell Terraform it is gone).
        new = _with_diags(ctx.diagnostics, ctx.type_name, lambda d: spec.read(d, full(current) or {}))
        return full(new) if new is not None else current

    def update(self: Any, ctx: UpdateContext, current: State, planned: State) -> State | None:
        return full(
            _with_diags(
                ctx.diagnostics,
                ctx.type_name,
                lambda d: spec.update(d, full(current) or {}, full(planned) or {}),
            )
        )

    def delete(self: Any, ctx: DeleteContext, current: State) -> None:
        return None  # nothing outside Terraform's state to delete

    def plan(self: Any, ctx: PlanContext, current: State | None, planned: State) -> State | None:
        prior, proposed = full(current) or {}, full(planned) or {}
        result = _with_diags(
            ctx.diagnostics, ctx.type_name, lambda d: spec.plan(d, prior, proposed, set(ctx.changed_fields))
        )
        return result if result is not None else proposed

    def import_(self: Any, ctx: ImportContext, id: str) -> State | None:
        return full(_with_diags(ctx.diagnostics, ctx.type_name, lambda d: spec.import_(d, id)))

    def upgrade(self: Any, ctx: Any, version: int, old: State) -> State:
        return old  # schema version 0 only, so far

    return type(
        f"_Resource_{spec.name}",
        (),
        {
            **_common_methods(spec),
            "create": create,
            "read": read,
            "update": update,
            "delete": delete,
            "plan": plan,
            "import_": import_,
            "upgrade": upgrade,
        },
    )


def _function_class(spec: FunctionSpec) -> type:
    signature = FunctionSignature(
        parameters=[Parameter(name=n, type=t, description=d) for n, t, d in spec.parameters],
        return_type=Return(type=spec.returns),
        summary=spec.summary,
        description=spec.description,
    )

    def call(self: Any, ctx: CallContext, arguments: list[Any]) -> Any:
        try:
            return spec.call(arguments)
        except FunctionError as err:
            where = f"argument {spec.parameters[err.argument][0]}: " if err.argument is not None else ""
            # The framework keeps only a diagnostic's summary: put the whole message there.
            ctx.diagnostics.add_error(f"{spec.name}: {where}{err}")
        except Exception as err:
            ctx.diagnostics.add_error(f"{spec.name}: internal error ({type(err).__name__}: {err})")
        return None

    return type(
        f"_Function_{spec.name}",
        (),
        {
            "__init__": lambda self, provider: None,
            "get_name": classmethod(lambda cls: spec.name),
            "get_signature": classmethod(lambda cls: signature),
            "call": call,
        },
    )


class _Provider:
    """The framework's Provider protocol over a ProviderSpec."""

    def __init__(self, spec: ProviderSpec) -> None:
        self.spec = spec
        self._data_sources = [_data_source_class(d) for d in spec.data_sources]
        self._resources = [_resource_class(r) for r in spec.resources]
        self._functions = [_function_class(f) for f in spec.functions]

    def get_model_prefix(self) -> str:
        return f"{self.spec.type_name}_"

    def full_name(self) -> str:
        return self.spec.address

    def get_provider_schema(self, diags: _TfDiagnostics) -> Schema:
        return _schema(self.spec.attributes, self.spec.description)

    def validate_config(self, diags: _TfDiagnostics, config: Config) -> None:
        if self.spec.validate is not None:
            check = self.spec.validate
            _with_diags(
                diags, "provider configuration", lambda d: check(d, decode(self.spec.attributes, config))
            )

    def configure_provider(self, diags: _TfDiagnostics, config: Config) -> None:
        configure = self.spec.configure
        _with_diags(
            diags, "provider configuration", lambda d: configure(d, decode(self.spec.attributes, config))
        )

    def get_data_sources(self) -> list[type]:
        return self._data_sources

    def get_resources(self) -> list[type]:
        return self._resources

    def get_functions(self) -> list[type]:
        return self._functions

    def new_resource(self, klass: Any) -> Any:
        return klass(self)

    def new_data_source(self, klass: Any) -> Any:
        return klass(self)

    def new_function(self, klass: Any) -> Any:
        return klass(self)


# -- serving ----------------------------------------------------------------------------------


def cert_cache_path() -> Path | None:
    """The first writable of ``$XDG_CACHE_HOME``, ``~/.cache`` and a per-user temporary directory."""
    bases: list[Path] = []
    if os.environ.get("XDG_CACHE_HOME"):
        bases.append(Path(os.environ["XDG_CACHE_HOME"]))
    if os.environ.get("HOME"):
        bases.append(Path(os.environ["HOME"]) / ".cache")
    uid = os.getuid() if hasattr(os, "getuid") else -1
    bases.append(Path(tempfile.gettempdir()) / f"computeops-{uid}")
    for base in bases:
        folder = base / "computeops" / "terraform-provider"
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            info = folder.stat()
        except OSError:
            continue
        if uid != -1 and info.st_uid != uid:
            continue  # never read a key from a directory someone else owns
        path = folder / "tls-cert.json"
        if os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.R_OK | os.W_OK)):
            return path
    return None


_CERT_DAYS = 7
_CERT_MARGIN_S = 3600.0  # renew an hour early: a plan must not straddle the expiry


def _new_certificate() -> dict[str, Any]:
    """A fresh self-signed server certificate for ``localhost`` (what go-plugin's client expects)."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    start = datetime.now(UTC) - timedelta(minutes=1)
    end = start + timedelta(days=_CERT_DAYS)
    usage = x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=True,
        key_cert_sign=True,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(usage, critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return {
        "key_pem": key_pem.decode(),
        "cert_pem": cert.public_bytes(serialization.Encoding.PEM).decode(),
        "cert_der": base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode(),
        "not_after": end.timestamp(),
    }


def _read_cached(path: Path | None) -> dict[str, Any] | None:
    if path is None or not path.exists():
        return None
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        fresh = float(cached["not_after"]) - time.time() > _CERT_MARGIN_S
        complete = all(isinstance(cached.get(k), str) for k in ("key_pem", "cert_pem", "cert_der"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return cached if fresh and complete else None


def _write_cached(path: Path | None, cert: dict[str, Any]) -> None:
    if path is None:
        return
    staged = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        fd = os.open(staged, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(cert, handle)
        os.replace(staged, path)  # concurrent starts: each sees a whole file or none
    except OSError:
        staged.unlink(missing_ok=True)


def _server_certificate() -> tuple[bytes, Any]:
    """(DER certificate for the handshake line, gRPC server credentials): the framework's hook."""
    import grpc  # type: ignore[import-untyped]  # no stubs; only its credentials call is used

    path = cert_cache_path()
    cert = _read_cached(path)
    if cert is None:
        cert = _new_certificate()
        _write_cached(path, cert)
    credentials = grpc.ssl_server_credentials(
        [(cert["key_pem"].encode(), cert["cert_pem"].encode())], require_client_auth=False
    )
    return base64.b64decode(cert["cert_der"]), credentials


def _servicer_class(spec: ProviderSpec) -> type:
    """The framework's gRPC servicer plus a plan hook for creates, so a new lock shows its placement."""
    from tf.provider import ProviderServicer
    from tf.utils import read_dynamic_value, to_dynamic_value

    by_type = {f"{spec.type_name}_{r.name}": r for r in spec.resources}

    class _Servicer(ProviderServicer):  # type: ignore[misc]
        def PlanResourceChange(self, request: Any, context: Any) -> Any:
            response = super().PlanResourceChange(request, context)
            resource = by_type.get(request.type_name)
            if (
                resource is None
                or resource.plan_create is None
                or read_dynamic_value(request.prior_state) is not None
                or not response.HasField("planned_state")
                or any(d.severity == d.ERROR for d in response.diagnostics)
            ):
                return response
            planned = decode(resource.attributes, read_dynamic_value(response.planned_state))
            if planned is None:  # pragma: no cover - a create always has a planned state
                return response
            hook = resource.plan_create
            diags = Diagnostics()
            result = _guarded(diags, request.type_name, lambda: hook(diags, planned))
            tf_diags = _TfDiagnostics()
            diags.copy_to(tf_diags)
            response.diagnostics.extend(tf_diags.to_pb())
            if result is not None and not diags.has_errors:
                response.planned_state.CopyFrom(to_dynamic_value(encode(resource.attributes, result)))
            return response

    for name, method in inspect.getmembers(_Servicer, inspect.isfunction):
        if name[:1].isupper():  # the Provider service's RPCs (gRPC names them in CamelCase)
            setattr(_Servicer, name, _HANDLING.counted(method))
    return _Servicer


class _InFlight:
    """The RPCs being handled. The process exits once none is: the interpreter's teardown waited for
    them (it joined gRPC's worker threads), and a StopProvider (Ctrl-C) stops the server while an
    apply may still be writing."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    def counted(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(servicer: Any, request: Any, context: Any) -> Any:
            with self._changed:
                self._count += 1
            try:
                return method(servicer, request, context)
            finally:
                with self._changed:
                    self._count -= 1
                    self._changed.notify_all()

        return call

    def wait_idle(self, timeout_s: float) -> bool:
        """Whether every RPC has returned within ``timeout_s``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count == 0, timeout=timeout_s)


_HANDLING = _InFlight()
_EXIT_WAIT_S = 10.0  # a handler that outlives this is stuck; Terraform itself kills a plugin after 2 s


def _exit_with_parent(interval_s: float = 1.0) -> None:
    """End this process when Terraform is gone (a killed Terraform never calls Shutdown)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        os._exit(0)  # nothing to flush: every handler has returned its response or never will

    threading.Thread(target=watch, name="computeops-parent-watch", daemon=True).start()


def serve(spec: ProviderSpec, argv: Sequence[str] | None = None) -> None:
    """Run the provider: the go-plugin handshake on stdout, then gRPC until Terraform stops it."""
    import tf.provider

    _exit_with_parent()
    _runner._self_signed_cert = _server_certificate  # the framework's ~/.cache cache, see above
    tf.provider.ProviderServicer = _servicer_class(spec)  # run_provider looks it up at call time
    _runner.run_provider(_Provider(spec), list(argv) if argv is not None else None)
    # Terraform waits for the process to exit after Shutdown, three times per plan; the interpreter's
    # teardown (every module, the gRPC threads) took 25-50 ms of each (benchmarks/TERRAFORM.md). Once
    # the server has stopped and every handler has returned (each file written atomically), only
    # stdio is left. It is closed a moment before the exit, as the teardown closed it, so go-plugin
    # reads EOF on both pipes before it reaps the process (else its log says "error encountered
    # while scanning stdout: file already closed").
    _HANDLING.wait_idle(_EXIT_WAIT_S)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):  # no stream, gone, or closed
            stream.flush()
            os.close(stream.fileno())
    time.sleep(0.001)
    os._exit(0)
