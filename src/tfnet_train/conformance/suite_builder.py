"""Builds the default conformance suite (``suite/default``): small Dense cases with deterministic data, and a few
models given as Keras architecture configs (a Conv2D + BatchNormalization + Dropout net and an LSTM, both on
scikit-learn's 8x8 digits).

Each case's random numbers come from a generator seeded with the CRC-32 of its name, so rebuilding gives
the same files byte for byte. Regenerate with ``python -m tfnet_train.conformance.suite_builder [DIR]``.
"""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.conformance.case import (
    Case,
    CaseArrays,
    DenseSpec,
    KerasModelSpec,
    LossSpec,
    ModelSpec,
    Tolerance,
    optimizer_spec,
    save,
    validate_arrays,
)
from tfnet_train.extras import require

DEFAULT_SUITE = Path(__file__).resolve().parent / "suite" / "default"
INPUT_DIM = 4
BATCH_SIZE = 8
STEPS = 3


@dataclass(frozen=True)
class Recipe:
    """What a suite case trains and how its data looks."""

    name: str
    description: str
    layers: tuple[tuple[Any, ...], ...]  # (units, activation[, use_bias])
    loss: str
    optimizer: dict[str, Any]
    metrics: tuple[str, ...] = ()
    semantics: str = "keras"
    from_logits: bool = False
    target: str = "2d"  # "2d", "1d" (rank-1 targets), "labels_int32", "labels_int64", "labels_column"
    sample_weight: bool = False
    last_bias: float | None = None  # initial bias of the last layer (keeps probabilities in range)
    last_kernel_scale: float = 1.0
    steps: int = STEPS
    batch_size: int = BATCH_SIZE
    options: dict[str, Any] = field(default_factory=dict)
    kernel_l2: dict[int, float] = field(default_factory=dict)  # layer index -> L2 kernel regularizer factor


def _recipe(name: str, description: str, layers: tuple, loss: str, optimizer: dict, **kw: Any) -> Recipe:
    """A Recipe from positional essentials and keyword options."""
    return Recipe(name=name, description=description, layers=layers, loss=loss, optimizer=optimizer, **kw)


RELU_1 = ((6, "relu"), (1, "linear"))
RELU_2 = ((6, "relu"), (2, "linear"))
TANH_2 = ((6, "tanh"), (2, "linear"))
RELU_SOFTMAX_3 = ((6, "relu"), (3, "softmax"))

