"""Data handling (mirrors TensorFlow.NET's Keras.Engine.DataAdapters; the adapters are Keras's)."""

from tfnet_train.engine.data.adapter import expand_1d, train_validation_split
from tfnet_train.engine.data.handler import Block, DataHandler
from tfnet_train.engine.data.tensor_like import TensorLikeDataAdapter

__all__ = ["Block", "DataHandler", "TensorLikeDataAdapter", "expand_1d", "train_validation_split"]
