"""tfnet-train: TensorFlow.NET's Keras training engine on TensorFlow 2.21 and Keras 3, with a C# bridge."""

from tfnet_train.engine import STAGES, Functional, Model, Sequential, StepTrace

__version__ = "0.1.0"
__all__ = ["Functional", "Model", "STAGES", "Sequential", "StepTrace", "__version__"]
