"""Layers of the TensorFlow.NET face that Keras 3 spells otherwise (each says what it keeps of TF.NET)."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np


@keras.saving.register_keras_serializable(package="tfnet_train")
class CountWeightedCategoryEncoding(keras.layers.CategoryEncoding):
    """TF.NET's ``CategoryEncoding(count_weights=...)``: the weights given to the constructor weigh every call's
    counts (Keras 3 takes them per call only; a call's own ``count_weights`` still win)."""

    def __init__(self, num_tokens: int | None = None, output_mode: str = "count", count_weights: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(num_tokens=num_tokens, output_mode=output_mode, **kwargs)
        if count_weights is None:
            raise ValueError("count_weights must be an array of the inputs' shape; got None")
        self.count_weights = np.asarray(count_weights, dtype="float32")

    def call(self, inputs: Any, count_weights: Any = None) -> Any:
        return super().call(inputs, count_weights=self.count_weights if count_weights is None else count_weights)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "count_weights": self.count_weights.tolist()}


#: Face layers by class name, beside keras.layers' own.
FACE_LAYERS: dict[str, type] = {"CountWeightedCategoryEncoding": CountWeightedCategoryEncoding}
