"""`make demo`: C# trains a digits classifier through the bridge, then checks the engine against the C# reference.

``python -m tfnet_train.demo [--epochs N] [--report-dir DIR]`` runs ``dotnet/bin/TfNetTrain.Demo.exe`` on Mono.
That program embeds this interpreter's virtual environment and calls back into this module for the data
(:func:`digits_split`, scikit-learn's bundled 8x8 digits, no download) and for the conformance report.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.extras import require

DEMO_EXE = "TfNetTrain.Demo.exe"
DOTNET_BIN_ENV = "TFNET_TRAIN_DOTNET_BIN"
DEFAULT_EPOCHS = 20
DEFAULT_REPORT_DIR = Path("reports") / "demo"
CASE_NAME = "digits_first_steps"
CURVES_FILE = "training_curves.png"


def digits_split(test_fraction: float = 0.25, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's 1,797 handwritten digits split into train and test sets with a fixed seed.

    Returns ``(x_train, y_train, x_test, y_test)``: images flattened to 64 float32 pixels scaled to [0, 1], labels
    int32 in 0..9, every array C-contiguous. The split is stratified by label, so both sides hold every digit.
    """
    if not 0.0 < float(test_fraction) < 1.0:
        raise ValueError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    datasets = require("sklearn.datasets", "The digits data (tfnet_train.demo, the face's keras.datasets.digits)")
    train_test_split = require("sklearn.model_selection", "Splitting the digits data").train_test_split
    digits = datasets.load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=float(test_fraction), random_state=int(seed), stratify=y)
    return tuple(np.ascontiguousarray(a) for a in (x_train, y_train, x_test, y_test))  # type: ignore[return-value]


def record_first_steps(model: Any, x: Any, y: Any, steps: int, batch_size: int, directory: str | Path) -> str:
    """Write the conformance case "the first ``steps`` batches of ``x``/``y`` from ``model``'s current weights".

    ``model`` is a compiled tfnet_train model whose optimizer has not stepped yet; returns the case's JSON path.
    """
    from tfnet_train.conformance import record

    steps, batch_size = int(steps), int(batch_size)
    rows = steps * batch_size
    x, y = np.asarray(x), np.asarray(y)
    if len(x) < rows:
        raise ValueError(f"x must hold at least steps * batch_size = {rows} rows, got {len(x)}")
    case = record(model, x[:rows], y[:rows], steps, Path(directory) / f"{CASE_NAME}.json", batch_size=batch_size)
    return str(case.path)


