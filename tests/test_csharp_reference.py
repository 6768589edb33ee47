"""The pure-C# reference trainer (TfNetTrain.Reference): its NUnit suite, and its traces compared stage by
stage with Keras 3 (semantics "keras") and with TensorFlow.NET's formulas written here with NumPy and
TensorFlow ops (semantics "tfnet")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from clr_host import load_assembly

from tfnet_train.tolerances import ATOL, RTOL, assert_close

EPSILON = 1e-7  # Keras' backend epsilon, also TensorFlow.NET's


# ----------------------------------------------------------------------------------------------------------
# Cases: a small builder that writes the JSON + .npz pair of docs/conformance.md.


@dataclass
class CaseSpec:
    """Everything needed to write one conformance case; arrays are generated from ``seed``."""

    name: str
    semantics: str
    layers: list[tuple[int, str, bool]]  # (units, activation, use_bias)
    loss: str
    optimizer: dict[str, Any]
    metrics: list[str] = field(default_factory=list)
    from_logits: bool = False
    input_size: int = 4
    batch_size: int = 6
    steps: int = 3
    sample_weight: bool = False
    targets_1d: bool = False
    label_dtype: str = "float32"
    positive_output_bias: bool = False
    seed: int = 0

    def document(self) -> dict[str, Any]:
        return {
            "schema": "tfnet-train/case@1",
            "name": self.name,
            "description": f"{self.semantics}: {self.loss} with {self.optimizer['name']}",
            "semantics": self.semantics,
            "model": {
                "input_shape": [self.input_size],
                "layers": [
                    {"type": "Dense", "units": u, "activation": a, "use_bias": b} for u, a, b in self.layers
                ],
            },
            "loss": {"name": self.loss, "from_logits": self.from_logits},
            "metrics": list(self.metrics),
            "optimizer": dict(self.optimizer),
            "batch_size": self.batch_size,
            "steps": self.steps,
        }

    def arrays(self) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        n = self.batch_size * self.steps + 2
        out: dict[str, np.ndarray] = {}
        fan_in = self.input_size
        index = 0
        for i, (units, _, use_bias) in enumerate(self.layers):
            out[f"weights/{index}"] = (rng.normal(size=(fan_in, units)) / np.sqrt(fan_in)).astype(np.float32)
            index += 1
            if use_bias:
                bias = rng.normal(scale=0.1, size=(units,))
                if self.positive_output_bias and i == len(self.layers) - 1:
                    bias = 0.5 + np.abs(bias)
                out[f"weights/{index}"] = bias.astype(np.float32)
                index += 1
            fan_in = units
        out["x"] = rng.normal(size=(n, self.input_size)).astype(np.float32)
        units = self.layers[-1][0]
        if self.loss == "sparse_categorical_crossentropy":
            y = rng.integers(0, units, size=(n,) if self.targets_1d else (n, 1))
            out["y"] = y.astype(self.label_dtype)
        else:
            if self.loss == "binary_crossentropy":
                y = rng.integers(0, 2, size=(n, units)).astype(np.float32)
            elif self.loss == "categorical_crossentropy":
                y = np.eye(units, dtype=np.float32)[rng.integers(0, units, size=n)]
            else:
                y = rng.normal(size=(n, units)).astype(np.float32)
            out["y"] = y[:, 0] if self.targets_1d else y
        if self.sample_weight:
            out["sample_weight"] = rng.uniform(0.2, 2.0, size=(n,)).astype(np.float32)
        return out

    def write(self, folder: Path) -> Path:
        path = folder / f"{self.name}.json"
        path.write_text(json.dumps(self.document(), indent=2))
        np.savez(folder / f"{self.name}.npz", **self.arrays())
        return path


def weight_list(arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    count = sum(1 for k in arrays if k.startswith("weights/"))
    return [arrays[f"weights/{i}"] for i in range(count)]


def batch(
    arrays: dict[str, np.ndarray], spec: CaseSpec, step: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rows = slice(step * spec.batch_size, (step + 1) * spec.batch_size)
    sw = arrays["sample_weight"][rows] if "sample_weight" in arrays else None
    return arrays["x"][rows], arrays["y"][rows], sw


def expand_1d(a: np.ndarray | None) -> np.ndarray | None:
    return a if a is None or a.ndim != 1 else a[:, None]


# ----------------------------------------------------------------------------------------------------------
# The C# side.


def run_reference(dotnet_bin: Path, case_json: Path, out: Path) -> list[dict[str, np.ndarray]]:
    load_assembly(dotnet_bin / "TfNetTrain.Reference.dll")
    from TfNetTrain.Reference import ReferenceRunner  # type: ignore[import-not-found]

    ReferenceRunner.RunToNpz(str(case_json), str(out))
    with np.load(out, allow_pickle=False) as data:
        flat = {k: data[k] for k in data.files}
    steps = sorted({int(k.split("/", 1)[0][4:]) for k in flat})
    assert steps == list(range(len(steps)))
    return [{k.split("/", 1)[1]: v for k, v in flat.items() if k.startswith(f"step{s}/")} for s in steps]


def assert_traces_match(
    actual: list[dict[str, np.ndarray]], expected: list[dict[str, Any]], case: str
) -> None:
    assert len(actual) == len(expected), f"{case}: {len(actual)} steps, expected {len(expected)}"
    for step, (got, want) in enumerate(zip(actual, expected, strict=True)):
        assert sorted(got) == sorted(want), f"{case} step {step}: keys differ: {sorted(set(got) ^ set(want))}"
        for key, value in want.items():
            if key == "optimizer_state/iterations":
                assert int(got[key]) == int(value), f"{case} step {step}: iterations"
                continue
            assert_close(got[key], np.asarray(value), RTOL, ATOL, what=f"{case} step {step} {key}")


# ----------------------------------------------------------------------------------------------------------
# Keras 3: the "keras" profile's ground truth.

KERAS_SLOT_SUFFIXES = {
    "sgd": {"momentum": "_momentum"},
    "adam": {"m": "_momentum", "v": "_velocity", "vhat": "_velocity_hat"},
    "adamw": {"m": "_momentum", "v": "_velocity", "vhat": "_velocity_hat"},
    "rmsprop": {"rms": "_velocity", "mg": "_average_gradient", "momentum": "_momentum"},
}


def keras_loss(name: str, from_logits: bool) -> keras.losses.Loss:
    classes = {
        "mse": keras.losses.MeanSquaredError,
        "mae": keras.losses.MeanAbsoluteError,
        "binary_crossentropy": keras.losses.BinaryCrossentropy,
        "categorical_crossentropy": keras.losses.CategoricalCrossentropy,
        "sparse_categorical_crossentropy": keras.losses.SparseCategoricalCrossentropy,
    }
    cls = classes[name]
    return cls(from_logits=from_logits) if name.endswith("crossentropy") else cls()


def keras_optimizer(options: dict[str, Any]) -> keras.optimizers.Optimizer:
    kwargs = {k: v for k, v in options.items() if k != "name"}
    classes = {
        "sgd": keras.optimizers.SGD,
        "adam": keras.optimizers.Adam,
        "adamw": keras.optimizers.AdamW,
        "rmsprop": keras.optimizers.RMSprop,
    }
    return classes[options["name"]](**kwargs)


def keras_clip(grads: list[tf.Tensor], options: dict[str, Any]) -> list[tf.Tensor]:
    """Keras 3's formulas for the one clip option a case may set: clipnorm per tensor, global_clipnorm or
    clipvalue."""
    if options.get("clipnorm"):
        return [tf.clip_by_norm(g, options["clipnorm"]) for g in grads]
    if options.get("global_clipnorm"):
        c = options["global_clipnorm"]
        squares = keras.ops.stack([keras.ops.sum(keras.ops.square(g)) for g in grads])
        norm = keras.ops.sqrt(keras.ops.sum(squares))
        scale = c * keras.ops.minimum(1.0 / norm, 1.0 / c) + (norm - norm)
        return [g * scale for g in grads]
    if options.get("clipvalue"):
        v = options["clipvalue"]
        return [keras.ops.clip(g, -v, v) for g in grads]
    return grads


def keras_traces(spec: CaseSpec) -> list[dict[str, Any]]:
    arrays = spec.arrays()
    model = keras.Sequential(
        [keras.Input(shape=(spec.input_size,))]
        + [keras.layers.Dense(u, activation=a, use_bias=b) for u, a, b in spec.layers]
    )
    model.set_weights(weight_list(arrays))
    optimizer = keras_optimizer(spec.optimizer)
    loss_object = keras_loss(spec.loss, spec.from_logits)
    model.compile(optimizer=optimizer, loss=loss_object, metrics=list(spec.metrics))
    loss_tracker = keras.metrics.Mean(name="loss")
    traces = []
    for step in range(spec.steps):
        x, y, sw = batch(arrays, spec, step)
        with tf.GradientTape() as tape:
            y_pred = model(x, training=True)
            loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sw, training=True)
        grads = tape.gradient(loss, model.trainable_weights)
        clipped = keras_clip(list(grads), spec.optimizer)
        optimizer.apply(grads, model.trainable_weights)
        loss_tracker.update_state(loss, sample_weight=x.shape[0])
        logs = model.compute_metrics(x, y, y_pred, sample_weight=sw)
        trace: dict[str, Any] = {"inputs/x/0": x, "inputs/y/0": expand_1d(y), "y_pred/0": y_pred.numpy()}
        if sw is not None:
            trace["inputs/sample_weight/0"] = expand_1d(sw)
        trace["loss"] = float(loss)
        for i, (g, c) in enumerate(zip(grads, clipped, strict=True)):
            trace[f"gradients/{i}"] = g.numpy()
            trace[f"aggregated_gradients/{i}"] = g.numpy()
            trace[f"clipped_gradients/{i}"] = np.asarray(c)
        for i, w in enumerate(model.get_weights()):
            trace[f"weights/{i}"] = w
        trace["optimizer_state/iterations"] = int(optimizer.iterations.numpy())
        trace["optimizer_state/learning_rate"] = float(optimizer.learning_rate.numpy())
        for slot, suffix in KERAS_SLOT_SUFFIXES[spec.optimizer["name"]].items():
            values = [v.numpy() for v in optimizer.variables if v.name.endswith(suffix)]
            for i, v in enumerate(values):
                trace[f"optimizer_state/{slot}/{i}"] = v
        trace["metrics/loss"] = float(loss_tracker.result())
        for name in spec.metrics:
            trace[f"metrics/{name}"] = float(logs[name])
        traces.append(trace)
    return traces


def opt(name: str = "sgd", **options: Any) -> dict[str, Any]:
    """An optimizer entry of a case."""
    return {"name": name, **options}


KERAS_CASES = [
    CaseSpec("k_relu_mse_sgd_1d", "keras", [(6, "relu", True), (1, "linear", True)], "mse",
             opt(learning_rate=0.05), ["mae", "mse"], targets_1d=True, seed=1),
    CaseSpec("k_tanh_mae_momentum", "keras", [(5, "tanh", True), (2, "linear", False)], "mae",
             opt(learning_rate=0.1, momentum=0.9), ["mape", "mse"], seed=2),
    CaseSpec("k_sigmoid_bce_nesterov_weighted", "keras", [(4, "tanh", True), (1, "sigmoid", True)],
             "binary_crossentropy", opt(learning_rate=0.2, momentum=0.8, nesterov=True), ["accuracy"],
             sample_weight=True, targets_1d=True, seed=3),
    CaseSpec("k_softmax_cce_adam", "keras", [(6, "relu", True), (3, "softmax", True)],
             "categorical_crossentropy", opt("adam", learning_rate=0.01), ["acc"], seed=4),
    CaseSpec("k_softmax_sparse_rmsprop", "keras", [(5, "sigmoid", True), (4, "softmax", True)],
             "sparse_categorical_crossentropy", opt("rmsprop", learning_rate=0.01), ["accuracy"],
             targets_1d=True, label_dtype="int32", seed=5),
    CaseSpec("k_linear_sparse_logits_adamw_weighted", "keras", [(3, "linear", True)],
             "sparse_categorical_crossentropy", opt("adamw", learning_rate=0.02, weight_decay=0.05), ["acc"],
             from_logits=True, sample_weight=True, label_dtype="int64", seed=6),
    CaseSpec("k_linear_cce_logits_rmsprop_centered_momentum", "keras",
             [(5, "relu", False), (3, "linear", True)], "categorical_crossentropy",
             opt("rmsprop", learning_rate=0.01, momentum=0.5, centered=True),
             ["accuracy", "mae"], from_logits=True, seed=7),
    CaseSpec("k_tanh_bce_probabilities_clipvalue", "keras", [(4, "relu", True), (2, "tanh", True)],
             "binary_crossentropy", opt(learning_rate=0.1, clipvalue=0.05), ["acc"], seed=8),
    CaseSpec("k_relu_cce_probabilities_clipnorm", "keras", [(5, "tanh", True), (3, "relu", True)],
             "categorical_crossentropy", opt("adam", learning_rate=0.01, clipnorm=0.1), ["accuracy"],
             positive_output_bias=True, seed=9),
    CaseSpec("k_relu_sparse_probabilities_global_clipnorm", "keras", [(5, "linear", True), (3, "relu", True)],
             "sparse_categorical_crossentropy", opt("rmsprop", learning_rate=0.01, global_clipnorm=0.2),
             ["acc"], positive_output_bias=True, label_dtype="float32", seed=10),
    CaseSpec("k_softmax_bce_amsgrad_clipnorm", "keras", [(4, "sigmoid", True), (3, "softmax", True)],
             "binary_crossentropy",
             opt("adam", learning_rate=0.05, amsgrad=True, clipnorm=0.12),
             ["accuracy"], seed=11),
    CaseSpec("k_sigmoid_cce_adamw_amsgrad", "keras", [(6, "tanh", True), (3, "sigmoid", True)],
             "categorical_crossentropy",
             opt("adamw", learning_rate=0.03, amsgrad=True, beta_1=0.8, beta_2=0.99),
             ["acc"], sample_weight=True, seed=12),
    CaseSpec("k_softmax_sparse_from_logits_flag", "keras", [(4, "relu", True), (3, "softmax", True)],
             "sparse_categorical_crossentropy", opt("adam", learning_rate=0.02, epsilon=1e-3), ["acc"],
             from_logits=True, seed=13),
    CaseSpec("k_sigmoid_mse_weighted_1d", "keras", [(3, "sigmoid", True), (1, "tanh", True)], "mse",
             opt("rmsprop", learning_rate=0.02, rho=0.8), ["mae", "mape", "acc"], sample_weight=True,
             targets_1d=True, seed=14),
]


# ----------------------------------------------------------------------------------------------------------
# TensorFlow.NET's formulas ("tfnet"): loss and its gradient with TensorFlow ops (autodiff), optimizers and
# metrics in float32 NumPy.

TFNET_METRIC_NAMES = {"accuracy": "accuracy", "acc": "accuracy", "mae": "mean_absolute_error",
                      "mape": "mean_absolute_percentage_error"}
TF_ACTIVATIONS = {"linear": lambda z: z, "relu": tf.nn.relu, "tanh": tf.tanh, "sigmoid": tf.sigmoid,
                  "softmax": tf.nn.softmax}


def tfnet_per_sample_loss(name: str, from_logits: bool, y: tf.Tensor, p: tf.Tensor) -> tf.Tensor:
    eps = tf.constant(EPSILON, tf.float32)
    if name == "mse":
        return tf.reduce_mean(tf.math.squared_difference(p, tf.cast(y, p.dtype)), axis=-1)
    if name == "mae":
        return tf.reduce_mean(tf.abs(p - tf.cast(y, p.dtype)), axis=-1)
    if name == "binary_crossentropy":
        y = tf.cast(y, p.dtype)
        if from_logits:
            return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=p), axis=-1)
        pc = tf.clip_by_value(p, eps, 1.0 - eps)
        bce = y * tf.math.log(pc + eps) + (1.0 - y) * tf.math.log(1.0 - pc + eps)
        return tf.reduce_mean(-bce, axis=-1)
    if name == "categorical_crossentropy":
        y = tf.cast(y, p.dtype)
        if from_logits:
            return tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=p)
        q = tf.clip_by_value(p / tf.reduce_sum(p, axis=-1, keepdims=True), eps, 1.0 - eps)
        return -tf.reduce_sum(y * tf.math.log(q), axis=-1)
    labels = tf.reshape(tf.cast(y, tf.int64), [-1])
    logits = p if from_logits else tf.math.log(tf.clip_by_value(p, eps, 1.0 - eps))
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def tfnet_metric(name: str, y: np.ndarray, p: np.ndarray) -> np.ndarray:
    y = y.astype(np.float32)
    if name in ("accuracy", "acc"):
        if p.shape[-1] == 1:
            return np.mean(y == (p > 0.5).astype(np.float32), axis=-1)
        if y.shape[-1] == 1:
            return (y[:, 0] == np.argmax(p, axis=-1)).astype(np.float32)
        return (np.argmax(y, axis=-1) == np.argmax(p, axis=-1)).astype(np.float32)
    if name == "mae":
        return np.mean(np.abs(p - y), axis=-1)
    diff = (y - p) / np.maximum(np.abs(y), np.float32(EPSILON))
    return np.float32(100.0) * np.mean(np.abs(diff), axis=-1)


class TfNetOptimizer:
    """TensorFlow.NET's update rules in float32 NumPy (no Nesterov, no RMSprop momentum, no clipping)."""

    def __init__(self, options: dict[str, Any], shapes: list[tuple[int, ...]]):
        self.name = options["name"]
        defaults = {"learning_rate": 0.01 if self.name == "sgd" else 0.001, "momentum": 0.0, "beta_1": 0.9,
                    "beta_2": 0.999, "epsilon": 1e-7, "weight_decay": 0.004, "rho": 0.9}
        self.o = {**defaults, **options}
        self.lr = np.float32(self.o["learning_rate"])
        self.iterations = 0
        zeros = [np.zeros(s, np.float32) for s in shapes]
        if self.name == "sgd":
            self.slots = {"momentum": [z.copy() for z in zeros]} if self.o["momentum"] > 0 else {}
        elif self.name in ("adam", "adamw"):
            self.slots = {"m": [z.copy() for z in zeros], "v": [z.copy() for z in zeros]}
        else:
            self.slots = {"rms": [z.copy() for z in zeros]}

    def apply(self, weights: list[np.ndarray], grads: list[np.ndarray]) -> None:
        f32 = np.float32
        lr = self.lr
        t = f32(self.iterations + 1)
        for i, (w, g) in enumerate(zip(weights, grads, strict=True)):
            if self.name == "sgd":
                if "momentum" in self.slots:
                    m = self.slots["momentum"][i]
                    m[...] = m * f32(self.o["momentum"]) - g * lr
                    w += m
                else:
                    w -= g * lr
            elif self.name in ("adam", "adamw"):
                if self.name == "adamw" and self.o["weight_decay"] != 0:
                    w += -lr * w * f32(self.o["weight_decay"])
                b1, b2, eps = f32(self.o["beta_1"]), f32(self.o["beta_2"]), f32(self.o["epsilon"])
                alpha = lr * np.sqrt(f32(1) - b2**t) / (f32(1) - b1**t)
                m, v = self.slots["m"][i], self.slots["v"][i]
                m += (g - m) * (f32(1) - b1)
                v += (g * g - v) * (f32(1) - b2)
                w -= m * alpha / (np.sqrt(v) + eps)
            else:
                rho, eps = f32(self.o["rho"]), f32(self.o["epsilon"])
                rms = self.slots["rms"][i]
                rms[...] = rho * rms + (f32(1) - rho) * g * g
                w -= lr * g / (np.sqrt(rms) + eps)
        self.iterations += 1


