"""Runs a case with the tfnet_train engine: ``Model.train_step_traced`` once per step, under the case's profile."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnet_train.conformance.case import Case
from tfnet_train.conformance.errors import ImplementationUnavailable
from tfnet_train.conformance.keras_model import build_keras_model, set_case_weights
from tfnet_train.conformance.keras_runner import keras_layers, keras_loss

_OPTIMIZER_CLASSES = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop"}


def engine_model(case: Case) -> Any:
    """A compiled engine model for the case (a ``tfnet_train.Sequential`` of the Dense form, or the engine's class
    built from ``model.keras_config``), holding the case's initial weights."""
    try:
        from tfnet_train import engine, optimizers
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise ImplementationUnavailable(f"the tfnet_train engine cannot be imported: {err}") from err
    if not hasattr(engine.Model, "train_step_traced"):
        raise ImplementationUnavailable("tfnet_train.Model has no train_step_traced (engine too old)")
    if case.optimizer.as_string:
        optimizer: Any = case.optimizer.name  # compile resolves the string under the case's profile
    else:
        optimizer = getattr(optimizers, _OPTIMIZER_CLASSES[case.optimizer.name])(**dict(case.optimizer.params))
    if case.has_keras_model:
        model = build_keras_model(case.model, engine=True)
        set_case_weights(model, case.arrays.weights, case.name)
    else:
        model = engine.Sequential(keras_layers(case))
    model.compile(optimizer=optimizer, loss=keras_loss(case),
                  metrics=list(case.metrics), semantics=case.semantics)
    model.set_weights(case.arrays.weights)
    model.reset_metrics()
    return model


def run_engine(case: Case) -> list[dict[str, np.ndarray]]:
    """The engine's traces for a case."""
    model = engine_model(case)
    traces = []
    for step in range(case.steps):
        x, y, sw = case.batch(step)
        traces.append(model.train_step_traced(x, y, sw).flat())
    return traces
