using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// A tfnet_train model living in Python, driven from C#. Every method runs on the runtime's Python worker
    /// thread, so a model may be used from any thread (calls are serialised). Arrays are copied in and out with one
    /// buffer copy each; the overloads taking an output array reuse it instead of allocating. Python errors come out
    /// as <see cref="TfNetTrainException"/> (bad arguments as <see cref="TfNetTrainArgumentException"/>), and the
    /// model stays usable after them. Arguments are checked once, by the Python engine (its ValueError names the
    /// argument, the expected and the actual value); C# checks only what cannot cross the boundary (null arrays).
    /// </summary>
    public sealed partial class Model : IDisposable
    {
        private readonly PythonRuntime _runtime;
        private PyObject _handle;
        private WeightLayout _layout;

        private Model(PythonRuntime runtime, PyObject handle)
        {
            _runtime = runtime;
            _handle = handle;
        }

        /// <summary>Wraps an existing tfnet_train model (call with the GIL held, e.g. inside PythonRuntime.Run).</summary>
        public static Model FromPython(PyObject model, PythonRuntime runtime = null)
        {
            if (model == null) throw new ArgumentNullException(nameof(model));
            runtime = runtime ?? RequireRuntime();
            return new Model(runtime, model.NewReference());
        }

        internal static PythonRuntime RequireRuntime()
        {
            var runtime = PythonRuntime.Current;
            if (runtime == null)
                throw new InvalidOperationException("No Python runtime is running: call PythonRuntime.Start() first.");
            return runtime;
        }

        internal static Model Create(PythonRuntime runtime, Func<BridgeFacade, PyObject> make)
        {
            return runtime.Run(() => new Model(runtime, make(runtime.Facade)));
        }

        /// <summary>The runtime this model lives in.</summary>
        public PythonRuntime Runtime => _runtime;

        /// <summary>The Python model object (use only with the GIL held, e.g. inside <see cref="PythonRuntime.Run{T}"/>).</summary>
        public PyObject PythonObject
        {
            get
            {
                ThrowIfDisposed();
                return _handle;
            }
        }

        /// <summary>
        /// Configures training. <paramref name="optimizer"/> and <paramref name="loss"/> are specs
        /// (<see cref="Optimizers"/>, <see cref="Losses"/>) or strings ("sgd", "mse"); metrics are Keras names
        /// ("accuracy", "mae", ...); <paramref name="semantics"/> is "keras" (Keras 3's numbers) or "tfnet"
        /// (what TensorFlow.NET computes).
        /// </summary>
        public void Compile(OptimizerSpec optimizer, LossSpec loss, IEnumerable<string> metrics = null,
                            string semantics = "keras", bool runEagerly = false, bool jitCompile = false,
                            int stepsPerExecution = 1)
        {
            string[] metricNames = metrics?.ToArray();
            if (metricNames != null && metricNames.Any(m => m == null))
                throw new TfNetTrainArgumentException(nameof(metrics), "metric names must not be null");
            Call(f =>
            {
                using (var opt = optimizer == null ? PyObject.None : PyConvert.SpecPair(optimizer))
                using (var lossObject = loss == null ? PyObject.None : PyConvert.SpecPair(loss))
                using (var metricList = PyConvert.ToPython(metricNames))
                using (var kwargs = PyConvert.Kwargs(new Dictionary<string, object>
                {
                    { "semantics", semantics }, { "run_eagerly", runEagerly }, { "jit_compile", jitCompile },
                    { "steps_per_execution", stepsPerExecution },
                }))
                using (f["compile_model"].Invoke(new[] { _handle, opt, lossObject, metricList }, kwargs))
                {
                    return 0;
                }
            });
        }

        /// <summary>Every weight, in Keras get_weights() order.</summary>
        public IList<NDArray> GetWeights()
        {
            return Call<IList<NDArray>>(f =>
            {
                using (var weights = f["get_weights"].Invoke(_handle)) return PyConvert.ToArrayList(weights);
            });
        }

        /// <summary>Copies every weight into <paramref name="destination"/> (same count, dtypes and shapes; no allocation).</summary>
        public void GetWeights(IList<NDArray> destination)
        {
            if (destination == null) throw new ArgumentNullException(nameof(destination));
            Call(f =>
            {
                using (var weights = f["get_weights"].Invoke(_handle))
                {
                    long count = weights.Length();
                    if (count != destination.Count)
                        throw new TfNetTrainArgumentException(nameof(destination), $"the model has {count} weights; got {destination.Count} arrays");
                    for (int i = 0; i < count; i++)
                    {
                        if (destination[i] == null) throw new ArgumentNullException(nameof(destination), $"destination[{i}] is null");
                        using (var w = weights[i]) ArrayExchange.CopyInto(w, destination[i], $"destination[{i}]");
                    }
                }
                return 0;
            });
        }

        /// <summary>
        /// Sets every weight, in Keras get_weights() order; counts, shapes and dtypes must match the model's
        /// (checked in Python before anything changes).
        /// </summary>
        public void SetWeights(IList<NDArray> weights)
        {
            if (weights == null) throw new ArgumentNullException(nameof(weights));
            for (int i = 0; i < weights.Count; i++)
                if (weights[i] == null) throw new ArgumentNullException(nameof(weights), $"weights[{i}] is null");
            Call(f =>
            {
                using (var list = ArrayExchange.ToNumpyList(weights, nameof(weights)))
                using (f["set_weights"].Invoke(_handle, list))
                {
                    return 0;
                }
            });
        }

        /// <summary>Names of the weights in get_weights() order (e.g. "sequential/dense/kernel").</summary>
        public IList<string> WeightNames => Layout().Names.ToList();

        /// <summary>Shapes of the weights in get_weights() order.</summary>
        public IList<int[]> WeightShapes => Layout().Shapes.Select(s => (int[])s.Clone()).ToList();

        /// <summary>_train_counter: 0 at the start of each Fit, +1 per training step.</summary>
        public long TrainCounter => Call(f =>
        {
            using (var value = f["train_counter"].Invoke(_handle)) return value.As<long>();
        });

        /// <summary>Set to true (e.g. from a callback) to stop Fit after the current step.</summary>
        public bool StopTraining
        {
            get => Call(f => { using (var v = f["get_stop_training"].Invoke(_handle)) return v.As<bool>(); });
            set => Call(f => { using (var v = value.ToPython()) using (f["set_stop_training"].Invoke(_handle, v)) return 0; });
        }

        /// <summary>
        /// Saves the whole model to a ".keras" file (Keras 3's format: architecture, weights, compile configuration
        /// with the optimizer's state, and the train counter), written whole or not at all. Open it with
        /// <see cref="Keras.Models.LoadModel"/> (or Python's <c>tfnet_train.load_model</c> / <c>keras.saving.load_model</c>)
        /// and training continues exactly as if it had not stopped.
        /// </summary>
        public void Save(string path, bool overwrite = true)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            Call(f =>
            {
                using (var p = new PyString(path))
                using (var o = overwrite.ToPython())
                using (f["save_model"].Invoke(_handle, p, o)) return 0;
            });
        }

        /// <summary>
        /// Saves the weights (model and optimizer variables) to an HDF5 file named ".weights.h5" or, as TensorFlow.NET
        /// names it, ".h5" (same content), written whole or not at all.
        /// </summary>
        public void SaveWeights(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            CallWithPath("save_weights", path);
        }

        /// <summary>TF.NET's <c>save_weights</c>: the same HDF5 weights under any name (TF.NET writes HDF5 whatever the extension).</summary>
        internal void SaveWeightsAnyName(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            CallWithPath("save_weights_any_name", path);
        }

        /// <summary>
        /// Loads weights saved by <see cref="SaveWeights"/> (or by Keras for the same architecture); all or nothing:
        /// when the file does not fit, every weight and optimizer variable keeps its value.
        /// </summary>
        public void LoadWeights(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            CallWithPath("load_weights", path);
        }

        /// <summary>The bridge's <paramref name="function"/>(model, path), for the weights files.</summary>
        private void CallWithPath(string function, string path)
        {
            Call(f => { using (var p = new PyString(path)) using (f[function].Invoke(_handle, p)) return 0; });
        }

        /// <summary>The Keras model summary as text.</summary>
        public string Summary() => Call(f => { using (var s = f["summary"].Invoke(_handle)) return s.As<string>(); });

        /// <summary>Releases the Python model (no-op once the runtime is shut down).</summary>
        public void Dispose()
        {
            PyObject handle = _handle;
            if (handle == null) return;
            _handle = null;
            if (!_runtime.IsDisposed) _runtime.Run(() => { handle.Dispose(); });
        }

        // ----- helpers ---------------------------------------------------------------------------------------------

        private T Call<T>(Func<BridgeFacade, T> body)
        {
            ThrowIfDisposed();
            return _runtime.Run(() =>
            {
                ThrowIfDisposed();
                return body(_runtime.Facade);
            });
        }

        private void ThrowIfDisposed()
        {
            if (_handle == null) throw new ObjectDisposedException(nameof(Model));
            _runtime.ThrowIfDisposed();
        }

        private static PyObject Optional(NDArray array) => array == null ? PyObject.None : ArrayExchange.ToNumpy(array);

        private static void RequireY(NDArray y)
        {
            if (y == null) throw new ArgumentNullException(nameof(y));
        }

        private WeightLayout Layout()
        {
            if (_layout != null) return _layout;
            WeightLayout layout = Call(f =>
            {
                using (var d = f["weight_layout"].Invoke(_handle))
                using (var names = d["names"])
                using (var shapes = d["shapes"])
                {
                    return new WeightLayout(names.As<string[]>(), shapes.As<int[][]>());
                }
            });
            if (layout.Shapes.Length > 0) _layout = layout;
            return layout;
        }

        private sealed class WeightLayout
        {
            public WeightLayout(string[] names, int[][] shapes)
            {
                Names = names;
                Shapes = shapes;
            }

            public string[] Names { get; }
            public int[][] Shapes { get; }
        }
    }
}