RECIPES: tuple[Recipe, ...] = (
    # ---- semantics "keras": every Keras 3 path of the Dense subset
    _recipe("keras_relu_mse_sgd", "relu hidden, MSE, plain SGD", RELU_1, "mse",
       {"name": "sgd", "learning_rate": 0.05}, metrics=("mae",)),
    _recipe("keras_tanh_mae_sgd_momentum", "tanh hidden, MAE, SGD with momentum", TANH_2, "mae",
       {"name": "sgd", "learning_rate": 0.05, "momentum": 0.9}, metrics=("mse",)),
    _recipe("keras_sigmoid_mse_sgd_nesterov", "sigmoid hidden, MSE, Nesterov SGD", ((6, "sigmoid"), (2, "linear")),
       "mse", {"name": "sgd", "learning_rate": 0.1, "momentum": 0.9, "nesterov": True}, metrics=("mape",)),
    _recipe("keras_relu_bce_probs_adam", "sigmoid output, binary cross-entropy on probabilities, Adam",
       ((6, "relu"), (1, "sigmoid")), "binary_crossentropy", {"name": "adam", "learning_rate": 0.01},
       metrics=("accuracy",)),
    _recipe("keras_tanh_bce_logits_adam_amsgrad", "two logits, binary cross-entropy from logits, Adam amsgrad",
       TANH_2, "binary_crossentropy", {"name": "adam", "learning_rate": 0.01, "amsgrad": True},
       from_logits=True, metrics=("acc",)),
    _recipe("keras_relu_cce_probs_adamw", "softmax output, categorical cross-entropy, AdamW", RELU_SOFTMAX_3,
       "categorical_crossentropy", {"name": "adamw", "learning_rate": 0.01, "weight_decay": 0.05},
       metrics=("accuracy",)),
    _recipe("keras_tanh_cce_logits_rmsprop", "logits, categorical cross-entropy from logits, RMSprop",
       ((6, "tanh"), (3, "linear")), "categorical_crossentropy", {"name": "rmsprop", "learning_rate": 0.01},
       from_logits=True, metrics=("accuracy",)),
    _recipe("keras_relu_scce_probs_rmsprop_momentum", "softmax output, sparse labels (N,1), RMSprop momentum",
       RELU_SOFTMAX_3, "sparse_categorical_crossentropy",
       {"name": "rmsprop", "learning_rate": 0.01, "momentum": 0.9}, target="labels_column",
       metrics=("accuracy",)),
    _recipe("keras_sigmoid_scce_logits_rmsprop_centered", "logits, sparse cross-entropy from logits, centered RMSprop",
       ((6, "sigmoid"), (4, "linear")), "sparse_categorical_crossentropy",
       {"name": "rmsprop", "learning_rate": 0.01, "centered": True}, from_logits=True, target="labels_int32",
       metrics=("accuracy",)),
    _recipe("keras_relu_mse_sgd_clipnorm", "MSE, SGD with clipnorm (per-tensor clipping active)", RELU_2, "mse",
       {"name": "sgd", "learning_rate": 0.1, "clipnorm": 0.2}, metrics=("mae",), options={"clips": True}),
    _recipe("keras_tanh_mse_adam_clipvalue", "MSE, Adam with clipvalue (clipping active)", TANH_2, "mse",
       {"name": "adam", "learning_rate": 0.01, "clipvalue": 0.05}, options={"clips": True}),
    _recipe("keras_relu_cce_sgd_global_clipnorm", "softmax, categorical cross-entropy, SGD momentum, global_clipnorm",
       RELU_SOFTMAX_3, "categorical_crossentropy",
       {"name": "sgd", "learning_rate": 0.1, "momentum": 0.5, "global_clipnorm": 0.3}, metrics=("accuracy",),
       options={"clips": True}),
    _recipe("keras_relu_mse_sgd_sample_weight", "MSE with sample weights, plain SGD", RELU_1, "mse",
       {"name": "sgd", "learning_rate": 0.05}, sample_weight=True, metrics=("mae",)),
    _recipe("keras_tanh_bce_adam_sample_weight_1d", "binary cross-entropy, rank-1 targets and sample weights, Adam",
       ((6, "tanh"), (1, "sigmoid")), "binary_crossentropy", {"name": "adam", "learning_rate": 0.01},
       target="1d", sample_weight=True, metrics=("accuracy",)),
    _recipe("keras_linear_mse_sgd_1d_targets", "one linear Dense layer, rank-1 targets, MSE, SGD", ((1, "linear"),),
       "mse", {"name": "sgd", "learning_rate": 0.05}, target="1d", metrics=("mae", "mse")),
    _recipe("keras_relu_scce_adam_1d_labels", "softmax, rank-1 int64 labels, sparse cross-entropy, Adam",
       RELU_SOFTMAX_3, "sparse_categorical_crossentropy", {"name": "adam", "learning_rate": 0.01},
       target="labels_int64", metrics=("accuracy",)),
    _recipe("keras_tanh_bce_probs_linear_output", "probabilities from a linear output (clipped-probability formula)",
       ((6, "tanh"), (1, "linear")), "binary_crossentropy", {"name": "sgd", "learning_rate": 0.05},
       last_bias=0.5, last_kernel_scale=0.15, metrics=("accuracy",)),
    _recipe("keras_tanh_cce_probs_relu_output", "probabilities from a relu output (normalised, clipped)",
       ((6, "tanh"), (3, "relu")), "categorical_crossentropy", {"name": "sgd", "learning_rate": 0.05},
       last_bias=1.0, last_kernel_scale=0.2, metrics=("accuracy",)),
    _recipe("keras_relu_softmax_mse_rmsprop", "softmax output trained with MSE (softmax backward), RMSprop",
       RELU_SOFTMAX_3, "mse", {"name": "rmsprop", "learning_rate": 0.01}, metrics=("accuracy",)),
    _recipe("keras_deep_no_bias_adam", "four Dense layers, one without bias, MSE, Adam",
       ((6, "relu"), (5, "tanh", False), (4, "sigmoid"), (1, "linear")), "mse",
       {"name": "adam", "learning_rate": 0.01}, metrics=("mae",)),
    # ---- semantics "tfnet": TensorFlow.NET's numbers where they differ
    _recipe("tfnet_relu_mse_sgd", "tfnet: relu hidden, MSE, plain SGD", RELU_1, "mse",
       {"name": "sgd", "learning_rate": 0.05}, semantics="tfnet", metrics=("mae",)),
    _recipe("tfnet_sigmoid_mse_sgd_nesterov", "tfnet: Nesterov requested, never applied",
       ((6, "sigmoid"), (2, "linear")), "mse", {"name": "sgd", "learning_rate": 0.1, "momentum": 0.9,
                                                  "nesterov": True}, semantics="tfnet", metrics=("mape",)),
    _recipe("tfnet_relu_mse_sgd_clipnorm", "tfnet: clipnorm ignored", RELU_2, "mse",
       {"name": "sgd", "learning_rate": 0.1, "clipnorm": 0.2}, semantics="tfnet", metrics=("mae",),
       options={"clips": True}),
    _recipe("tfnet_tanh_mse_adam_clipvalue", "tfnet: clipvalue ignored, Adam kernel", TANH_2, "mse",
       {"name": "adam", "learning_rate": 0.01, "clipvalue": 0.05}, semantics="tfnet", options={"clips": True}),
    _recipe("tfnet_relu_cce_sgd_global_clipnorm", "tfnet: global_clipnorm ignored, SGD momentum", RELU_SOFTMAX_3,
       "categorical_crossentropy", {"name": "sgd", "learning_rate": 0.1, "momentum": 0.5,
                                    "global_clipnorm": 0.3}, semantics="tfnet", metrics=("accuracy",),
       options={"clips": True}),
    _recipe("tfnet_tanh_mse_rmsprop", "tfnet: RMSprop with epsilon outside the square root", TANH_2, "mse",
       {"name": "rmsprop", "learning_rate": 0.01, "epsilon": 1e-4}, semantics="tfnet"),
    _recipe("tfnet_relu_bce_rmsprop_momentum", "tfnet: RMSprop momentum ignored", ((6, "relu"), (1, "sigmoid")),
       "binary_crossentropy", {"name": "rmsprop", "learning_rate": 0.01, "momentum": 0.9}, semantics="tfnet",
       metrics=("accuracy",)),
    _recipe("tfnet_relu_cce_adamw", "tfnet: AdamW decay with the constructor learning rate", RELU_SOFTMAX_3,
       "categorical_crossentropy", {"name": "adamw", "learning_rate": 0.01, "weight_decay": 0.05},
       semantics="tfnet", metrics=("accuracy",)),
    _recipe("tfnet_relu_mse_sgd_sample_weight", "tfnet: (B,1) sample weights broadcast against (B,) losses", RELU_1,
       "mse", {"name": "sgd", "learning_rate": 0.05}, semantics="tfnet", sample_weight=True, metrics=("mae",)),
    _recipe("tfnet_tanh_bce_adam_metric_names", "tfnet: 'acc', 'mae', 'mape' reported under TF.NET's names",
       ((6, "tanh"), (1, "sigmoid")), "binary_crossentropy", {"name": "adam", "learning_rate": 0.01},
       semantics="tfnet", target="1d", metrics=("acc", "mae", "mape")),
    _recipe("tfnet_relu_scce_sgd_momentum_1d_labels", "tfnet: rank-1 labels (expand_1d), SGD momentum",
       RELU_SOFTMAX_3, "sparse_categorical_crossentropy", {"name": "sgd", "learning_rate": 0.1, "momentum": 0.9},
       semantics="tfnet", target="labels_int32", metrics=("accuracy",)),
    # ---- L2 kernel regularizers: in the training loss under keras, left out under tfnet
    _recipe("keras_tanh_mse_sgd_l2", "L2 kernel regularizers on both layers, MSE, SGD", TANH_2, "mse",
       {"name": "sgd", "learning_rate": 0.05}, kernel_l2={0: 0.01, 1: 0.05}, metrics=("mae",)),
    _recipe("tfnet_tanh_mse_sgd_l2", "tfnet: L2 kernel regularizers left out of the training loss", TANH_2, "mse",
       {"name": "sgd", "learning_rate": 0.05}, semantics="tfnet", kernel_l2={0: 0.01, 1: 0.05}, metrics=("mae",)),
)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode("utf-8")))


