using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// A Keras model with TF.NET's lower-case members, over one <see cref="TfNetTrain.Model"/> (compile, fit,
    /// evaluate, predict and summary call its PascalCase methods). Also a layer: add it to another Sequential.
    /// </summary>
    public class Functional : Layer, IDisposable
    {
        private TfNetTrain.Model _model;
        private readonly string _name;

        internal Functional(TfNetTrain.Model model, string name) : base(new LayerSpec("Model"))
        {
            _model = model;
            _name = name;
        }

        /// <summary>The TfNetTrain model underneath (built on first use for a Sequential).</summary>
        public TfNetTrain.Model Model => _model ?? (_model = Build());

        internal bool IsModelBuilt => _model != null;

        internal virtual TfNetTrain.Model Build() => throw new InvalidOperationException("the model is not built");

        public override string Name => _name ?? Model.Runtime.Run(() => { using (var n = Model.PythonObject.GetAttr("name")) return n.As<string>(); });

        internal override PyObject PythonLayer(PythonRuntime runtime, BridgeFacade f) => Model.PythonObject;

        /// <summary>Configures training (optimizer and loss objects or their string names, metric names).</summary>
        public void compile(OptimizerV2 optimizer = null, Loss loss = null, string[] metrics = null, string semantics = "keras")
        {
            Model.Compile(optimizer?.Spec ?? (OptimizerSpec)"rmsprop", loss?.Spec, metrics, semantics);
        }

        /// <summary>Configures training from string identifiers ("adam", "sparse_categorical_crossentropy").</summary>
        public void compile(string optimizer, string loss, string[] metrics = null, string semantics = "keras")
        {
            Model.Compile(optimizer, loss, metrics, semantics);
        }

        /// <summary>Trains on arrays; batch_size -1 is Keras's default (32).</summary>
        public History fit(NDArray x, NDArray y, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                           float validation_split = 0f, (NDArray, NDArray)? validation_data = null, bool shuffle = true,
                           Dictionary<int, float> class_weight = null, NDArray sample_weight = null, int initial_epoch = 0)
        {
            return Model.Fit(x, y, batch_size > 0 ? (int?)batch_size : null, epochs, verbose, callbacks, validation_split, shuffle,
                             sample_weight, initial_epoch, null, validation_data?.Item1, validation_data?.Item2, 1, class_weight);
        }

        /// <summary>
        /// Trains on a dataset of (x, y) or (x, y, sample_weight) batches (TF.NET's argument order).
        /// <paramref name="callbacks"/> receive the same hooks with the same logs as on the array path (C#
        /// <see cref="ICallback"/>s and <see cref="KerasCallback"/> specs, in list order). The dataset is batched
        /// already, so <paramref name="batch_size"/> must stay -1.
        /// </summary>
        public History fit(IDatasetV2 dataset, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                           IDatasetV2 validation_data = null, int initial_epoch = 0, int steps_per_epoch = -1)
        {
            if (batch_size != -1)
                throw new TfNetTrainArgumentException(nameof(batch_size), $"a dataset is batched already (dataset.batch(n)): leave batch_size at -1; got {batch_size}");
            CheckDataset(dataset, nameof(dataset), 2, 3);
            if (validation_data != null) CheckDataset(validation_data, nameof(validation_data), 2, 3);
            TfNetTrain.Model model = Model;
            var hooks = new FitCallbacks(callbacks, model);
            return model.Runtime.Run(() =>
            {
                var f = model.Runtime.Facade;
                using (var pyCallbacks = hooks.ToPython(f))
                {
                    var kwargs = new Dictionary<string, object>
                    {
                        { "epochs", epochs }, { "verbose", verbose }, { "initial_epoch", initial_epoch },
                        { "steps_per_epoch", steps_per_epoch > 0 ? (object)steps_per_epoch : null },
                        { "validation_data", validation_data == null ? null : new PyObjectBox(validation_data.PythonObject) },
                        { "callbacks", new PyObjectBox(pyCallbacks) },
                    };
                    using (var result = Face.Invoke(f, "datasets", "fit_dataset", new object[] { new PyObjectBox(model.PythonObject), new PyObjectBox(dataset.PythonObject) }, kwargs))
                    {
                        return TfNetTrain.Model.ReadHistory(result);
                    }
                }
            });
        }

        /// <summary>Loss and metrics over arrays, without training.</summary>
        public Dictionary<string, float> evaluate(NDArray x, NDArray y, int batch_size = -1, int verbose = 1, NDArray sample_weight = null)
        {
            return new Dictionary<string, float>(Model.Evaluate(x, y, batch_size > 0 ? (int?)batch_size : null, sample_weight));
        }

        /// <summary>Loss and metrics over a dataset of (x, y) batches.</summary>
        public Dictionary<string, float> evaluate(IDatasetV2 dataset, int verbose = 1)
        {
            CheckDataset(dataset, nameof(dataset), 2, 3);
            return Model.Runtime.Run(() =>
            {
                using (var logs = Model.Runtime.Facade["evaluate"].Invoke(Model.PythonObject, dataset.PythonObject))
                {
                    return PyConvert.ToFloatDictionary(logs);
                }
            });
        }

        /// <summary>
        /// The model's outputs for every sample, one tensor per model output (TF.NET's <c>Tensors</c>); a
        /// single-output model's result converts to <see cref="Tensor"/> implicitly.
        /// </summary>
        public Tensors predict(NDArray x, int batch_size = -1, int verbose = 0)
        {
            IList<NDArray> outputs = Model.PredictOutputs(x, batch_size > 0 ? (int?)batch_size : null);
            return new Tensors(outputs.Select(o => Binding.tf.constant(o)).ToArray());
        }

        /// <summary>The model's outputs for every element of a dataset (x, (x, y) or (x, y, sample_weight) batches), one tensor per output.</summary>
        public Tensors predict(IDatasetV2 dataset, int verbose = 0, int steps = -1)
        {
            CheckDataset(dataset, nameof(dataset), 1, 2, 3);
            TfNetTrain.Model model = Model;
            return model.Runtime.Run(() =>
            {
                using (var outputs = Face.Invoke(model.Runtime.Facade, "datasets", "predict_dataset",
                           new object[] { new PyObjectBox(model.PythonObject), new PyObjectBox(dataset.PythonObject) },
                           new Dictionary<string, object> { { "steps", steps > 0 ? (object)steps : null } }))
                {
                    return new Tensors(Tensor.WrapList(model.Runtime, outputs));
                }
            });
        }

        /// <summary>Prints the Keras summary (also returned).</summary>
        public string summary()
        {
            string text = Model.Summary();
            Console.WriteLine(text);
            return text;
        }

        /// <summary>The model called eagerly on <paramref name="inputs"/> (recorded by an open GradientTape).</summary>
        public override Tensor Apply(Tensor inputs, bool? training = null)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            TfNetTrain.Model model = Model;
            return model.Runtime.Run(() => Tensor.Wrap(model.Runtime,
                Face.Invoke(model.Runtime.Facade, "tensors", "model_call", new object[] { new PyObjectBox(model.PythonObject), inputs, training ?? false })));
        }

        /// <summary>Same as <see cref="Apply"/>.</summary>
        public Tensor call(Tensor inputs, bool? training = null) => Apply(inputs, training);

        /// <summary>The trainable variables, live (Keras order).</summary>
        public List<IVariableV1> TrainableVariables
        {
            get
            {
                TfNetTrain.Model model = Model;
                return model.Runtime.Run(() =>
                {
                    using (var list = Face.Invoke(model.Runtime.Facade, "tensors", "trainable_variables", new object[] { new PyObjectBox(model.PythonObject) }))
                    {
                        return ResourceVariable.WrapVariables(model.Runtime, list);
                    }
                });
            }
        }

        /// <summary>The model's layers as Keras lists them (name and class).</summary>
        public virtual List<ILayer> Layers
        {
            get
            {
                TfNetTrain.Model model = Model;
                return model.Runtime.Run(() =>
                {
                    var result = new List<ILayer>();
                    using (var list = Face.Invoke(model.Runtime.Facade, "tensors", "model_layers", new object[] { new PyObjectBox(model.PythonObject) }))
                    {
                        foreach (PyObject item in PyConvert.Iterate(list))
                        {
                            using (item)
                            using (var cls = item["class_name"])
                            using (var name = item["name"])
                            {
                                result.Add(new Layer(new LayerSpec(cls.As<string>(), new Dictionary<string, object> { { "name", name.As<string>() } })));
                            }
                        }
                    }
                    return result;
                });
            }
        }

        /// <summary>The Keras config as JSON text.</summary>
        public string get_config()
        {
            TfNetTrain.Model model = Model;
            return model.Runtime.Run(() =>
            {
                using (var d = Face.Invoke(model.Runtime.Facade, "tensors", "model_config", new object[] { new PyObjectBox(model.PythonObject) }))
                using (var json = d["json"])
                {
                    return json.As<string>();
                }
            });
        }

        public List<NDArray> get_weights() => Model.GetWeights().ToList();
        public void set_weights(IList<NDArray> weights) => Model.SetWeights(weights);
        public void save_weights(string filepath) => Model.SaveWeights(filepath);
        public void load_weights(string filepath) => Model.LoadWeights(filepath);

        /// <summary>Releases the Python model.</summary>
        public void Dispose() => _model?.Dispose();

        private static void CheckDataset(IDatasetV2 dataset, string paramName, params int[] arity)
        {
            if (dataset == null) throw new ArgumentNullException(paramName);
            PythonRuntime runtime = Face.Runtime;
            runtime.Run(() =>
            {
                using (var a = Face.ToPython(arity.ToList()))
                using (var t = new PyTuple(PyConvert.Iterate(a).ToArray()))
                using (var name = new PyString(paramName))
                using (var fn = runtime.Facade["datasets"].GetAttr("check_element"))
                using (fn.Invoke(dataset.PythonObject, t, name))
                {
                    return 0;
                }
            });
        }
    }

    /// <summary>A Sequential model: <see cref="add"/> layers, then compile/fit; built on first use.</summary>
    public sealed class Sequential : Functional
    {
        private readonly List<ILayer> _layers;
        private readonly string _seqName;

        internal Sequential(List<ILayer> layers, string name) : base(null, name)
        {
            _layers = layers == null ? new List<ILayer>() : new List<ILayer>(layers);
            _seqName = name;
        }

        /// <summary>Appends a layer (a keras.layers one, or a model used as a layer).</summary>
        public void add(ILayer layer)
        {
            if (layer == null) throw new ArgumentNullException(nameof(layer));
            if (!(layer is Layer)) throw new TfNetTrainArgumentException(nameof(layer), $"must come from keras.layers or be a model; got {layer.GetType().Name}");
            if (IsModelBuilt) throw new InvalidOperationException("layers cannot be added once the model is built (compile, fit, summary, ...)");
            _layers.Add(layer);
        }

        /// <summary>The layers added (before the model is built), else Keras's list.</summary>
        public override List<ILayer> Layers => IsModelBuilt ? base.Layers : new List<ILayer>(_layers);

        internal override TfNetTrain.Model Build()
        {
            if (_layers.Count == 0) throw new InvalidOperationException("the Sequential model has no layers: add some first");
            PythonRuntime runtime = Face.Runtime;
            var items = new List<Layer>();
            var first = (Layer)_layers[0];
            if (first.InputShape != null)
                items.Add(new Layer(new LayerSpec("Input", KerasInterface.InputArguments(first.InputShape, first.BatchSize, TF_DataType.DtInvalid, null))));
            items.AddRange(_layers.Cast<Layer>());
            if (items.All(l => !l.IsBuilt && !(l is Functional)))
                return Keras.Sequential(items.Select(l => l.Spec), _seqName);
            return Face.Run(runtime, f =>
            {
                var parts = items.Select(l => l.IsBuilt || l is Functional ? (object)new PyObjectBox(l.PythonLayer(runtime, f)) : l.Spec).ToList();
                using (var m = Face.Invoke(f, "tensors", "sequential_of", new object[] { parts, _seqName }))
                {
                    return TfNetTrain.Model.FromPython(m, runtime);
                }
            });
        }
    }
}
