"""Callbacks: Keras's own (``keras.callbacks``), re-exported so ``tfnet_train.callbacks.X`` is ``keras.callbacks.X``,
plus the CallbackList that lets the engine skip batch hooks nobody listens to."""

from keras.callbacks import *  # noqa: F403
from keras.callbacks import Callback

from tfnet_train.callbacks.callback_list import BATCH_HOOKS, CallbackList, listens

__all__ = ["BATCH_HOOKS", "Callback", "CallbackList", "listens"]
