"""Case files: round trip, schema errors, missing or wrong arrays, each error naming the field and the mismatch."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tfnet_train.conformance.case import CaseError, load, save
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE

SOURCE = DEFAULT_SUITE / "keras_relu_mse_sgd.json"


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    """A writable copy of one suite case."""
    case = load(SOURCE)
    save(case, None, tmp_path)
    return tmp_path


def _edit_json(folder: Path, edit) -> Path:
    path = folder / "keras_relu_mse_sgd.json"
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    return path


def _edit_npz(folder: Path, edit) -> Path:
    path = folder / "keras_relu_mse_sgd.npz"
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    edit(arrays)
    np.savez(path, **arrays)
    return folder / "keras_relu_mse_sgd.json"


def test_round_trip_keeps_spec_and_arrays(case_dir: Path) -> None:
    original, copy = load(SOURCE), load(case_dir / "keras_relu_mse_sgd.json")
    assert copy.to_json() == original.to_json()
    for a, b in zip(original.arrays.to_npz_dict().values(), copy.arrays.to_npz_dict().values(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert copy.optimizer["momentum"] == 0.0 and copy.optimizer.clipping == {}


def test_saved_npz_bytes_are_deterministic(tmp_path: Path) -> None:
    case = load(SOURCE)
    save(case, None, tmp_path / "a")
    save(case, None, tmp_path / "b")
    assert (tmp_path / "a" / f"{case.name}.npz").read_bytes() == (tmp_path / "b" / f"{case.name}.npz").read_bytes()


def test_missing_optimizer_values_take_keras_defaults(case_dir: Path) -> None:
    path = _edit_json(case_dir, lambda d: d.__setitem__("optimizer", {"name": "adam"}))
    params = load(path).optimizer.params
    assert params == {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False,
                      "clipnorm": None, "clipvalue": None, "global_clipnorm": None}


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.__setitem__("schema", "other@2"), r"field 'schema': expected 'tfnet-train/case@1', got 'other@2'"),
    (lambda d: d.__setitem__("semantics", "pytorch"), r"field 'semantics': expected one of \('keras', 'tfnet'\)"),
    (lambda d: d["model"]["layers"][0].__setitem__("units", 0), r"field 'model.layers\[0\].units': expected an int"),
    (lambda d: d["model"]["layers"][1].__setitem__("activation", "gelu"),
     r"field 'model.layers\[1\].activation': expected one of .*got 'gelu'"),
    (lambda d: d["model"].__setitem__("input_shape", [4, 2]), r"field 'model.input_shape': expected a list of one"),
    (lambda d: d["loss"].__setitem__("name", "hinge"), r"field 'loss.name': expected one of .*got 'hinge'"),
    (lambda d: d["optimizer"].__setitem__("rho", 0.9), r"field 'optimizer.rho': expected one of the known keys"),
    (lambda d: d["optimizer"].update(clipvalue=1.0, clipnorm=1.0),
     r"field 'optimizer': expected at most one of clipnorm, clipvalue, global_clipnorm"),
    (lambda d: d["optimizer"].__setitem__("learning_rate", "fast"), r"field 'optimizer.learning_rate'"),
    (lambda d: d.__setitem__("metrics", ["auc"]), r"field 'metrics\[0\]': expected one of .*got 'auc'"),
    (lambda d: d.__setitem__("steps", 0), r"field 'steps': expected an int >= 1, got 0"),
    (lambda d: d.__setitem__("name", "other"), r"field 'name': expected the file stem 'keras_relu_mse_sgd'"),
    (lambda d: d.__setitem__("extra", 1), r"field 'extra': expected one of the known keys"),
    (lambda d: d.pop("loss"), r"field 'loss' is missing"),
    (lambda d: d.__setitem__("tolerance", {"rtol": -1}), r"field 'tolerance.rtol': expected a number >= 0"),
])
def test_schema_errors_name_the_field(case_dir: Path, edit, message: str) -> None:
    path = _edit_json(case_dir, edit)
    with pytest.raises(CaseError, match=message):
        load(path)


def test_case_error_is_a_value_error() -> None:
    assert issubclass(CaseError, ValueError)


def test_invalid_json_and_missing_files(tmp_path: Path, case_dir: Path) -> None:
    with pytest.raises(CaseError, match="expected an existing .json file"):
        load(tmp_path / "nothing.json")
    (case_dir / "keras_relu_mse_sgd.npz").unlink()
    with pytest.raises(CaseError, match=r"expected arrays file .*keras_relu_mse_sgd.npz"):
        load(case_dir / "keras_relu_mse_sgd.json")
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    with pytest.raises(CaseError, match="expected valid JSON"):
        load(bad)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda a: a.pop("weights/2"), r"array 'weights/2': expected present in the .npz, got missing"),
    (lambda a: a.pop("x"), r"array 'x': expected present in the .npz, got missing"),
    (lambda a: a.__setitem__("weights/4", np.zeros(3, np.float32)), r"array 'weights/4': expected no such key"),
    (lambda a: a.__setitem__("weights/0", np.zeros((4, 7), np.float32)),
     r"array 'weights/0': expected shape \(4, 6\) from the model spec, got shape \(4, 7\)"),
    (lambda a: a.__setitem__("weights/1", np.zeros((6,), np.float64)),
     r"array 'weights/1': expected dtype float32, got dtype float64"),
    (lambda a: a.__setitem__("x", a["x"][:10]), r"array 'x': expected at least steps\*batch_size = 24 rows"),
    (lambda a: a.__setitem__("x", a["x"][:, :3]), r"array 'x': expected shape \(N, 4\), got shape \(24, 3\)"),
    (lambda a: a.__setitem__("y", np.zeros((24, 2), np.float32)), r"array 'y': expected shape \(24,\) or \(24, 1\)"),
    (lambda a: a.__setitem__("sample_weight", np.ones(5, np.float32)),
     r"array 'sample_weight': expected shape \(24,\), got shape \(5,\)"),
])
def test_array_errors_name_the_array(case_dir: Path, edit, message: str) -> None:
    path = _edit_npz(case_dir, edit)
    with pytest.raises(CaseError, match=message):
        load(path)


def test_pickled_arrays_are_refused(case_dir: Path) -> None:
    path = case_dir / "keras_relu_mse_sgd.npz"
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["x"] = np.array([{"a": 1}], dtype=object)
    np.savez(path, **arrays)
    with pytest.raises(CaseError, match="no pickled objects"):
        load(case_dir / "keras_relu_mse_sgd.json")


def test_sparse_labels_must_be_class_indices(tmp_path: Path) -> None:
    case = load(DEFAULT_SUITE / "keras_relu_scce_adam_1d_labels.json")
    arrays = case.arrays.to_npz_dict()
    arrays["y"] = np.full(24, 3, dtype=np.int64)
    with pytest.raises(CaseError, match=r"array 'y': expected integer class labels in \[0, 3\)"):
        save(case, arrays, tmp_path)


def test_batches_follow_the_documented_rows() -> None:
    case = load(DEFAULT_SUITE / "keras_relu_mse_sgd_sample_weight.json")
    x, y, sw = case.batch(2)
    np.testing.assert_array_equal(x, case.arrays.x[16:24])
    np.testing.assert_array_equal(sw, case.arrays.sample_weight[16:24])
    with pytest.raises(ValueError, match=r"step must be in \[0, 3\), got 3"):
        case.batch(3)


def test_a_metric_listed_twice_is_an_error(case_dir: Path) -> None:
    path = _edit_json(case_dir, lambda doc: doc.update(metrics=["mae", "mae"]))
    with pytest.raises(CaseError, match=r"field 'metrics\[1\]': expected a metric not listed before, got 'mae'"):
        load(path)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_failed_save_leaves_the_old_case_whole(case_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The .npz writer raising half-way: the old .json and .npz are as they were and load, no temporary is left."""
    import tfnet_train.conformance.case as case_module

    before = _files(case_dir)
    case = load(case_dir / "keras_relu_mse_sgd.json")
    arrays = case.arrays.to_npz_dict()
    changed = {**arrays, "x": arrays["x"] + 1.0}
    write = case_module._write_npz

    def failing(path: Path, data) -> None:
        write(path, data)
        with open(path, "r+b") as handle:
            handle.truncate(100)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(case_module, "_write_npz", failing)
    with pytest.raises(OSError, match="No space left"):
        save(case, changed, case_dir)
    assert _files(case_dir) == before
    np.testing.assert_array_equal(load(case_dir / "keras_relu_mse_sgd.json").arrays.x, arrays["x"])


