"""The package root loads the engine (and TensorFlow) only when an engine name is used."""

from __future__ import annotations

import subprocess
import sys


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
