"""The implementation registry and the runners' own error paths (unknown names, missing C# build, bad output)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import load
from tfnet_train.conformance.csharp_runner import ENV_VAR, assembly_path
from tfnet_train.conformance.errors import ImplementationUnavailable, NotApplicable
from tfnet_train.conformance.keras_runner import run_keras
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE
from tfnet_train.conformance.trace_files import read_step_npz


def test_registry_names_and_errors() -> None:
    assert set(implementations.IMPLEMENTATIONS) >= {"engine", "keras", "numpy", "csharp"}
    with pytest.raises(ValueError, match=r"implementation must be one of .*got 'jax'"):
        implementations.get_runner("jax")
    with pytest.raises(ValueError, match="non-empty without commas"):
        implementations.register("a,b", lambda case: [])


def test_keras_refuses_tfnet_cases() -> None:
    with pytest.raises(NotApplicable, match="Keras 3 runs only semantics 'keras' cases; case 'tfnet_relu_mse_sgd'"):
        run_keras(load(DEFAULT_SUITE / "tfnet_relu_mse_sgd.json"))


def test_missing_csharp_build_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(ImplementationUnavailable, match=f"expected {tmp_path}/TfNetTrain.Reference.dll"):
        assembly_path()


def test_csharp_output_is_split_per_step(tmp_path: Path) -> None:
    path = tmp_path / "out.npz"
    np.savez(path, **{"step0/loss": np.float64(1.5), "step1/loss": np.float64(1.25),
                      "step0/weights/0": np.ones((2, 2), np.float32), "step2/loss": np.float64(0.5)})
    traces = read_step_npz(path)
    assert [float(t["loss"]) for t in traces] == [1.5, 1.25, 0.5]
    assert traces[0]["weights/0"].shape == (2, 2)
    np.savez(path, **{"step0/loss": np.float64(1.0), "step2/loss": np.float64(1.0)})
    with pytest.raises(ValueError, match=r"expected steps 0..1, got \[0, 2\]"):
        read_step_npz(path)
    np.savez(path, **{"loss": np.float64(1.0)})
    with pytest.raises(ValueError, match="key 'loss' is not 'step<i>/<trace key>'"):
        read_step_npz(path)


def test_trace_files_named_on_the_command_line_run_as_an_implementation(tmp_path: Path) -> None:
    case = load(DEFAULT_SUITE / "keras_relu_mse_sgd.json")
    traces = [{"loss": np.float64(0.5 + i), "weights/0": np.full((2, 2), i, np.float32)} for i in range(case.steps)]
    np.savez(tmp_path / f"{case.name}.npz",
             **{f"step{i}/{key}": value for i, trace in enumerate(traces) for key, value in trace.items()})
    assert implementations.from_spec(f"mine={tmp_path}") == "mine"
    read = implementations.run("mine", case)
    assert [float(t["loss"]) for t in read] == [0.5 + i for i in range(case.steps)]
    np.testing.assert_array_equal(read[-1]["weights/0"], traces[-1]["weights/0"])
    assert implementations.from_spec(f"one={tmp_path / f'{case.name}.npz'}") == "one"
    assert len(implementations.run("one", case)) == case.steps
    missing = f"no traces for case 'tfnet_relu_mse_sgd': expected the file {tmp_path}/"
    with pytest.raises(FileNotFoundError, match=missing):
        implementations.run("mine", load(DEFAULT_SUITE / "tfnet_relu_mse_sgd.json"))
    with pytest.raises(ValueError, match="implementation path must be an existing folder of <case>.npz files"):
        implementations.from_spec(f"gone={tmp_path / 'gone'}")
    assert implementations.from_spec("numpy") == "numpy"
    for name in ("mine", "one"):
        del implementations.IMPLEMENTATIONS[name]