def tfnet_traces(spec: CaseSpec) -> list[dict[str, Any]]:
    arrays = spec.arrays()
    weights = [w.copy() for w in weight_list(arrays)]
    optimizer = TfNetOptimizer(spec.optimizer, [w.shape for w in weights])
    loss_total = loss_count = np.float32(0)
    metric_state = {m: [np.float32(0), np.float32(0)] for m in spec.metrics}
    traces = []
    for step in range(spec.steps):
        x, y, sw = batch(arrays, spec, step)
        y2, sw2 = expand_1d(y), expand_1d(sw)
        variables = [tf.Variable(w) for w in weights]
        with tf.GradientTape() as tape:
            h = tf.constant(x)
            index = 0
            for _units, activation, use_bias in spec.layers:
                z = tf.matmul(h, variables[index])
                index += 1
                if use_bias:
                    z = z + variables[index]
                    index += 1
                h = TF_ACTIVATIONS[activation](z)
            per_sample = tfnet_per_sample_loss(spec.loss, spec.from_logits, tf.constant(y2), h)
            weighted = per_sample * (tf.constant(sw2) if sw2 is not None else 1.0)  # (B,) * (B, 1) -> (B, B)
            loss = tf.reduce_sum(weighted) / tf.cast(tf.size(weighted), tf.float32)
        grads = [g.numpy() for g in tape.gradient(loss, variables)]
        y_pred = h.numpy()
        optimizer.apply(weights, grads)
        b = np.float32(x.shape[0])
        loss_total, loss_count = loss_total + np.float32(loss) * b, loss_count + b
        trace: dict[str, Any] = {"inputs/x/0": x, "inputs/y/0": y2, "y_pred/0": y_pred, "loss": float(loss)}
        if sw2 is not None:
            trace["inputs/sample_weight/0"] = sw2
        for i, g in enumerate(grads):
            for stage in ("gradients", "aggregated_gradients", "clipped_gradients"):
                trace[f"{stage}/{i}"] = g
        for i, w in enumerate(weights):
            trace[f"weights/{i}"] = w.copy()
        trace["optimizer_state/iterations"] = optimizer.iterations
        trace["optimizer_state/learning_rate"] = float(optimizer.lr)
        for slot, values in optimizer.slots.items():
            for i, v in enumerate(values):
                trace[f"optimizer_state/{slot}/{i}"] = v.copy()
        trace["metrics/loss"] = float(loss_total / loss_count)
        for name in spec.metrics:
            values = tfnet_metric(name, y2, y_pred)
            state = metric_state[name]
            state[0] += np.float32(values.sum())
            state[1] += np.float32(values.size)
            trace[f"metrics/{TFNET_METRIC_NAMES[name]}"] = float(state[0] / state[1])
        traces.append(trace)
    return traces


