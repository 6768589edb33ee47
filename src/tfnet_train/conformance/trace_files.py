"""Trace files: the traces of one case written by any program (the C# reference, a TensorFlow.NET program, an
earlier run), read by the runner as an implementation named on the command line (``--impl NAME=PATH``).

A trace file is an ``.npz`` holding every step's flat trace under the keys ``step{i}/<flat key>`` (e.g.
``step0/gradients/1``), steps numbered from 0 without gaps; the flat keys and shapes are those of
``StepTrace.flat()`` (docs/conformance.md, "Trace files").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tfnet_train.archives import load_npz
from tfnet_train.conformance.case import Case

Trace = dict[str, np.ndarray]
_STEP_KEY = re.compile(r"^step(\d+)/(.+)$")


def read_step_npz(path: str | Path) -> list[Trace]:
    """Split an npz of ``step{i}/<key>`` entries into one flat trace per step."""
    steps: dict[int, Trace] = {}
    try:
        data = load_npz(path)
    except ValueError as error:
        raise ValueError(f"trace file {path}: {error}") from None
    for name, array in data.items():
        match = _STEP_KEY.match(name)
        if match is None:
            raise ValueError(f"trace file {path}: key {name!r} is not 'step<i>/<trace key>'")
        steps.setdefault(int(match.group(1)), {})[match.group(2)] = array
    if sorted(steps) != list(range(len(steps))):
        raise ValueError(f"trace file {path}: expected steps 0..{len(steps) - 1}, got {sorted(steps)}")
    return [steps[i] for i in range(len(steps))]


def trace_file_runner(path: str | Path) -> Callable[[Case], list[Trace]]:
    """A runner reading ``<path>/<case name>.npz`` (``path`` a folder) or ``path`` itself (one .npz) for any case."""
    root = Path(path)
    if not root.exists():
        raise ValueError(f"implementation path must be an existing folder of <case>.npz files or an .npz file, "
                         f"got {str(path)!r}")

    def run(case: Case) -> list[Trace]:
        file = root / f"{case.name}.npz" if root.is_dir() else root
        if not file.is_file():
            raise FileNotFoundError(f"no traces for case {case.name!r}: expected the file {file}")
        return read_step_npz(file)

    return run
