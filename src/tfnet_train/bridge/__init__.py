"""The functions the C# library TfNetTrain calls: plain types in and out, models kept as handles.

Arrays cross as C-contiguous numpy arrays of float32, float64, int32 or int64 (see `arrays`); layers,
optimizers and losses are built from (class name, kwargs) pairs (see `specs`); model calls are in `models`;
C# callbacks are wrapped by `host_callback`; whole-model files and Keras callback specs are in `saving`. The
TensorFlow.NET-shaped C# surface reaches eager tensors, tapes, loss/metric objects and tf.data through the `tensors`
and `datasets` modules. Python errors propagate unchanged and are mapped to C# exception types by the host.
"""

from tfnet_train.bridge import datasets, host_code, numpy_face, tensors
from tfnet_train.bridge.arrays import EXCHANGE_DTYPES, describe, echo, empty, exchange_array, exchange_list
from tfnet_train.bridge.host_callback import HOST_HOOKS, HostCallback, host_callback
from tfnet_train.bridge.models import (
    apply_layer,
    compile_model,
    evaluate,
    fit,
    functional,
    get_stop_training,
    get_weights,
    load_weights,
    predict,
    predict_tensors,
    save_weights,
    save_weights_any_name,
    sequential,
    set_random_seed,
    set_stop_training,
    set_weights,
    summary,
    tensor_shape,
    train_counter,
    train_on_batch,
    train_step_traced,
    weight_layout,
)
from tfnet_train.bridge.saving import CALLBACK_CLASSES, build_callback, load_model, save_model
from tfnet_train.bridge.specs import build_layer, build_layers, build_loss, build_optimizer, build_schedule

__all__ = [
    "CALLBACK_CLASSES",
    "numpy_face",
    "build_callback",
    "load_model",
    "save_model",
    "EXCHANGE_DTYPES",
    "apply_layer",
    "HOST_HOOKS",
    "HostCallback",
    "build_layer",
    "datasets",
    "build_layers",
    "build_loss",
    "build_optimizer",
    "build_schedule",
    "compile_model",
    "describe",
    "echo",
    "empty",
    "evaluate",
    "exchange_array",
    "exchange_list",
    "fit",
    "functional",
    "get_stop_training",
    "get_weights",
    "host_callback",
    "host_code",
    "load_weights",
    "predict",
    "predict_tensors",
    "save_weights",
    "save_weights_any_name",
    "sequential",
    "set_random_seed",
    "set_stop_training",
    "set_weights",
    "summary",
    "tensors",
    "tensor_shape",
    "train_counter",
    "train_on_batch",
    "train_step_traced",
    "weight_layout",
]