def write_training_curves(history: Mapping[str, Sequence[float]], report_dir: str | Path) -> str:
    """Draw the curves of a fit's History (``history``: name -> one value per epoch, with ``loss`` and, when
    present, ``accuracy``, ``val_loss``, ``val_accuracy``) as ``report_dir``/training_curves.png; returns its path.

    Loss on the left, accuracy on the right, training and validation lines per epoch. The file is written whole or
    not at all.
    """
    Figure = require("matplotlib.figure", "Drawing the training curves").Figure
    FigureCanvasAgg = require("matplotlib.backends.backend_agg", "Drawing the training curves").FigureCanvasAgg
    MaxNLocator = require("matplotlib.ticker", "Drawing the training curves").MaxNLocator

    from tfnet_train.files import atomic_path

    if not isinstance(history, Mapping) or not history.get("loss"):
        raise ValueError(f"history must map 'loss' to one value per epoch; got keys {sorted(history or {})}")
    lengths = {name: len(values) for name, values in history.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"history must hold one value per epoch for every name; got lengths {lengths}")
    fig = Figure(figsize=(9, 3.4))
    panels = [name for name in ("loss", "accuracy") if name in history]
    for i, name in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        for key, label in ((name, "train"), (f"val_{name}", "validation")):
            if key in history:
                values = [float(v) for v in history[key]]
                ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, label=label)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("epoch")
        ax.set_ylabel(name)
        ax.set_title(f"{name} per epoch", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    FigureCanvasAgg(fig)
    path = Path(report_dir) / CURVES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as partial:
        fig.savefig(partial, dpi=90, format="png")
    return str(path.resolve())


def stage_table(comparison: Any) -> str:
    """One row per stage: values compared, worst absolute and relative error, verdict."""
    rows = [("stage", "values", "max abs error", "max rel error", "verdict"),
            *((s.stage, str(s.compared), f"{s.max_abs:.3e}", f"{s.max_rel:.3e}", "pass" if s.passed else "FAIL")
              for s in comparison.stages)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def conformance_report(case_json: str | Path, csharp_traces: str | Path, csharp_seconds: float,
                       report_dir: str | Path) -> dict[str, Any]:
    """Run the case with the Python engine, compare it with the C# reference's traces (an npz written by
    ReferenceRunner.RunToNpz) and write report.json, index.html and plots into ``report_dir``; the page links
    the training curves when ``report_dir`` holds them (``write_training_curves``).

    Returns {"passed": bool, "table": str (stage table and verdict), "html": path, "json": path}.
    """
    from tfnet_train.conformance import load
    from tfnet_train.conformance.render import write_document
    from tfnet_train.conformance.report import to_json
    from tfnet_train.conformance.runner import (
        CaseResult,
        ImplementationRun,
        SuiteResult,
        compare_runs,
        run_implementation,
    )
    from tfnet_train.conformance.trace_files import read_step_npz

    case = load(case_json)
    engine = run_implementation("engine", case)
    csharp = ImplementationRun("csharp", "ok", traces=read_step_npz(Path(csharp_traces)),
                               seconds=float(csharp_seconds))
    pair = compare_runs(case, engine, csharp)
    result = CaseResult(case.name, case, runs={"engine": engine, "csharp": csharp}, pairs=[pair])
    suite = SuiteResult(str(Path(case_json).parent), ["engine", "csharp"], "csharp", [result])
    doc = to_json(suite)
    if (Path(report_dir) / CURVES_FILE).is_file():
        doc["links"] = [{"href": CURVES_FILE, "text": "training curves of the C# fit (loss and accuracy per epoch)",
                         "image": True}]
    paths = write_document(doc, report_dir)
    lines = [f"conformance: Python engine vs C# reference on {case.steps} steps of {case.batch_size} digits "
             f"(rtol {case.tolerance.rtol:g}, atol {case.tolerance.atol:g})"]
    if pair.comparison is not None:
        lines.append(stage_table(pair.comparison))
    if pair.message:
        lines.append(f"first divergence: {pair.message}" if pair.verdict == "fail" else pair.message)
    lines.append(f"verdict: {pair.verdict.upper()}")
    return {"passed": suite.passed, "table": "\n".join(lines), "html": str(paths["html"]),
            "json": str(paths["json"])}


def repository_root() -> Path:
    """The checkout this module runs from (src/tfnet_train/demo.py -> the repository)."""
    return Path(__file__).resolve().parents[2]


def dotnet_bin() -> Path:
    """Where the C# build output is: $TFNET_TRAIN_DOTNET_BIN, else <repository>/dotnet/bin."""
    configured = os.environ.get(DOTNET_BIN_ENV)
    return Path(configured) if configured else repository_root() / "dotnet" / "bin"


def demo_command(epochs: int, report_dir: Path, extra: list[str] | None = None) -> list[str]:
    """The command line that runs the C# demo on Mono."""
    exe = dotnet_bin() / DEMO_EXE
    if not exe.is_file():
        raise FileNotFoundError(
            f"the C# demo is not built: expected {exe}; run `make build` (or set {DOTNET_BIN_ENV})")
    mono = shutil.which("mono")
    if mono is None:
        raise FileNotFoundError("mono is not on PATH; run `make mono` (Debian package mono-devel)")
    return [mono, "--debug", str(exe), "--epochs", str(epochs), "--report-dir", str(report_dir), *(extra or [])]


def demo_environment() -> dict[str, str]:
    """The environment for the C# host: it embeds this interpreter's virtual environment."""
    env = dict(os.environ)
    if sys.prefix != sys.base_prefix:
        env.setdefault("TFNET_TRAIN_VENV", sys.prefix)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfnet_train.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS,
                        help=f"training epochs (default {DEFAULT_EPOCHS})")
    parser.add_argument("--report-dir", type=Path, default=DEFAULT_REPORT_DIR,
                        help=f"where the conformance report goes (default {DEFAULT_REPORT_DIR})")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    try:
        command = demo_command(args.epochs, args.report_dir.resolve())
    except FileNotFoundError as err:
        print(f"demo: {err}", file=sys.stderr)
        return 2
    return subprocess.call(command, env=demo_environment())


if __name__ == "__main__":
    sys.exit(main())
