"""record(): a live tfnet_train model and its data become a case: the Dense form every implementation replays, or the
model's Keras config (any layers, inputs of any rank) the engine and Keras replay."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import KerasModelSpec, load
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.errors import NotApplicable
from tfnet_train.conformance.record import record
from tfnet_train.conformance.runner import run_case


def _model(semantics: str, layers=None, metrics=("acc",)):
    keras.utils.set_random_seed(7)
    model = tfnet_train.Sequential(layers or [keras.Input((3,)), keras.layers.Dense(5, activation="tanh"),
                                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=tfnet_train.optimizers.Adam(0.02, clipnorm=0.5),
                  loss=keras.losses.BinaryCrossentropy(), metrics=list(metrics), semantics=semantics)
    return model


def _data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(12, 3)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.float32), rng.uniform(0.5, 1.5, 12).astype(np.float32)


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_recorded_case_replays_the_live_model(semantics: str, tmp_path: Path) -> None:
    model = _model(semantics)
    x, y, sw = _data()
    case = record(model, x, y, steps=3, path=tmp_path / "recorded", sample_weight=sw)
    loaded = load(tmp_path / "recorded.json")
    assert loaded.to_json() == case.to_json()
    assert (loaded.semantics, loaded.batch_size) == (semantics, 4)
    assert loaded.metrics == (("acc",) if semantics == "keras" else ("accuracy",))
    assert loaded.loss.name == "binary_crossentropy" and loaded.optimizer["clipnorm"] == 0.5
    assert [(layer.units, layer.activation) for layer in loaded.model.layers] == [(5, "tanh"), (1, "sigmoid")]
    live = [model.train_step_traced(*loaded.batch(i)).flat() for i in range(3)]
    result = compare_traces(live, implementations.run("numpy", loaded), loaded.tolerance, ("live", "numpy"))
    assert result.first_divergence is None, result.first_divergence.describe("live", "numpy")


@pytest.mark.parametrize(("semantics", "expected"), [
    ("keras", ("acc", "mae", "mape")), ("tfnet", ("accuracy", "mae", "mape"))])
def test_recorded_metric_names_map_back_to_case_identifiers(semantics: str, expected: tuple, tmp_path: Path) -> None:
    x, y, _ = _data()
    case = record(_model(semantics, metrics=("acc", "mae", "mape")), x, y, 2, tmp_path / "names.json")
    assert case.metrics == expected and case.path == tmp_path / "names.json"


class _Subclassed(tfnet_train.Model):
    def __init__(self) -> None:
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)


def test_record_refuses_what_a_case_cannot_express(tmp_path: Path) -> None:
    x, y, _ = _data()
    subclassed = _Subclassed()
    subclassed.compile(optimizer="sgd", loss="mse")
    subclassed(x[:1])
    with pytest.raises(TypeError, match="model: expected a Sequential or Functional model .*got _Subclassed"):
        record(subclassed, x, y, 3, tmp_path / "c")
    used = _model("keras")
    used.train_step_traced(x[:4], y[:4])
    with pytest.raises(ValueError, match="optimizer must be fresh .*got 1"):
        record(used, x, y, 3, tmp_path / "c")
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        record(_model("keras"), x, y, 13, tmp_path / "c")
    with pytest.raises(ValueError, match=rf"^x: expected at least steps \* batch_size = 2 \* {len(x)} = {2 * len(x)} "
                       rf"rows, got {len(x)}$"):
        record(_model("keras"), x, y, 2, tmp_path / "c", batch_size=len(x))
    with pytest.raises(TypeError, match="expected a compiled tfnet_train model, got Sequential"):
        record(keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]), x, y, 3, tmp_path / "c")


def test_record_keeps_l2_kernel_regularizers_and_keeps_other_penalties_in_the_keras_form(tmp_path: Path) -> None:
    x, y, _ = _data()
    penalised = keras.layers.Dense(4, kernel_regularizer=keras.regularizers.L2(0.1))
    l2 = _model("keras", layers=[keras.Input((3,)), penalised, keras.layers.Dense(1, activation="sigmoid")])
    case = record(l2, x, y, 3, tmp_path / "l2")
    assert case.model.layers[0].kernel_l2 == pytest.approx(0.1)
    runs = {impl: implementations.run(impl, case) for impl in ("numpy", "engine")}
    assert compare_traces(runs["numpy"], runs["engine"], case.tolerance).passed
    for extra, what in (({"kernel_regularizer": keras.regularizers.L1(0.1)}, "with kernel_regularizer L1"),
                        ({"bias_regularizer": "l2"}, "with a bias_regularizer"),
                        ({"activity_regularizer": "l2"}, "with a activity_regularizer"),
                        ({"kernel_constraint": keras.constraints.NonNeg()}, "with a kernel_constraint")):
        model = _model("keras", layers=[keras.Input((3,)), keras.layers.Dense(1, name="out", **extra)])
        case = record(model, x, y, 3, tmp_path / "penalised")
        assert isinstance(case.model, KerasModelSpec)
        with pytest.raises(NotApplicable, match=rf"^layer Dense \(out\) {what} is not implemented by the NumPy"):
            implementations.run("numpy", case)
        live = [model.train_step_traced(*case.batch(i)).flat() for i in range(3)]
        replay = implementations.run("keras", load(tmp_path / "penalised.json"))
        assert compare_traces(live, replay, case.tolerance).passed, what


def _conv_model() -> tfnet_train.Sequential:
    keras.utils.set_random_seed(5)
    model = tfnet_train.Sequential([
        keras.Input((6, 6, 1)), keras.layers.Conv2D(2, 3, activation="relu", name="conv"),
        keras.layers.BatchNormalization(name="norm"), keras.layers.Dropout(0.3, name="drop"),
        keras.layers.Flatten(name="flat"), keras.layers.Dense(3, name="logits")])
    model.compile(optimizer=tfnet_train.optimizers.SGD(0.1, momentum=0.5),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def test_record_writes_a_live_conv_model_as_its_keras_config(tmp_path: Path) -> None:
    model = _conv_model()
    rng = np.random.default_rng(8)
    x, y = rng.uniform(size=(12, 6, 6, 1)).astype(np.float32), rng.integers(0, 3, 12)
    live_seed = int(model.get_layer("drop").seed_generator.state.value.numpy()[0])
    case = record(model, x, y, 3, tmp_path / "conv")
    loaded = load(tmp_path / "conv.json")
    assert loaded.to_json() == case.to_json() and isinstance(loaded.model, KerasModelSpec)
    assert [name for name, _ in loaded.model.top_layers()] == [
        "InputLayer", "Conv2D", "BatchNormalization", "Dropout", "Flatten", "Dense"]
    assert loaded.model.config["layers"][3]["config"]["seed"] == live_seed  # the live generator's seed
    names = [w.path.split("/", 1)[1] for w in model.weights]
    assert len(loaded.arrays.weights) == len(names) == 8 and "norm/moving_variance" in names
    for saved, live in zip(loaded.arrays.weights, model.get_weights(), strict=True):
        np.testing.assert_array_equal(saved, live)
    assert loaded.arrays.x.shape == (12, 6, 6, 1) and loaded.arrays.y.dtype == y.dtype
    # The live model's next steps are what the engine and Keras replay, dropout masks and moving statistics included.
    live = [model.train_step_traced(*loaded.batch(i)).flat() for i in range(3)]
    for implementation in ("engine", "keras"):
        result = compare_traces(live, implementations.run(implementation, loaded), loaded.tolerance,
                                ("live", implementation))
        assert result.first_divergence is None, result.first_divergence.describe("live", implementation)
        assert result.stage("weights").compared == sum(w.size for w in loaded.arrays.weights) * 3
    result = run_case(loaded, ["engine", "keras", "numpy"])
    assert [(p.a, p.b, p.verdict) for p in result.pairs] == [("engine", "keras", "pass"), ("numpy", "keras", "n/a")]
    assert result.pairs[1].message == "numpy: layer Conv2D (conv) is not implemented by the NumPy reference"