TFNET_CASES = [
    CaseSpec("t_relu_mse_weighted_1d_sgd", "tfnet", [(6, "relu", True), (1, "linear", True)], "mse",
             opt(learning_rate=0.05), ["mae"], sample_weight=True, targets_1d=True, seed=21),
    CaseSpec("t_tanh_mae_nesterov_clipnorm_ignored", "tfnet", [(5, "tanh", True), (2, "linear", True)], "mae",
             opt(learning_rate=0.1, momentum=0.9, nesterov=True, clipnorm=0.01), ["mape"], seed=22),
    CaseSpec("t_sigmoid_bce_probabilities_adam_global_clipnorm_ignored", "tfnet",
             [(4, "tanh", True), (1, "sigmoid", True)], "binary_crossentropy",
             opt("adam", learning_rate=0.02, global_clipnorm=0.01), ["acc"], targets_1d=True, seed=23),
    CaseSpec("t_softmax_cce_probabilities_rmsprop_momentum_ignored", "tfnet",
             [(6, "relu", True), (3, "softmax", True)], "categorical_crossentropy",
             opt("rmsprop", learning_rate=0.01, momentum=0.9, clipvalue=0.001), ["accuracy", "mae"], seed=24),
    CaseSpec("t_softmax_sparse_probabilities_adamw_weighted", "tfnet",
             [(5, "sigmoid", True), (4, "softmax", True)],
             "sparse_categorical_crossentropy", opt("adamw", learning_rate=0.01, weight_decay=0.1), ["acc"],
             sample_weight=True, label_dtype="int32", seed=25),
    CaseSpec("t_linear_sparse_logits_adam", "tfnet", [(3, "linear", False)],
             "sparse_categorical_crossentropy",
             opt("adam", learning_rate=0.05), ["accuracy"], from_logits=True, targets_1d=True,
             label_dtype="int64", seed=26),
    CaseSpec("t_linear_bce_logits_sgd_momentum_weighted", "tfnet", [(4, "relu", True), (2, "linear", True)],
             "binary_crossentropy", opt(learning_rate=0.1, momentum=0.5), ["acc"], from_logits=True,
             sample_weight=True, seed=27),
    CaseSpec("t_softmax_cce_logits_double_softmax", "tfnet", [(3, "softmax", True)],
             "categorical_crossentropy",
             opt("adamw", learning_rate=0.05, weight_decay=0.0), ["acc"], from_logits=True, seed=28),
]


