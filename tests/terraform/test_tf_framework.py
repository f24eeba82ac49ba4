"""The adapter over the ``tf`` framework: numbers, objects, replacement, errors, the certificate."""

from __future__ import annotations

import inspect
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from computeops_cdk.errors import IntentError
from computeops_cdk.terraform import _framework as fw
from computeops_cdk.terraform._provider import provider_spec


def test_decimal_strings_from_terraform_decode_to_numbers() -> None:
    # Terraform sends 49.9 and 99.9 (not exact binary floats) as decimal strings.
    assert fw.NUMBER.decode("49.9") == 49.9
    assert fw.NUMBER.decode("99.9") + 0.1 == pytest.approx(100.0)
    assert fw.NUMBER.decode("27") == 27 and isinstance(fw.NUMBER.decode("27"), int)
    assert fw.NUMBER.decode(3) == 3


def test_floats_go_out_as_exact_decimals_and_come_back_equal() -> None:
    assert fw.NUMBER.encode(61.83) == "61.83"  # a double would come back from state as another number
    assert fw.NUMBER.encode(5.0) == 5 and fw.NUMBER.encode(27) == 27
    for value in (0.1, 61.83, 45135.9, 1e-7, 123456789.125):
        assert fw.NUMBER.decode(fw.NUMBER.encode(value)) == value


def test_nested_numbers_are_decoded_and_encoded_too() -> None:
    t = fw.list_of(fw.object_of(unit=fw.STRING, value=fw.NUMBER))
    assert t.tf_type() == b'["list",["object",{"unit":"string","value":"number"}]]'
    assert t.decode([{"unit": "u", "value": "0.8587"}]) == [{"unit": "u", "value": 0.8587}]
    assert t.encode([{"unit": "u", "value": 0.8587}]) == [{"unit": "u", "value": "0.8587"}]
    assert fw.map_of(fw.NUMBER).decode({"a": "1.5"}) == {"a": 1.5}
    assert t.encode(fw.UNKNOWN) is fw.UNKNOWN and t.decode(None) is None


def test_objects_always_carry_every_attribute() -> None:
    t = fw.object_of(a=fw.STRING, b=fw.NUMBER)
    assert t.encode({"a": "x"}) == {"a": "x", "b": None}


def test_a_replace_attribute_ignores_a_null_prior_value_only() -> None:
    attr = fw.Attr("intent", fw.STRING, "d", required=True, replace=True).to_framework()
    assert attr.requires_replace
    assert attr.type.semantically_equal(None, "kind: WorkloadIntent")  # an import being bound
    assert not attr.type.semantically_equal("a", "b")
    assert attr.type.semantically_equal("a", "a")


def test_decode_fills_every_schema_attribute() -> None:
    attrs = [fw.Attr("a", fw.NUMBER, "d", optional=True), fw.Attr("b", fw.STRING, "d", computed=True)]
    assert fw.decode(attrs, {"a": "2.5"}) == {"a": 2.5, "b": None}
    assert fw.encode(attrs, {"a": 2.5}) == {"a": "2.5", "b": None}


def test_handler_errors_become_diagnostics_never_tracebacks(capsys: pytest.CaptureFixture[str]) -> None:
    diags = fw.Diagnostics()

    def bad_input() -> None:
        raise IntentError("must be > 0 (got -5)", path="workload.serving.output_tokens_per_s")

    assert fw._guarded(diags, "computeops_placement", bad_input) is None
    assert diags.has_errors and "workload.serving.output_tokens_per_s" in diags.items[0].detail

    def bug() -> None:
        raise KeyError("oops")

    fw._guarded(diags, "computeops_placement", bug)
    assert "internal error" in diags.items[1].summary and "KeyError" in diags.items[1].detail
    assert "Traceback" not in capsys.readouterr().err


