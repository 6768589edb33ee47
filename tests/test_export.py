"""model.export: SavedModel (serving signature) and ONNX files, loaded back by TensorFlow and ONNX Runtime and equal
to predict within the float32 tolerance; bad formats refused; a failed export leaves the target as it was."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import onnxruntime
import pytest
import tensorflow as tf

import tfnet_train
from tfnet_train.tolerances import ATOL, RTOL

X = np.random.default_rng(5).normal(size=(7, 6)).astype("float32")


def trained() -> keras.Model:
    keras.utils.set_random_seed(1)
    model = tfnet_train.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                                    keras.layers.BatchNormalization(), keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(X, np.arange(7) % 3, epochs=2, verbose=0)
    return model


def test_saved_model_export_serves_predict(tmp_path: Path) -> None:
    model = trained()
    model.export(tmp_path / "served", format="tf_saved_model")
    loaded = tf.saved_model.load(str(tmp_path / "served"))
    np.testing.assert_allclose(loaded.serve(X).numpy(), model.predict(X, verbose=0), rtol=RTOL, atol=ATOL)
    signature = loaded.signatures["serving_default"]
    (name,) = signature.structured_input_signature[1]
    (output,) = signature(**{name: tf.constant(X)}).values()
    np.testing.assert_allclose(output.numpy(), model.predict(X, verbose=0), rtol=RTOL, atol=ATOL)
    assert [p.name for p in tmp_path.iterdir()] == ["served"]  # no temporary left beside it


def test_onnx_export_runs_in_onnxruntime(tmp_path: Path) -> None:
    model = trained()
    model.export(tmp_path / "model.onnx", format="onnx")
    session = onnxruntime.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {session.get_inputs()[0].name: X})
    np.testing.assert_allclose(out, model.predict(X, verbose=0), rtol=RTOL, atol=ATOL)
    assert [p.name for p in tmp_path.iterdir()] == ["model.onnx"]


def test_export_replaces_an_older_export_whole(tmp_path: Path) -> None:
    model = trained()
    model.export(tmp_path / "served")
    model.layers[-1].kernel.assign(model.layers[-1].kernel * 2.0)
    model.export(tmp_path / "served")
    loaded = tf.saved_model.load(str(tmp_path / "served"))
    np.testing.assert_allclose(loaded.serve(X).numpy(), model.predict(X, verbose=0), rtol=RTOL, atol=ATOL)
    assert [p.name for p in tmp_path.iterdir()] == ["served"]


def test_failed_check_writes_nothing_and_keeps_the_old_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = trained()
    model.export(tmp_path / "model.onnx", format="onnx")
    before = (tmp_path / "model.onnx").read_bytes()
    predict = model.predict
    monkeypatch.setattr(model, "predict", lambda x, **kwargs: predict(x, **kwargs) + 1e-3)  # a wrong export
    with pytest.raises(ValueError, match="model.onnx.*failed its check.*differs from predict"):
        model.export(tmp_path / "model.onnx", format="onnx")
    assert (tmp_path / "model.onnx").read_bytes() == before
    with pytest.raises(ValueError, match="fresh.*failed its check"):
        model.export(tmp_path / "fresh", format="tf_saved_model")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx"]


def test_bad_format_and_unbuilt_model_are_refused(tmp_path: Path) -> None:
    model = trained()
    with pytest.raises(ValueError, match="format must be one of \\['tf_saved_model', 'onnx'\\], got 'tflite'"):
        model.export(tmp_path / "m", format="tflite")
    with pytest.raises(ValueError, match="built model"):
        tfnet_train.Sequential([keras.layers.Dense(2)]).export(tmp_path / "m")
    assert list(tmp_path.iterdir()) == []


def test_loaded_legacy_model_exports(tmp_path: Path) -> None:
    model = trained()
    model.save(tmp_path / "m.h5")
    again = tfnet_train.load_model(tmp_path / "m.h5")
    again.export(tmp_path / "m.onnx", format="onnx", sample=X)
    session = onnxruntime.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(session.run(None, {session.get_inputs()[0].name: X})[0], model.predict(X, verbose=0),
                               rtol=RTOL, atol=ATOL)


def test_a_saved_model_carrying_its_keras_model_loads_back_to_train(tmp_path: Path) -> None:
    model = trained()
    model.export(tmp_path / "dir", keras_model=True)
    assert (tmp_path / "dir" / "assets.extra" / "model.keras").is_file()
    loaded_graph = tf.saved_model.load(str(tmp_path / "dir"))  # still a SavedModel TensorFlow serves
    np.testing.assert_allclose(loaded_graph.serve(X).numpy(), model.predict(X, verbose=0), rtol=RTOL, atol=ATOL)
    again = tfnet_train.load_model(tmp_path / "dir")
    assert isinstance(again, tfnet_train.Model)
    np.testing.assert_array_equal(again.predict(X, verbose=0), model.predict(X, verbose=0))
    assert int(again.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
    again.fit(X, np.arange(7) % 3, epochs=1, verbose=0)  # compiled from the file: it trains on
    assert [p.name for p in tmp_path.iterdir()] == ["dir"]


def test_keras_model_needs_a_saved_model_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"keras_model=True needs format='tf_saved_model'.*'onnx'"):
        trained().export(tmp_path / "m.onnx", format="onnx", keras_model=True)
    assert not (tmp_path / "m.onnx").exists()


def test_a_saved_model_without_either_metadata_is_still_refused(tmp_path: Path) -> None:
    trained().export(tmp_path / "plain")
    with pytest.raises(ValueError, match="without Keras metadata"):
        tfnet_train.load_model(tmp_path / "plain")
