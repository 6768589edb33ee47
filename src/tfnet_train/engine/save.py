"""Model.save / save_weights / load_weights (Model.Save.cs): Keras 3's formats, written whole or not at all.

Differs from Keras: every file goes through a temporary file and a rename, written by the chief alone in a
multi-worker run; ``.h5`` names (TensorFlow.NET's ``SaveWeights("model.h5")``) hold the same HDF5 weights as
``.weights.h5``, and a weights file is read under any name that holds that layout (TF.NET's ``save_weights`` writes
HDF5 whatever the name); a load that fails leaves every weight and optimizer variable as it was; ``.keras`` files
also carry ``_train_counter``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h5py

from tfnet_train.distribution import is_chief, written_by_chief
from tfnet_train.engine import h5_checks
from tfnet_train.engine.revived import revived_in
from tfnet_train.files import atomic_path

_COUNTER_FILE = "train_counter.json"


def _is_weights_h5(path: Path) -> bool:
    """True for an HDF5 file in Keras 3's weights layout (what ``.weights.h5`` and the engine's ``.h5`` hold)."""
    with open(path, "rb"):  # a file that cannot be read says so (permissions, I/O), not "not HDF5"
        pass
    if not h5py.is_hdf5(str(path)):
        return False
    try:
        with h5py.File(path, "r") as f:
            return "vars" in f or "layers" in f or "_layer_checkpoint_dependencies" in f
    except OSError as error:
        raise OSError(f"filepath {str(path)!r} is an HDF5 file that h5py could not open: {error}") from error


@contextlib.contextmanager
def _as_weights_h5(path: Path) -> Iterator[Path]:
    """``path`` under a name ending in ``.weights.h5`` (Keras picks its reader by the name): a symbolic link in a
    private temporary folder, removed afterwards; ``path``'s own folder is never written to (it may be read-only)."""
    with tempfile.TemporaryDirectory(prefix="tfnet_train_load_") as folder:
        alias = Path(folder) / "model.weights.h5"
        os.symlink(path.resolve(), alias)
        yield alias


def _check_h5_sizes(model: Any, path: Path) -> None:
    """ValueError, before anything is read, when the HDF5 weights at ``path`` (a file or a ``.keras`` archive's)
    declare more than the file stores or than ``model``'s variables could take (see :mod:`h5_checks`)."""
    if not path.is_file():
        return
    variables = None
    if model.built and model.variables:
        optimizer = getattr(model, "optimizer", None)
        variables = [*model.variables, *(optimizer.variables if getattr(optimizer, "built", False) else [])]
    if zipfile.is_zipfile(path):
        h5_checks.check_keras_archive(path, variables)
    elif h5py.is_hdf5(str(path)):
        h5_checks.check_h5_file(path, variables)


def _refuse_revived_in_h5(model: Any, target: Path) -> None:
    """ValueError when ``model`` holds a layer revived from a SavedModel graph: an ``.h5`` file has no place for
    the graph, so the file could not be loaded back."""
    revived = revived_in(model)
    if revived:
        raise ValueError(f"filepath {str(target)!r}: an .h5 file cannot carry layers {revived} (revived from a "
                         "SavedModel, run by their saved graph); expected a .keras path, or export() or "
                         "save_weights() for this model")


