"""Test session set-up: quiet TensorFlow, two logical CPU devices (for MirroredStrategy tests), a seed per test,
paths."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

_cpus = tf.config.list_physical_devices("CPU")
if _cpus:
    try:
        tf.config.set_logical_device_configuration(
            _cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
        )
    except RuntimeError:  # TensorFlow already initialised its devices
        pass

ROOT = Path(__file__).resolve().parents[1]
DOTNET_BIN = ROOT / "dotnet" / "bin"


@pytest.fixture(autouse=True)
def _seeded(request: pytest.FixtureRequest) -> None:
    """Seed Python, NumPy and Keras from the test's id: weight initialisers and shuffles, and so every compared
    number, are the same in every run and in any test order. TFNET_TEST_SEED=k draws another set of seeds."""
    import keras

    salt = os.environ.get("TFNET_TEST_SEED", "")
    keras.utils.set_random_seed(zlib.crc32(f"{request.node.nodeid}{salt}".encode()))


@pytest.fixture
def dotnet_bin() -> Path:
    """The folder the C# build writes to; the build is part of `make test`."""
    if not (DOTNET_BIN / "Python.Runtime.dll").exists():
        raise RuntimeError(f"C# build output missing in {DOTNET_BIN}: run `make build` (or `make test`)")
    return DOTNET_BIN


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Skip Python's full GC passes at exit: with TensorFlow and Mono loaded they take seconds."""
    import gc

    gc.disable()
    gc.freeze()
