"""``benchmarks/compare_trees.py``: the differential check finds what differs, and only that."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
EXAMPLE = [ROOT / "examples" / "support-chat.yaml"]


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare_trees", ROOT / "benchmarks" / "compare_trees.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _copy_with(tmp_path: Path, file: str, old: str, new: str) -> Path:
    copy = tmp_path / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    target = copy / "computeops_cdk" / file
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return copy


def test_a_tree_compared_with_itself_differs_nowhere(harness: ModuleType) -> None:
    report = harness.compare(SRC, SRC, ("decide", "estimate"), None, examples=EXAMPLE)
    assert report.rows["decide"] == [5, 5, 0, 0]
    assert report.rows["estimate"][0] == report.rows["estimate"][1] > 0
    assert not report.failures and not report.messages
    assert harness.exit_code(report, strict_errors=True) == 0


def test_a_changed_output_is_a_failure_with_both_texts(harness: ModuleType, tmp_path: Path) -> None:
    planted = _copy_with(tmp_path, "cli/_decide.py", "Considered placements for", "Placements considered for")
    report = harness.compare(SRC, planted, ("decide",), tmp_path / "out", examples=EXAMPLE)
    assert report.rows["decide"][2] >= 1  # the table format shows the title
    assert any(
        "Placements considered for" in text and "Considered placements for" in text
        for text in report.failures
    )
    assert (tmp_path / "out" / "decide.diff").is_file()


def test_a_changed_error_message_is_listed_not_failed(harness: ModuleType, tmp_path: Path) -> None:
    planted = _copy_with(
        tmp_path, "intent/_errors.py", "required field is missing", "a required field is missing"
    )
    report = harness.compare(SRC, planted, ("corpus",), None, examples=EXAMPLE)
    cases, identical, outputs, messages = report.rows["corpus"]
    assert cases > 20 and messages > 0 and outputs == 0 and identical + messages == cases
    assert all("a required field is missing" in text for text in report.messages)
    assert harness.exit_code(report, strict_errors=False) == 0
    assert harness.exit_code(report, strict_errors=True) == 1
