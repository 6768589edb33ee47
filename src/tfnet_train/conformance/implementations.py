"""The implementations a case can be run with: name -> runner(case) -> one flat trace per step.

- ``numpy``: the NumPy reference (both profiles).
- ``keras``: Keras 3 itself (semantics "keras" only; NotApplicable otherwise).
- ``engine``: the tfnet_train engine's ``train_step_traced`` (both profiles).
- ``csharp``: the pure C# reference ``TfNetTrain.Reference`` through pythonnet on Mono (both profiles).
- ``NAME=PATH`` (see ``from_spec``): traces another program wrote into trace files (``trace_files``).

Runners import their heavy dependencies (TensorFlow, Mono) only when called.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfnet_train.conformance.case import Case

Trace = dict[str, np.ndarray]
Runner = Callable[[Case], list[Trace]]


def _numpy(case: Case) -> list[Trace]:
    from tfnet_train.conformance.numpy_reference import run_numpy

    return run_numpy(case)


def _keras(case: Case) -> list[Trace]:
    from tfnet_train.conformance.keras_runner import run_keras

    return run_keras(case)


def _engine(case: Case) -> list[Trace]:
    from tfnet_train.conformance.engine_runner import run_engine

    return run_engine(case)


def _csharp(case: Case) -> list[Trace]:
    from tfnet_train.conformance.csharp_runner import run_csharp

    return run_csharp(case)


IMPLEMENTATIONS: dict[str, Runner] = {"engine": _engine, "keras": _keras, "numpy": _numpy, "csharp": _csharp}


def get_runner(name: str) -> Runner:
    """The runner registered under ``name``."""
    if name not in IMPLEMENTATIONS:
        raise ValueError(f"implementation must be one of {sorted(IMPLEMENTATIONS)}, got {name!r}")
    return IMPLEMENTATIONS[name]


def register(name: str, runner: Runner) -> None:
    """Add (or replace) an implementation, e.g. a trainer under test."""
    if not name or "," in name:
        raise ValueError(f"implementation name must be non-empty without commas, got {name!r}")
    IMPLEMENTATIONS[name] = runner


def from_spec(spec: str) -> str:
    """The implementation a command line names: a registered name, or ``NAME=PATH`` for the trace files at PATH
    (a folder of ``<case>.npz`` or one ``.npz``), registered under NAME. Returns the name."""
    from tfnet_train.conformance.trace_files import trace_file_runner

    if "=" not in spec:
        get_runner(spec)
        return spec
    name, path = spec.split("=", 1)
    register(name, trace_file_runner(path))
    return name


def run(name: str, case: Case) -> list[Trace]:
    """Run ``case`` with the implementation ``name``."""
    return get_runner(name)(case)
