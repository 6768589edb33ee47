"""Shared builders for parity tests: the same model, data and optimizer for Keras 3 and tfnet_train."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np

import tfnet_train
from tfnet_train import optimizers as ours
from tfnet_train.tolerances import assert_close

OPTIMIZERS: dict[str, tuple[type, type]] = {
    "sgd": (keras.optimizers.SGD, ours.SGD),
    "adam": (keras.optimizers.Adam, ours.Adam),
    "adamw": (keras.optimizers.AdamW, ours.AdamW),
    "rmsprop": (keras.optimizers.RMSprop, ours.RMSprop),
}


def dense_layers(n_in: int, n_out: int, activation: str = "linear", hidden: int = 8) -> Callable[[], list]:
    def build() -> list:
        return [keras.Input((n_in,)), keras.layers.Dense(hidden, activation="tanh"),
                keras.layers.Dense(n_out, activation=activation)]
    return build


def conv_layers(n_out: int) -> Callable[[], list]:
    def build() -> list:
        return [keras.Input((6, 6, 1)), keras.layers.Conv2D(3, 3, activation="relu"),
                keras.layers.BatchNormalization(), keras.layers.Dropout(0.0), keras.layers.Flatten(),
                keras.layers.Dense(n_out, activation="softmax")]
    return build


def twin_sequential(build: Callable[[], list], seed: int = 0) -> tuple[keras.Model, tfnet_train.Sequential]:
    keras.utils.set_random_seed(seed)
    reference = keras.Sequential(build())
    model = tfnet_train.Sequential(build())
    model.set_weights(reference.get_weights())
    return reference, model


def _functional(build: Callable[[], list], cls: type) -> Any:
    layers = build()
    outputs = layers[0]
    for layer in layers[1:]:
        outputs = layer(outputs)
    return cls(inputs=layers[0], outputs=outputs)


def twin_functional(build: Callable[[], list], seed: int = 0) -> tuple[keras.Model, tfnet_train.Model]:
    keras.utils.set_random_seed(seed)
    reference = _functional(build, keras.Model)
    model = _functional(build, tfnet_train.Model)
    model.set_weights(reference.get_weights())
    return reference, model


def optimizer_pair(name: str, **config: Any) -> tuple[Any, Any]:
    keras_cls, our_cls = OPTIMIZERS[name]
    return keras_cls(**config), our_cls(**config)


def assert_history_equal(ours_history: dict[str, list[float]], keras_history: dict[str, list[float]]) -> None:
    assert set(ours_history) == set(keras_history), (sorted(ours_history), sorted(keras_history))
    for key, values in keras_history.items():
        assert_close(ours_history[key], values, what=f"history[{key!r}]")


def assert_weights_equal(ours_weights: list[np.ndarray], keras_weights: list[np.ndarray]) -> None:
    assert len(ours_weights) == len(keras_weights)
    for i, (a, b) in enumerate(zip(ours_weights, keras_weights, strict=True)):
        assert_close(a, b, what=f"weight {i}")