def test_a_function_error_keeps_its_whole_message_and_names_the_argument() -> None:
    from tf.function import CallContext
    from tf.utils import Diagnostics as TfDiagnostics

    spec = next(f for f in provider_spec().functions if f.name == "usd_per_million_tokens")
    klass: Any = fw._function_class(spec)
    ctx = CallContext(TfDiagnostics(), spec.name)
    assert klass(None).call(ctx, [10, 0]) is None
    (error,) = ctx.diagnostics.diagnostics
    assert error.summary.startswith(
        "usd_per_million_tokens: argument tokens_per_s: must be a finite number > 0"
    )
    assert "To fix" in error.summary  # the framework drops the detail: it is folded into the summary


def test_provider_schema_names_no_reserved_attribute() -> None:
    reserved = {"provider", "count", "for_each", "depends_on", "lifecycle", "connection", "provisioner"}
    spec = provider_spec()
    for block in [*spec.data_sources, *spec.resources]:
        names = [a.name for a in block.attributes]
        assert not reserved & set(names), block.name
        assert len(names) == len(set(names)), block.name
        assert all(a.description for a in block.attributes), block.name
        # the framework's own protobuf schema builds (what GetProviderSchema sends)
        fw._schema(block.attributes, block.description).to_pb()


def _fresh_env(monkeypatch: pytest.MonkeyPatch, home: str | None, xdg: str | None = None) -> None:
    for name, value in (("HOME", home), ("XDG_CACHE_HOME", xdg)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


def test_certificate_cache_goes_to_the_home_cache_when_writable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fresh_env(monkeypatch, str(tmp_path))
    path = fw.cert_cache_path()
    assert path == tmp_path / ".cache" / "computeops" / "terraform-provider" / "tls-cert.json"
    der, _credentials = fw._server_certificate()
    cached = json.loads(path.read_text())
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again, _ = fw._server_certificate()  # read from the cache, not regenerated
    assert again == der and json.loads(path.read_text()) == cached


def test_certificate_works_with_an_unusable_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "home-is-a-file"
    not_a_dir.write_text("")
    _fresh_env(monkeypatch, str(not_a_dir))
    monkeypatch.setattr(fw.tempfile, "gettempdir", lambda: str(not_a_dir))  # nowhere writable at all
    assert fw.cert_cache_path() is None
    der, credentials = fw._server_certificate()
    assert der and credentials is not None


def test_certificate_without_home_uses_a_private_temporary_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fresh_env(monkeypatch, None)
    monkeypatch.setattr(fw.tempfile, "gettempdir", lambda: str(tmp_path))
    path = fw.cert_cache_path()
    assert path is not None and path.is_relative_to(tmp_path)
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


def test_an_expired_or_corrupt_cache_is_replaced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fresh_env(monkeypatch, str(tmp_path))
    path = fw.cert_cache_path()
    assert path is not None
    path.write_text("{not json")
    fw._server_certificate()
    cached = json.loads(path.read_text())
    cached["not_after"] = 0
    path.write_text(json.dumps(cached))
    fw._server_certificate()
    assert json.loads(path.read_text())["not_after"] > cached["not_after"]


def test_every_provider_rpc_is_counted_while_it_runs() -> None:
    # serve() exits (without the interpreter's teardown) once no RPC is being handled: a StopProvider
    # stops the server while an apply may still be writing its lockfile.
    from tf.gen import tfplugin_pb2_grpc

    servicer = fw._servicer_class(provider_spec())
    rpcs = [
        n
        for n, _ in inspect.getmembers(tfplugin_pb2_grpc.ProviderServicer, inspect.isfunction)
        if n[0].isupper()
    ]
    assert "ApplyResourceChange" in rpcs and "ReadDataSource" in rpcs
    assert [n for n in rpcs if not hasattr(getattr(servicer, n), "__wrapped__")] == []


def test_waiting_for_idle_returns_only_once_the_handlers_have() -> None:
    calls = fw._InFlight()
    entered, release = threading.Event(), threading.Event()

    def handler(servicer: object, request: object, context: object) -> str:
        entered.set()
        release.wait(10)
        return "done"

    counted = calls.counted(handler)
    results: list[str] = []
    worker = threading.Thread(target=lambda: results.append(counted(None, None, None)))
    worker.start()
    assert entered.wait(10)
    assert calls.wait_idle(0.05) is False  # the handler is still running
    release.set()
    assert calls.wait_idle(10) is True
    worker.join(10)
    assert results == ["done"]
