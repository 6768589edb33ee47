"""train_on_batch, test_on_batch and predict_on_batch (Keras API; TF.NET has no counterpart)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnet_train.engine.data.handler import class_weight_to_sample_weight
from tfnet_train.engine.data.tensor_like import structure_to_tensors, to_tensor


class OnBatchMixin:
    """Single-batch entry points; metrics are reset before each call, as in Keras 3."""

    def _batch_arrays(self, x: Any, y: Any, sample_weight: Any) -> tuple[Any, Any, Any]:
        x = structure_to_tensors(x, "x")
        y = structure_to_tensors(y, "y")
        sample_weight = None if sample_weight is None else to_tensor(sample_weight, "sample_weight")
        self._check_batch(x, y, sample_weight)
        return x, y, sample_weight

    def train_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: dict[int, float] | None = None,
        return_dict: bool = False,
    ) -> Any:
        """One training step on exactly this batch; returns the logs (dict, or values as Keras does)."""
        self._assert_compile_was_called("train_on_batch")
        if class_weight is not None:
            if sample_weight is not None and self._engine.semantics != "tfnet":
                raise ValueError("class_weight and sample_weight cannot be used together (Keras 3 rule)")
            weights = class_weight_to_sample_weight(np.asarray(y), class_weight)
            sample_weight = weights if sample_weight is None else weights * np.asarray(sample_weight).reshape(-1)
        x, y, sample_weight = self._batch_arrays(x, y, sample_weight)
        self.reset_metrics()
        logs = self.make_train_function()(*self._shard(x, y, sample_weight))
        return _format({k: float(v) for k, v in logs.items()}, return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        """Loss and metrics of this batch, without training."""
        self._assert_compile_was_called("test_on_batch")
        x, y, sample_weight = self._batch_arrays(x, y, sample_weight)
        self.reset_metrics()
        logs = self.make_test_function()(x, y, sample_weight)
        return _format({k: float(v) for k, v in logs.items()}, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """Model outputs for this batch as NumPy arrays."""
        x = structure_to_tensors(x, "x")
        self._check_data(x, None)
        out = self.make_predict_function()(x)
        return out.numpy() if hasattr(out, "numpy") else [o.numpy() for o in out]


def _format(logs: dict[str, float], return_dict: bool) -> Any:
    if return_dict:
        return logs
    values = list(logs.values())
    return values[0] if len(values) == 1 else values
