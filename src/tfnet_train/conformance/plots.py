"""PNG plots for the report: loss per step per implementation, and the worst error per stage per pair.

The drawing functions take plain data, so a report can be drawn from a ``SuiteResult`` or from report.json alone
(``case_plots`` reads one case of that document). Figures are drawn with matplotlib's Agg canvas directly (no pyplot,
no global backend change); matplotlib comes with the ``demo`` extra.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.engine.trace import STAGES
from tfnet_train.extras import require

ERROR_FLOOR = 1e-12  # a zero error is drawn at this height on the log axis

# A case name becomes a file name under plots/: one path component, no separators, no leading dot.
_PLOT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}")


def plot_name(name: Any) -> str:
    """``name`` when it is safe as a file name under plots/; ValueError naming it otherwise (``../x``, ``a/b``)."""
    if not isinstance(name, str) or not _PLOT_NAME.fullmatch(name) or ".." in name:
        raise ValueError(f"case name must be letters, digits, '_', '.', '+' or '-' (a file name under plots/, "
                         f"at most 200 characters, not starting with '.' or holding '..'), got {name!r}")
    return name


def _figure(**kwargs: Any) -> Any:
    return require("matplotlib.figure", "Drawing report plots").Figure(**kwargs)


def _integer_ticks() -> Any:
    return require("matplotlib.ticker", "Drawing report plots").MaxNLocator(integer=True)


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    require("matplotlib.backends.backend_agg", "Drawing report plots").FigureCanvasAgg(fig)
    fig.savefig(path, dpi=80)
    return path


def loss_curve(name: str, losses: Mapping[str, Sequence[float]], path: Path) -> Path:
    """Training loss per step, one line per implementation (``losses``: implementation -> loss per step)."""
    fig = _figure(figsize=(5, 3.2))
    ax = fig.add_subplot()
    markers = "osD^v<>"
    for i, (implementation, values) in enumerate(losses.items()):
        ax.plot(range(len(values)), values, marker=markers[i % len(markers)], label=implementation, alpha=0.8)
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(f"{name}: loss", fontsize=9)
    if ax.has_data():
        ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def stage_errors(name: str, errors: Mapping[str, Mapping[str, float]], atol: float | None, path: Path) -> Path:
    """Max absolute error per stage (log scale), one bar group per compared pair.

    ``errors``: pair label -> {stage: max |a - b|}; a stage the pair did not compare is left out.
    """
    fig = _figure(figsize=(6, 3.2))
    ax = fig.add_subplot()
    width = 0.8 / max(len(errors), 1)
    positions = np.arange(len(STAGES))
    for i, (label, by_stage) in enumerate(errors.items()):
        heights = [max(by_stage[s], ERROR_FLOOR) if s in by_stage else np.nan for s in STAGES]
        ax.bar(positions + i * width, heights, width, label=label)
    if atol:
        ax.axhline(atol, color="grey", linestyle="--", linewidth=0.8, label="atol")
    ax.set_yscale("log")
    ax.set_ylim(bottom=ERROR_FLOOR / 2)
    ax.set_xticks(positions + 0.4 - width / 2, [s.replace("_", "\n") for s in STAGES], fontsize=6)
    ax.set_ylabel("max |a - b|")
    ax.set_title(f"{name}: error by stage", fontsize=9)
    if errors:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _save(fig, path)


def case_plots(case: Mapping[str, Any], directory: Path) -> dict[str, str]:
    """Both PNGs of one report.json case under ``directory``/plots; returns their paths relative to ``directory``.

    Runs with status 'ok' give the loss lines; pairs with verdict 'pass' or 'fail' (those that were compared) give
    the bars. Non-finite numbers may be the strings "inf", "-inf" and "nan", as report.json writes them.
    """
    name = plot_name(case["name"])  # before anything is drawn or written
    losses = {r["implementation"]: [float(v) for v in r["losses"]] for r in case["runs"] if r["status"] == "ok"}
    errors = {f"{p['a']} vs {p['b']}": {s["stage"]: float(s["max_abs"]) for s in p["stages"]}
              for p in case["pairs"] if p["verdict"] in ("pass", "fail")}
    atol = case["tolerance"]["atol"] if case.get("tolerance") else None
    loss_png = loss_curve(name, losses, directory / "plots" / f"{name}_loss.png")
    errors_png = stage_errors(name, errors, atol, directory / "plots" / f"{name}_errors.png")
    return {"loss": loss_png.relative_to(directory).as_posix(), "errors": errors_png.relative_to(directory).as_posix()}
