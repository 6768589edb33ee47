"""tfnet-train: TensorFlow.NET's Keras training engine on TensorFlow 2.21 and Keras 3, with a C# bridge.

The engine (and with it TensorFlow) loads on first use of ``Model``, ``Sequential``, ``Functional``, ``Trainer``,
``StepTrace`` or ``STAGES``, so TensorFlow-free parts (the NumPy reference, the CLI's listing) start quickly.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["Functional", "Model", "STAGES", "Sequential", "StepTrace", "Trainer", "__version__", "load_model"]

_ENGINE_NAMES = {"Functional", "Model", "STAGES", "Sequential", "StepTrace", "Trainer", "load_model"}
_SUBMODULES = {"bridge", "callbacks", "conformance", "engine", "files", "optimizers", "semantics", "tolerances"}


def __getattr__(name: str) -> Any:
    if name in _ENGINE_NAMES:
        from tfnet_train import engine

        return getattr(engine, name)
    if name in _SUBMODULES:  # `import tfnet_train as tt; tt.optimizers.SGD` as with `keras.optimizers`
        return importlib.import_module(f"tfnet_train.{name}")
    raise AttributeError(f"module 'tfnet_train' has no attribute {name!r}")
