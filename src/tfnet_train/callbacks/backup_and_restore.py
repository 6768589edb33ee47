"""BackupAndRestore: Keras's callback, with backups that survive a kill at any moment and resume mid-epoch."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tfnet_train import keras_internals
from tfnet_train.distribution import is_chief
from tfnet_train.files import write_text

_WEIGHTS_NAME = re.compile(r"backup-[0-9]{6,12}\.weights\.h5")
_COUNTS = ("epoch", "batch", "steps_done", "generation")


def parse_metadata(text: str, source: str) -> dict[str, Any]:
    """A backup's metadata, checked: a JSON object whose counts are integers >= -1 (``batch`` may be -1) and whose
    ``weights`` is a file name this callback writes (``backup-NNNNNN.weights.h5``), so a backup folder's contents
    cannot point a load outside the folder. ValueError naming ``source`` and the field otherwise."""
    try:
        metadata = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"backup metadata {source!r} must be JSON, got: {error}") from None
    if not isinstance(metadata, dict):
        raise ValueError(f"backup metadata {source!r} must be a JSON object, got {type(metadata).__name__}")
    for key in _COUNTS:
        value = metadata.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value < 2**62:
            raise ValueError(f"backup metadata {source!r}: {key} must be an integer >= -1, got {value!r}")
    weights = metadata.get("weights")
    if weights is not None and not (isinstance(weights, str) and _WEIGHTS_NAME.fullmatch(weights)):
        raise ValueError(f"backup metadata {source!r}: weights must name a file in the backup folder "
                         f"(backup-NNNNNN.weights.h5), got {weights!r}")
    return metadata


class BackupAndRestore(keras_internals.BackupAndRestoreHooks):
    """``keras.callbacks.BackupAndRestore`` whose backups the engine resumes exactly.

    Differs from Keras in two ways, both in how a backup is written and read:
    - each backup's weights (model and optimizer) go to a new file (written by the chief alone in a multi-worker
      run), and the metadata naming that file is replaced
      atomically after it, so a kill between the two leaves the previous backup whole and in use;
    - the metadata also records how many steps of the current epoch the backup holds, and the engine's fit skips
      those steps (with the same shuffled order) instead of restarting the epoch, so a fit killed mid-epoch and
      started again ends where an uninterrupted one does.

    The metadata is checked before it is used (its weights file must be one this callback writes, inside
    ``backup_dir``). As in Keras, a fit that ends normally deletes ``backup_dir`` and everything in it
    (``delete_checkpoint=True``, the default): give it a folder of its own.
    """

    def __init__(self, backup_dir: str, save_freq: str | int = "epoch", double_checkpoint: bool = False,
                 delete_checkpoint: bool = True) -> None:
        super().__init__(backup_dir, save_freq=save_freq, double_checkpoint=double_checkpoint,
                         delete_checkpoint=delete_checkpoint)
        self._steps_done = 0
        self._generation = 0

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._steps_done = batch + 1
        super().on_train_batch_end(batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self._steps_done = 0
        super().on_epoch_end(epoch, logs)

    def on_train_end(self, logs: dict | None = None) -> None:
        if not is_chief(self.model):  # the chief's backup is the one; other workers leave it alone
            return
        if self.delete_checkpoint:  # the metadata first: a kill during the folder's removal leaves no half backup
            Path(self.metadata_path).unlink(missing_ok=True)
        super().on_train_end(logs)

    def _metadata(self) -> dict[str, Any] | None:
        path = Path(self.metadata_path)
        return parse_metadata(path.read_text(), str(path)) if path.exists() else None

    def save_backup(self) -> None:
        folder = Path(self.backup_dir)
        previous = self._metadata()
        self._generation = max(self._generation, int((previous or {}).get("generation", 0))) + 1
        weights = f"backup-{self._generation:06d}.weights.h5"
        if is_chief(self.model):  # Keras's BackupAndRestore makes its folder as it saves (save_weights makes none)
            folder.mkdir(parents=True, exist_ok=True)
        self.model.save_weights(str(folder / weights), overwrite=True)  # every worker saves; the chief's lands
        if not is_chief(self.model):
            return
        write_text(self.metadata_path, json.dumps({
            "epoch": self.current_epoch, "batch": self.last_batch_seen, "steps_done": self._steps_done,
            "generation": self._generation, "weights": weights,
        }))
        for old in [*folder.glob("backup-*.weights.h5"), *folder.glob(".backup-*")]:  # after the metadata
            if old.name != weights:                                                    # names the new file
                old.unlink(missing_ok=True)

    def load_backup(self) -> None:
        if not self.model.built:
            self.keras_load_backup()  # Keras's error for an unbuilt model
        metadata = self._metadata()
        if metadata is None or "weights" not in metadata:
            return
        if self.model.optimizer is not None and not self.model.optimizer.built:
            self.model.optimizer.build(self.model.trainable_variables)
        self.model.load_weights(str(Path(self.backup_dir) / metadata["weights"]))
        self._generation = int(metadata["generation"])
        self.current_epoch = int(metadata["epoch"])
        keras_internals.set_initial_epoch(self.model, self.current_epoch)
        self.model._initial_step = int(metadata.get("steps_done", 0))
