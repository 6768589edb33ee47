"""safe_mode=True runs no code and no graph from a stranger's folder: tf.keras SavedModels whose configs carry Python
lambdas or module names, graphs that only a trusted load runs, and refused .keras files placed inside a folder.

The tf.keras folders are written by tf-keras itself in a subprocess (tests/safe_mode_writer.py); each lambda in them
writes a marker file when it runs, so a test sees whether the load ran it.
"""

from __future__ import annotations

import json
import shutil
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
from writers import write_with

import tfnet_train
from tfnet_train.tolerances import ATOL, RTOL

WRITER = Path(__file__).with_name("safe_mode_writer.py")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_with(WRITER, tmp_path_factory.mktemp("safe_mode"))


@pytest.fixture
def stranger(written: Path, tmp_path: Path) -> Callable[[str], Path]:
    """A copy of one written folder in this test's own directory (the markers its lambdas write land beside it)."""
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(written / name, target)
        return target

    return copy


def load(path: Path, **kwargs: Any) -> keras.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tfnet_train.load_model(path, **kwargs)


def rewrite_metadata(folder: Path, change: Callable[[Any], None]) -> None:
    """Apply ``change`` to every node record of a SavedModel's keras_metadata.pb, as a stranger would edit it."""
    from tf_keras.protobuf import saved_metadata_pb2

    metadata = saved_metadata_pb2.SavedMetadata()
    metadata.ParseFromString((folder / "keras_metadata.pb").read_bytes())
    for node in metadata.nodes:
        record = json.loads(node.metadata)
        change(record)
        node.metadata = json.dumps(record)
    (folder / "keras_metadata.pb").write_bytes(metadata.SerializeToString())