def _spec(recipe: Recipe) -> Case:
    layers = tuple(DenseSpec(units=row[0], activation=row[1], use_bias=row[2] if len(row) > 2 else True,
                             kernel_l2=recipe.kernel_l2.get(i))
                   for i, row in enumerate(recipe.layers))
    return Case(
        name=recipe.name, description=recipe.description, semantics=recipe.semantics,
        model=ModelSpec(input_dim=INPUT_DIM, layers=layers),
        loss=LossSpec(recipe.loss, recipe.from_logits), metrics=recipe.metrics,
        optimizer=optimizer_spec(recipe.optimizer, recipe.name),
        batch_size=recipe.batch_size, steps=recipe.steps, tolerance=Tolerance())


def _weights(case: Case, recipe: Recipe, rng: np.random.Generator) -> list[np.ndarray]:
    weights = []
    fan_in = case.model.input_dim
    last = len(case.model.layers) - 1
    for i, layer in enumerate(case.model.layers):
        limit = np.sqrt(6.0 / (fan_in + layer.units))
        kernel = rng.uniform(-limit, limit, (fan_in, layer.units))
        if i == last:
            kernel *= recipe.last_kernel_scale
        weights.append(kernel.astype(np.float32))
        if layer.use_bias:
            bias = rng.uniform(-0.1, 0.1, layer.units)
            if i == last and recipe.last_bias is not None:
                bias = bias * 0.2 + recipe.last_bias
            weights.append(bias.astype(np.float32))
        fan_in = layer.units
    return weights


