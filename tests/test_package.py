"""The package root loads the engine (and TensorFlow) only when an engine name is used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_importing_the_package_leaves_tensorflow_unloaded_until_the_engine_is_used() -> None:
    code = (
        "import sys, tfnet_train\n"
        "print('tensorflow' in sys.modules)\n"
        "tfnet_train.Sequential\n"
        "print('tensorflow' in sys.modules)\n"
        "try:\n"
        "    tfnet_train.NotAName\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:3] == ["False", "True", "module 'tfnet_train' has no attribute 'NotAName'"]


def test_callbacks_imported_before_the_engine_keep_the_engines_callback_list() -> None:
    """Importing tfnet_train.callbacks first (as the C# bridge may) must not leave fit with Keras's CallbackList."""
    code = ("import tfnet_train.callbacks, tfnet_train.engine.fit as fit; "
            "assert fit.CallbackList is tfnet_train.callbacks.CallbackList; "
            "assert hasattr(fit.CallbackList, 'needs_batch_hooks')")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300,
                   env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")})
