"""The NumPy reference trainer against independent computations: Keras 3 itself over 10 steps (semantics "keras"),
and TensorFlow's training kernels / NumPy formulas for the TensorFlow.NET profile ("tfnet")."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tfnet_train.conformance.case import OptimizerSpec
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.keras_runner import run_keras
from tfnet_train.conformance.numpy_optimizers import clip_gradients
from tfnet_train.conformance.numpy_reference import NumpyTrainer, run_numpy
from tfnet_train.conformance.suite_builder import Recipe, build_case
from tfnet_train.tolerances import ATOL, RTOL, allclose, assert_close

KERAS_STAGES = ("y_pred", "loss", "gradients", "clipped_gradients", "weights", "optimizer_state", "metrics")


def _case(name: str, layers: tuple, loss: str, optimizer: dict, steps: int = 10, **kw: object):
    return build_case(Recipe(name=name, description=name, layers=layers, loss=loss, optimizer=optimizer,
                             steps=steps, **kw))


NETS = {
    "mse": dict(layers=((8, "relu"), (2, "linear")), loss="mse", metrics=("mae",)),
    "binary_crossentropy": dict(layers=((8, "tanh"), (1, "sigmoid")), loss="binary_crossentropy",
                                metrics=("accuracy",), target="1d"),
    "categorical_crossentropy": dict(layers=((8, "relu"), (3, "softmax")), loss="categorical_crossentropy",
                                     metrics=("accuracy",)),
    "categorical_crossentropy_logits": dict(layers=((8, "tanh"), (3, "linear")), loss="categorical_crossentropy",
                                            from_logits=True, metrics=("accuracy",)),
    "sparse_categorical_crossentropy": dict(layers=((8, "sigmoid"), (4, "softmax")),
                                            loss="sparse_categorical_crossentropy", target="labels_int32",
                                            metrics=("accuracy",)),
}
OPTIMIZERS = {"sgd": {"name": "sgd", "learning_rate": 0.1}, "adam": {"name": "adam", "learning_rate": 0.01}}


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("net", sorted(NETS))
def test_matches_keras_over_ten_steps(net: str, optimizer: str) -> None:
    case = _case(f"ten_steps_{net}_{optimizer}", optimizer=OPTIMIZERS[optimizer], **NETS[net])
    comparison = compare_traces(run_numpy(case), run_keras(case), case.tolerance, ("numpy", "keras"))
    assert comparison.first_divergence is None, comparison.first_divergence.describe("numpy", "keras")
    assert comparison.steps_compared == 10
    for stage in KERAS_STAGES:
        assert comparison.stage(stage) is not None and comparison.stage(stage).compared > 0, stage


@pytest.mark.parametrize("options", [
    {"name": "sgd", "learning_rate": 0.1, "momentum": 0.9, "nesterov": True, "clipnorm": 0.1},
    {"name": "adamw", "learning_rate": 0.01, "weight_decay": 0.1, "amsgrad": True, "global_clipnorm": 0.2},
    {"name": "rmsprop", "learning_rate": 0.01, "momentum": 0.5, "centered": True, "clipvalue": 0.02},
], ids=["sgd_nesterov_clipnorm", "adamw_amsgrad_global_clipnorm", "rmsprop_centered_momentum_clipvalue"])
def test_optimizer_variants_match_keras(options: dict) -> None:
    case = _case(f"variant_{options['name']}", optimizer=options, steps=5, sample_weight=True, **NETS["mse"])
    comparison = compare_traces(run_numpy(case), run_keras(case), case.tolerance, ("numpy", "keras"))
    assert comparison.first_divergence is None, comparison.first_divergence.describe("numpy", "keras")
    assert comparison.stage("clipped_gradients").compared > 0


def test_clipping_changes_gradients_as_keras_does() -> None:
    case = _case("clip_active", optimizer={"name": "sgd", "learning_rate": 0.1, "clipnorm": 0.05}, steps=1,
                 **NETS["mse"])
    trace = NumpyTrainer(case).step(0)
    for i in range(4):
        norm = np.linalg.norm(trace[f"clipped_gradients/{i}"])
        assert_close(norm, min(0.05, np.linalg.norm(trace[f"gradients/{i}"])), what=f"clipped norm {i}")


# ----------------------------------------------------------------------------------------------- tfnet profile


def _first_step(case):
    trainer = NumpyTrainer(case)
    return trainer, trainer.step(0)


def _tf_apply(op: str, weights: list[np.ndarray], grads: list[np.ndarray], slots: int, **kw: object):
    """Apply a TensorFlow training kernel to each variable; returns (new weights, slot values)."""
    new_w, new_slots = [], []
    for w, g in zip(weights, grads, strict=True):
        var = tf.Variable(w)
        accs = [tf.Variable(np.zeros_like(w)) for _ in range(slots)]
        getattr(tf.raw_ops, op)(var=var.handle, grad=g, **_slot_kwargs(op, accs), **kw)
        new_w.append(var.numpy())
        new_slots.append([a.numpy() for a in accs])
    return new_w, new_slots


def _slot_kwargs(op: str, accs: list) -> dict:
    if op == "ResourceApplyAdam":
        return {"m": accs[0].handle, "v": accs[1].handle}
    if op == "ResourceApplyKerasMomentum":
        return {"accum": accs[0].handle}
    return {}


def test_tfnet_adam_equals_tensorflow_kernel() -> None:
    """TF.NET's Adam calls ResourceApplyAdam with beta powers for step 1 and the raw learning rate."""
    case = _case("tfnet_adam", optimizer={"name": "adam", "learning_rate": 0.01, "clipnorm": 0.01}, steps=1,
                 semantics="tfnet", **NETS["mse"])
    _, trace = _first_step(case)
    f = np.float32
    weights, slots = _tf_apply("ResourceApplyAdam", case.arrays.weights,
                               [trace[f"gradients/{i}"] for i in range(4)], 2,
                               beta1_power=f(0.9), beta2_power=f(0.999), lr=f(0.01), beta1=f(0.9),
                               beta2=f(0.999), epsilon=f(1e-7))
    for i in range(4):  # clipnorm ignored: the raw gradients are applied
        assert_close(trace[f"weights/{i}"], weights[i], what=f"weights/{i}")
        assert_close(trace[f"optimizer_state/m/{i}"], slots[i][0], what=f"m/{i}")
        assert_close(trace[f"optimizer_state/v/{i}"], slots[i][1], what=f"v/{i}")