class SaveMixin:
    """save, save_weights, load_weights and the assets that carry the engine's own state."""

    def save(self, filepath: str | os.PathLike[str], overwrite: bool = True, zipped: bool | None = None,
             **kwargs: Any) -> None:
        """Keras's ``model.save`` (architecture, weights, compile configuration with optimizer state,
        ``_train_counter``), written to a temporary file and renamed."""
        target = Path(filepath)
        if target.exists() and not overwrite:
            raise FileExistsError(f"filepath {str(target)!r} exists and overwrite=False")
        if target.suffix not in (".keras", ".h5", ".hdf5"):
            raise ValueError(f"filepath must end in .keras (or .h5 for Keras's legacy format), got {str(target)!r}")
        if target.suffix != ".keras":
            _refuse_revived_in_h5(self, target)
        with written_by_chief(self, target) as destination, atomic_path(destination) as temporary:
            super().save(temporary, overwrite=True, zipped=zipped, **kwargs)

    def save_weights(self, filepath: str | os.PathLike[str], overwrite: bool = True,
                     max_shard_size: int | None = None) -> None:
        """Keras's ``save_weights`` (model and optimizer variables); ``.h5`` names are accepted as TF.NET writes
        them and hold the same content as ``.weights.h5``."""
        target = Path(filepath)
        if target.exists() and not overwrite:
            raise FileExistsError(f"filepath {str(target)!r} exists and overwrite=False")
        if max_shard_size is not None:  # several files: Keras writes them; no single rename can cover them
            return super().save_weights(str(target), overwrite=overwrite, max_shard_size=max_shard_size)
        name = target.name
        if not (name.endswith(".weights.h5") or name.endswith(".h5")):
            raise ValueError(f"filepath must end in .weights.h5 (or .h5, as TensorFlow.NET names it), got {name!r}")
        self._save_weights_hdf5(target)

    def _save_weights_hdf5(self, target: Path) -> None:
        """Keras's weights HDF5 at ``target`` whatever its name (TF.NET's ``save_weights`` writes HDF5 under any
        name; the face calls this directly), through a temporary ``.weights.h5`` renamed over it. Its folder must
        exist, as Keras's ``save_weights`` requires (a FileNotFoundError naming it otherwise; nothing is created)."""
        folder = target.parent
        if is_chief(self) and not folder.is_dir():
            raise FileNotFoundError(f"filepath {str(target)!r}: the folder {str(folder)!r} is not an existing folder ("
                                    "save_weights creates none)")
        with (written_by_chief(self, target) as destination,
              atomic_path(destination, suffix=".weights.h5") as temporary):
            super().save_weights(str(temporary), overwrite=True)

    def load_weights(self, filepath: str | os.PathLike[str], skip_mismatch: bool = False, **kwargs: Any) -> None:
        """Keras's ``load_weights``, also from the engine's ``.h5`` weights files; all or nothing: if anything in
        the file does not fit, every weight and optimizer variable keeps its value."""
        path = Path(filepath)
        if not path.exists():
            raise FileNotFoundError(f"filepath {str(path)!r} does not exist")
        optimizer = getattr(self, "optimizer", None)
        if self.built and optimizer is not None and not getattr(optimizer, "built", True):
            optimizer.build(self.trainable_variables)  # so the file's optimizer variables have a place to go
        _check_h5_sizes(self, path)
        snapshot = self._variables_snapshot()
        try:
            with h5_checks.h5_errors_named(f"filepath {str(path)!r}"):  # a damaged file: ValueError naming it
                if (path.suffix != ".keras" and not path.name.endswith(".weights.h5") and path.is_file()
                        and _is_weights_h5(path)):  # .h5 or any other name holding Keras's weights layout
                    with _as_weights_h5(path) as alias:
                        super().load_weights(str(alias), skip_mismatch=skip_mismatch, **kwargs)
                else:
                    super().load_weights(str(path), skip_mismatch=skip_mismatch, **kwargs)
        except BaseException:
            self._restore_variables(snapshot)
            raise

    # ----- the engine's own state in .keras files -----------------------------------------------------------------

    def save_assets(self, dir_path: str) -> None:
        """``_train_counter`` beside the weights of a ``.keras`` file (weights files stay Keras's own)."""
        Path(dir_path, _COUNTER_FILE).write_text(json.dumps({"train_counter": int(self._train_counter.numpy())}))

    def load_assets(self, dir_path: str) -> None:
        path = Path(dir_path, _COUNTER_FILE)
        if path.exists():
            self._train_counter.assign(int(json.loads(path.read_text())["train_counter"]))
