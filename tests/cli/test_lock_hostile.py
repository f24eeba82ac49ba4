"""Concurrent edits of ``computeops.lock.json`` (red team, after issue 10 section 2): a read-modify-write
holds ``lockfile.editing``, so a second writer waits instead of writing back what it read before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_reevaluate_cli import _lockfile

from computeops_cdk.errors import LockError
from computeops_cdk.lockfile import Lockfile, editing

WAIT_S = 0.3  # the subprocess's EDIT_WAIT_S, short: the test holds the lock throughout


def _cli_with_short_wait(*argv: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys; import computeops_cdk.lockfile as lockfile; "
        f"lockfile.EDIT_WAIT_S = {WAIT_S}; "
        "from computeops_cdk.cli import main; "
        f"sys.exit(main({list(argv)!r}))"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


@pytest.fixture
def two_entries(tmp_path: Path) -> Path:
    path = tmp_path / "computeops.lock.json"
    _lockfile(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    entry = document["workloads"]["chat/workload"]
    document["workloads"] = {"a/workload": entry, "b/workload": entry}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_second_writer_waits_for_the_first(two_entries: Path) -> None:
    # Before: `lock update --workload a` and `lock remove --workload b` at once each wrote back the
    # entries they had read; b came back after its removal in 1 of 4 runs, both exiting 0.
    before = two_entries.read_bytes()
    with editing(two_entries):  # another process's edit, in progress
        done = _cli_with_short_wait("lock", "remove", str(two_entries), "--workload", "b/workload")
        assert done.returncode == 2, done.stderr
        assert "another computeops process has been changing a lockfile in" in done.stderr
        assert "nothing was changed" in done.stderr and "Traceback" not in done.stderr
        assert two_entries.read_bytes() == before
    done = _cli_with_short_wait("lock", "remove", str(two_entries), "--workload", "b/workload")
    assert done.returncode == 0, done.stderr
    assert list(Lockfile.read(two_entries).workloads) == ["a/workload"]


def test_an_observation_is_recorded_only_on_the_entry_measured(two_entries: Path) -> None:
    # observe scrapes for --interval seconds (60 by default) between reading the entry and recording;
    # it records on the lockfile as it is then, and not on an entry relocked meanwhile.
    from dataclasses import replace

    from computeops_cdk.cli._observe import _record
    from computeops_cdk.lockfile import Observation

    lockfile = Lockfile.read(two_entries)
    measured = lockfile.workloads["a/workload"]
    relocked = replace(
        measured, placement=replace(measured.placement, instances=measured.placement.instances + 1)
    )
    lockfile.with_entry("a/workload", relocked).write()
    before = two_entries.read_bytes()
    observation = Observation.__new__(Observation)  # never reached: the entry no longer matches
    with pytest.raises(LockError, match="was relocked while the metrics were scraped; nothing was recorded"):
        _record(two_entries, "a/workload", measured, observation)
    assert two_entries.read_bytes() == before
