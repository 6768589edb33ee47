"""Cases whose model is Keras's architecture config (``model.keras_config``): round trip, schema errors naming the
field, arrays of any rank, and the Dense form a Dense-only config has."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import CaseError, KerasModelSpec, load, parse, save
from tfnet_train.conformance.compare import compare_traces
from tfnet_train.conformance.keras_model import NoDenseForm, dense_form
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE

CONV = "keras_conv_batchnorm_dropout_digits"
DENSE = "keras_relu_mse_sgd"


def _doc(name: str = CONV) -> dict:
    return json.loads((DEFAULT_SUITE / f"{name}.json").read_text())


def test_round_trip_keeps_config_and_arrays(tmp_path: Path) -> None:
    original = load(DEFAULT_SUITE / f"{CONV}.json")
    assert isinstance(original.model, KerasModelSpec) and original.has_keras_model
    assert {**original.to_json(), "arrays_sha256": _doc()["arrays_sha256"]} == _doc()  # the file binds its .npz
    path = save(original, None, tmp_path)
    copy_ = load(path)
    assert copy_.to_json() == original.to_json() and copy_.model == original.model
    assert path.read_bytes() == (DEFAULT_SUITE / f"{CONV}.json").read_bytes()
    assert (tmp_path / f"{CONV}.npz").read_bytes() == (DEFAULT_SUITE / f"{CONV}.npz").read_bytes()
    assert copy_.arrays.x.shape == (24, 8, 8, 1) and len(copy_.arrays.weights) == 8


def test_a_whole_to_json_document_is_accepted(tmp_path: Path) -> None:
    import keras

    model = keras.Sequential([keras.Input((4, 2)), keras.layers.Flatten(), keras.layers.Dense(1)])
    doc = _doc(DENSE)
    doc["model"] = {"keras_config": json.loads(model.to_json())}  # module, registered_name, build_config too
    case = parse(doc)
    assert case.model.class_name == "Sequential" and case.model.to_json() == json.loads(model.to_json())
    rng = np.random.default_rng(0)
    arrays = {"weights/0": rng.normal(size=(8, 1)).astype(np.float32), "weights/1": np.zeros(1, np.float32),
              "x": rng.normal(size=(24, 4, 2)).astype(np.float32), "y": rng.normal(size=(24, 1)).astype(np.float32)}
    case.arrays = None
    save(case, arrays, tmp_path)
    loaded = load(tmp_path / f"{case.name}.json")
    result = compare_traces(implementations.run("engine", loaded), implementations.run("keras", loaded),
                            loaded.tolerance)
    assert result.passed, result.first_divergence


def _edit(edit) -> dict:
    doc = _doc()
    edit(doc["model"]["keras_config"])
    return doc


def _layer(config: dict, i: int) -> dict:
    return config["config"]["layers"][i]


@pytest.mark.parametrize(("edit", "field", "expected"), [
    (lambda c: c.__setitem__("class_name", "Model"), "model.keras_config.class_name", "one of ('Sequential'"),
    (lambda c: c.pop("class_name"), "model.keras_config.class_name", "is missing"),
    (lambda c: c.__setitem__("config", [1]), "model.keras_config.config", "an object"),
    (lambda c: c["config"].__setitem__("layers", []), "model.keras_config.config.layers", "a non-empty list"),
    (lambda c: c["config"].pop("layers"), "model.keras_config.config.layers", "is missing"),
    (lambda c: c.__setitem__("weights", []), "model.keras_config.weights", "one of the known keys"),
    (lambda c: _layer(c, 1).__setitem__("class_name", 3), "model.keras_config.config.layers[1].class_name",
     "a non-empty string"),
    (lambda c: _layer(c, 2).__setitem__("config", None), "model.keras_config.config.layers[2].config", "an object"),
    (lambda c: _layer(c, 3)["config"].__setitem__("seed", None), "model.keras_config.config.layers[3].config.seed",
     "an int"),
    (lambda c: _layer(c, 3)["config"].__setitem__("seed", 1.5), "model.keras_config.config.layers[3].config.seed",
     "an int"),
])
def test_malformed_keras_config_names_the_field(edit, field: str, expected: str) -> None:
    with pytest.raises(CaseError, match=rf"field '{re.escape(field)}'.*{re.escape(expected)}"):
        parse(_edit(edit))


def test_keras_config_is_an_object_and_stands_alone() -> None:
    doc = _doc()
    doc["model"] = {"keras_config": "Sequential"}
    with pytest.raises(CaseError, match=r"field 'model.keras_config': expected an object"):
        parse(doc)
    doc = _doc()
    doc["model"]["input_shape"] = [64]
    with pytest.raises(CaseError, match=r"field 'model.input_shape': expected one of the known keys \['keras_config'"):
        parse(doc)


def test_initializer_seeds_may_stay_unset() -> None:
    doc = _doc()
    assert _layer(doc["model"]["keras_config"], 1)["config"]["kernel_initializer"]["config"]["seed"] is None
    assert parse(doc).has_keras_model


def _npz(tmp_path: Path, edit) -> Path:
    case = load(DEFAULT_SUITE / f"{CONV}.json")
    arrays = case.arrays.to_npz_dict()
    edit(arrays)
    np.savez(tmp_path / f"{CONV}.npz", **arrays)
    (tmp_path / f"{CONV}.json").write_text(json.dumps(case.to_json()))
    return tmp_path / f"{CONV}.json"


@pytest.mark.parametrize(("edit", "message"), [
    (lambda a: a.pop("weights/3"), "array 'weights/4': expected no such key (weights numbered without gaps from "
                                   "weights/0; weights/3 is missing)"),
    (lambda a: a.__setitem__("weights/0", a["weights/0"].astype(np.float64)), "array 'weights/0': expected dtype "
                                                                             "float32"),
    (lambda a: a.__setitem__("x", a["x"].reshape(-1)), "array 'x': expected shape (N, ...) with samples of rank"),
    (lambda a: a.__setitem__("x", a["x"][:10]), "array 'x': expected at least steps*batch_size = 24 rows"),
    (lambda a: a.__setitem__("y", a["y"][:10]), "array 'y': expected shape (24, ...): one target row per row"),
    (lambda a: a.__setitem__("y", a["y"] - 5), "array 'y': expected integer class labels >= 0"),
    (lambda a: a.__setitem__("sample_weight", np.ones(5, np.float32)), "array 'sample_weight': expected shape (24,)"),
])
def test_bad_arrays_of_a_keras_config_case_are_errors(tmp_path: Path, edit, message: str) -> None:
    with pytest.raises(CaseError, match=re.escape(message)):
        load(_npz(tmp_path, edit))


def test_weights_that_do_not_fit_the_model_fail_the_run_with_the_shapes(tmp_path: Path) -> None:
    path = _npz(tmp_path, lambda a: a.__setitem__("weights/0", np.zeros((2, 2), np.float32)))
    case = load(path)
    for implementation in ("engine", "keras"):
        with pytest.raises(ValueError, match=r"weights: expected 8 arrays of shapes \[\(3, 3, 1, 3\)"):
            implementations.run(implementation, case)


def test_dense_only_config_has_a_dense_form_every_reference_runs() -> None:
    import keras

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="relu"), keras.layers.Dense(1)])
    dense_case = load(DEFAULT_SUITE / f"{DENSE}.json")
    model.set_weights(dense_case.arrays.weights)
    doc = _doc(DENSE)
    doc["model"] = {"keras_config": {"class_name": "Sequential", "config": json.loads(model.to_json())["config"]}}
    case = parse(doc)
    assert dense_form(case.model) == dense_case.model
    case.arrays = dense_case.arrays
    numpy_traces = implementations.run("numpy", case)
    result = compare_traces(implementations.run("engine", case), numpy_traces, case.tolerance)
    assert result.passed, result.first_divergence
    assert compare_traces(numpy_traces, implementations.run("numpy", dense_case), case.tolerance).passed


@pytest.mark.parametrize(("layers", "reason"), [
    (lambda k: [k.Input((3,)), k.layers.Dense(2, name="d", activation="elu")], "layer Dense (d) with activation 'elu'"),
    (lambda k: [k.Input((3, 2)), k.layers.Dense(2, name="d")], "inputs of shape (3, 2)"),
    (lambda k: [k.Input((3,)), k.layers.Dropout(0.5, seed=1, name="drop"), k.layers.Dense(1)], "layer Dropout (drop)"),
])
def test_no_dense_form_names_the_reason(layers, reason: str) -> None:
    import keras

    model = keras.Sequential(layers(keras))
    spec = KerasModelSpec({"class_name": "Sequential", "config": json.loads(model.to_json())["config"]})
    with pytest.raises(NoDenseForm, match=f"^{re.escape(reason)}"):
        dense_form(spec)


def test_spec_equality_compares_the_config() -> None:
    spec = load(DEFAULT_SUITE / f"{CONV}.json").model
    other = KerasModelSpec(copy.deepcopy(spec.to_json()))
    assert spec == other
    other.keras_config["config"]["name"] = "renamed"
    assert spec != other


def test_csharp_reference_refuses_a_keras_config_with_a_typed_error(dotnet_bin: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Given the case file itself (the Python side reports n/a before), the C# reference loads the common fields and
    arrays and its trainer refuses with UnsupportedModelException naming the layer; the runner maps that to n/a."""
    from tfnet_train.conformance import csharp_runner
    from tfnet_train.conformance.errors import NotApplicable

    runner = csharp_runner.reference_runner()
    from TfNetTrain.Reference import ConformanceCase, UnsupportedModelException  # type: ignore[import-not-found]

    path = save(load(DEFAULT_SUITE / f"{CONV}.json"), None, tmp_path)
    loaded = ConformanceCase.Load(str(path))
    assert (loaded.Name, loaded.Steps, loaded.BatchSize, loaded.UnsupportedLayer) == (CONV, 3, 8, "layer Conv2D (conv)")
    assert loaded.Weights.Count == 8 and list(loaded.X.Shape) == [24, 8, 8, 1]
    with pytest.raises(UnsupportedModelException) as caught:
        runner.RunToNpz(str(path), str(tmp_path / "trace.npz"))
    assert caught.value.Message == "layer Conv2D (conv) is not implemented by the C# reference"
    assert caught.value.Layer == "layer Conv2D (conv)" and not (tmp_path / "trace.npz").exists()
    # Skip the Python-side check to reach the C# refusal through the runner.
    from tfnet_train.conformance import keras_model

    monkeypatch.setattr(keras_model, "dense_only", lambda case, implementation: case)
    with pytest.raises(NotApplicable, match=r"^layer Conv2D \(conv\) is not implemented by the C# reference$"):
        implementations.run("csharp", load(path))
