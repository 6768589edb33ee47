"""model.export: SavedModel (serving signature) and ONNX files, loaded back by TensorFlow and ONNX Runtime and equal
to predict within the float32 tolerance; bad formats refused; a failed export leaves the target as it was."""

from __future__ import annotations

import re
import shutil
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


# ------------------------------------------------------------------------------------ what export may replace


def _serves(folder: Path, model: keras.Model) -> None:
    """``folder`` is a whole export of ``model``: TensorFlow loads it and it returns predict's outputs."""
    loaded = tf.saved_model.load(str(folder))
    np.testing.assert_allclose(loaded.serve(X).numpy(), model.predict(X, verbose=0), rtol=RTOL, atol=ATOL)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_export_into_a_folder_that_is_not_a_saved_model_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "notes.txt").write_text("a week of results")
    with pytest.raises(ValueError, match=r"'.*results' is a folder that is not a SavedModel \(no saved_model.pb; it "
                                         r"holds \['notes.txt'\]\); expected no such path, an empty folder or an "
                                         r"earlier export"):
        trained().export(results)
    assert _tree(results) == {"notes.txt": b"a week of results"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


def test_export_over_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "results").write_text("notes")
    with pytest.raises(ValueError, match=r"'.*results' is a file, not a SavedModel folder"):
        trained().export(tmp_path / "results")
    assert (tmp_path / "results").read_text() == "notes"
    (tmp_path / "dir.onnx").mkdir()
    with pytest.raises(ValueError, match=r"'.*dir.onnx' is a folder; expected a file path for format='onnx'"):
        trained().export(tmp_path / "dir.onnx", format="onnx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.onnx", "results"]


def test_export_keeps_files_of_its_own_put_into_an_earlier_export(tmp_path: Path) -> None:
    model = trained()
    model.export(tmp_path / "served")
    (tmp_path / "served" / "README").write_text("serving notes")
    before = _tree(tmp_path / "served")
    with pytest.raises(ValueError, match=r"is a SavedModel folder that also holds \['README'\], which the export "
                                         "would delete"):
        model.export(tmp_path / "served")
    assert _tree(tmp_path / "served") == before


def test_overwrite_replaces_an_earlier_export_or_refuses_it(tmp_path: Path) -> None:
    model = trained()
    (tmp_path / "served").mkdir()  # an empty folder holds nothing to lose
    model.export(tmp_path / "served", overwrite=False)
    _serves(tmp_path / "served", model)
    before = _tree(tmp_path / "served")
    model.layers[-1].kernel.assign(model.layers[-1].kernel * 2.0)
    with pytest.raises(FileExistsError, match=r"'.*served' holds an earlier export and overwrite=False"):
        model.export(tmp_path / "served", overwrite=False)
    assert _tree(tmp_path / "served") == before
    model.export(tmp_path / "served", overwrite=True)
    _serves(tmp_path / "served", model)
    model.export(tmp_path / "m.onnx", format="onnx")
    onnx = (tmp_path / "m.onnx").read_bytes()
    with pytest.raises(FileExistsError, match=r"'.*m.onnx' exists and overwrite=False"):
        model.export(tmp_path / "m.onnx", format="onnx", overwrite=False)
    assert (tmp_path / "m.onnx").read_bytes() == onnx
    with pytest.raises(TypeError, match="overwrite must be a bool, got str"):
        model.export(tmp_path / "served", overwrite="no")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "served"]


def test_a_failing_writer_leaves_the_old_export_loadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = trained()
    model.export(tmp_path / "served", keras_model=True)
    before = _tree(tmp_path / "served")

    def half_written(self, filepath, **kwargs) -> None:
        Path(filepath, "saved_model.pb").write_bytes(b"\x08\x01")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(keras.Model, "export", half_written)
    with pytest.raises(OSError, match="No space left"):
        model.export(tmp_path / "served", keras_model=True)
    monkeypatch.undo()
    assert _tree(tmp_path / "served") == before
    _serves(tmp_path / "served", model)
    np.testing.assert_array_equal(tfnet_train.load_model(tmp_path / "served").predict(X, verbose=0),
                                  model.predict(X, verbose=0))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["served"]


