"""Cross-implementation conformance: cases (JSON + npz), implementations that run them, comparison, reports.

    from tfnet_train import conformance
    case = conformance.load("suite/default/keras_relu_mse_sgd.json")
    traces = conformance.run("numpy", case)            # one flat trace per step
    result = conformance.run_suite("default", ["engine", "keras", "numpy"])

The heavier pieces (Keras, the engine, Mono) load only when an implementation that needs them runs.
"""

from tfnet_train.conformance.case import Case, CaseArrays, CaseError, load, save
from tfnet_train.conformance.compare import Comparison, Divergence, compare_traces
from tfnet_train.conformance.errors import ImplementationUnavailable, NotApplicable
from tfnet_train.conformance.implementations import IMPLEMENTATIONS, register, run
from tfnet_train.conformance.numpy_reference import NumpyTrainer
from tfnet_train.conformance.record import record
from tfnet_train.conformance.runner import run_case, run_suite

__all__ = [
    "IMPLEMENTATIONS",
    "Case",
    "CaseArrays",
    "CaseError",
    "Comparison",
    "Divergence",
    "ImplementationUnavailable",
    "NotApplicable",
    "NumpyTrainer",
    "compare_traces",
    "load",
    "record",
    "register",
    "run",
    "run_case",
    "run_suite",
    "save",
]
