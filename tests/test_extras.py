"""`pip install tfnet-train` brings what training needs; the demo's and the reports' packages come with the `demo`
extra, and a feature that needs a missing one says which extra brings it."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from tfnet_train import demo, extras
from tfnet_train.conformance import render
from tfnet_train.conformance.report import to_json
from tfnet_train.conformance.runner import run_suite

ROOT = Path(__file__).resolve().parents[1]


def block(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """``package`` and its submodules import as if they were not installed."""
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, package, None)


def test_training_needs_neither_scikit_learn_nor_matplotlib() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = " ".join(project["dependencies"])
    assert "scikit-learn" not in required and "matplotlib" not in required
    demo_extra = " ".join(project["optional-dependencies"]["demo"])
    assert "scikit-learn" in demo_extra and "matplotlib" in demo_extra
    for module, (distribution, extra) in extras.EXTRAS.items():
        assert any(d.startswith(distribution) for d in project["optional-dependencies"][extra]), module


def test_the_digits_without_scikit_learn_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "sklearn")
    with pytest.raises(ImportError, match=r"needs scikit-learn.*pip install 'tfnet-train\[demo\]'"):
        demo.digits_split()


def test_training_curves_without_matplotlib_name_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    block(monkeypatch, "matplotlib")
    with pytest.raises(ImportError, match=r"needs matplotlib.*tfnet-train\[demo\]"):
        demo.write_training_curves({"loss": [1.0, 0.5]}, tmp_path)


def test_a_report_without_matplotlib_is_written_without_plots(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    doc = to_json(run_suite("default", ["numpy", "keras"], case="keras_relu_mse_sgd"))
    block(monkeypatch, "matplotlib")
    with pytest.warns(UserWarning, match=r"without plots.*tfnet-train\[demo\]"):
        paths = render.write_document(doc, tmp_path)
    cases = json.loads(paths["json"].read_text())["cases"]
    assert [c["name"] for c in cases] == ["keras_relu_mse_sgd"] and cases[0]["plots"] is None
    assert "keras_relu_mse_sgd" in paths["html"].read_text() and not (tmp_path / "plots").exists()


def test_with_the_extra_installed_the_digits_load() -> None:
    x_train, y_train, x_test, y_test = demo.digits_split()
    assert x_train.shape[1] == 64 and len(x_train) + len(x_test) == 1797
