"""PNG plots for the report: loss per step per implementation, and the worst error per stage per pair.

Figures are drawn with matplotlib's Agg canvas directly (no pyplot, no global backend change).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from tfnet_train.conformance.runner import CaseResult
from tfnet_train.engine.trace import STAGES

ERROR_FLOOR = 1e-12  # a zero error is drawn at this height on the log axis


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=80)
    return path


def loss_curve(result: CaseResult, path: Path) -> Path:
    """Training loss per step, one line per implementation that ran."""
    fig = Figure(figsize=(5, 3.2))
    ax = fig.add_subplot()
    markers = "osD^v<>"
    for i, run in enumerate(r for r in result.runs.values() if r.status == "ok"):
        losses = run.losses
        ax.plot(range(len(losses)), losses, marker=markers[i % len(markers)], label=run.name, alpha=0.8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(f"{result.name}: loss", fontsize=9)
    if ax.has_data():
        ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def stage_errors(result: CaseResult, path: Path) -> Path:
    """Max absolute error per stage (log scale), one bar group per compared pair."""
    fig = Figure(figsize=(6, 3.2))
    ax = fig.add_subplot()
    pairs = [p for p in result.pairs if p.comparison is not None]
    width = 0.8 / max(len(pairs), 1)
    positions = np.arange(len(STAGES))
    for i, pair in enumerate(pairs):
        heights = []
        for stage in STAGES:
            record = pair.comparison.stage(stage)
            heights.append(np.nan if record is None else max(record.max_abs, ERROR_FLOOR))
        ax.bar(positions + i * width, heights, width, label=f"{pair.a} vs {pair.b}")
    tolerance = result.case.tolerance.atol if result.case else None
    if tolerance:
        ax.axhline(tolerance, color="grey", linestyle="--", linewidth=0.8, label="atol")
    ax.set_yscale("log")
    ax.set_ylim(bottom=ERROR_FLOOR / 2)
    ax.set_xticks(positions + 0.4 - width / 2, [s.replace("_", "\n") for s in STAGES], fontsize=6)
    ax.set_ylabel("max |a - b|")
    ax.set_title(f"{result.name}: error by stage", fontsize=9)
    if pairs:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _save(fig, path)