# ----------------------------------------------------------------------------------------------------------
# Tests.


@pytest.mark.parametrize("spec", KERAS_CASES, ids=lambda s: s.name)
def test_keras_profile_matches_keras3(spec: CaseSpec, dotnet_bin: Path, tmp_path: Path) -> None:
    actual = run_reference(dotnet_bin, spec.write(tmp_path), tmp_path / "trace.npz")
    assert_traces_match(actual, keras_traces(spec), spec.name)


@pytest.mark.parametrize("spec", TFNET_CASES, ids=lambda s: s.name)
def test_tfnet_profile_matches_tfnet_formulas(spec: CaseSpec, dotnet_bin: Path, tmp_path: Path) -> None:
    actual = run_reference(dotnet_bin, spec.write(tmp_path), tmp_path / "trace.npz")
    assert_traces_match(actual, tfnet_traces(spec), spec.name)


def test_keras_and_tfnet_profiles_differ_where_tfnet_differs(dotnet_bin: Path, tmp_path: Path) -> None:
    """Same data, two profiles: the weighted loss, clipping and metric names part where TF.NET differs."""
    common = dict(layers=[(4, "tanh", True), (1, "linear", True)], loss="mse", metrics=["mae"],
                  optimizer=opt(learning_rate=0.1, momentum=0.9, nesterov=True, clipnorm=0.05),
                  sample_weight=True, targets_1d=True, seed=31)
    keras_case = CaseSpec("p_keras", "keras", **common).write(tmp_path)
    tfnet_case = CaseSpec("p_tfnet", "tfnet", **common).write(tmp_path)
    first_k = run_reference(dotnet_bin, keras_case, tmp_path / "k.npz")[0]
    first_t = run_reference(dotnet_bin, tfnet_case, tmp_path / "t.npz")[0]
    assert_close(first_k["y_pred/0"], first_t["y_pred/0"], RTOL, ATOL, what="same forward pass")
    assert not np.allclose(first_k["loss"], first_t["loss"], rtol=RTOL, atol=ATOL), "weighted loss differs"
    assert "metrics/mae" in first_k and "metrics/mean_absolute_error" in first_t
    clipped_k, clipped_t = first_k["clipped_gradients/0"], first_t["clipped_gradients/0"]
    assert not np.allclose(clipped_t, clipped_k, rtol=RTOL, atol=ATOL)
    assert_close(clipped_t, first_t["gradients/0"], RTOL, ATOL, what="tfnet ignores clipping")


