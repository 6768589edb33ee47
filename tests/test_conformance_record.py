"""record(): a live tfnet_train model and its data become a case that every implementation can replay."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import load
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.record import record


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


def test_record_refuses_what_a_case_cannot_express(tmp_path: Path) -> None:
    x, y, _ = _data()
    with pytest.raises(TypeError, match="model: every layer must be keras.layers.Dense, got Dropout"):
        record(_model("keras", layers=[keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dropout(0.1),
                                       keras.layers.Dense(1)]), x, y, 3, tmp_path / "c")
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


def test_record_keeps_l2_kernel_regularizers_and_refuses_other_penalties(tmp_path: Path) -> None:
    x, y, _ = _data()
    penalised = keras.layers.Dense(4, kernel_regularizer=keras.regularizers.L2(0.1))
    l2 = _model("keras", layers=[keras.Input((3,)), penalised, keras.layers.Dense(1, activation="sigmoid")])
    case = record(l2, x, y, 3, tmp_path / "l2")
    assert case.model.layers[0].kernel_l2 == pytest.approx(0.1)
    runs = {impl: implementations.run(impl, case) for impl in ("numpy", "engine")}
    assert compare_traces(runs["numpy"], runs["engine"], case.tolerance).passed
    for extra in ({"kernel_regularizer": keras.regularizers.L1(0.1)}, {"bias_regularizer": "l2"},
                  {"activity_regularizer": "l2"}, {"kernel_constraint": keras.constraints.NonNeg()}):
        model = _model("keras", layers=[keras.Input((3,)), keras.layers.Dense(1, **extra)])
        with pytest.raises(ValueError, match="model: layer .* (kernel_regularizer must be|has a)"):
            record(model, x, y, 3, tmp_path / "bad")
