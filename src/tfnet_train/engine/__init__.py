"""The training engine: Model with the TensorFlow.NET Model.Train / Fit / Evaluate / Predict mirror."""

from __future__ import annotations

from tfnet_train.engine.load import load_model
from tfnet_train.engine.model import Functional, Model, Sequential, Trainer
from tfnet_train.engine.trace import STAGES, StepTrace

__all__ = ["Functional", "Model", "STAGES", "Sequential", "StepTrace", "Trainer", "load_model"]
