"""train_on_batch, test_on_batch and predict_on_batch (Keras API; TF.NET has no counterpart)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnet_train import keras_internals
from tfnet_train.engine.data.handler import (
    check_class_weight,
    check_class_weight_classes,
    class_weight_to_sample_weight,
)
from tfnet_train.engine.data.tensor_like import is_tensor_like, structure_to_tensors, to_tensor


class OnBatchMixin:
    """Single-batch entry points."""

    def _batch_arrays(self, x: Any, y: Any, sample_weight: Any) -> tuple[Any, Any, Any]:
        if not is_tensor_like((x, y, sample_weight)) and not isinstance(x, list | tuple):
            return x, y, sample_weight  # ragged, sparse and other tensors go to the step as they are
        x = structure_to_tensors(x, "x")
        y = structure_to_tensors(y, "y")
        sample_weight = None if sample_weight is None else to_tensor(sample_weight, "sample_weight")
        x = self._check_batch(x, y, sample_weight)
        return x, y, sample_weight

    def train_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: dict[int, float] | None = None,
        return_dict: bool = False, reset_metrics: bool = True,
    ) -> Any:
        """One training step on exactly this batch; returns the logs (dict, or values as Keras does).

        ``reset_metrics=False`` (tf.keras's argument) accumulates the metrics across calls.
        """
        self._assert_compile_called("train_on_batch")
        if class_weight is not None:
            if not self._engine.profile.tfnet_class_weights:
                if sample_weight is not None:
                    raise ValueError("class_weight and sample_weight cannot be used together (Keras 3 rule)")
                if y is None or isinstance(y, list | tuple | dict):
                    raise ValueError("class_weight needs a single target array y")
                check_class_weight(class_weight, contiguous=False)
                sample_weight = keras_internals.class_weight_to_sample_weights(y, class_weight)
            else:  # TF.NET's table: keys 0..n-1, times any sample_weight
                weights = class_weight_to_sample_weight(np.asarray(y), class_weight)
                sample_weight = weights if sample_weight is None else weights * np.asarray(sample_weight).reshape(-1)
        x, y, sample_weight = self._batch_arrays(x, y, sample_weight)
        self._maybe_symbolic_build(data_batch=(x, y, sample_weight))
        check_class_weight_classes(class_weight, self)
        self.make_train_function()
        if reset_metrics:
            self.reset_metrics()
        logs = keras_internals.pythonify_logs(self.train_function(iter([(x, y, sample_weight)])))
        return logs if return_dict else keras_internals.flatten_metrics_in_order(self, logs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False,
                      reset_metrics: bool = True) -> Any:
        """Loss and metrics of this batch, without training."""
        self._assert_compile_called("test_on_batch")
        x, y, sample_weight = self._batch_arrays(x, y, sample_weight)
        self._maybe_symbolic_build(data_batch=(x, y, sample_weight))
        self.make_test_function()
        if reset_metrics:
            self.reset_metrics()
        logs = keras_internals.pythonify_logs(self.test_function(iter([(x, y, sample_weight)])))
        return logs if return_dict else keras_internals.flatten_metrics_in_order(self, logs)

    def predict_on_batch(self, x: Any) -> Any:
        """Model outputs for this batch as NumPy arrays."""
        x, _, _ = self._batch_arrays(x, None, None)
        return super().predict_on_batch(x)
