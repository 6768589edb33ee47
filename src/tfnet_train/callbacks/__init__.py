"""Callbacks: Keras's own (``keras.callbacks``), re-exported so ``tfnet_train.callbacks.X`` is ``keras.callbacks.X``,
plus the CallbackList that lets the engine skip batch hooks nobody listens to, a BackupAndRestore whose backups
survive a kill at any moment and resume mid-epoch, and ``tensorboard`` (Keras's TensorBoard under the engine, and
``read_events`` to read its files back)."""

from keras.callbacks import *  # noqa: F403
from keras.callbacks import Callback

from tfnet_train.callbacks.backup_and_restore import BackupAndRestore
from tfnet_train.callbacks.callback_list import BATCH_HOOKS, CallbackList, listens

__all__ = ["BATCH_HOOKS", "BackupAndRestore", "Callback", "CallbackList", "listens"]