@pytest.mark.parametrize(
    ("optimizer", "metrics", "option"),
    [
        (opt("adam", amsgrad=True), [], "amsgrad"),
        (opt("rmsprop", centered=True), [], "centered"),
        (opt(), ["mse"], "mse"),
    ],
)
def test_tfnet_profile_rejects_what_tensorflow_net_throws_on(
    optimizer: dict[str, Any], metrics: list[str], option: str, dotnet_bin: Path, tmp_path: Path
) -> None:
    spec = CaseSpec(f"u_{option}", "tfnet", [(2, "linear", True)], "mse", optimizer, metrics, seed=41)
    with pytest.raises(Exception, match=f"does not support.*{option}"):
        run_reference(dotnet_bin, spec.write(tmp_path), tmp_path / "trace.npz")


@pytest.mark.parametrize("clips", [{"clipnorm": 0.1, "clipvalue": 0.1}, {"clipvalue": 0.1, "global_clipnorm": 0.2}],
                         ids=["clipnorm+clipvalue", "clipvalue+global_clipnorm"])
def test_two_clip_arguments_are_refused_as_by_keras(clips: dict[str, float], dotnet_bin: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        keras.optimizers.SGD(**clips)
    spec = CaseSpec("two_clips", "keras", [(2, "linear", True)], "mse", opt(**clips), seed=43)
    with pytest.raises(Exception, match=r"optimizer.*at most one of clipnorm, clipvalue, global_clipnorm"):
        run_reference(dotnet_bin, spec.write(tmp_path), tmp_path / "trace.npz")


def test_schema_error_names_the_field(dotnet_bin: Path, tmp_path: Path) -> None:
    spec = CaseSpec("bad_units", "keras", [(2, "linear", True)], "mse", opt(), seed=42)
    path = spec.write(tmp_path)
    document = json.loads(path.read_text())
    document["model"]["layers"][0]["units"] = "2"
    path.write_text(json.dumps(document))
    message = r"model\.layers\[0\]\.units.*expected an integer >= 1, got string \"2\""
    with pytest.raises(Exception, match=message):
        run_reference(dotnet_bin, path, tmp_path / "trace.npz")
