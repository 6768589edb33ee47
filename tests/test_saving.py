"""Training state that survives: whole-model files interchangeable with Keras 3, exact resume in a fresh process,
files written whole or not at all (SIGKILL inside saves and inside fit), TF.NET's .h5 names, loads that change
nothing when they fail, and files that never run their own code."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import optimizers

WORKER = Path(__file__).with_name("training_worker.py")
X = np.random.default_rng(3).normal(size=(32, 4)).astype("float32")
Y = np.random.default_rng(4).integers(0, 3, 32)


def worker(*args: str, **kwargs: object) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    return subprocess.run([sys.executable, str(WORKER), *args], env=env, check=True, capture_output=True,
                          text=True, timeout=600, **kwargs)


def popen(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    return subprocess.Popen([sys.executable, str(WORKER), *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def classifier(cls: type = tfnet_train.Sequential) -> keras.Model:
    keras.utils.set_random_seed(0)
    return cls([keras.Input((4,)), keras.layers.Dense(6, activation="tanh"), keras.layers.Dense(3)])


def compiled(cls: type = tfnet_train.Sequential, optimizer: object = None, **kwargs: object) -> keras.Model:
    m = classifier(cls)
    m.compile(optimizer or optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"], **kwargs)
    return m


def assert_same_state(a: keras.Model, b: keras.Model) -> None:
    for x, y in zip(a.get_weights(), b.get_weights(), strict=True):
        np.testing.assert_array_equal(x, y)
    assert len(a.optimizer.variables) == len(b.optimizer.variables)
    for x, y in zip(a.optimizer.variables, b.optimizer.variables, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


# ----- whole-model files ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
def test_save_and_load_model_keep_everything_and_continue_identically(tmp_path: Path, semantics: str) -> None:
    m = compiled(semantics=semantics, steps_per_execution=2)
    m.fit(X, Y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    m.save(tmp_path / "m.keras")
    loaded = tfnet_train.load_model(tmp_path / "m.keras")
    assert type(loaded) is tfnet_train.Sequential and loaded.compiled
    assert loaded.semantics == semantics and loaded.steps_per_execution == 2
    assert int(loaded._train_counter.numpy()) == int(m._train_counter.numpy()) == 4
    assert type(loaded.optimizer) is optimizers.Adam
    assert_same_state(loaded, m)
    for model in (m, loaded):
        model.train_on_batch(X[:8], Y[:8])
    assert_same_state(loaded, m)
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), m.predict(X, verbose=0))


def test_keras_opens_engine_files_without_custom_objects(tmp_path: Path) -> None:
    m = compiled()
    m.fit(X, Y, verbose=0)
    m.save(tmp_path / "m.keras")
    opened = keras.saving.load_model(tmp_path / "m.keras")
    assert isinstance(opened, tfnet_train.Sequential) and opened.compiled
    np.testing.assert_array_equal(opened.predict(X, verbose=0), m.predict(X, verbose=0))


def test_keras_files_open_as_compiled_engine_models_and_continue_as_keras_does(tmp_path: Path) -> None:
    reference = compiled(keras.Sequential, keras.optimizers.Adam(0.01))
    reference.fit(X, Y, batch_size=8, verbose=0, shuffle=False)
    reference.save(tmp_path / "k.keras")
    ours = tfnet_train.load_model(tmp_path / "k.keras")
    assert isinstance(ours, tfnet_train.Sequential) and ours.compiled
    np.testing.assert_array_equal(ours.predict(X, verbose=0), reference.predict(X, verbose=0))
    reference.fit(X, Y, batch_size=8, verbose=0, shuffle=False)
    ours.fit(X, Y, batch_size=8, verbose=0, shuffle=False)
    for a, b in zip(ours.get_weights(), reference.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_resume_in_a_fresh_process_is_bit_identical(tmp_path: Path) -> None:
    """Every optimizer option and both profiles: 3 steps, save, a new process loads and takes 3 more; weights,
    optimizer variables and _train_counter equal 6 uninterrupted steps exactly (max |delta| = 0)."""
    worker("resume-first", str(tmp_path), "3")
    worker("resume-rest", str(tmp_path), "6")
    worker("whole", str(tmp_path), "6")
    names = sorted(p.name.removesuffix(".whole.npz") for p in tmp_path.glob("*.whole.npz"))
    assert len(names) == 12
    for name in names:
        rest, whole = np.load(tmp_path / f"{name}.rest.npz"), np.load(tmp_path / f"{name}.whole.npz")
        assert sorted(rest.files) == sorted(whole.files), name
        for key in whole.files:
            assert np.max(np.abs(rest[key].astype(np.float64) - whole[key].astype(np.float64))) == 0, (name, key)


def test_safe_mode_refuses_a_files_code_unless_the_caller_opts_in(tmp_path: Path) -> None:
    inputs = keras.Input((4,))
    model = tfnet_train.Model(inputs, keras.layers.Lambda(lambda t: t * 2.0)(inputs))
    model.save(tmp_path / "lambda.keras")
    with pytest.raises(ValueError, match="safe_mode"):
        tfnet_train.load_model(tmp_path / "lambda.keras")
    trusted = tfnet_train.load_model(tmp_path / "lambda.keras", safe_mode=False)
    np.testing.assert_array_equal(trusted.predict(X, verbose=0), 2.0 * X)


# ----- weights files ------------------------------------------------------------------------------------------------

def test_h5_names_hold_the_weights_h5_content_and_load_both_ways(tmp_path: Path) -> None:
    m = compiled()
    m.fit(X, Y, verbose=0)
    m.save_weights(tmp_path / "model.h5")
    m.save_weights(tmp_path / "model.weights.h5")
    for name in ("model.h5", "model.weights.h5"):
        fresh = compiled()
        fresh.load_weights(tmp_path / name)
        assert_same_state(fresh, m)
    keras_model = compiled(keras.Sequential, keras.optimizers.Adam(0.01))
    keras_model.load_weights(tmp_path / "model.weights.h5")
    np.testing.assert_array_equal(keras_model.predict(X, verbose=0), m.predict(X, verbose=0))


def test_a_load_that_does_not_fit_leaves_every_weight_as_it_was(tmp_path: Path) -> None:
    deeper = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(6), keras.layers.Dense(6),
                                     keras.layers.Dense(3)])
    deeper.save_weights(tmp_path / "deeper.weights.h5")
    m = compiled()
    m.fit(X, Y, verbose=0)
    before = [w.copy() for w in m.get_weights()]
    slots = [np.asarray(v).copy() for v in m.optimizer.variables]
    with pytest.raises(ValueError):
        m.load_weights(tmp_path / "deeper.weights.h5")
    for a, b in zip(m.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(m.optimizer.variables, slots, strict=True):
        np.testing.assert_array_equal(np.asarray(a), b)


def test_save_weights_refuses_other_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"filepath must end in \.weights\.h5 \(or \.h5"):
        compiled().save_weights(tmp_path / "model.bin")


@pytest.mark.parametrize("name", ["model.weights.h5", "model.h5"])
def test_save_weights_into_a_missing_folder_is_refused_and_changes_nothing(tmp_path: Path, name: str) -> None:
    """As Keras's save_weights (h5py cannot create the file): a FileNotFoundError naming the folder; no folder is
    made, and the model is as it was. BackupAndRestore still makes its own folder."""
    m = compiled()
    m.fit(X, Y, batch_size=8, verbose=0)
    before = [np.array(v.numpy()) for v in m.weights + m.optimizer.variables]
    counter = int(m._train_counter.numpy())
    missing = tmp_path / "missing" / "deeper"
    with pytest.raises(FileNotFoundError, match=r"the folder .*missing/deeper' is not an existing folder"):
        m.save_weights(missing / name)
    with pytest.raises(FileNotFoundError, match=r"is not an existing folder"):
        m._save_weights_hdf5(missing / "weights.bin")  # TF.NET's save_weights under any name, as the face calls it
    assert not (tmp_path / "missing").exists()
    assert all(np.array_equal(a, b.numpy()) for a, b in zip(before, m.weights + m.optimizer.variables, strict=True))
    assert int(m._train_counter.numpy()) == counter
    backup = tfnet_train.callbacks.BackupAndRestore(str(tmp_path / "new" / "backup"), delete_checkpoint=False)
    m.fit(X, Y, batch_size=8, verbose=0, callbacks=[backup])
    assert list((tmp_path / "new" / "backup").glob("backup-*.weights.h5"))


# ----- crash safety -------------------------------------------------------------------------------------------------

def _kill_inside_saves(path: Path, kind: str, kills: int) -> int:
    landed = 0
    for _ in range(kills):
        process = popen("save-loop", str(path), kind)
        target = random.randint(1, 3)
        for line in process.stdout:
            if line.strip() == f"saving {target}":
                time.sleep(random.uniform(0.0, 0.02))  # a save takes longer than this: the kill lands inside it
                break
        temporaries_before = set(path.parent.glob(f".{path.name}.*"))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        landed += bool(set(path.parent.glob(f".{path.name}.*")) - temporaries_before or temporaries_before)
        if kind == "model":
            loaded = tfnet_train.load_model(path)
            assert loaded.compiled
        else:
            compiled().load_weights(path)
        for leftover in path.parent.glob(f".{path.name}.*"):
            leftover.unlink()
    return landed


@pytest.mark.parametrize("kind", ["model", "weights"])
def test_sigkill_inside_saves_leaves_a_loadable_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / ("m.keras" if kind == "model" else "m.weights.h5")
    landed = _kill_inside_saves(path, kind, kills=6)
    assert landed >= 3, f"only {landed} of 6 kills landed inside a save"


def test_sigkill_inside_fit_with_backup_and_restore_resumes_bit_identically(tmp_path: Path) -> None:
    """A fit killed ten times at random steps (mid-epoch included) and started again each time with the same call
    ends with the weights and optimizer variables of a fit never interrupted."""
    worker("fit-backup", str(tmp_path / "clean-backup"), str(tmp_path / "whole.npz"))
    backup = tmp_path / "backup"
    for _ in range(10):
        process = popen("fit-backup", str(backup), str(tmp_path / "resumed.npz"))
        stop_after = random.randint(1, 6)
        seen = 0
        for line in process.stdout:
            if line.startswith("step"):
                seen += 1
                if seen >= stop_after:
                    time.sleep(random.uniform(0.0, 0.01))
                    break
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    worker("fit-backup", str(backup), str(tmp_path / "resumed.npz"))
    resumed, whole = np.load(tmp_path / "resumed.npz"), np.load(tmp_path / "whole.npz")
    for key in whole.files:
        if key != "counter":  # counts this fit's steps only: TF.NET resets it when fit starts
            np.testing.assert_array_equal(resumed[key], whole[key], err_msg=key)


def test_only_the_chief_writes_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a worker other than the chief every save still runs, but nothing lands in the shared folder."""
    import tfnet_train.callbacks.backup_and_restore as backup_module
    import tfnet_train.distribution as distribution_module
    import tfnet_train.engine.save as save_module

    monkeypatch.setattr(distribution_module, "is_chief", lambda model: False)  # written_by_chief's
    monkeypatch.setattr(save_module, "is_chief", lambda model: False)
    monkeypatch.setattr(backup_module, "is_chief", lambda model: False)
    m = compiled()
    m.save(tmp_path / "m.keras")
    m.save_weights(tmp_path / "m.weights.h5")
    backup = tfnet_train.callbacks.BackupAndRestore(str(tmp_path / "backup"), save_freq=1)
    checkpoint = keras.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}.keras"))
    m.fit(X, Y, batch_size=8, epochs=2, verbose=0, callbacks=[backup, checkpoint])
    assert sorted(p.name for p in tmp_path.iterdir()) == []
