"""decide()'s inputs from Python: every shape it documents works, anything else is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_testdata import inference, make_catalog, offer

from computeops_cdk.engine import Pin, decide
from computeops_cdk.errors import CatalogError, IntentError, NoFeasiblePlacementError


def test_a_mapping_is_an_intent() -> None:
    # What yaml.safe_load / json.load give: used to fail with a TypeError from pathlib.
    catalog = make_catalog()
    assert (
        decide(inference().to_dict(), catalog=catalog).to_json()
        == decide(inference(), catalog=catalog).to_json()
    )


def test_an_invalid_mapping_is_an_intent_error() -> None:
    doc = inference().to_dict()
    doc["workload"]["serving"]["output_tokens_per_s"] = -5
    with pytest.raises(IntentError, match=r"^workload.serving.output_tokens_per_s: must be > 0 \(got -5\)$"):
        decide(doc, catalog=make_catalog())


@pytest.mark.parametrize("value", [None, 42])
def test_anything_else_is_an_intent_error_with_a_fix(value: object) -> None:
    with pytest.raises(IntentError) as caught:
        decide(value, catalog=make_catalog())  # type: ignore[arg-type]
    assert str(caught.value) == (
        "decide() takes a WorkloadIntent, a mapping or the path of a YAML/JSON intent "
        f"(got {type(value).__name__}). To fix: pass WorkloadIntent.from_file(path) or the path itself."
    )


def test_a_catalog_path_is_loaded_and_validated(tmp_path: Path) -> None:
    from computeops_cdk.catalog import load_catalog
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    assert (
        decide(inference(), catalog=str(EMBEDDED_CATALOG)).chosen
        == decide(inference(), catalog=load_catalog()).chosen
    )
    with pytest.raises(CatalogError, match="does not exist"):
        decide(inference(), catalog=tmp_path / "missing.json")


def test_a_catalog_of_the_wrong_type_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError) as caught:
        decide(inference(), catalog=42)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "catalog must be a Catalog or the path of a catalog JSON file (got int). To fix: pass "
        "load_catalog(path), the path itself, or leave it out for the embedded catalog."
    )


def test_no_offer_at_all_says_how_to_fix_that_not_to_relax_constraints() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(inference(), catalog=make_catalog(offers=()))
    assert str(caught.value).endswith(
        "there is no offer in the catalog\n"
        "To fix: decide over a catalog with offers (`computeops catalog list --catalog FILE` shows them)."
    )
    with pytest.raises(NoFeasiblePlacementError) as caught:
        only_lambda = make_catalog(offers=(offer("lambda", "gpu_1x_a100", "us-east-1", 1.79),))
        decide(inference(), catalog=only_lambda, pin=Pin(provider="aws"))
    assert str(caught.value).endswith(
        "To fix: pin a provider/region that has offers (`computeops catalog list`), or drop the pin."
    )


def test_countries_without_any_region_are_an_intent_error_not_thousands_of_rejections() -> None:
    with pytest.raises(IntentError) as caught:
        decide(inference(residency={"countries": ["XX", "UA"]}), catalog=make_catalog())
    assert str(caught.value) == (
        "constraints.residency.countries: no region of the catalog is in 'XX' or 'UA'. To fix: use a "
        "country the catalog has regions in (DE, US)"
    )


def test_one_country_with_regions_is_enough() -> None:
    # A policy may list countries nobody serves yet; only an all-empty list is a mistake.
    decision = decide(inference(residency={"countries": ["LU", "DE"]}), catalog=make_catalog())
    assert decision.chosen is not None and decision.chosen.country == "DE"


@pytest.mark.parametrize("value", ["3", -1, 2.5, True])
def test_alternatives_must_be_a_whole_number_at_least_zero(value: object) -> None:
    # "3" was a TypeError, -1 silently 0, 2.5 listed every distinct candidate and True meant 1.
    with pytest.raises(IntentError) as caught:
        decide(inference(), catalog=make_catalog(), alternatives=value)  # type: ignore[arg-type]
    assert str(caught.value) == (
        f"alternatives: must be a whole number >= 0 (got {value!r}). To fix: e.g. alternatives=3, "
        "or 0 for the chosen placement only"
    )


def test_zero_alternatives_is_the_chosen_placement_only() -> None:
    decision = decide(inference(), catalog=make_catalog(), alternatives=0)
    assert decision.chosen is not None and decision.alternatives == ()
