"""Fit and evaluate under MultiWorkerMirroredStrategy (two workers on loopback, started by the launcher) and
MirroredStrategy (two logical CPUs) equal one device: the global batch is split across replicas, gradients summed,
then clipped; shuffled arrays follow the chief's seed. Files come from the chief alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tfnet_train.launch import launch
from tfnet_train.tolerances import assert_close

sys.path.insert(0, str(Path(__file__).parent))
import distributed_cases  # noqa: E402

WORKER = Path(__file__).with_name("distributed_worker.py")
CASES = Path(__file__).with_name("distributed_cases.py")
SRC = str(Path(__file__).resolve().parents[1] / "src")
MULTI_WORKER_CASES = [*distributed_cases.MATRIX, "spe4", "spe4_per_worker"]  # all in one launched run
MIRRORED_CASES = list(distributed_cases.CASES)


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("TF_CONFIG", None)
    return env


def assert_case_equal(actual: dict, expected: dict, what: str) -> None:
    assert sorted(actual) == sorted(expected), what
    for key, value in expected.items():
        if key.endswith("/loss"):
            assert_close(actual[key], value, what=f"{what}: {key}")
        elif key.endswith("/steps"):
            assert int(actual[key]) == int(value) == 20, f"{what}: {key}"
        else:  # weights after 20 steps within 1e-6 of one device
            assert_close(actual[key], value, rtol=0.0, what=f"{what}: {key}")


@pytest.fixture(scope="module")
def one_device() -> dict[str, dict[str, np.ndarray]]:
    names = sorted(set(MULTI_WORKER_CASES) | set(MIRRORED_CASES))
    return {name: distributed_cases.run(name) for name in names}


@pytest.fixture(scope="module")
def multi_worker(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, np.ndarray]]:
    """Every multi-worker case in one launched run of two workers (each start costs seconds)."""
    out = tmp_path_factory.mktemp("cases") / "multi"
    status = launch([sys.executable, str(CASES), str(out), *MULTI_WORKER_CASES], workers=2, timeout=300,
                    env=_env())
    assert status == 0
    return [dict(np.load(f"{out}_{index}.npz")) for index in (0, 1)]


@pytest.fixture(scope="module")
def mirrored() -> tf.distribute.MirroredStrategy:
    """One strategy for the module: several over the same devices in one process can collide."""
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"],
                                          cross_device_ops=tf.distribute.ReductionToOneDevice())


@pytest.mark.parametrize("name", MULTI_WORKER_CASES)
def test_multi_worker_case_equals_one_device(name: str, multi_worker: list, one_device: dict) -> None:
    for index, results in enumerate(multi_worker):
        assert_case_equal({k: v for k, v in results.items() if k.startswith(f"{name}/")}, one_device[name],
                          f"worker {index}")


@pytest.mark.filterwarnings("ignore:Your input ran out of data")  # Keras's note on a dataset of unknown length
@pytest.mark.parametrize("name", MIRRORED_CASES)
def test_mirrored_case_equals_one_device(name: str, mirrored: tf.distribute.MirroredStrategy,
                                         one_device: dict) -> None:
    assert_case_equal(distributed_cases.run(name, mirrored), one_device[name], "mirrored")


def test_two_workers_train_and_evaluate_as_one_device(tmp_path: Path) -> None:
    env = _env()
    subprocess.run([sys.executable, str(WORKER), str(tmp_path / "one")], env=env, check=True, timeout=300)
    files = tmp_path / "files"
    status = launch([sys.executable, str(WORKER), str(tmp_path / "multi"), str(files)], workers=2, timeout=300,
                    env=env)
    assert status == 0
    assert sorted(p.name for p in files.iterdir()) == ["e1.weights.h5", "e2.weights.h5", "model.keras"]
    import tfnet_train

    saved = tfnet_train.load_model(files / "model.keras")
    np.testing.assert_allclose(saved.get_weights()[0], np.load(tmp_path / "multi_0.npz")["arrays/w0"], atol=1e-6)
    one = np.load(tmp_path / "one_0.npz")
    for index in (0, 1):
        multi = np.load(tmp_path / f"multi_{index}.npz")
        assert sorted(multi.files) == sorted(one.files)
        for key in one.files:
            np.testing.assert_allclose(multi[key], one[key], rtol=0, atol=1e-6, err_msg=f"worker {index}: {key}")


@pytest.mark.parametrize("rows", [8, 7])
def test_traced_step_under_mirrored_shows_each_replica_and_the_one_device_step(
        rows: int, mirrored: tf.distribute.MirroredStrategy) -> None:
    import keras

    import tfnet_train

    x, y = distributed_cases.X[:rows], distributed_cases.Y[:rows]
    traces = []
    for scope in (tf.distribute.get_strategy().scope(), mirrored.scope()):
        with scope:
            model = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"),
                                            keras.layers.Dense(1)])
            model.set_weights(distributed_cases.INIT)
            model.compile(tfnet_train.optimizers.SGD(0.1, momentum=0.9, clipnorm=0.5), "mse", metrics=["mae"])
        traces.append(model.train_step_traced(x, y))
    one, split = traces
    assert one.replicas == [] and [r["rows"] for r in split.replicas] == [(rows + 1) // 2, rows // 2]
    flat_one, flat_split = one.flat(), split.flat()
    for key, value in flat_one.items():  # the step as a whole equals one device's
        assert_close(flat_split[key], value, what=key)
    for r, replica in enumerate(split.replicas):
        start = 0 if r == 0 else split.replicas[0]["rows"]
        part = slice(start, start + replica["rows"])
        assert_close(replica["inputs"]["x"][0], x[part], what=f"replica {r} rows")
        assert_close(replica["y_pred"][0], one.y_pred[0][part], what=f"replica {r} y_pred")
        expected = float(np.mean((one.y_pred[0][part] - y[part]) ** 2))
        assert_close(replica["loss"], expected, what=f"replica {r} loss")
    for i, aggregated in enumerate(one.gradients):  # the replicas' gradients sum to one device's gradients
        assert_close(sum(r["gradients"][i] for r in split.replicas), aggregated, what=f"sum of gradients {i}")
        assert_close(split.aggregated_gradients[i], aggregated, what=f"aggregated gradients {i}")
    assert not np.allclose(split.replicas[0]["gradients"][0], one.gradients[0])
    assert "replicas/1/gradients/0" in flat_split


def test_traced_step_refuses_replicas_in_other_processes() -> None:
    from tfnet_train.engine import replicas

    class TwoWorkers:
        num_replicas_in_sync = 2

        class extended:  # noqa: N801
            worker_devices = ("/job:worker/task:0/device:CPU:0",)

    with pytest.raises(ValueError, match="1 local of 2 replicas"):
        replicas.check_local(TwoWorkers())


def test_a_killed_worker_and_a_restarted_job_end_as_an_uninterrupted_fit(tmp_path: Path) -> None:
    backup, marker, out = tmp_path / "backup", tmp_path / "died", tmp_path / "resumed"
    command = [sys.executable, str(CASES), str(out), "--resume", str(backup), str(marker)]
    status = launch(command, workers=2, timeout=180, env=_env())
    assert status == 3 and marker.exists()  # worker 1 died in epoch 2; the launcher ended worker 0
    assert not any(tmp_path.glob("resumed_*.npz"))
    assert (backup / "training_metadata.json").exists()
    assert launch(command, workers=2, timeout=180, env=_env()) == 0  # the job started again resumes
    expected = distributed_cases.resumable()
    assert list(expected.pop("resume/epochs")) == [0, 1, 2, 3]
    for index in (0, 1):
        resumed = dict(np.load(f"{out}_{index}.npz"))
        assert list(resumed.pop("resume/epochs")) == [2, 3], f"worker {index} did not resume from the epoch 1 backup"
        assert sorted(resumed) == sorted(expected)
        for key, value in expected.items():
            assert_close(resumed[key], value, rtol=0.0, what=f"worker {index}: {key}")
