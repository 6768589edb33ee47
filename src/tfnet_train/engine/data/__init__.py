"""Data adapters and the DataHandler (mirrors TensorFlow.NET's Keras.Engine.DataAdapters)."""

from tfnet_train.engine.data.adapter import DataAdapter, expand_1d, train_validation_split
from tfnet_train.engine.data.dataset import DatasetAdapter
from tfnet_train.engine.data.handler import DataHandler
from tfnet_train.engine.data.tensor_like import TensorLikeDataAdapter

__all__ = [
    "DataAdapter",
    "DataHandler",
    "DatasetAdapter",
    "TensorLikeDataAdapter",
    "expand_1d",
    "train_validation_split",
]
