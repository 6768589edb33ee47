"""The training engine: Model with the TensorFlow.NET Model.Train / Fit / Evaluate / Predict mirror."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Functional", "Model", "STAGES", "Sequential", "StepTrace", "Trainer", "load_model"]

_HOMES = {"Functional": "model", "Model": "model", "Sequential": "model", "Trainer": "model", "load_model": "model",
          "STAGES": "trace", "StepTrace": "trace"}


def __getattr__(name: str) -> Any:
    # Loaded on first use, so modules the engine builds on (callbacks, optimizers) can import
    # tfnet_train.engine.keras_internals without importing the models that import them.
    if name in _HOMES:
        return getattr(importlib.import_module(f"tfnet_train.engine.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'tfnet_train.engine' has no attribute {name!r}")
