"""Names read from files never reach outside their folder: report.json case names as plot paths, and a backup's
metadata naming its weights file."""

from __future__ import annotations

import json
from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import optimizers
from tfnet_train.callbacks.backup_and_restore import parse_metadata
from tfnet_train.conformance.render import render_report_dir
from tfnet_train.conformance.report import REPORT_SCHEMA


def report_with(name: str) -> dict:
    case = {"name": name, "steps": 1, "runs": [{"implementation": "numpy", "status": "ok", "losses": [1.0]}],
            "pairs": [], "tolerance": None}
    return {"schema": REPORT_SCHEMA, "cases": [case]}


@pytest.mark.parametrize("name", ["../../escaped", "a/b", "/abs/x", ".hidden", "..", "x\\..\\y", "", 7])
def test_render_refuses_case_names_that_are_not_file_names_before_writing(tmp_path: Path, name: object) -> None:
    report = tmp_path / "run" / "deep" / "report.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps(report_with(name)))  # type: ignore[arg-type]
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(ValueError, match=r"case name must be letters, digits"):
        render_report_dir(report.parent)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_backup_metadata_naming_a_file_outside_the_folder_is_refused(tmp_path: Path) -> None:
    keras.utils.set_random_seed(0)
    m = tfnet_train.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile(optimizers.SGD(0.1), "mse")
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    outside = tmp_path / "outside.weights.h5"
    m.save_weights(outside)
    backup = tmp_path / "backup"
    backup.mkdir()
    (backup / "training_metadata.json").write_text(json.dumps(
        {"epoch": 0, "batch": 0, "steps_done": 0, "generation": 1, "weights": "../outside.weights.h5"}))
    before = [w.copy() for w in m.get_weights()]
    with pytest.raises(ValueError, match=r"training_metadata\.json.*weights must name a file in the backup folder"):
        m.fit(x, y, verbose=0, callbacks=[tfnet_train.callbacks.BackupAndRestore(str(backup))])
    for a, b in zip(m.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("text, match", [
    ("[1]", "must be a JSON object"), ("{", "must be JSON"), ('{"epoch": "3"}', "epoch must be an integer"),
    ('{"generation": true}', "generation must be an integer"), ('{"weights": "/etc/passwd"}', "weights must name"),
    ('{"weights": "backup-000001.weights.h5/../../x"}', "weights must name"), ("[" * 100000, "must be JSON"),
])
def test_parse_metadata_names_what_is_wrong(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_metadata(text, "m.json")


def test_parse_metadata_takes_what_the_callback_writes() -> None:
    text = json.dumps({"epoch": 2, "batch": -1, "steps_done": 3, "generation": 4,
                       "weights": "backup-000004.weights.h5"})
    assert parse_metadata(text, "m.json")["generation"] == 4
