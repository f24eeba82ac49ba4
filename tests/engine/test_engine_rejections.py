"""``Decision.rejected`` makes its ``Rejection`` records when they are read (``Rejections``).

Building every record was about a third of a warm ``decide`` (benchmarks/STARTUP.md); the documents
must stay the same bytes: compared here with the same decision holding a plain tuple of records, as
before, for every example intent and both listings."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.engine import Decision, decide
from computeops_cdk.engine._decision import Rejections
from computeops_cdk.errors import NoFeasiblePlacementError
from computeops_cdk.intent import WorkloadIntent

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


def _decision(path: Path) -> Decision | None:
    intent = WorkloadIntent.from_file(path)
    try:
        return decide(intent, catalog=load_catalog())
    except NoFeasiblePlacementError as err:
        return err.decision


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_documents_are_the_bytes_of_eager_records(path: Path) -> None:
    lazy = _decision(path)
    if lazy is None:
        pytest.skip("no decision document for this intent")
    assert isinstance(lazy.rejected, Rejections)
    summary = lazy.to_json()
    again = _decision(path)
    assert again is not None
    eager = dataclasses.replace(lazy, rejected=tuple(again.rejected))
    assert summary == eager.to_json()
    assert lazy.to_json(rejections="all") == eager.to_json(rejections="all")
    assert lazy.rejections_by_rule() == eager.rejections_by_rule()
    assert lazy.rejection_examples() == eager.rejection_examples()
    assert lazy == eager and hash(lazy.rejected) == hash(eager.rejected)


def test_the_summary_makes_only_the_example_records() -> None:
    decision = decide(WorkloadIntent.from_file(EXAMPLES[0]), catalog=load_catalog())
    rejected = decision.rejected
    assert isinstance(rejected, Rejections) and len(rejected) > 1000
    decision.to_json()
    made = sum(r is not None for r in rejected._records)
    assert made == len(decision.listed_rejections()) < 20


def test_it_reads_as_the_tuple_of_its_records() -> None:
    rejected = decide(WorkloadIntent.from_file(EXAMPLES[0]), catalog=load_catalog()).rejected
    records = tuple(rejected)
    assert len(rejected) == len(records) and rejected[0] is records[0] and rejected[-1] is records[-1]
    assert rejected[2:5] == records[2:5] and list(rejected.reasons()) == [r.reasons for r in records]
    assert rejected == records and rejected != records[:-1]
    with pytest.raises(IndexError):
        rejected[len(records)]
    given = Rejections(records=records[:3])
    assert given == records[:3] and list(given.reasons()) == [r.reasons for r in records[:3]]