def test_a_save_killed_between_its_renames_is_refused_not_mixed(case_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON renamed, then the process stops before the .npz's rename: the new JSON beside the old arrays (which
    fit its spec) is refused by the digest, not loaded as a case."""
    import tfnet_train.files as files

    case = load(case_dir / "keras_relu_mse_sgd.json")
    arrays = case.arrays.to_npz_dict()
    replace, renamed = files.os.replace, []

    def stop_after_first(source, target) -> None:
        if renamed:
            raise KeyboardInterrupt  # what a kill leaves: no further rename
        replace(source, target)
        renamed.append(Path(target).name)

    monkeypatch.setattr(files.os, "replace", stop_after_first)
    with pytest.raises(KeyboardInterrupt):
        save(case.with_optimizer(learning_rate=0.5), {**arrays, "x": arrays["x"] + 1.0}, case_dir)
    monkeypatch.undo()
    assert renamed == ["keras_relu_mse_sgd.json"]
    assert json.loads((case_dir / "keras_relu_mse_sgd.json").read_text())["optimizer"]["learning_rate"] == 0.5
    with pytest.raises(CaseError, match=r"keras_relu_mse_sgd.npz.*expected SHA-256 [0-9a-f]{64} \(arrays_sha256 in "
                                        r".*got [0-9a-f]{64}: the two files are not of one save"):
        load(case_dir / "keras_relu_mse_sgd.json")
    assert sorted(p.name for p in case_dir.iterdir()) == ["keras_relu_mse_sgd.json", "keras_relu_mse_sgd.npz"]


def test_the_arrays_digest_is_checked_and_optional(case_dir: Path) -> None:
    doc = json.loads((case_dir / "keras_relu_mse_sgd.json").read_text())
    assert re.fullmatch("[0-9a-f]{64}", doc["arrays_sha256"])
    assert doc["arrays_sha256"] == hashlib.sha256((case_dir / "keras_relu_mse_sgd.npz").read_bytes()).hexdigest()
    for bad in ("ABC", 7, None, "0" * 63, "G" * 64):
        with pytest.raises(CaseError, match="'arrays_sha256': expected 64 lowercase hex digits"):
            load(_edit_json(case_dir, lambda d, bad=bad: d.__setitem__("arrays_sha256", bad)))
    assert load(_edit_json(case_dir, lambda d: d.pop("arrays_sha256"))).name == "keras_relu_mse_sgd"  # hand-written
