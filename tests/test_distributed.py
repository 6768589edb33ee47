"""Fit and evaluate under MultiWorkerMirroredStrategy (two workers on loopback, started by the launcher) equal one
device: the global batch is split across workers, gradients summed, then clipped. Files come from the chief alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from tfnet_train.launch import launch

WORKER = Path(__file__).with_name("distributed_worker.py")
SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_two_workers_train_and_evaluate_as_one_device(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("TF_CONFIG", None)
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