def test_tfnet_sgd_momentum_ignores_nesterov_like_the_keras_momentum_kernel() -> None:
    case = _case("tfnet_nesterov", optimizer={"name": "sgd", "learning_rate": 0.1, "momentum": 0.9,
                                              "nesterov": True}, steps=1, semantics="tfnet", **NETS["mse"])
    _, trace = _first_step(case)
    f = np.float32
    weights, slots = _tf_apply("ResourceApplyKerasMomentum", case.arrays.weights,
                               [trace[f"gradients/{i}"] for i in range(4)], 1, lr=f(0.1), momentum=f(0.9),
                               use_nesterov=False)
    for i in range(4):
        assert_close(trace[f"weights/{i}"], weights[i], what=f"weights/{i}")
        assert_close(trace[f"optimizer_state/momentum/{i}"], slots[i][0], what=f"momentum/{i}")


def test_tfnet_nesterov_and_clipping_are_ignored_over_several_steps() -> None:
    """tfnet with nesterov + clipnorm trains exactly like Keras 3 with neither."""
    kw = dict(steps=4, **NETS["mse"])
    tfnet = _case("tfnet_ignored", optimizer={"name": "sgd", "learning_rate": 0.1, "momentum": 0.9,
                                              "nesterov": True, "clipnorm": 0.05}, semantics="tfnet", **kw)
    plain = replace(tfnet, semantics="keras").with_optimizer(nesterov=False, clipnorm=None)
    ours, keras = run_numpy(tfnet), run_keras(plain)
    for step in range(4):
        for i in range(4):
            assert_close(ours[step][f"weights/{i}"], keras[step][f"weights/{i}"], what=f"step {step} weights/{i}")


def test_tfnet_rmsprop_ignores_momentum_and_puts_epsilon_outside_the_root() -> None:
    case = _case("tfnet_rmsprop", optimizer={"name": "rmsprop", "learning_rate": 0.01, "momentum": 0.9,
                                             "epsilon": 1e-3}, steps=1, semantics="tfnet", **NETS["mse"])
    _, trace = _first_step(case)
    assert not any(k.startswith("optimizer_state/momentum/") for k in trace)
    for i, w in enumerate(case.arrays.weights):
        g = trace[f"gradients/{i}"].astype(np.float64)
        rms = 0.1 * g * g
        expected = w - 0.01 * g / (np.sqrt(rms) + 1e-3)
        assert_close(trace[f"optimizer_state/rms/{i}"], rms, what=f"rms/{i}")
        assert_close(trace[f"weights/{i}"], expected, what=f"weights/{i}")


