"""HDF5 files whose datasets declare more than they store, or more than the model could take, are refused before
any of it is read: by load_weights (weights files, any-name .h5, .keras archives), load_model (whole-model .h5 and
.keras) and in a fresh process whose memory stays far below what the file declares. Damaged files (found by the
fuzz targets ``weights`` and ``keras_h5``) are refused with a ValueError naming them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import h5py
import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.engine import h5_checks

GIB = 1 << 30


def model() -> keras.Model:
    keras.utils.set_random_seed(0)
    m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(6), keras.layers.Dense(3)])
    m.compile(optimizers.Adam(0.01), "mse")
    return m


def first_dataset(f: h5py.File) -> str:
    found: list[str] = []
    f.visititems(lambda name, item: found.append(name) if isinstance(item, h5py.Dataset) and not found else None)
    return found[0]


def replace_first_dataset(path: Path, make: object) -> str:
    """The file's first dataset replaced by what ``make(file, name)`` creates; returns its name."""
    with h5py.File(path, "r+") as f:
        name = first_dataset(f)
        del f[name]
        make(f, name)
    return name


def unwritten_chunks(size: int):
    return lambda f, name: f.create_dataset(name, shape=(size // 4,), dtype="f4", chunks=(1024,))


def weights_file(tmp_path: Path, make: object, name: str = "m.weights.h5") -> tuple[keras.Model, Path, str]:
    m = model()
    path = tmp_path / name
    m.save_weights(path)
    return m, path, replace_first_dataset(path, make)


def assert_refused_unchanged(m: keras.Model, path: Path, match: str) -> None:
    before = [w.copy() for w in m.get_weights()]
    with pytest.raises(ValueError, match=match):
        m.load_weights(path)
    for a, b in zip(before, m.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_dataset_declaring_unwritten_chunks_is_refused_naming_it(tmp_path: Path) -> None:
    m, path, name = weights_file(tmp_path, unwritten_chunks(GIB))
    assert_refused_unchanged(m, path, rf"{name}.*declares {GIB} bytes.*stores 0 bytes")


def test_any_name_h5_weights_are_checked_too(tmp_path: Path) -> None:
    m, path, _ = weights_file(tmp_path, unwritten_chunks(GIB), name="model.h5")
    assert_refused_unchanged(m, path, "declares")


def test_a_stored_dataset_larger_than_any_variable_is_refused(tmp_path: Path) -> None:
    stored = np.zeros(1 << 20, "f4")  # 4 MiB, written: larger than every variable (and the 64 KiB floor)
    m, path, name = weights_file(tmp_path, lambda f, n: f.create_dataset(n, data=stored))
    assert_refused_unchanged(m, path, rf"{name}.*more than the model's largest variable")


def test_many_small_datasets_beyond_the_models_budget_are_refused(tmp_path: Path) -> None:
    m = model()
    path = tmp_path / "m.weights.h5"
    m.save_weights(path)
    with h5py.File(path, "r+") as f:
        for i in range(40):
            f.create_dataset(f"extra/{i}", data=np.zeros(16 << 10, "f4"))  # 64 KiB each, 2.5 MiB in all
    assert_refused_unchanged(m, path, "in all, more than this model's variables")


def test_external_storage_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"secret" * 4)
    m, path, name = weights_file(
        tmp_path, lambda f, n: f.create_dataset(n, shape=(24,), dtype="u1", external=[(str(outside), 0, 24)]))
    assert_refused_unchanged(m, path, rf"{name}.*outside the file")


def test_a_well_formed_weights_file_still_loads(tmp_path: Path) -> None:
    m = model()
    m.fit(np.ones((8, 4), "f4"), np.ones((8, 3), "f4"), epochs=1, verbose=0)
    path = tmp_path / "m.weights.h5"
    m.save_weights(path)
    fresh = model()
    fresh.fit(np.ones((8, 4), "f4"), np.ones((8, 3), "f4"), epochs=1, verbose=0)  # builds the optimizer's slots
    fresh.load_weights(path)
    for a, b in zip(m.get_weights(), fresh.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_whole_model_h5_is_refused_before_its_weights_are_read(tmp_path: Path) -> None:
    path = tmp_path / "m.h5"
    model().save(path)
    name = replace_first_dataset(path, unwritten_chunks(GIB))
    with pytest.raises(ValueError, match=rf"{name}.*declares"):
        tfnet_train.load_model(path)


def rebuilt_keras(tmp_path: Path, make: object) -> Path:
    """A ``.keras`` file of ``model()`` whose weights member has its first dataset replaced."""
    original = tmp_path / "m.keras"
    model().save(original)
    weights = tmp_path / "model.weights.h5"
    with zipfile.ZipFile(original) as archive:
        weights.write_bytes(archive.read("model.weights.h5"))
        members = {i.filename: archive.read(i) for i in archive.infolist() if i.filename != "model.weights.h5"}
    replace_first_dataset(weights, make)
    forged = tmp_path / "forged.keras"
    with zipfile.ZipFile(forged, "w") as out:
        for member, data in members.items():
            out.writestr(member, data)
        out.write(weights, "model.weights.h5")
    return forged


def test_a_keras_archive_with_a_forged_weights_member_is_refused(tmp_path: Path) -> None:
    forged = rebuilt_keras(tmp_path, unwritten_chunks(GIB))
    with pytest.raises(ValueError, match=r"member 'model.weights.h5'.*declares"):
        tfnet_train.load_model(forged)
    m = model()
    assert_refused_unchanged(m, forged, r"member 'model.weights.h5'.*declares")


def test_the_checks_count_what_libhdf5_reports(tmp_path: Path) -> None:
    """An independent count: h5py's own sizes for a file of every layout the checks tell apart."""
    path = tmp_path / "layouts.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("contiguous", data=np.zeros((10, 10), "f4"))
        f.create_dataset("scalar", data=np.int64(3))
        f.create_dataset("empty", shape=(0,), dtype="f4")
        f.create_dataset("deflated", data=np.zeros(1000, "f4"), compression="gzip")
    with h5py.File(path, "r") as f:
        assert h5_checks.check_stored_sizes(f, "layouts") == 400 + 8 + 0 + 4000


MEASURE = """
import resource, sys
import keras, numpy as np
import tfnet_train
from tfnet_train import optimizers
keras.utils.set_random_seed(0)
m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(6), keras.layers.Dense(3)])
m.compile(optimizers.Adam(0.01), "mse")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    m.load_weights(sys.argv[1])
except ValueError as error:
    print("refused:", error)
print("grew_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_a_fresh_process_refuses_it_without_allocating_what_it_declares(tmp_path: Path) -> None:
    _, path, _ = weights_file(tmp_path, unwritten_chunks(4 * GIB))
    assert path.stat().st_size < 64 << 10
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path)], env=env, capture_output=True, text=True,
                          timeout=600, check=True)
    assert "refused:" in done.stdout, done.stdout + done.stderr
    grew_kib = int(done.stdout.split("grew_kib")[1])
    assert grew_kib < 256 << 10, f"the process grew by {grew_kib} KiB while refusing a 4 GiB declaration"


# ----- damaged files (the fuzz targets' findings, rebuilt small) ---------------------------------------------------


def damage_bytes(path: Path, damage: object) -> None:
    """``path`` rewritten with ``damage(bytearray, file)`` applied to its bytes (the file open read-only for
    addresses)."""
    data = bytearray(path.read_bytes())
    with h5py.File(path, "r") as f:
        damage(data, f)
    path.write_bytes(bytes(data))


def bad_symbol_table_node(data: bytearray, f: h5py.File) -> None:
    at = data.index(b"SNOD")
    data[at:at + 4] = b"XXXX"  # h5py: RuntimeError "bad symbol table node signature" while visiting


def bad_dataspace_version(data: bytearray, f: h5py.File) -> None:
    # a version 1 object header: 16 bytes, then the dataspace message's 8-byte header and its version byte
    addr = h5py.h5o.get_info(f[first_dataset(f)].id).addr
    assert data[addr] == 1 and data[addr + 16] == 1, "a version 1 header whose first message is the dataspace"
    data[addr + 24] = 0x7F  # h5py: KeyError "wrong version number in dataspace message" opening the dataset


@pytest.mark.parametrize("damage, match", [(bad_symbol_table_node, "bad symbol table node signature"),
                                           (bad_dataspace_version, "wrong version number in dataspace message")])
def test_a_damaged_weights_file_is_refused_naming_it(tmp_path: Path, damage: object, match: str) -> None:
    m = model()
    path = tmp_path / "m.weights.h5"
    m.save_weights(path)
    damage_bytes(path, damage)
    assert_refused_unchanged(m, path, rf"{path}.*libhdf5 cannot read this HDF5 file.*{match}")


@pytest.mark.parametrize("damage, match", [(bad_symbol_table_node, "bad symbol table node signature"),
                                           (bad_dataspace_version, "wrong version number in dataspace message")])
def test_a_damaged_whole_model_h5_is_refused_naming_it(tmp_path: Path, damage: object, match: str) -> None:
    path = tmp_path / "m.h5"
    model().save(path)
    damage_bytes(path, damage)
    with pytest.raises(ValueError, match=rf"{path}.*libhdf5 cannot read this HDF5 file.*{match}"):
        tfnet_train.load_model(path)


def test_a_shape_whose_size_overflows_int64_is_still_counted(tmp_path: Path) -> None:
    """2**32 x 2**32 elements: counted in int64 that is 0 bytes, which the checks once let through."""
    m, path, name = weights_file(
        tmp_path, lambda f, n: f.create_dataset(n, shape=(1 << 32, 1 << 32), dtype="f4", chunks=(1, 1024)))
    assert_refused_unchanged(m, path, rf"{name}.*declares {4 << 64} bytes.*stores 0 bytes")


def test_a_whole_model_h5_missing_a_listed_weight_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "m.h5"
    model().save(path)
    with h5py.File(path, "r+") as f:
        group = f[first_dataset(f)].parent
        f.move(f"{group.name}/bias", f"{group.name}/f")  # weight_names still lists "bias": Keras raised KeyError
    with pytest.raises(ValueError, match=rf"{path}.*no 'bias' entry"):
        tfnet_train.load_model(path)


def rewrite_config(path: Path, change: object) -> None:
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs["model_config"])
        change(config)
        f.attrs["model_config"] = json.dumps(config)


@pytest.mark.parametrize("change, error", [
    (lambda c: c.pop("class_name"), "KeyError"),
    (lambda c: c["config"]["layers"][0]["config"].update(jatch_shape=c["config"]["layers"][0]["config"].pop(
        "batch_shape")), "TypeError")], ids=["no_class_name", "unknown_argument"])
def test_a_model_config_keras_cannot_build_is_refused_naming_the_file(tmp_path: Path, change: object,
                                                                      error: str) -> None:
    path = tmp_path / "m.h5"
    model().save(path)
    rewrite_config(path, change)
    with pytest.raises(ValueError, match=rf"{path}.*model_config does not describe a model.*{error}"):
        tfnet_train.load_model(path)


def empty_free_space(data: bytearray, f: h5py.File) -> None:
    """The first object of the first global heap collection made free space (index 0) of size 0."""
    at = data.index(b"GCOL")
    data[at + 16:at + 18] = bytes(2)
    data[at + 24:at + 32] = bytes(8)


def test_an_empty_free_space_object_in_a_global_heap_is_found_without_libhdf5(tmp_path: Path) -> None:
    path = tmp_path / "m.h5"
    model().save(path)
    with open(path, "rb") as stream:
        h5_checks.check_global_heaps(stream, 8, "m.h5")  # a saved file passes
    damage_bytes(path, empty_free_space)
    at = path.read_bytes().index(b"GCOL") + 16
    with pytest.raises(ValueError, match=rf"m\.h5: the global heap object at byte {at} is empty free space"):
        h5_checks.check_global_heaps(io.BytesIO(path.read_bytes()), 8, "m.h5")


LOOPING = """
import sys
import keras
import tfnet_train
from tfnet_train import optimizers
m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(6), keras.layers.Dense(3)])
m.compile(optimizers.Adam(0.01), "mse")
for load in (lambda: m.load_weights(sys.argv[1]), lambda: tfnet_train.load_model(sys.argv[2])):
    try:
        load()
    except ValueError as error:
        print("refused:", error)
"""


def test_files_libhdf5_would_loop_on_are_refused_in_a_fresh_process(tmp_path: Path) -> None:
    """libhdf5 1.14 never returns from reading a string in a global heap with an empty free-space object (a
    fuzz-found hang): such weights and whole-model files are refused before libhdf5 parses the heap."""
    m = model()
    weights, whole = tmp_path / "m.weights.h5", tmp_path / "m.h5"
    m.save_weights(weights)
    m.save(whole)
    for path in (weights, whole):
        damage_bytes(path, empty_free_space)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run([sys.executable, "-c", LOOPING, str(weights), str(whole)], env=env, capture_output=True,
                          text=True, timeout=600, check=True)
    refusals = [line for line in done.stdout.splitlines() if line.startswith("refused:")]
    assert len(refusals) == 2 and all("global heap object" in line for line in refusals), done.stdout + done.stderr
