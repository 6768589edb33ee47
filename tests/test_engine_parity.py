"""Parity with Keras 3: same initial weights, data and optimizer, shuffle off -> same logs and weights."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import keras
import numpy as np
import pytest
from parity import (
    assert_history_equal,
    assert_weights_equal,
    conv_layers,
    dense_layers,
    optimizer_pair,
    twin_functional,
    twin_sequential,
)

N = 50  # with batch_size 16 the last batch is partial


def targets(kind: str, rng: np.random.Generator, n: int = N) -> np.ndarray:
    if kind == "regression":
        return rng.normal(size=(n, 2)).astype("float32")
    if kind == "regression_1d":
        return rng.normal(size=(n,)).astype("float32")
    if kind == "binary":
        return rng.integers(0, 2, size=(n, 1)).astype("float32")
    if kind == "binary_1d":
        return rng.integers(0, 2, size=(n,)).astype("float32")
    if kind == "onehot":
        return np.eye(3, dtype="float32")[rng.integers(0, 3, size=n)]
    if kind == "sparse":
        return rng.integers(0, 3, size=(n,)).astype("int64")
    raise ValueError(kind)


@dataclass
class Scenario:
    name: str
    loss: Any
    y_kind: str
    n_out: int
    activation: str
    optimizer: str = "sgd"
    opt_config: dict = field(default_factory=dict)
    metrics: list = field(default_factory=list)
    model: str = "sequential"
    fit: dict = field(default_factory=dict)
    sample_weight: bool = False
    class_weight: dict | None = None


SCENARIOS = [
    Scenario("mse_sgd", "mse", "regression", 2, "linear", "sgd", {"learning_rate": 0.05}, ["mae"]),
    Scenario("mse_sgd_1d", "mean_squared_error", "regression_1d", 1, "linear", "sgd", {"learning_rate": 0.05},
             ["mse"]),
    Scenario("mae_momentum", "mae", "regression", 2, "linear", "sgd", {"learning_rate": 0.05, "momentum": 0.9},
             ["mape"]),
    Scenario("mse_nesterov_clipnorm", "mse", "regression", 2, "linear", "sgd",
             {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True, "clipnorm": 0.1}),
    Scenario("bce_adam", "binary_crossentropy", "binary", 1, "sigmoid", "adam", {"learning_rate": 0.01},
             ["accuracy"]),
    Scenario("bce_1d_adam_amsgrad", "binary_crossentropy", "binary_1d", 1, "sigmoid", "adam",
             {"learning_rate": 0.01, "amsgrad": True}, ["acc"]),
    Scenario("bce_logits_clipvalue", keras.losses.BinaryCrossentropy(from_logits=True), "binary", 1, "linear",
             "adam", {"learning_rate": 0.01, "clipvalue": 0.05}, ["accuracy"]),
    Scenario("cce_rmsprop", "categorical_crossentropy", "onehot", 3, "softmax", "rmsprop", {"learning_rate": 0.01},
             ["accuracy"]),
    Scenario("cce_rmsprop_centered_momentum", "categorical_crossentropy", "onehot", 3, "softmax", "rmsprop",
             {"learning_rate": 0.01, "centered": True, "momentum": 0.5}, ["accuracy"]),
    Scenario("scce_adamw_global_clip", "sparse_categorical_crossentropy", "sparse", 3, "softmax", "adamw",
             {"learning_rate": 0.01, "global_clipnorm": 0.5}, ["accuracy"]),
    Scenario("scce_logits_sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), "sparse", 3,
             "linear", "sgd", {"learning_rate": 0.1}, ["accuracy"], model="functional"),
    Scenario("mse_sample_weight", "mse", "regression", 2, "linear", "sgd", {"learning_rate": 0.05}, ["mae"],
             sample_weight=True),
    Scenario("scce_class_weight", "sparse_categorical_crossentropy", "sparse", 3, "softmax", "sgd",
             {"learning_rate": 0.1}, ["accuracy"], class_weight={0: 1.0, 1: 2.0, 2: 0.5}),
    Scenario("cce_validation_split", "categorical_crossentropy", "onehot", 3, "softmax", "adam",
             {"learning_rate": 0.01}, ["accuracy"], fit={"validation_split": 0.2}),
    Scenario("mse_functional_adamw", "mse", "regression", 2, "linear", "adamw",
             {"learning_rate": 0.01, "weight_decay": 0.1}, model="functional"),
    Scenario("conv_bn_cce", "categorical_crossentropy", "onehot", 3, "softmax", "sgd",
             {"learning_rate": 0.05, "momentum": 0.5}, ["accuracy"], model="conv"),
]


def build_pair(s: Scenario) -> tuple[keras.Model, Any]:
    if s.model == "conv":
        return twin_sequential(conv_layers(s.n_out))
    build = dense_layers(4, s.n_out, s.activation)
    return twin_functional(build) if s.model == "functional" else twin_sequential(build)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_fit_matches_keras(scenario: Scenario) -> None:
    rng = np.random.default_rng(1)
    shape = (N, 6, 6, 1) if scenario.model == "conv" else (N, 4)
    x = rng.normal(size=shape).astype("float32")
    y = targets(scenario.y_kind, rng)
    sw = rng.uniform(0.2, 2.0, size=N).astype("float32") if scenario.sample_weight else None
    reference, model = build_pair(scenario)
    k_opt, o_opt = optimizer_pair(scenario.optimizer, **scenario.opt_config)
    reference.compile(optimizer=k_opt, loss=scenario.loss, metrics=list(scenario.metrics))
    model.compile(optimizer=o_opt, loss=scenario.loss, metrics=list(scenario.metrics))
    kwargs = dict(batch_size=16, epochs=3, verbose=0, shuffle=False, sample_weight=sw,
                  class_weight=scenario.class_weight, **scenario.fit)
    expected = reference.fit(x, y, **kwargs).history
    got = model.fit(x, y, **kwargs).history
    assert_history_equal(got, expected)
    assert_weights_equal(model.get_weights(), reference.get_weights())
    assert_close_eval = reference.evaluate(x, y, verbose=0, return_dict=True)
    ours_eval = model.evaluate(x, y, verbose=0, return_dict=True)
    assert_history_equal({k: [v] for k, v in ours_eval.items()}, {k: [v] for k, v in assert_close_eval.items()})
    assert_weights_equal([model.predict(x, verbose=0)], [reference.predict(x, verbose=0)])


def test_regularization_losses_match_keras() -> None:
    def build() -> list:
        return [keras.Input((4,)), keras.layers.Dense(5, activation="relu", kernel_regularizer="l2"),
                keras.layers.Dense(1, activity_regularizer=keras.regularizers.L1(0.01))]

    reference, model = twin_sequential(build)
    k_opt, o_opt = optimizer_pair("sgd", learning_rate=0.05)
    reference.compile(optimizer=k_opt, loss="mse")
    model.compile(optimizer=o_opt, loss="mse")
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(40, 4)).astype("float32"), rng.normal(size=(40, 1)).astype("float32")
    expected = reference.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    got = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    assert_history_equal(got, expected)
    assert_weights_equal(model.get_weights(), reference.get_weights())


def test_train_on_batch_matches_keras() -> None:
    reference, model = twin_sequential(dense_layers(4, 3, "softmax"))
    k_opt, o_opt = optimizer_pair("adam", learning_rate=0.01)
    reference.compile(optimizer=k_opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.compile(optimizer=o_opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    rng = np.random.default_rng(3)
    for _ in range(3):
        x, y = rng.normal(size=(8, 4)).astype("float32"), rng.integers(0, 3, size=8)
        expected = reference.train_on_batch(x, y, return_dict=True)
        got = model.train_on_batch(x, y, return_dict=True)
        assert_history_equal({k: [v] for k, v in got.items()}, {k: [v] for k, v in expected.items()})
        expected = reference.test_on_batch(x, y, return_dict=True)
        got = model.test_on_batch(x, y, return_dict=True)
        assert_history_equal({k: [v] for k, v in got.items()}, {k: [v] for k, v in expected.items()})
    assert_weights_equal(model.get_weights(), reference.get_weights())
    assert_weights_equal([model.predict_on_batch(x)], [reference.predict_on_batch(x)])
