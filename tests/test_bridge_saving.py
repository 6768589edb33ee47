"""The bridge's whole-model files and Keras callback specs (tfnet_train.bridge.saving), tested from Python."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import bridge, callbacks, optimizers


def _model() -> tfnet_train.Model:
    keras.utils.set_random_seed(0)
    model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizers.Adam(0.01), "mse")
    return model


def test_save_model_and_load_model_round_trip_with_optimizer_state(tmp_path: Path) -> None:
    model = _model()
    x, y = np.ones((4, 4), "float32"), np.zeros((4, 3), "float32")
    model.train_on_batch(x, y)
    path = tmp_path / "m.keras"
    bridge.save_model(model, str(path))
    loaded = bridge.load_model(str(path))
    assert isinstance(loaded, tfnet_train.Model)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert bridge.train_counter(loaded) == 1
    with pytest.raises(FileExistsError, match="overwrite"):
        bridge.save_model(model, str(path), overwrite=False)
    assert getattr(bridge.load_model(str(path), compile=False), "optimizer", None) is None
    with pytest.raises(TypeError, match="model must be a tfnet_train Model"):
        bridge.save_model(keras.Sequential([keras.Input((2,))]), str(tmp_path / "k.keras"))


@pytest.mark.parametrize("name", bridge.CALLBACK_CLASSES)
def test_build_callback_gives_the_callbacks_of_tfnet_train(name: str, tmp_path: Path) -> None:
    kwargs = {"EarlyStopping": {"patience": 2, "restore_best_weights": True},
              "ModelCheckpoint": {"filepath": str(tmp_path / "c.keras")},
              "BackupAndRestore": {"backup_dir": str(tmp_path / "b"), "save_freq": 3},
              "TensorBoard": {"log_dir": str(tmp_path / "tb"), "histogram_freq": 2, "update_freq": 5}}[name]
    built = bridge.build_callback(name, kwargs)
    assert type(built) is getattr(callbacks, name)
    for key, value in kwargs.items():
        if key not in ("filepath", "backup_dir", "restore_best_weights", "log_dir"):
            assert getattr(built, key) == value


def test_build_callback_refuses_other_names_and_bad_arguments() -> None:
    with pytest.raises(ValueError, match="class_name must be one of .*got 'CSVLogger'"):
        bridge.build_callback("CSVLogger", {})
    with pytest.raises(TypeError, match="must be a dict"):
        bridge.build_callback("EarlyStopping", [1])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bridge.build_callback("EarlyStopping", {"patients": 2})


def test_model_from_config_builds_a_fresh_functional_engine_model() -> None:
    import json

    from tfnet_train.bridge import saving, tensors

    inputs = keras.Input((4,))
    model = tfnet_train.Model(inputs=inputs, outputs=keras.layers.Dense(2, name="head")(inputs))
    rebuilt = saving.model_from_config(tensors.model_config(model)["json"])
    assert isinstance(rebuilt, tfnet_train.Model)
    assert [layer.name for layer in rebuilt.layers] == [layer.name for layer in model.layers]
    assert rebuilt.get_layer("head").kernel is not model.get_layer("head").kernel
    sequential = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match="functional model's get_config"):
        saving.model_from_config(json.dumps(sequential.get_config(), default=str))
    with pytest.raises(TypeError, match="config must be JSON text"):
        saving.model_from_config({"layers": []})
