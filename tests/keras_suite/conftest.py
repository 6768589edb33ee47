"""Keras 3's own training tests, run from the installed wheel with the engine's classes substituted.

Run: ``pytest tests/keras_suite`` (engine's Model, Sequential, Functional and optimizers in place of Keras's);
``TFNET_KERAS_SUITE=keras pytest tests/keras_suite`` runs the same tests against Keras itself.
The suite is collected only when asked for (a path under tests/keras_suite on the command line, or
TFNET_KERAS_SUITE set); RUN_BY_DEFAULT makes it part of every ``pytest`` run.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import os
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import pytest  # noqa: E402

from keras_suite.substitution import MODE_VARIABLE, mode  # noqa: E402

RUN_BY_DEFAULT = False
HERE = Path(__file__).resolve().parent


def _absent(package: str) -> bool:
    return importlib.util.find_spec(package) is None


# Tests that cannot run on this machine: node id below tests/keras_suite/ (fnmatch pattern) -> one-line reason.
# A test that needs an optional package is listed only while that package is missing; the `test` extra installs
# tensorboard, grain, jax and orbax-checkpoint, so only torch's tests stay out after `make install`.
_TB = "test_callbacks_tensorboard.py::TestTensorBoardV2::"
_TRAINER = "test_trainer.py::TestTrainer::"
DESELECTED: dict[str, str] = {
    **(
        {"test_callbacks_orbax_checkpoint.py::*": "OrbaxCheckpoint needs the orbax-checkpoint package"}
        if _absent("orbax")
        else {}
    ),
    **(
        {
            f"{_TB}{name}": "writes summaries, which need the tensorboard package"
            for name in (
                "test_TensorBoard_across_invocations",
                "test_TensorBoard_auto_trace",
                "test_TensorBoard_basic",
                "test_TensorBoard_batch_metrics",
                "test_TensorBoard_global_step",
                "test_TensorBoard_learning_rate_schedules",
                "test_TensorBoard_no_spurious_event_files",
                "test_TensorBoard_non_blocking",
                "test_TensorBoard_projector_callback",
                "test_TensorBoard_weight_histograms",
                "test_TensorBoard_weight_images",
                "test_custom_summary",
            )
        }
        if _absent("tensorboard")
        else {}
    ),
    **(
        {f"{_TRAINER}test_*_sparse_jax_*": "builds JAX sparse arrays, which need the jax package"}
        if _absent("jax")
        else {}
    ),
    **(
        {f"{_TRAINER}test_fit_with_data_adapter_grain_*": "feeds a Grain dataset, which needs the grain package"}
        if _absent("grain")
        else {}
    ),
    **(
        {f"{_TRAINER}test_fit_with_data_adapter_torch_*": "feeds a torch DataLoader, which needs the torch package "
                                                           "(not installed here: a CUDA-sized download for 3 tests)"}
        if _absent("torch")
        else {}
    ),
}


def pytest_configure(config: pytest.Config) -> None:
    from keras.src.backend import backend

    if backend() != "tensorflow":
        raise pytest.UsageError(f"tests/keras_suite needs KERAS_BACKEND=tensorflow, got {backend()!r}")
    # The markers Keras's repository conftest registers (it is not shipped in the wheel).
    config.addinivalue_line("markers", "requires_trainable_backend: Keras test that needs a trainable backend")
    config.addinivalue_line("markers", "multi_device: Keras test that needs several accelerator devices")


def _requested(config: pytest.Config) -> bool:
    if RUN_BY_DEFAULT or MODE_VARIABLE in os.environ:
        return True
    for arg in config.invocation_params.args:
        path = Path(config.invocation_params.dir, str(arg).split("::")[0]).resolve()
        if path == HERE or HERE in path.parents:
            return True
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name.startswith("test_") and not _requested(config):
        return True
    return None


def pytest_report_header(config: pytest.Config) -> str:
    return f"keras suite: {mode()} ({MODE_VARIABLE}=keras runs Keras's own classes)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    keep, drop = [], []
    for item in items:
        local = item.nodeid.split("keras_suite/", 1)[-1]
        if item.path.parent == HERE and any(fnmatch.fnmatchcase(local, p) for p in DESELECTED):
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
