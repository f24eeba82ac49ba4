"""``computeops provider install`` and the plugin's start-up path (what Terraform pays per process)."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from computeops_cdk.cli import main as cli_main
from computeops_cdk.terraform import ADDRESS
from computeops_cdk.terraform._install import install_mirror, package_version, terraform_platform


def test_install_writes_the_packed_layout_and_prints_what_to_paste(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = tmp_path / "cfg" / "terraformrc"
    assert cli_main(["provider", "install", "--dir", str(tmp_path / "m"), "--cli-config", str(rc)]) == 0
    out = capsys.readouterr().out
    version = package_version()
    archive = tmp_path / "m" / ADDRESS / f"terraform-provider-computeops_{version}_{terraform_platform()}.zip"
    with zipfile.ZipFile(archive) as zf:
        (entry,) = zf.infolist()
        assert entry.filename == f"terraform-provider-computeops_v{version}"
        assert stat.S_IMODE(entry.external_attr >> 16) == 0o755
        script = zf.read(entry).decode()
    assert script.startswith("#!/bin/sh\n") and f"{sys.executable} -P -m computeops_cdk.terraform" in script
    text = rc.read_text()
    assert f'path    = "{tmp_path / "m"}"' in text
    assert (
        'include = ["terraform.local/computeops/*"]' in text
        and 'exclude = ["terraform.local/computeops/*"]' in text
    )
    assert text in out and f'source  = "{ADDRESS}"' in out and f'version = "{version}"' in out
    assert "TOFU_CLI_CONFIG_FILE" in out


def test_installing_again_gives_the_same_bytes(tmp_path: Path) -> None:
    # .terraform.lock.hcl records the archive's hash: a reinstall must not invalidate it.
    first = install_mirror(tmp_path).archive.read_bytes()
    assert install_mirror(tmp_path).archive.read_bytes() == first
    assert [p.name for p in install_mirror(tmp_path).archive.parent.iterdir()] == [
        install_mirror(tmp_path).archive.name
    ]


def test_an_unwritable_directory_is_exit_2_with_a_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert cli_main(["provider", "install", "--dir", str(blocker / "m")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the mirror" in err and "To fix" in err and "Traceback" not in err


def test_the_plugin_run_by_hand_explains_itself() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TF_PLUGIN_MAGIC_COOKIE"}
    done = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.terraform"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1 and "computeops provider install" in done.stderr


def test_start_up_loads_neither_the_engine_nor_the_catalog_nor_pydantic() -> None:
    # Terraform starts the provider 3-5 times per plan: the handshake, the schema and validation must
    # not pay for the engine. The handlers import it when first called.
    code = (
        "import sys\n"
        "from computeops_cdk.terraform import _framework\n"
        "from computeops_cdk.terraform._provider import provider_spec\n"
        "spec = provider_spec()\n"
        "for block in [*spec.data_sources, *spec.resources]:\n"
        "    _framework._schema(block.attributes, block.description).to_pb()\n"
        "    block.validate(_framework.Diagnostics(), {'intent': 'x'})\n"
        "heavy = ('computeops_cdk.engine', 'computeops_cdk.catalog', 'computeops_cdk.intent',\n"
        "         'computeops_cdk.targets', 'pydantic', 'yaml', 'cryptography')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_handshake_line_is_printed(tmp_path: Path) -> None:
    env = {**os.environ, "TF_PLUGIN_MAGIC_COOKIE": "x", "HOME": str(tmp_path)}
    env.pop("XDG_CACHE_HOME", None)
    command = [sys.executable, "-m", "computeops_cdk.terraform"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline().decode()
        finally:
            proc.kill()
    core, protocol, network, address, kind, cert = line.strip().split("|")
    assert (core, protocol, network, kind) == ("1", "6", "unix", "grpc") and address and cert
    assert (tmp_path / ".cache" / "computeops" / "terraform-provider" / "tls-cert.json").exists()


def test_the_plugin_exits_when_terraform_is_gone(tmp_path: Path) -> None:
    # A parent that starts the plugin, reads its handshake, prints the plugin's pid and dies without
    # calling Shutdown (a killed Terraform): the plugin must not keep running.
    parent = (
        "import os, subprocess, sys\n"
        "env = {**os.environ, 'TF_PLUGIN_MAGIC_COOKIE': 'x'}\n"
        "p = subprocess.Popen([sys.executable, '-m', 'computeops_cdk.terraform'], stdout=subprocess.PIPE,\n"
        "                     stderr=subprocess.DEVNULL, env=env)\n"
        "p.stdout.readline()\n"
        "print(p.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, env=env, check=True)
    pid = int(done.stdout.strip())
    for _ in range(100):  # up to 10 s on a loaded machine; the watch checks every second
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, 9)
    raise AssertionError("the plugin outlived its parent")


def test_the_data_sources_rejection_listing_is_the_engines() -> None:
    # _placement spells the listings itself (validation must not import the engine): keep them equal.
    from computeops_cdk.engine._decision import DEFAULT_REJECTIONS, REJECTION_LISTINGS
    from computeops_cdk.terraform._framework import Diagnostics
    from computeops_cdk.terraform._placement import _rejection_listing

    assert _rejection_listing(Diagnostics(), {}) == DEFAULT_REJECTIONS
    assert [_rejection_listing(Diagnostics(), {"rejections": x}) for x in REJECTION_LISTINGS] == list(
        REJECTION_LISTINGS
    )


def _shut_down(env: dict[str, str], *, stderr_closed: bool = False) -> tuple[int, str]:
    """Start the plugin as Terraform does, call go-plugin's Shutdown; its exit code and stderr."""
    import base64
    import ssl

    import grpc  # type: ignore[import-untyped]

    command = [sys.executable, "-m", "computeops_cdk.terraform"]
    if stderr_closed:  # as `2>&-` in a shell
        command = ["sh", "-c", 'exec "$@" 2>&-', "sh", *command]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        try:
            assert proc.stdout is not None
            _, _, _, address, _, cert = proc.stdout.readline().decode().strip().split("|")
            pem = ssl.DER_cert_to_PEM_cert(base64.b64decode(cert + "=" * (-len(cert) % 4)))
            credentials = grpc.ssl_channel_credentials(root_certificates=pem.encode())
            options = [("grpc.ssl_target_name_override", "localhost")]
            with grpc.secure_channel(f"unix:{address}", credentials, options=options) as channel:
                shutdown = channel.unary_unary(
                    "/plugin.GRPCController/Shutdown",
                    request_serializer=lambda _: b"",
                    response_deserializer=lambda raw: raw,
                )
                with contextlib.suppress(grpc.RpcError):  # the server may stop before it answers
                    shutdown(None, timeout=10)
            code = proc.wait(timeout=10)
        finally:
            proc.kill()
        assert proc.stderr is not None
        return code, proc.stderr.read().decode()