def _killed_between_the_renames(model: keras.Model, target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export over ``target`` whose process stops after it moved the old export aside (a KeyboardInterrupt
    raised by the second rename: nothing after it runs but the removal of the new temporary folder)."""
    import tfnet_train.engine.export as export

    replace, calls = export.os.replace, []

    def stop_at_second(source, destination) -> None:
        if Path(destination).parent == target.parent:  # not the model.keras written inside the new export
            calls.append(Path(destination).name)
            if len(calls) == 2:
                raise KeyboardInterrupt
        replace(source, destination)

    monkeypatch.setattr(export.os, "replace", stop_at_second)
    with pytest.raises(KeyboardInterrupt):
        model.export(target, keras_model=True)
    monkeypatch.undo()
    assert calls[1] == target.name


def test_a_kill_between_the_renames_leaves_the_old_export_recoverable(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    model = trained()
    target = tmp_path / "served"
    model.export(target, keras_model=True)
    before, old_predictions = _tree(target), model.predict(X, verbose=0)
    model.layers[-1].kernel.assign(model.layers[-1].kernel * 2.0)
    _killed_between_the_renames(model, target, monkeypatch)
    (left,) = [p for p in tmp_path.iterdir()]
    assert re.fullmatch(r"served\.old-[0-9a-f]{12}", left.name) and not target.exists()
    assert _tree(left) == before  # the old export, whole, at a path that names it
    with pytest.raises(FileNotFoundError, match=rf"'.*served' does not exist: an export to it was interrupted between "
                                                rf"its two renames and left the previous export at '.*{left.name}'"):
        tfnet_train.load_model(target)
    with pytest.raises(FileExistsError, match="holds an earlier export and overwrite=False"):
        model.export(target, overwrite=False)  # the next export moves it back first
    assert _tree(target) == before and not left.exists()
    recovered = tf.saved_model.load(str(target))
    np.testing.assert_allclose(recovered.serve(X).numpy(), old_predictions, rtol=RTOL, atol=ATOL)
    model.export(target)
    _serves(target, model)
    assert [p.name for p in tmp_path.iterdir()] == ["served"]


def test_a_failed_second_rename_puts_the_old_export_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tfnet_train.engine.export as export

    model = trained()
    model.export(tmp_path / "served")
    before = _tree(tmp_path / "served")
    replace = export.os.replace

    def refuse_the_new_folder(source, destination) -> None:
        if Path(source).name.endswith(".tmp"):
            raise PermissionError(13, "Permission denied")
        replace(source, destination)

    monkeypatch.setattr(export.os, "replace", refuse_the_new_folder)
    with pytest.raises(PermissionError):
        model.export(tmp_path / "served")
    monkeypatch.undo()
    assert _tree(tmp_path / "served") == before
    assert [p.name for p in tmp_path.iterdir()] == ["served"]


def test_old_copies_are_told_apart_from_the_users_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stale old copy (an export killed after both renames) is removed by the next export; a folder of the user's
    whose name only starts alike is never taken or removed, and two old copies are refused rather than guessed."""
    model = trained()
    model.export(tmp_path / "served")
    shutil.copytree(tmp_path / "served", tmp_path / "served.old-0123456789ab")  # stale: served exists
    shutil.copytree(tmp_path / "served", tmp_path / "served.old-2023")  # the user's own backup
    model.export(tmp_path / "served")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["served", "served.old-2023"]
    shutil.rmtree(tmp_path / "served")
    with pytest.raises(FileNotFoundError) as missing:
        tfnet_train.load_model(tmp_path / "served")
    assert "interrupted" not in str(missing.value)
    for name in ("served.old-0123456789ab", "served.old-ba9876543210"):
        shutil.copytree(tmp_path / "served.old-2023", tmp_path / name)
    with pytest.raises(ValueError, match=r"interrupted exports left \[.*0123456789ab', .*ba9876543210'\] beside it; "
                                         "expected at most one"):
        model.export(tmp_path / "served")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "served.old-0123456789ab", "served.old-2023", "served.old-ba9876543210"]
