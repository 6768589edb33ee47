using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// Transfer learning and deployment: the live layers of a model (freeze and unfreeze with
    /// <see cref="ModelLayer.Trainable"/>), <see cref="GetLayer"/>, <see cref="Pop"/>, a model or one of its layers
    /// reused in a new model, parameter counts, and <see cref="Export"/>.
    /// <para>Keras 3's rule: which weights train is fixed when <see cref="Compile"/> runs. After changing
    /// <see cref="ModelLayer.Trainable"/>, call Compile again before Fit.</para>
    /// </summary>
    public sealed partial class Model
    {
        /// <summary>The model's layers, live (Keras's <c>model.layers</c>; a model used as a layer is one entry).</summary>
        public IList<ModelLayer> Layers => Call<IList<ModelLayer>>(f =>
        {
            using (var list = Saving(f, "model_layers", _handle))
            {
                return PyConvert.Iterate(list).Select(item => new ModelLayer(_runtime, item)).ToList();
            }
        });

        /// <summary>The layer called <paramref name="name"/>; a TfNetTrainArgumentException lists the names there are.</summary>
        public ModelLayer GetLayer(string name)
        {
            if (name == null) throw new ArgumentNullException(nameof(name));
            return Call(f =>
            {
                using (var n = new PyString(name)) return new ModelLayer(_runtime, Saving(f, "get_layer", _handle, n));
            });
        }

        /// <summary>
        /// Removes and returns the last layer of a Sequential model (Keras's <c>pop()</c>); compile again before
        /// training. For a functional model, build a new one from <see cref="GetLayer"/>'s layers instead.
        /// </summary>
        public ModelLayer Pop()
        {
            ModelLayer layer = Call(f => new ModelLayer(_runtime, Saving(f, "pop_layer", _handle)));
            _layout = null;
            return layer;
        }

        /// <summary>Parameters that train (with the trainable flags as they are now).</summary>
        public long TrainableParamCount => ParamCount("trainable");

        /// <summary>Parameters that do not train (frozen layers, BatchNormalization's moving statistics, ...).</summary>
        public long NonTrainableParamCount => ParamCount("non_trainable");

        /// <summary>
        /// Writes the model for serving: <paramref name="format"/> "tf_saved_model" (a folder with <c>serve</c> and
        /// the <c>serving_default</c> signature, for TF Serving and TensorFlow.NET) or "onnx" (one file, for ONNX
        /// Runtime; needs the onnx extra). The export is loaded back and compared with <see cref="Predict(NDArray, int?, int?)"/>
        /// on a batch before it is renamed into place: written whole or not at all.
        /// <para>It replaces only an earlier export: a path holding anything else (a file, a folder that is not a
        /// SavedModel, a SavedModel folder holding other files too) is a <see cref="TfNetTrainArgumentException"/>,
        /// and an earlier export with <paramref name="overwrite"/> false a <see cref="TfNetTrainIOException"/>
        /// (Python's FileExistsError); nothing is written then.</para>
        /// </summary>
        public void Export(string path, string format = "tf_saved_model", bool overwrite = true) => Export(path, format, kerasModel: false, overwrite: overwrite);

        /// <summary>A SavedModel folder that also carries the model to train (TF.NET's <c>save(dir, save_format: "tf")</c>, which <c>load_model</c> reads back).</summary>
        internal void ExportSavedModelWithKerasModel(string path, bool overwrite) => Export(path, "tf_saved_model", kerasModel: true, overwrite: overwrite);

        private void Export(string path, string format, bool kerasModel, bool overwrite)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            if (format == null) throw new ArgumentNullException(nameof(format));
            Call(f =>
            {
                using (var p = new PyString(path))
                using (var fmt = new PyString(format))
                using (var withModel = kerasModel.ToPython())
                using (var replace = overwrite.ToPython())
                using (Saving(f, "export_model", _handle, p, fmt, withModel, replace)) return 0;
            });
        }

        /// <summary>This model called on symbolic inputs, as a layer of a new functional model (weights shared).</summary>
        public SymbolicTensor Apply(params SymbolicTensor[] inputs)
        {
            SymbolicTensor.CheckSameRuntime(inputs, nameof(inputs));
            return Call(f => ModelLayer.ApplyObject(_runtime, f, _handle, inputs));
        }

        private long ParamCount(string key) => Call(f =>
        {
            using (var counts = Saving(f, "param_counts", _handle))
            using (var value = counts[key])
            {
                return value.As<long>();
            }
        });

        internal static PyObject Saving(BridgeFacade f, string name, params PyObject[] args)
        {
            return f.Function("saving", name).Invoke(args); // cached by the facade: not disposed here
        }
    }

    /// <summary>
    /// One live layer of a model (a model used as a layer included): its name, class, <see cref="Trainable"/> flag
    /// and parameter counts; it can be called on symbolic tensors to reuse it, weights shared, in a new model.
    /// </summary>
    public sealed class ModelLayer : IDisposable
    {
        private readonly PythonRuntime _runtime;
        private PyObject _handle;

        internal ModelLayer(PythonRuntime runtime, PyObject layer)
        {
            _runtime = runtime;
            _handle = layer;
        }

        /// <summary>The Python layer object (use only with the GIL held).</summary>
        public PyObject PythonObject
        {
            get
            {
                if (_handle == null) throw new ObjectDisposedException(nameof(ModelLayer));
                return _handle;
            }
        }

        /// <summary>The layer's name.</summary>
        public string Name => Info(d => { using (var v = d["name"]) return v.As<string>(); });

        /// <summary>The Keras class name ("Dense", "Functional", ...).</summary>
        public string ClassName => Info(d => { using (var v = d["class_name"]) return v.As<string>(); });

        /// <summary>True when the layer is itself a model (its <see cref="Trainable"/> covers every layer inside).</summary>
        public bool IsModel => Info(d => { using (var v = d["is_model"]) return v.As<bool>(); });

        /// <summary>
        /// Whether the layer's weights train (for a model: all of its layers). Keras 3 fixes the trainable state when
        /// compile runs: call <see cref="Model.Compile"/> again after changing it.
        /// </summary>
        public bool Trainable
        {
            get => Info(d => { using (var v = d["trainable"]) return v.As<bool>(); });
            set => Run(f =>
            {
                using (var v = value.ToPython()) using (Model.Saving(f, "set_trainable", PythonObject, v)) return 0;
            });
        }

        /// <summary>Parameters of this layer that train now.</summary>
        public long TrainableParamCount => Info(d => { using (var v = d["trainable_params"]) return v.As<long>(); });

        /// <summary>Parameters of this layer that do not train now.</summary>
        public long NonTrainableParamCount => Info(d => { using (var v = d["non_trainable_params"]) return v.As<long>(); });

        /// <summary>This layer called on symbolic inputs, for a new functional model (weights shared).</summary>
        public SymbolicTensor Apply(params SymbolicTensor[] inputs)
        {
            SymbolicTensor.CheckSameRuntime(inputs, nameof(inputs));
            return Run(f => ApplyObject(_runtime, f, PythonObject, inputs));
        }

        /// <summary>The layer as a <see cref="Model"/>, when <see cref="IsModel"/> (a base model inside a new one).</summary>
        public Model AsModel()
        {
            if (!IsModel) throw new TfNetTrainArgumentException("layer", $"{Name} is a {ClassName}, not a model");
            return Run(f => Model.FromPython(PythonObject, _runtime));
        }

        /// <summary>"Dense 'head' (trainable)".</summary>
        public override string ToString() => $"{ClassName} '{Name}' ({(Trainable ? "trainable" : "frozen")})";

        /// <summary>Releases the Python reference.</summary>
        public void Dispose()
        {
            PyObject handle = _handle;
            if (handle == null) return;
            _handle = null;
            if (!_runtime.IsDisposed) _runtime.Run(() => { handle.Dispose(); });
        }

        internal static SymbolicTensor ApplyObject(PythonRuntime runtime, BridgeFacade f, PyObject layer, SymbolicTensor[] inputs)
        {
            using (var list = new PyList())
            {
                foreach (var input in inputs) list.Append(input.PythonObject);
                return SymbolicTensor.Wrap(runtime, f, Model.Saving(f, "apply_layer_object", layer, list));
            }
        }

        private T Run<T>(Func<BridgeFacade, T> body)
        {
            if (_handle == null) throw new ObjectDisposedException(nameof(ModelLayer));
            _runtime.ThrowIfDisposed();
            return _runtime.Run(() => body(_runtime.Facade));
        }

        private T Info<T>(Func<PyObject, T> read) => Run(f =>
        {
            using (var d = Model.Saving(f, "layer_info", PythonObject)) return read(d);
        });
    }

    public static partial class Keras
    {
        /// <summary>
        /// A Sequential model of new layers (<see cref="LayerSpec"/>), existing layers (<see cref="ModelLayer"/>)
        /// and whole models (<see cref="Model"/>, e.g. a loaded base), in order; existing ones keep their weights and
        /// share them with the model they came from.
        /// </summary>
        public static Model Sequential(IEnumerable<object> layers, string name = null)
        {
            if (layers == null) throw new ArgumentNullException(nameof(layers));
            object[] list = layers.ToArray();
            if (list.Length == 0) throw new TfNetTrainArgumentException(nameof(layers), "at least one layer is required");
            for (int i = 0; i < list.Length; i++)
            {
                if (list[i] == null) throw new ArgumentNullException(nameof(layers), $"layers[{i}] is null");
                if (!(list[i] is LayerSpec || list[i] is ModelLayer || list[i] is Model))
                    throw new TfNetTrainArgumentException(nameof(layers),
                        $"layers[{i}] must be a LayerSpec, a ModelLayer or a Model; got {list[i].GetType().Name}");
            }
            PythonRuntime runtime = TfNetTrain.Model.RequireRuntime();
            return TfNetTrain.Model.Create(runtime, f =>
            {
                using (var items = new PyList())
                using (var pyName = name == null ? PyObject.None : new PyString(name))
                {
                    foreach (object item in list)
                    {
                        if (item is LayerSpec spec)
                        {
                            using (var pair = PyConvert.SpecPair(spec)) items.Append(pair);
                        }
                        else if (item is ModelLayer layer) items.Append(layer.PythonObject);
                        else items.Append(((Model)item).PythonObject);
                    }
                    return f["sequential"].Invoke(items, pyName);
                }
            });
        }
    }
}