def test_after_shutdown_the_plugin_exits_without_the_interpreters_teardown(tmp_path: Path) -> None:
    # Terraform waits for each of a plan's three provider processes to exit after Shutdown; the
    # interpreter's teardown (every module, the gRPC threads) took 25-50 ms of each
    # (benchmarks/TERRAFORM.md). An atexit hook stands for that teardown: it must not run.
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    marker = tmp_path / "teardown-ran"
    (hooks / "sitecustomize.py").write_text(
        f"import atexit, pathlib\natexit.register(pathlib.Path({str(marker)!r}).touch)\n", encoding="utf-8"
    )
    env = {**os.environ, "TF_PLUGIN_MAGIC_COOKIE": "x", "HOME": str(tmp_path), "PYTHONPATH": str(hooks)}
    code, stderr = _shut_down(env)
    assert code == 0, stderr
    assert not marker.exists()


def test_the_plugin_exits_cleanly_with_its_stderr_closed(tmp_path: Path) -> None:
    # The exit path flushes and closes stdout and stderr itself: a stream that is not there (here
    # stderr, so Python's sys.stderr is None) must not turn the exit into an error.
    env = {**os.environ, "TF_PLUGIN_MAGIC_COOKIE": "x", "HOME": str(tmp_path)}
    assert _shut_down(env, stderr_closed=True)[0] == 0
