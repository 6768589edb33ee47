using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>What a C# <see cref="Model"/> subclass is made with (TF.NET's ModelArgs).</summary>
    public class ModelArgs : LayerArgs
    {
    }

    /// <summary>
    /// TensorFlow.NET's callback parameters (<c>new EarlyStopping(new CallbackParams { Model = model, Epochs = n }, ...)</c>):
    /// accepted for its programs; fit gives every callback its model and epochs itself.
    /// </summary>
    public class CallbackParams
    {
        public IModel Model { get; set; }
        public int Verbose { get; set; }
        public int Epochs { get; set; }
        public long Steps { get; set; }
    }

    /// <summary>A Keras model (TF.NET's IModel).</summary>
    public interface IModel : ILayer
    {
        /// <summary>Configures training.</summary>
        void compile(IOptimizer optimizer = null, ILossFunc loss = null, string[] metrics = null, string semantics = null);

        /// <summary>Configures training from string identifiers.</summary>
        void compile(string optimizer, string loss, string[] metrics = null, string semantics = null);

        /// <summary>Trains on arrays.</summary>
        History fit(NDArray x, NDArray y, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                    float validation_split = 0f, (NDArray, NDArray)? validation_data = null, bool shuffle = true,
                    Dictionary<int, float> class_weight = null, NDArray sample_weight = null, int initial_epoch = 0,
                    int max_queue_size = 10, int workers = 1, bool use_multiprocessing = false, CancellationToken cancellationToken = default(CancellationToken));

        /// <summary>Trains a model of several inputs, one array per input.</summary>
        History fit(NDArray[] x, NDArray y, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                    float validation_split = 0f, bool shuffle = true, Dictionary<int, float> class_weight = null, NDArray sample_weight = null,
                    int initial_epoch = 0, CancellationToken cancellationToken = default(CancellationToken));

        /// <summary>Loss and metrics over arrays.</summary>
        Dictionary<string, float> evaluate(NDArray x, NDArray y, int batch_size = -1, int verbose = 1, NDArray sample_weight = null, CancellationToken cancellationToken = default(CancellationToken));

        /// <summary>Loss and metrics of a model of several inputs.</summary>
        Dictionary<string, float> evaluate(NDArray[] x, NDArray y, int batch_size = -1, int verbose = 1, NDArray sample_weight = null, CancellationToken cancellationToken = default(CancellationToken));

        /// <summary>The outputs of a model of several inputs.</summary>
        Tensors predict(NDArray[] x, int batch_size = -1, int verbose = 0, CancellationToken cancellationToken = default(CancellationToken));

        /// <summary>The outputs for every sample.</summary>
        Tensors predict(NDArray x, int batch_size = -1, int verbose = 0, CancellationToken cancellationToken = default(CancellationToken));

        /// <summary>Prints and returns the Keras summary.</summary>
        string summary();

        /// <summary>The trainable variables (Keras order).</summary>
        List<IVariableV1> TrainableVariables { get; }

        /// <summary>The layers.</summary>
        List<ILayer> Layers { get; }

        /// <summary>The weights as arrays (Keras order).</summary>
        List<NDArray> get_weights();

        /// <summary>Sets every weight (Keras order).</summary>
        void set_weights(IList<NDArray> weights);

        /// <summary>Writes the weights as HDF5 under any name, as TF.NET does (Keras's ".weights.h5" layout).</summary>
        void save_weights(string filepath);

        /// <summary>Reads weights written by save_weights.</summary>
        void load_weights(string filepath);

        /// <summary>The Keras config (a <see cref="FunctionalConfig"/> for a functional model; converts to its JSON text).</summary>
        KerasConfig get_config();

        /// <summary>Saves the whole model (".keras"/".h5", or a SavedModel directory for other paths).</summary>
        void save(string filepath, bool overwrite = true, bool include_optimizer = true, string save_format = "tf");
    }

    /// <summary>
    /// A Keras model with TF.NET's lower-case members, over one <see cref="TfNetTrain.Model"/> (compile, fit,
    /// evaluate, predict and summary call its PascalCase methods). Also a layer: add it to another Sequential.
    /// <para>A C# subclass (TF.NET's <c>class ConvNet : Model</c>, made with <see cref="ModelArgs"/>) overrides
    /// <c>Call</c> — and may override <see cref="train_step"/> — and holds its layers as fields or through
    /// <c>StackLayers</c>: it is an engine model whose call is that C# code, run while TensorFlow traces, so
    /// <c>fit</c>, <c>evaluate</c> and <c>predict</c> run it compiled.</para>
    /// </summary>
    public partial class Model : Layer, IModel, IDisposable
    {
        private TfNetTrain.Model _model;
        private readonly string _name;

        internal Model(TfNetTrain.Model model, string name) : base(new LayerSpec("Model"))
        {
            _model = model;
            _name = name;
        }

        /// <summary>A model written in C#: override Call (and train_step if the step itself differs).</summary>
        protected Model(ModelArgs args) : base((LayerArgs)args ?? new ModelArgs())
        {
            _name = args?.Name;
        }

        /// <summary>The TfNetTrain model underneath (built on first use for a Sequential or a C# subclass).</summary>
        public TfNetTrain.Model EngineModel => _model ?? (_model = Build());

        internal bool IsModelBuilt => _model != null;

        internal virtual TfNetTrain.Model Build()
        {
            if (!IsHostCode) throw new InvalidOperationException("the model is not built");
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var m = MakeHostObject(runtime, f)) return TfNetTrain.Model.FromPython(m, runtime);
            });
        }

        internal override PyObject MakeHostObject(PythonRuntime runtime, BridgeFacade f)
        {
            var layers = OwnedLayers(runtime, f);
            using (var host = PyObject.FromManagedObject(HostCode.ForLayer(this)))
            {
                return Face.Invoke(f, "host_code", "host_model", new object[]
                {
                    new PyObjectBox(host), _name, true, Overrides(typeof(Model), nameof(train_step)), layers,
                    Overrides(typeof(Layer), nameof(build)),
                });
            }
        }

        public override string Name => _name ?? EngineModel.Runtime.Run(() => { using (var n = EngineModel.PythonObject.GetAttr("name")) return n.As<string>(); });

        internal override PyObject PythonLayer(PythonRuntime runtime, BridgeFacade f) => EngineModel.PythonObject;

        /// <summary>The output shape (-1 for the batch and other unknown sizes); the first output's for several.</summary>
        public Shape output_shape => ShapeAttribute("output_shape");

        /// <summary>The input shape (-1 for the batch and other unknown sizes); the first input's for several.</summary>
        public Shape input_shape => ShapeAttribute("input_shape");

        private Shape ShapeAttribute(string name)
        {
            TfNetTrain.Model model = EngineModel;
            return model.Runtime.Run(() =>
            {
                using (var s = Face.Invoke(model.Runtime.Facade, "host_code", "model_shape", new object[] { new PyObjectBox(model.PythonObject), name }))
                {
                    return new Shape(PyConvert.Iterate(s).Select(d => d.IsNone() ? -1L : d.As<long>()).ToArray());
                }
            });
        }

        /// <summary>
        /// One training step (Keras's <c>train_step(data)</c>, with <c>data</c> unpacked): a C# subclass may override
        /// it — it runs while TensorFlow traces, once per input signature — and return the logs by name (e.g. every
        /// metric's result). The base runs the engine's own step.
        /// </summary>
        public virtual Dictionary<string, Tensor> train_step(Tensors x, Tensors y, Tensors sample_weight)
        {
            TfNetTrain.Model model = EngineModel;
            return model.Runtime.Run(() => ReadLogs(model.Runtime, Face.Invoke(model.Runtime.Facade, "host_code", "default_train_step",
                new object[] { new PyObjectBox(model.PythonObject), Flat(x), Flat(y), Flat(sample_weight) })));
        }

        /// <summary>The compiled loss of a batch (Keras's compute_loss), for a train_step override.</summary>
        public Tensor compute_loss(Tensors x, Tensors y, Tensors y_pred, Tensors sample_weight = null)
        {
            TfNetTrain.Model model = EngineModel;
            return model.Runtime.Run(() => Tensor.Wrap(model.Runtime, Face.Invoke(model.Runtime.Facade, "host_code", "compute_loss",
                new object[] { new PyObjectBox(model.PythonObject), Flat(x), Flat(y), Flat(y_pred), Flat(sample_weight) })));
        }

        /// <summary>Updates the compiled metrics and returns every metric's result (Keras's compute_metrics).</summary>
        public Dictionary<string, Tensor> compute_metrics(Tensors x, Tensors y, Tensors y_pred, Tensors sample_weight = null)
        {
            TfNetTrain.Model model = EngineModel;
            return model.Runtime.Run(() => ReadLogs(model.Runtime, Face.Invoke(model.Runtime.Facade, "host_code", "compute_metrics",
                new object[] { new PyObjectBox(model.PythonObject), Flat(x), Flat(y), Flat(y_pred), Flat(sample_weight) })));
        }

        /// <summary>The compiled optimizer (null before compile).</summary>
        public OptimizerV2 optimizer
        {
            get
            {
                TfNetTrain.Model model = EngineModel;
                return model.Runtime.Run(() =>
                {
                    PyObject opt = model.PythonObject.GetAttr("optimizer");
                    if (opt.IsNone()) { opt.Dispose(); return null; }
                    return OptimizerV2.FromPython(model.Runtime, opt);
                });
            }
        }

        /// <summary>The model's metrics (the loss tracker first, then the compiled metrics), for a train_step override.</summary>
        public List<Metric> metrics
        {
            get
            {
                TfNetTrain.Model model = EngineModel;
                return model.Runtime.Run(() =>
                {
                    var result = new List<Metric>();
                    using (var list = model.PythonObject.GetAttr("metrics"))
                    {
                        foreach (PyObject m in PyConvert.Iterate(list))
                        {
                            using (var cls = m.GetAttr("__class__"))
                            using (var n = cls.GetAttr("__name__"))
                            {
                                result.Add(new Metric(model.Runtime, m, n.As<string>()));
                            }
                        }
                    }
                    return result;
                });
            }
        }

        private static object Flat(Tensors tensors)
        {
            if (tensors == null) return null;
            if (tensors.Length == 1) return tensors[0];
            return tensors.ToList();
        }

        private static Dictionary<string, Tensor> ReadLogs(PythonRuntime runtime, PyObject dict)
        {
            using (dict)
            using (var items = dict.InvokeMethod("items"))
            {
                var logs = new Dictionary<string, Tensor>();
                foreach (PyObject item in PyConvert.Iterate(items))
                {
                    using (item)
                    using (var k = item[0])
                    {
                        logs[k.As<string>()] = Tensor.Wrap(runtime, item[1]);
                    }
                }
                return logs;
            }
        }

        /// <summary>Configures training (optimizer and loss objects or their string names, metric names).</summary>
        public void compile(IOptimizer optimizer = null, ILossFunc loss = null, string[] metrics = null, string semantics = null)
        {
            OptimizerV2 opt = Optimizer(optimizer);
            Loss lossObject = LossOf(loss);
            metrics = MetricNames(metrics);
            if (lossObject != null && lossObject.Spec == null) compile(opt, lossObject, (metrics ?? new string[0]).Cast<object>().ToArray(), semantics);
            else EngineModel.Compile(opt?.Spec ?? (OptimizerSpec)"rmsprop", lossObject?.Spec, metrics, FaceOptions.Resolve(semantics));
        }

        /// <summary>
        /// TensorFlow.NET's names for metric shorthands ("acc" → "accuracy", "mae" → "mean_absolute_error", "mape" →
        /// "mean_absolute_percentage_error"): the same Keras metric, logged under the name TF.NET gives it.
        /// </summary>
        internal static string[] MetricNames(string[] metrics)
        {
            if (metrics == null) return null;
            return metrics.Select(m => m == "acc" ? "accuracy" : m == "mae" ? "mean_absolute_error" : m == "mape" ? "mean_absolute_percentage_error" : m).ToArray();
        }

        private static OptimizerV2 Optimizer(IOptimizer optimizer)
        {
            if (optimizer == null || optimizer is OptimizerV2) return (OptimizerV2)optimizer;
            throw new TfNetTrainArgumentException(nameof(optimizer), $"compile takes keras.optimizers.* (or new Adam(...), ...); got a {optimizer.GetType().Name}");
        }

        private static Loss LossOf(ILossFunc loss)
        {
            if (loss == null || loss is Loss) return (Loss)loss;
            throw new TfNetTrainArgumentException(nameof(loss), $"compile takes keras.losses.* or a Loss subclass; got a {loss.GetType().Name}");
        }

        /// <summary>Configures training with metric objects (keras.metrics.*, C# Metric subclasses) or names.</summary>
        public void compile(IOptimizer optimizer, ILossFunc loss, Metric[] metrics, string semantics = null)
        {
            compile(Optimizer(optimizer), LossOf(loss), (metrics ?? new Metric[0]).Cast<object>().ToArray(), semantics);
        }

        private void compile(OptimizerV2 optimizer, Loss loss, object[] metrics, string semantics)
        {
            for (int i = 0; i < metrics.Length; i++)
                if (metrics[i] == null) throw new ArgumentNullException(nameof(metrics), $"metrics[{i}] is null");
            TfNetTrain.Model model = EngineModel;
            model.Runtime.Run(() =>
            {
                var f = model.Runtime.Facade;
                object opt = optimizer == null ? (object)"rmsprop" : optimizer.Spec;
                object lossArg = loss == null ? null : loss.Spec != null ? (object)loss.Spec : new PyObjectBox(loss.PythonLoss(model.Runtime, f));
                var items = metrics.Select(m => m is Metric metric ? new PyObjectBox(metric.Handle) : m).ToList();
                using (var o = opt is OptimizerSpec spec ? PyConvert.SpecPair(spec) : Face.ToPython(opt))
                using (var l = lossArg is LossSpec ls ? PyConvert.SpecPair(ls) : Face.ToPython(lossArg))
                using (var ms = Face.ToPython(items))
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object> { { "semantics", FaceOptions.Resolve(semantics) } }))
                using (f["compile_model"].Invoke(new[] { model.PythonObject, o, l, ms }, kwargs))
                {
                    return 0;
                }
            });
        }

        /// <summary>Configures training from string identifiers ("adam", "sparse_categorical_crossentropy").</summary>
        public void compile(string optimizer, string loss, string[] metrics = null, string semantics = null)
        {
            EngineModel.Compile(optimizer, loss, MetricNames(metrics), FaceOptions.Resolve(semantics));
        }

        /// <summary>
        /// Trains on arrays; batch_size -1 is Keras's default (32). <paramref name="cancellationToken"/> stops it at
        /// the next batch end with <see cref="OperationCanceledException"/>, keeping the steps that ran (see
        /// <see cref="TfNetTrain.Model.Fit(TfNetTrain.NDArray, TfNetTrain.NDArray, int?, int, int, IList{TfNetTrain.ICallback}, float, bool, TfNetTrain.NDArray, int, int?, TfNetTrain.NDArray, TfNetTrain.NDArray, int, IDictionary{int, float}, CancellationToken)"/>).
        /// </summary>
        /// <remarks><paramref name="max_queue_size"/>, <paramref name="workers"/> and <paramref name="use_multiprocessing"/>
        /// feed generators in Keras 2 and TF.NET; arrays are sliced in one process there, and here (they are checked, then unused).</remarks>
        public History fit(NDArray x, NDArray y, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                           float validation_split = 0f, (NDArray, NDArray)? validation_data = null, bool shuffle = true,
                           Dictionary<int, float> class_weight = null, NDArray sample_weight = null, int initial_epoch = 0,
                           int max_queue_size = 10, int workers = 1, bool use_multiprocessing = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (max_queue_size < 1) throw new TfNetTrainArgumentException(nameof(max_queue_size), $"fit: max_queue_size must be at least 1, got {max_queue_size}");
            if (workers < 0) throw new TfNetTrainArgumentException(nameof(workers), $"fit: workers must be 0 or more, got {workers}");
            return EngineModel.Fit(x, y, batch_size > 0 ? (int?)batch_size : null, epochs, verbose, callbacks, validation_split, shuffle,
                             sample_weight, initial_epoch, null, validation_data?.Item1, validation_data?.Item2, 1, class_weight,
                             cancellationToken);
        }

        /// <summary>
        /// Trains on a dataset of (x, y) or (x, y, sample_weight) batches (TF.NET's argument order).
        /// <paramref name="callbacks"/> receive the same hooks with the same logs as on the array path (C#
        /// <see cref="ICallback"/>s and <see cref="KerasCallback"/> specs, in list order). The dataset is batched
        /// already, so <paramref name="batch_size"/> must stay -1.
        /// </summary>
        public History fit(IDatasetV2 dataset, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                           IDatasetV2 validation_data = null, int initial_epoch = 0, int steps_per_epoch = -1, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (batch_size != -1)
                throw new TfNetTrainArgumentException(nameof(batch_size), $"a dataset is batched already (dataset.batch(n)): leave batch_size at -1; got {batch_size}");
            return EngineModel.Fit(dataset, epochs, verbose, callbacks, validation_data, initial_epoch,
                                   steps_per_epoch > 0 ? (int?)steps_per_epoch : null, cancellationToken);
        }

        /// <summary>Loss and metrics over arrays, without training; <paramref name="cancellationToken"/> is checked at each batch end.</summary>
        public Dictionary<string, float> evaluate(NDArray x, NDArray y, int batch_size = -1, int verbose = 1, NDArray sample_weight = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new Dictionary<string, float>(EngineModel.Evaluate(x, y, batch_size > 0 ? (int?)batch_size : null, sample_weight,
                                                                      null, cancellationToken));
        }

        /// <summary>Trains a model of several inputs on one array per input.</summary>
        public History fit(NDArray[] x, NDArray y, int batch_size = -1, int epochs = 1, int verbose = 1, List<ICallback> callbacks = null,
                           float validation_split = 0f, bool shuffle = true, Dictionary<int, float> class_weight = null, NDArray sample_weight = null,
                           int initial_epoch = 0, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            return EngineModel.Fit(x, y, batch_size > 0 ? (int?)batch_size : null, epochs, verbose, callbacks, validation_split, shuffle,
                                   sample_weight, initial_epoch, null, (IList<NDArray>)null, null, 1, class_weight, cancellationToken);
        }

        /// <summary>Loss and metrics of a model of several inputs, one array per input.</summary>
        public Dictionary<string, float> evaluate(NDArray[] x, NDArray y, int batch_size = -1, int verbose = 1, NDArray sample_weight = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            return new Dictionary<string, float>(EngineModel.Evaluate(x, y, batch_size > 0 ? (int?)batch_size : null, sample_weight,
                                                                      null, cancellationToken));
        }

        /// <summary>The outputs for tensors (TF.NET's <c>predict(Tensors)</c>: one tensor per model input).</summary>
        public Tensors predict(Tensors x, int batch_size = -1, int verbose = 0, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            return PredictInPython(x.Select(t => t.numpy()).ToArray(), batch_size, cancellationToken);
        }

        /// <summary>The outputs of a model of several inputs, one array per input.</summary>
        public Tensors predict(NDArray[] x, int batch_size = -1, int verbose = 0, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            return PredictInPython(x, batch_size, cancellationToken);
        }

        /// <summary>Loss and metrics over a dataset of (x, y) batches.</summary>
        public Dictionary<string, float> evaluate(IDatasetV2 dataset, int verbose = 1, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new Dictionary<string, float>(EngineModel.Evaluate(dataset, null, cancellationToken));
        }

        /// <summary>
        /// The model's outputs for every sample, one tensor per model output (TF.NET's <c>Tensors</c>); a
        /// single-output model's result converts to <see cref="Tensor"/> implicitly. <paramref name="cancellationToken"/>
        /// is checked at each batch end (<see cref="OperationCanceledException"/> once cancelled).
        /// </summary>
        public Tensors predict(NDArray x, int batch_size = -1, int verbose = 0, CancellationToken cancellationToken = default(CancellationToken))
        {
            return PredictInPython(new[] { x }, batch_size, cancellationToken);
        }

        /// <summary>The model's outputs for every element of a dataset (x, (x, y) or (x, y, sample_weight) batches), one tensor per output.</summary>
        public Tensors predict(IDatasetV2 dataset, int verbose = 0, int steps = -1, CancellationToken cancellationToken = default(CancellationToken))
        {
            TfNetTrain.Model model = EngineModel;
            return model.PredictInPython(dataset, steps > 0 ? (int?)steps : null, o => new Tensors(Tensor.WrapList(model.Runtime, o)),
                                         cancellationToken);
        }

        /// <summary>The outputs for arrays, kept in Python as the face's tensors (no copy into C# and back).</summary>
        private Tensors PredictInPython(NDArray[] x, int batch_size, CancellationToken cancellationToken)
        {
            TfNetTrain.Model model = EngineModel;
            return model.PredictInPython(x, batch_size > 0 ? (int?)batch_size : null, o => new Tensors(Tensor.WrapList(model.Runtime, o)),
                                         cancellationToken);
        }

        /// <summary>Prints the Keras summary (also returned).</summary>
        public string summary()
        {
            string text = EngineModel.Summary();
            Console.WriteLine(text);
            return text;
        }

        /// <summary>The model called eagerly on <paramref name="inputs"/> (recorded by an open GradientTape).</summary>
        public override Tensors Apply(Tensor inputs, bool? training = null)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            TfNetTrain.Model model = EngineModel;
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
                TfNetTrain.Model model = EngineModel;
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
                TfNetTrain.Model model = EngineModel;
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

        /// <summary>The Keras config (a <see cref="FunctionalConfig"/> for a functional model; converts to its JSON text).</summary>
        public override KerasConfig get_config()
        {
            TfNetTrain.Model model = EngineModel;
            string text = model.Runtime.Run(() =>
            {
                using (var d = Face.Invoke(model.Runtime.Facade, "tensors", "model_config", new object[] { new PyObjectBox(model.PythonObject) }))
                using (var json = d["json"])
                {
                    return json.As<string>();
                }
            });
            return this is Functional && !(this is Sequential) ? new FunctionalConfig(text) : new KerasConfig(text);
        }

        public List<NDArray> get_weights() => EngineModel.GetWeights().ToList();
        public void set_weights(IList<NDArray> weights) => EngineModel.SetWeights(weights);
        public void save_weights(string filepath) => EngineModel.SaveWeightsAnyName(filepath); // HDF5 under any name, as TF.NET
        public void load_weights(string filepath) => EngineModel.LoadWeights(filepath);

        /// <summary>Releases the Python model.</summary>
        public void Dispose() => _model?.Dispose();
    }

    /// <summary>A model of layers called on symbolic inputs (keras.Model(inputs, outputs)), or a Sequential.</summary>
    public partial class Functional : Tensorflow.Keras.Engine.Model
    {
        internal Functional(TfNetTrain.Model model, string name) : base(model, name)
        {
        }

        /// <summary>The TfNetTrain model underneath (built on first use for a Sequential).</summary>
        public TfNetTrain.Model Model => EngineModel;
    }

    /// <summary>A Sequential model: <see cref="add"/> layers, then compile/fit; built on first use.</summary>
    public sealed class Sequential : Functional
    {
        private readonly List<ILayer> _layers;
        private readonly string _seqName;
        private Tensor _input;

        internal Sequential(List<ILayer> layers, string name) : base(null, name)
        {
            _layers = layers == null ? new List<ILayer>() : new List<ILayer>(layers);
            _seqName = name;
        }

        /// <summary>Starts the model with an input (<c>model.add(keras.Input(shape))</c>, as TF.NET programs do).</summary>
        public void add(Tensor input)
        {
            if (input == null) throw new ArgumentNullException(nameof(input));
            if (IsModelBuilt) throw new InvalidOperationException("layers cannot be added once the model is built (compile, fit, summary, ...)");
            if (_layers.Count > 0 || _input != null)
                throw new TfNetTrainArgumentException(nameof(input), "keras.Input(...) must be the first thing added to a Sequential");
            _input = input;
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
            if (_input != null)
            {
                Shape shape = _input.shape;
                items.Add(new Layer(new LayerSpec("Input", KerasInterface.InputArguments(new Shape(shape.dims.Skip(1).ToArray()),
                    shape[0] < 0 ? -1 : (int)shape[0], _input.dtype, null))));
            }
            else if (first.InputShape != null)
                items.Add(new Layer(new LayerSpec("Input", KerasInterface.InputArguments(first.InputShape, first.BatchSize, TF_DataType.DtInvalid, null))));
            items.AddRange(_layers.Cast<Layer>());
            // Every layer is made as the Python object its C# Layer holds (one set of objects: layer.Weights, Apply and
            // the model see the same layer); the Input stays a spec.
            return Face.Run(runtime, f =>
            {
                var parts = items.Select(l => l.Spec != null && l.Spec.ClassName == "Input" ? (object)l.Spec : new PyObjectBox(l.PythonLayer(runtime, f))).ToList();
                using (var m = Face.Invoke(f, "models", "sequential", new object[] { parts, _seqName }))
                {
                    return TfNetTrain.Model.FromPython(m, runtime);
                }
            });
        }
    }
}
