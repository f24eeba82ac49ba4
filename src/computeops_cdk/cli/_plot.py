"""``computeops decide --plot FILE.png|svg``: the trade-off as a picture.

Unit cost (y) against speed (x) for every distinct feasible candidate, the Pareto front as a line,
the chosen placement marked. Speed is what the user waits on: for inference, output tokens/s of one
request stream (1000 / TPOT ms); for training and fine-tuning, the job's tokens/s.

matplotlib is the optional extra ``plot``, imported only when ``--plot`` is given (Agg backend).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..engine import Decision, Placement
from ..errors import MissingExtraError, TargetError

__all__ = ["SUFFIXES", "check_plot_path", "pareto_front", "plot_decision", "speed_of"]

SUFFIXES = (".png", ".svg")


def check_plot_path(path: str) -> None:
    """Refuse a suffix other than .png/.svg, a place the file cannot be written (a missing folder, a
    directory or a device by that name) and a missing extra before any work is done."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in SUFFIXES:
        raise TargetError(
            f"--plot {path!r}: the file name must end in .png or .svg (got {suffix or 'no suffix'}). "
            "To fix: e.g. --plot trade-off.svg"
        )
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        _unwritable(path, f"the folder {folder!r} does not exist")
    from ..catalog._build import system_entry_on_the_way  # the writers' one rule for /proc and /dev

    entry = system_entry_on_the_way(Path(path))
    if entry is not None:  # e.g. a link to /proc/self/fd/1: the rename would replace the link
        _unwritable(path, f"it is or links to {str(entry)!r}, a process or device entry")
    if os.path.exists(path) and not os.path.isfile(path):
        _unwritable(path, "it exists and is not a regular file")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingExtraError(
            "--plot needs matplotlib, which is the optional extra 'plot'. "
            "To fix: pip install 'computeops-cdk[plot]'",
            extra="plot",
        ) from None


def _unwritable(path: str, why: str) -> NoReturn:
    raise TargetError(
        f"--plot {path!r}: cannot write the picture: {why}. Nothing was written. "
        "To fix: give a file path in an existing folder you can write, e.g. --plot trade-off.svg"
    )


def speed_of(p: Placement) -> float | None:
    """The x axis: tokens/s of one request stream (inference) or of the whole job (training)."""
    if p.unit_cost.unit == "usd_per_million_output_tokens":
        tpot = p.estimate.tpot_ms
        return None if not tpot else 1000.0 / tpot
    return p.estimate.tokens_per_s or None


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indexes of the points no other beats on both (faster x, cheaper y), ordered by speed."""
    order = sorted(range(len(points)), key=lambda i: (-points[i][0], points[i][1]))
    front: list[int] = []
    cheapest = float("inf")
    for i in order:  # fastest first: a point is on the front when it is cheaper than every faster one
        if points[i][1] < cheapest:
            front.append(i)
            cheapest = points[i][1]
    return sorted(front, key=lambda i: points[i][0])


def plot_decision(decision: Decision, path: str) -> None:
    """Write the trade-off picture of ``decision`` (every placement in ``decision.ranked``) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    placed = [(p, speed_of(p)) for p in decision.ranked]
    shown = [(p, s) for p, s in placed if s is not None]
    points = [(s, p.unit_cost.value) for p, s in shown]
    chosen = decision.chosen
    figure, axes = plt.subplots(figsize=(8, 5), dpi=110)
    try:
        label = f"feasible candidates ({len(points)})"
        axes.scatter([x for x, _ in points], [y for _, y in points], s=18, color="#9aa5b1", label=label)
        front = pareto_front(points)
        xs, ys = [points[i][0] for i in front], [points[i][1] for i in front]
        label = "Pareto front (nothing both cheaper and faster)"
        axes.plot(xs, ys, color="#1f77b4", marker="o", markersize=4, label=label)
        chosen_speed = speed_of(chosen) if chosen is not None else None
        if chosen is not None and chosen_speed is not None:
            label = f"chosen: {chosen.provider} {chosen.instance_type} ({chosen.region})"
            axes.scatter([chosen_speed], [chosen.unit_cost.value], s=160, marker="*", color="#2ca02c",
                         zorder=5, label=label)  # fmt: skip
        inference = chosen is not None and chosen.unit_cost.unit == "usd_per_million_output_tokens"
        axes.set_xlabel(
            "speed: output tokens/s per request (1000 / TPOT, estimated)"
            if inference
            else "speed: training tokens/s of the deployment (estimated)"
        )
        axes.set_ylabel(
            "unit cost, USD per 1M output tokens (est.)" if inference else "unit cost, USD per step (est.)"
        )
        axes.set_title(f"computeops decision: {decision.intent_name} (catalog {decision.catalog_version})")
        axes.grid(True, alpha=0.3)
        axes.legend(loc="best", fontsize="small")
        figure.tight_layout()
        # metadata pinned so that the same decision gives the same file (no creation date inside).
        suffix = os.path.splitext(path)[1].lower()
        metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
        _save_atomically(figure, path, suffix, metadata)
    finally:
        plt.close(figure)


def _save_atomically(figure: Any, path: str, suffix: str, metadata: dict[str, None]) -> None:
    """Draw into a temporary sibling, then rename it over ``path``: a failure leaves any previous
    picture whole and is an error naming the file. A link is kept: its target is replaced."""
    if os.path.islink(path):
        path = os.path.realpath(path)
    folder = os.path.dirname(path) or "."
    try:
        handle, staged = tempfile.mkstemp(prefix=".plot.", suffix=suffix, dir=folder)
        try:
            import matplotlib

            # An SVG's element ids are salted at random unless a salt is set: two runs of the same
            # decision gave different files.
            with os.fdopen(handle, "wb") as out, matplotlib.rc_context({"svg.hashsalt": "computeops"}):
                figure.savefig(out, format=suffix[1:], metadata=metadata)
            os.chmod(staged, 0o644)  # mkstemp makes 0600; a picture is for sharing
            os.replace(staged, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(staged)
            raise
    except OSError as err:
        _unwritable(path, err.strerror or str(err))