def walk(value: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    if isinstance(value, dict):
        visit(value)
        for item in value.values():
            walk(item, visit)
    elif isinstance(value, list):
        for item in value:
            walk(item, visit)


def retarget(folder: Path, marker: Path) -> None:
    """Point the writer's lambdas (their marker path is their default argument) at ``marker``."""
    def visit(record: dict[str, Any]) -> None:
        for key in ("residual_fn", "dropout_fn"):
            if isinstance(record.get(key), dict) and record.get(f"{key}_type") == "lambda":
                record[key]["items"][1] = {"class_name": "__tuple__", "items": [str(marker)]}

    rewrite_metadata(folder, lambda record: walk(record, visit))


def stranger_with_marker(stranger: Callable[[str], Path], name: str) -> tuple[Path, Path]:
    folder = stranger(f"{name}_savedmodel")
    marker = folder.parent / f"{name}.ran"
    retarget(folder, marker)
    return folder, marker


@pytest.mark.parametrize("name, key", [("residual", "residual_fn_type"), ("dropout", "dropout_fn_type")])
def test_a_cell_wrapper_lambda_is_refused_and_never_runs(stranger: Callable[[str], Path], name: str,
                                                         key: str) -> None:
    folder, marker = stranger_with_marker(stranger, name)
    with pytest.raises(ValueError, match=rf"{name}_savedmodel.*Python.*{key}.*safe_mode=False") as raised:
        load(folder)
    assert "trust" in str(raised.value)
    assert not marker.exists(), "the lambda ran under safe_mode=True"


def test_tf_keras_s_own_safe_mode_refuses_the_lambda_without_the_text_check(
        stranger: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from tfnet_train.engine import tf_keras_savedmodel

    folder, marker = stranger_with_marker(stranger, "residual")
    monkeypatch.setattr(tf_keras_savedmodel, "python_code_in", lambda records, custom_objects: None)
    with pytest.raises(ValueError, match=r"residual_savedmodel.*lambda.*safe_mode=False"):
        load(folder)
    assert not marker.exists(), "tf.keras deserialized the lambda outside its safe-mode scope"


def test_safe_mode_false_runs_the_folder_s_code(stranger: Callable[[str], Path]) -> None:
    """The control: the folder does carry live code, which safe_mode=False runs (Keras 3 then has no such wrapper)."""
    folder, marker = stranger_with_marker(stranger, "residual")
    with pytest.raises(TypeError, match="ResidualWrapper"):
        load(folder, safe_mode=False)
    assert marker.read_text() == "ran"


def test_a_module_named_in_a_config_is_not_imported(stranger: Callable[[str], Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """tf.keras, in its safe-mode scope too, imports the module a config names for a function (a cell wrapper's
    ``residual_fn`` of type "function"): a stranger's config names one of theirs, and it is refused unimported."""
    folder = stranger("residual_savedmodel")
    marker, planted = tmp_path / "imported", tmp_path / "planted"
    planted.mkdir()
    (planted / "tfnet_planted_module.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\ndef act(i, o):\n    return o\n")
    monkeypatch.syspath_prepend(str(planted))
    monkeypatch.delitem(sys.modules, "tfnet_planted_module", raising=False)

    def visit(record: dict[str, Any]) -> None:
        if "residual_fn" in record:
            record.update(residual_fn={"class_name": "function", "module": "tfnet_planted_module", "config": "act",
                                       "registered_name": "act"}, residual_fn_type="function")

    rewrite_metadata(folder, lambda record: walk(record, visit))
    with pytest.raises(ValueError, match=r"residual_savedmodel.*module 'tfnet_planted_module'.*safe_mode=False"):
        load(folder)
    assert not marker.exists(), "the module named by the config was imported under safe_mode=True"


def test_a_saved_model_loads_under_safe_mode_without_its_graph(written: Path, stranger: Callable[[str], Path]) -> None:
    """The graph (saved_model.pb) is never read under safe_mode: a folder whose graph is garbage loads the same,
    with the writer's weights and its training configuration."""
    folder = stranger("functional_savedmodel")
    (folder / "saved_model.pb").write_bytes(b"not a graph")
    model = load(folder)
    expected = np.load(written / "functional.npz")
    assert isinstance(model, tfnet_train.Model)
    weights = model.get_weights()
    assert len(weights) == len([k for k in expected.files if k.startswith("w")])
    for i, value in enumerate(weights):
        assert np.array_equal(value, expected[f"w{i}"]), f"weight {i} differs from the writer's"
    np.testing.assert_allclose(model.predict(expected["x"], verbose=0), expected["predictions"], rtol=RTOL,
                               atol=ATOL)
    assert isinstance(model.optimizer, keras.optimizers.Adam)
    with pytest.raises(Exception):  # noqa: B017 - tf.keras's own load reads the graph, and fails on it
        load(folder, safe_mode=False)


def test_a_layer_only_the_graph_can_run_needs_safe_mode_false(written: Path) -> None:
    from tfnet_train.engine.revived import RevivedLayer

    with pytest.raises(ValueError, match=r"custom_savedmodel.*Scaled.*graph.*safe_mode=False") as raised:
        load(written / "custom_savedmodel")
    assert "trust" in str(raised.value)
    model = load(written / "custom_savedmodel", safe_mode=False)
    assert isinstance(model.get_layer("scaled"), RevivedLayer)


def planted_folder(model_file: Path, folder: Path) -> Path:
    """``model_file`` at ``folder/assets.extra/model.keras`` beside an empty saved_model.pb."""
    (folder / "assets.extra").mkdir(parents=True)
    (folder / "saved_model.pb").write_bytes(b"")
    shutil.copyfile(model_file, folder / "assets.extra" / "model.keras")
    return folder


def test_a_refused_keras_file_stays_refused_inside_a_folder(written: Path, tmp_path: Path) -> None:
    lambda_model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Lambda(lambda t: t * 2.0)])
    lambda_model.save(tmp_path / "lambda.keras")
    revived = load(written / "custom_savedmodel", safe_mode=False)  # its layer runs the graph the .keras carries
    revived.save(tmp_path / "revived.keras")
    for name, refusal in (("lambda", "Lambda"), ("revived", r"'scaled' \(Scaled\).*graph")):
        with pytest.raises(ValueError, match=rf"{name}.keras.*{refusal}"):
            load(tmp_path / f"{name}.keras")
        folder = planted_folder(tmp_path / f"{name}.keras", tmp_path / f"{name}_folder")
        with pytest.raises(ValueError, match=rf"{name}_folder.*{refusal}.*safe_mode=False"):
            load(folder)
        assert isinstance(load(folder, safe_mode=False), tfnet_train.Model)
    x = np.random.default_rng(0).normal(size=(2, 6)).astype("float32")
    again = load(tmp_path / "revived_folder", safe_mode=False)
    np.testing.assert_array_equal(again.predict(x, verbose=0), revived.predict(x, verbose=0))


def test_variables_that_declare_more_than_they_hold_are_refused_before_reading(stranger: Callable[[str], Path]) \
        -> None:
    folder = stranger("functional_savedmodel")
    data = next((folder / "variables").glob("variables.data-*"))
    data.write_bytes(data.read_bytes()[:64])
    with pytest.raises(ValueError, match=r"functional_savedmodel.*variables.*declares \d+ bytes.*hold 64;"):
        load(folder)


def test_a_variable_larger_than_the_model_is_refused_before_reading(stranger: Callable[[str], Path]) -> None:
    import tensorflow as tf
    import tf_keras

    folder = stranger("functional_savedmodel")
    legacy = tf_keras.models.load_model(folder)  # the writer's own folder, trusted here, to write a bigger one
    legacy.planted = tf.Variable(tf.zeros([1 << 19]))
    prefix = folder / "variables" / "variables"
    for old in (folder / "variables").iterdir():
        old.unlink()
    tf.train.Checkpoint(root=legacy).write(str(prefix))
    with pytest.raises(ValueError, match=r"functional_savedmodel.*'planted.*2097152 bytes.*the model's weights"):
        load(folder)
