"""Runs a script that writes model files (with tf_keras, which changes process-wide state) in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def write_with(script: Path, folder: Path) -> Path:
    """``folder`` after ``script FOLDER`` has written into it."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    subprocess.run([sys.executable, str(script), str(folder)], env=env, check=True, capture_output=True, timeout=600)
    return folder
