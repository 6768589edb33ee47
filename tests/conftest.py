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


# ----- kinds of test: `make test-fast` runs every test that is none of these (`-m "not (...)"`) ----------------

#: What a test needs beyond this process, by module or ``module::test``; one table so no test file changes for it.
#: ``process``: starts Python or R processes of its own; ``clr``: runs the C# build (Mono or .NET) or compiles C#;
#: ``cluster``: a multi-worker job (processes, ports, network namespaces); ``package``: builds or installs the
#: wheel. A test that takes the ``dotnet_bin`` / ``coreclr_bin`` / ``suite_run`` fixtures is ``clr`` in any module.
KINDS: dict[str, tuple[str, ...]] = {
    "test_coreclr_runner.py": ("clr", "process"),
    "test_csharp_conformance.py": ("clr", "process"),
    "test_csharp_suites.py": ("clr",),
    "test_demo.py::test_make_demo_entry_point_trains_compares_and_reports": ("process", "clr"),
    "test_distributed.py": ("cluster", "process"),
    "test_distributed_faults.py": ("cluster", "process"),
    "test_dotnet_package.py": ("package", "clr", "process"),
    "test_example_finetune.py": ("clr", "process"),
    "test_examples.py": ("process", "clr"),
    "test_h5_sizes.py::test_a_fresh_process_refuses_it_without_allocating_what_it_declares": ("process",),
    "test_h5_sizes.py::test_files_libhdf5_would_loop_on_are_refused_in_a_fresh_process": ("process",),
    "test_launch.py": ("cluster", "process"),
    "test_launch_hardening.py": ("process",),
    "test_package.py": ("package", "process"),
    "test_r_examples.py": ("process",),
    "test_saving.py::test_resume_in_a_fresh_process_is_bit_identical": ("process",),
    "test_saving.py::test_sigkill_inside_saves_leaves_a_loadable_file": ("process",),
    "test_saving.py::test_sigkill_inside_fit_with_backup_and_restore_resumes_bit_identically": ("process",),
    "test_slurm_tf_config.py": ("cluster", "process"),
    "fuzz/test_fuzz.py::test_a_bounded_coverage_guided_run_finds_nothing": ("process",),
}
FIXTURE_KINDS = {"dotnet_bin": "clr", "coreclr_bin": "clr", "suite_run": "clr"}
KIND_NAMES = ("process", "clr", "cluster", "package")


def kinds_of(item: pytest.Item) -> set[str]:
    """The kinds ``KINDS`` and ``FIXTURE_KINDS`` give ``item``."""
    module = Path(str(item.path)).relative_to(Path(__file__).parent).as_posix()
    name = getattr(item, "originalname", item.name)
    found = {*KINDS.get(module, ()), *KINDS.get(f"{module}::{name}", ())}
    found.update(kind for fixture, kind in FIXTURE_KINDS.items() if fixture in getattr(item, "fixturenames", ()))
    return found


def pytest_configure(config: pytest.Config) -> None:
    for kind in KIND_NAMES:
        config.addinivalue_line("markers", f"{kind}: see tests/conftest.py KINDS")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for kind in sorted(kinds_of(item)):
            item.add_marker(getattr(pytest.mark, kind))


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