def _targets(case: Case, recipe: Recipe, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n, k = x.shape[0], case.model.output_dim
    mixing = rng.normal(size=(x.shape[1], k))
    scores = x @ mixing + 0.3 * rng.normal(size=(n, k))
    if case.loss.name in ("mse", "mae"):
        if k > 1 and case.model.layers[-1].activation == "softmax":
            y = np.eye(k)[np.argmax(scores, axis=1)]
        else:
            y = np.tanh(scores)
    elif case.loss.name == "binary_crossentropy":
        y = (scores > 0).astype(np.float64)
    else:
        labels = np.argmax(scores, axis=1)
        if case.loss.name == "categorical_crossentropy":
            y = np.eye(k)[labels]
        elif recipe.target == "labels_int32":
            return labels.astype(np.int32)
        elif recipe.target == "labels_int64":
            return labels.astype(np.int64)
        elif recipe.target == "labels_column":
            return labels.reshape(-1, 1).astype(np.float32)
        else:
            return labels.astype(np.float32)
    y = y.astype(np.float32)
    return y[:, 0] if recipe.target == "1d" else y


def build_case(recipe: Recipe) -> Case:
    """The case a recipe describes, with its arrays."""
    rng = _rng(recipe.name)
    case = _spec(recipe)
    weights = _weights(case, recipe, rng)
    n = case.steps * case.batch_size
    x = rng.normal(size=(n, case.model.input_dim)).astype(np.float32)
    y = _targets(case, recipe, x, rng)
    sw = rng.uniform(0.25, 2.0, n).astype(np.float32) if recipe.sample_weight else None
    case.arrays = validate_arrays(case, CaseArrays(weights=weights, x=x, y=y, sample_weight=sw))
    _check_meaningful(case, recipe)
    return case


def _check_meaningful(case: Case, recipe: Recipe) -> None:
    """A clipping case must clip under Keras semantics at its first step (else it tests nothing)."""
    if not recipe.options.get("clips"):
        return
    from tfnet_train.conformance.numpy_reference import NumpyTrainer

    trace = NumpyTrainer(case.with_semantics("keras")).step_trace(0)
    if all(np.array_equal(g, c) for g, c in zip(trace.gradients, trace.clipped_gradients, strict=True)):
        raise AssertionError(f"suite case {case.name!r}: its clipping option does not change the gradients")


# ----------------------------------------------------------------------------------------------- Keras configs


@dataclass(frozen=True)
class KerasRecipe:
    """A case whose model is a Keras architecture config: ``layers()`` builds the layers (every one named, so the
    config is the same in every session); inputs are the first rows of the digits, shaped by ``input_shape``."""

    name: str
    description: str
    layers: Any  # () -> list of Keras layers, the keras.Input first
    input_shape: tuple[int, ...]
    optimizer: dict[str, Any]
    metrics: tuple[str, ...] = ("accuracy",)
    steps: int = STEPS
    batch_size: int = BATCH_SIZE


def _conv_layers() -> list[Any]:
    import keras

    return [keras.Input((8, 8, 1), name="pixels"),
            keras.layers.Conv2D(3, 3, activation="relu", name="conv"),
            keras.layers.BatchNormalization(name="norm"),
            keras.layers.Dropout(0.25, seed=11, name="drop"),
            keras.layers.MaxPooling2D(2, name="pool"),
            keras.layers.Flatten(name="flat"),
            keras.layers.Dense(10, name="logits")]


def _lstm_layers() -> list[Any]:
    import keras

    return [keras.Input((8, 8), name="rows"),
            keras.layers.LSTM(6, dropout=0.2, recurrent_dropout=0.1, seed=13, name="lstm"),
            keras.layers.Dense(10, name="logits")]


KERAS_RECIPES: tuple[KerasRecipe, ...] = (
    KerasRecipe("keras_conv_batchnorm_dropout_digits",
                "Conv2D, BatchNormalization (moving statistics), seeded Dropout, pooling on 8x8 digits; SGD momentum",
                _conv_layers, (8, 8, 1), {"name": "sgd", "learning_rate": 0.05, "momentum": 0.9}),
    KerasRecipe("keras_lstm_digits_rows",
                "LSTM over the 8 rows of each 8x8 digit, seeded input and recurrent dropout; Adam",
                _lstm_layers, (8, 8), {"name": "adam", "learning_rate": 0.01}),
)


def _initial_value(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """A weight's starting value by its Keras name: Glorot-uniform kernels, small biases and offsets, scales near
    one, moving statistics at Keras's start (mean 0, variance 1)."""
    if name in ("kernel", "recurrent_kernel"):
        fan_in, fan_out = int(np.prod(shape[:-1])), shape[-1]
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        value = rng.uniform(-limit, limit, shape)
    elif name in ("bias", "beta"):
        value = rng.uniform(-0.1, 0.1, shape)
    elif name == "gamma":
        value = rng.uniform(0.8, 1.2, shape)
    elif name == "moving_mean":
        value = np.zeros(shape)
    elif name == "moving_variance":
        value = np.ones(shape)
    else:
        raise ValueError(f"suite: no starting value for a weight named {name!r}")
    return value.astype(np.float32)


def build_keras_case(recipe: KerasRecipe) -> Case:
    """The case a Keras recipe describes: the model's config, deterministic weights, the first digits."""
    import json

    import keras
    load_digits = require("sklearn.datasets", "Building the Keras suite's cases").load_digits

    rng = _rng(recipe.name)
    model = keras.Sequential(recipe.layers(), name=recipe.name)
    config = {"class_name": "Sequential", "config": json.loads(model.to_json())["config"]}
    n = recipe.steps * recipe.batch_size
    digits = load_digits()
    x = (digits.images[:n] / 16.0).astype(np.float32).reshape((n, *recipe.input_shape))
    y = digits.target[:n].astype(np.int32)
    case = Case(
        name=recipe.name, description=recipe.description, semantics="keras", model=KerasModelSpec(config),
        loss=LossSpec("sparse_categorical_crossentropy", from_logits=True), metrics=recipe.metrics,
        optimizer=optimizer_spec(recipe.optimizer, recipe.name), batch_size=recipe.batch_size,
        steps=recipe.steps, tolerance=Tolerance())
    weights = [_initial_value(w.name, tuple(w.shape), rng) for w in model.weights]
    case.arrays = validate_arrays(case, CaseArrays(weights=weights, x=x, y=y))
    return case


def build_suite(directory: str | Path = DEFAULT_SUITE) -> list[Path]:
    """Write every recipe's case into ``directory``; returns the JSON paths."""
    paths = [save(build_case(recipe), None, directory) for recipe in RECIPES]
    return paths + [save(build_keras_case(recipe), None, directory) for recipe in KERAS_RECIPES]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    paths = build_suite(args[0] if args else DEFAULT_SUITE)
    print(f"wrote {len(paths)} cases to {paths[0].parent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
