"""interop_examples/csharp/FineTune.cs as a user runs it: a tf.keras 2 digits-0-4 model written by
interop_examples/python/digits04_tf_keras.py, fine-tuned from C# to ten digits and exported as ONNX; the ONNX file
is then run here with ONNX Runtime and must classify the test digits as the C# model did."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime
from test_examples import NUMBER, ROOT, run_csharp_example

from tfnet_train.demo import digits_split


def test_csharp_fine_tune_from_a_tf_keras_2_h5(dotnet_bin: Path, tmp_path: Path) -> None:
    base = tmp_path / "digits04.h5"
    subprocess.run([sys.executable, str(ROOT / "interop_examples" / "python" / "digits04_tf_keras.py"), str(base),
                    "--epochs", "20"], check=True, capture_output=True, timeout=600, cwd=ROOT,
                   env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    onnx = tmp_path / "digits.onnx"
    out = run_csharp_example(dotnet_bin, "FineTune", "--base", str(base), "--epochs", "10", "--onnx", str(onnx),
                             timeout=600)
    base_accuracy = float(re.search(rf"^base on digits 0-4: accuracy ({NUMBER})$", out, re.M).group(1))
    assert base_accuracy > 0.95
    assert re.search(r"^new head: 330 trainable, 6240 frozen parameters$", out, re.M), out
    assert re.search(r"^fine-tuning: 2410 trainable, 4160 frozen parameters$", out, re.M), out
    assert "frozen base weights unchanged: yes" in out and "hidden1 still frozen: yes" in out
    tuned = float(re.search(rf"^fine-tuned: test accuracy ({NUMBER}) on 10 digits", out, re.M).group(1))
    assert tuned > 0.8
    assert "within the float32 tolerance" in out
    _, _, x_test, y_test = digits_split()
    session = onnxruntime.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    (logits,) = session.run(None, {session.get_inputs()[0].name: x_test})
    assert logits.shape == (len(y_test), 10)
    assert round(float(np.mean(logits.argmax(axis=1) == y_test)), 4) == tuned
