"""Callbacks driven by the training engine the way Keras 3 drives them (fit, evaluate, predict hooks)."""

from tfnet_train.callbacks.callback import Callback
from tfnet_train.callbacks.callback_list import CallbackList, python_logs
from tfnet_train.callbacks.early_stopping import EarlyStopping
from tfnet_train.callbacks.history import History
from tfnet_train.callbacks.lambda_callback import LambdaCallback
from tfnet_train.callbacks.learning_rate_scheduler import LearningRateScheduler
from tfnet_train.callbacks.model_checkpoint import ModelCheckpoint
from tfnet_train.callbacks.monitor import MonitorCallback
from tfnet_train.callbacks.progbar_logger import ProgbarLogger
from tfnet_train.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "MonitorCallback",
    "ProgbarLogger",
    "TerminateOnNaN",
    "python_logs",
]
