"""Production measurements fed back into decisions (``computeops observe``).

Two scrapes of a vLLM server's Prometheus ``/metrics`` (and DCGM's exporter, when scraped with it)
become an ``Observation`` recorded in the lock entry, compared with the locked estimate; the next
decision for the same model, precision and accelerator applies the measured efficiency
(``calibrations_from``) instead of the datasheet extrapolation, and says so in its assumptions.
"""

from __future__ import annotations

from ._measure import GENERATION, PROMPT, measure
from ._scrape import MAX_SCRAPE_BYTES, SCRAPE_TIMEOUT_S, Scrape, parse_scrape, read_scrape

__all__ = [
    "GENERATION",
    "MAX_SCRAPE_BYTES",
    "PROMPT",
    "SCRAPE_TIMEOUT_S",
    "Scrape",
    "measure",
    "parse_scrape",
    "read_scrape",
]