def test_tfnet_adamw_decays_with_the_constructor_learning_rate_first() -> None:
    case = _case("tfnet_adamw", optimizer={"name": "adamw", "learning_rate": 0.01, "weight_decay": 0.2}, steps=1,
                 semantics="tfnet", **NETS["mse"])
    _, trace = _first_step(case)
    for i, w in enumerate(case.arrays.weights):
        g = trace[f"gradients/{i}"].astype(np.float64)
        decayed = w - 0.01 * w * 0.2
        m, v = 0.1 * g, 0.001 * g * g
        alpha = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
        assert_close(trace[f"weights/{i}"], decayed - alpha * m / (np.sqrt(v) + 1e-7), what=f"weights/{i}")


def test_tfnet_sample_weights_give_mean_weight_times_mean_loss() -> None:
    case = _case("tfnet_sw", optimizer={"name": "sgd", "learning_rate": 0.1}, steps=2, semantics="tfnet",
                 sample_weight=True, **NETS["mse"])
    trainer = NumpyTrainer(case)
    for step in range(2):
        trace = trainer.step(step)
        y, y_pred = trace["inputs/y/0"].astype(np.float64), trace["y_pred/0"].astype(np.float64)
        w = trace["inputs/sample_weight/0"].astype(np.float64)
        assert w.shape == (8, 1)
        per_sample = np.mean((y - y_pred) ** 2, axis=-1)
        assert_close(trace["loss"], np.mean(w) * np.mean(per_sample), what="tfnet loss")
        assert not allclose(trace["loss"], np.mean(w[:, 0] * per_sample))  # the keras value differs


def test_tfnet_metric_names_and_unsupported_features() -> None:
    case = _case("tfnet_names", optimizer={"name": "sgd", "learning_rate": 0.1}, steps=1, semantics="tfnet",
                 layers=((4, "tanh"), (1, "sigmoid")), loss="binary_crossentropy", metrics=("acc", "mae", "mape"))
    trace = NumpyTrainer(case).step(0)
    assert [k for k in trace if k.startswith("metrics/")] == [
        "metrics/loss", "metrics/accuracy", "metrics/mean_absolute_error", "metrics/mean_absolute_percentage_error"]
    with pytest.raises(NotImplementedError, match="'mse'"):
        NumpyTrainer(replace(case, metrics=("mse",)))
    with pytest.raises(NotImplementedError, match="centered"):
        NumpyTrainer(case.with_optimizer(name="rmsprop", centered=True)).step(0)
    with pytest.raises(NotImplementedError, match="amsgrad"):
        NumpyTrainer(case.with_optimizer(name="adam", amsgrad=True)).step(0)


def test_steps_run_in_order_and_arrays_are_float32() -> None:
    case = _case("order", optimizer={"name": "sgd"}, steps=2, **NETS["mse"])
    trainer = NumpyTrainer(case)
    with pytest.raises(ValueError, match="step must be the next step 0, got 1"):
        trainer.step(1)
    trace = trainer.step(0)
    assert trace["y_pred/0"].dtype == np.float32 and trace["weights/0"].dtype == np.float32
    assert int(trace["optimizer_state/iterations"]) == 1
    assert float(trace["optimizer_state/learning_rate"]) == float(np.float32(0.01))


def test_reference_modules_do_not_import_tensorflow_or_keras() -> None:
    package = Path(__file__).resolve().parents[1] / "src" / "tfnet_train" / "conformance"
    for name in ("numpy_reference", "numpy_network", "numpy_losses", "numpy_metrics", "numpy_optimizers", "f32",
                 "case", "compare"):
        tree = ast.parse((package / f"{name}.py").read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & {"tensorflow", "keras"}, name


def test_tolerance_is_the_project_default() -> None:
    case = _case("tol", optimizer={"name": "sgd"}, steps=1, **NETS["mse"])
    assert (case.tolerance.rtol, case.tolerance.atol) == (RTOL, ATOL)


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_two_clip_arguments_are_refused_as_by_keras(semantics: str) -> None:
    grads = [np.array([3.0, 4.0], np.float32)]
    spec = OptimizerSpec(name="sgd", params={"learning_rate": 0.1, "clipnorm": 1.0, "clipvalue": 0.5})
    with pytest.raises(ValueError, match=r"Only one of `clipnorm`, `clipvalue`.*clipnorm=1.0, clipvalue=0.5"):
        clip_gradients(spec, grads, semantics)
    one = OptimizerSpec(name="sgd", params={"learning_rate": 0.1, "clipnorm": 1.0, "clipvalue": None})
    expected = grads if semantics == "tfnet" else [np.array([0.6, 0.8], np.float32)]
    assert_close(clip_gradients(one, grads, semantics)[0], expected[0], what="one option")
