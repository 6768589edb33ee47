using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Linq;
using System.Runtime.ExceptionServices;
using System.Threading;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// What Python calls while TensorFlow traces C# code (tfnet_train.bridge.host_code): a delegate given to
    /// <c>tf.function</c>, or the overridden methods of a C# <see cref="Layer"/>, <see cref="Model"/>,
    /// <see cref="Loss"/> or <see cref="Metric"/> subclass. Each method runs on the Python thread that traces, so the
    /// <c>tf.*</c> calls of the C# code run inline and add ops to the graph — also on a thread of TensorFlow's own
    /// (a MirroredStrategy replica thread), which the Python worker waits for. Public only so that Python can call it.
    /// </summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public sealed class HostCode
    {
        [ThreadStatic] private static Exception _pending;
        [ThreadStatic] private static List<Layer> _owners;

        private readonly string _name;
        private readonly Func<Tensor[], object> _invoke;
        private readonly Layer _layer;
        private readonly Loss _loss;
        private Metric _metric;

        private HostCode(string name, Func<Tensor[], object> invoke, Layer layer, Loss loss, Metric metric)
        {
            _name = name;
            _invoke = invoke;
            _layer = layer;
            _loss = loss;
            _metric = metric;
        }

        internal static HostCode ForDelegate(string name, Func<Tensor[], object> invoke) => new HostCode(name, invoke, null, null, null);
        internal static HostCode ForLayer(Layer layer) => new HostCode(layer.GetType().Name, null, layer, null, null);
        internal static HostCode ForLoss(Loss loss) => new HostCode(loss.GetType().Name, null, null, loss, null);
        internal static HostCode ForMetric(Metric metric) => new HostCode(metric?.GetType().Name ?? "Metric", null, null, null, metric);

        internal void Bind(Metric metric) => _metric = metric;

        /// <summary>A delegate's body: the tensors it is called with, its tensors back.</summary>
        public PyObject Invoke(PyObject args) => Guard(() =>
        {
            Tensor[] tensors = Wrap(args);
            return ToPython(_invoke(tensors), "tf.function");
        });

        /// <summary><see cref="Layer.build"/> with the input shape Keras gives.</summary>
        public void Build(PyObject inputShape) => Guard<object>(() =>
        {
            _layer.InvokeBuild(new KerasShapesWrapper(ReadShapes(inputShape)));
            return null;
        });

        /// <summary>The layer's or model's <c>Call</c>.</summary>
        public PyObject Call(PyObject inputs, PyObject training) => Guard(() =>
        {
            bool? flag = null;
            using (Py.GIL())
            {
                if (training != null && !training.IsNone()) flag = training.IsTrue();
            }
            Tensors result = _layer.InvokeCall(new Tensors(Wrap(inputs)), flag);
            return ToPython(result, "Call");
        });

        /// <summary>A model's <c>train_step</c> override: logs by name.</summary>
        public PyObject TrainStep(PyObject x, PyObject y, PyObject sampleWeight) => Guard(() =>
        {
            var model = (Model)_layer;
            Dictionary<string, Tensor> logs = model.train_step(new Tensors(Wrap(x)), OptionalTensors(y), OptionalTensors(sampleWeight));
            if (logs == null)
                throw new TfNetTrainArgumentException("train_step", $"{_name}.train_step must return a dictionary of logs (metric name to tensor); it returned null");
            using (Py.GIL())
            {
                var dict = new PyDict();
                foreach (var pair in logs)
                {
                    if (pair.Value == null)
                        throw new TfNetTrainArgumentException("train_step", $"{_name}.train_step returned null for log '{pair.Key}'");
                    using (var v = pair.Value.Handle.NewReference()) dict[pair.Key] = v;
                }
                return (PyObject)dict;
            }
        });

        /// <summary>A loss's per-sample values (<see cref="Loss.Apply"/>).</summary>
        public PyObject Apply(PyObject yTrue, PyObject yPred) => Guard(() =>
        {
            Tensor value = _loss.Apply(Tensor.Wrap(Runtime, Own(yTrue)), Tensor.Wrap(Runtime, Own(yPred)));
            return ToPython(value, "Apply");
        });

        /// <summary>A metric's <c>update_state</c>.</summary>
        public void UpdateState(PyObject yTrue, PyObject yPred, PyObject sampleWeight) => Guard<object>(() =>
        {
            Tensors w = OptionalTensors(sampleWeight);
            _metric.update_state(Tensor.Wrap(Runtime, Own(yTrue)), Tensor.Wrap(Runtime, Own(yPred)), w?[0]);
            return null;
        });

        /// <summary>A metric's <c>result</c>.</summary>
        public PyObject Result() => Guard(() => ToPython(_metric.result(), "result"));

        /// <summary>A metric's <c>reset_states</c>.</summary>
        public void ResetStates() => Guard<object>(() =>
        {
            _metric.reset_states();
            return null;
        });

        private static PythonRuntime Runtime => Face.Runtime;

        /// <summary>C# code of <paramref name="owner"/> starts running for Python on this thread.</summary>
        internal static void Enter(Layer owner)
        {
            if (_owners == null) _owners = new List<Layer>();
            _owners.Add(owner);
        }

        internal static void Leave() => _owners.RemoveAt(_owners.Count - 1);

        /// <summary>
        /// A layer applied inside the Call of a C# layer or model must be one it owns: Keras counts only those
        /// layers' weights as its weights (trained, saved), so an unowned one would silently not train.
        /// </summary>
        internal static void CheckOwned(Layer layer)
        {
            if (_owners == null || _owners.Count == 0) return;
            Layer owner = _owners[_owners.Count - 1];
            if (owner == layer || owner.Owns(layer)) return;
            throw new TfNetTrainArgumentException("layer", $"{owner.GetType().Name}.Call applies the layer {layer} that it does not own: " +
                $"make the layer a field of {owner.GetType().Name} or pass it to StackLayers in the constructor (Keras trains and saves only those layers' weights)");
        }

        /// <summary>
        /// Runs C# code called from Python. An exception is remembered for this thread before it goes back into
        /// Python, so that the C# caller that started the trace receives the same exception object (type, message
        /// and stack) even where Python re-raised it as another exception on the way (<see cref="RethrowPending"/>).
        /// </summary>
        private static T Guard<T>(Func<T> body)
        {
            PythonWorker.EnterPythonCall(); // its library calls run here: the thread may be a replica thread the worker waits for
            try
            {
                return body();
            }
            catch (Exception e)
            {
                _pending = e;
                throw;
            }
            finally
            {
                PythonWorker.LeavePythonCall();
            }
        }

        /// <summary>
        /// Called where a Python error reaches C#: when C# code run from Python threw on this thread and the error is
        /// that exception (pythonnet gives its .NET type name), throws the original exception instead.
        /// </summary>
        internal static void RethrowPending(PythonException error)
        {
            Exception pending = _pending;
            if (pending == null) return;
            _pending = null;
            string typeName = error.Type?.Name;
            if (typeName == pending.GetType().Name || typeName == pending.GetType().FullName || error.Message.Contains(pending.Message))
                ExceptionDispatchInfo.Capture(pending).Throw();
        }

        private static PyObject Own(PyObject borrowed)
        {
            using (Py.GIL()) return borrowed.NewReference();
        }

        private static Tensor[] Wrap(PyObject value)
        {
            PythonRuntime runtime = Runtime;
            using (Py.GIL())
            {
                if (PyList.IsListType(value) || PyTuple.IsTupleType(value))
                    return PyConvert.Iterate(value).Select(item => Tensor.Wrap(runtime, item)).ToArray();
                return new[] { Tensor.Wrap(runtime, value.NewReference()) };
            }
        }

        private static Tensors OptionalTensors(PyObject value)
        {
            using (Py.GIL())
            {
                if (value == null || value.IsNone()) return null;
            }
            return new Tensors(Wrap(value));
        }

        private static List<long[]> ReadShapes(PyObject inputShape)
        {
            using (Py.GIL())
            {
                var shapes = new List<long[]>();
                if (inputShape == null || inputShape.IsNone()) return shapes;
                var items = PyConvert.Iterate(inputShape).ToList();
                bool nested = items.Count > 0 && items.All(i => PyList.IsListType(i) || PyTuple.IsTupleType(i));
                foreach (var shape in nested ? items : new List<PyObject> { inputShape })
                {
                    shapes.Add(PyConvert.Iterate(shape).Select(d => d.IsNone() ? -1L : d.As<long>()).ToArray());
                }
                return shapes;
            }
        }

        private PyObject ToPython(object result, string what)
        {
            Tensor[] tensors;
            if (result == null) throw new TfNetTrainArgumentException(what, $"{what} of '{_name}' returned null; it must return a Tensor (or Tensors)");
            if (result is Tensor single) tensors = new[] { single };
            else if (result is Tensors many) tensors = many.ToArray();
            else if (result is IEnumerable<Tensor> list) tensors = list.ToArray();
            else throw new TfNetTrainArgumentException(what, $"{what} of '{_name}' returned a {result.GetType().Name}; it must return a Tensor (or Tensors)");
            using (Py.GIL())
            {
                if (tensors.Length == 1) return tensors[0].Handle.NewReference();
                var pyList = new PyList();
                foreach (var t in tensors)
                {
                    if (t == null) throw new TfNetTrainArgumentException(what, $"{what} of '{_name}' returned a null tensor");
                    using (var p = t.Handle.NewReference()) pyList.Append(p);
                }
                return pyList;
            }
        }
    }

    /// <summary>The input shapes Keras builds a layer for (TF.NET's KerasShapesWrapper).</summary>
    public sealed class KerasShapesWrapper
    {
        internal KerasShapesWrapper(IEnumerable<long[]> shapes)
        {
            Shapes = shapes.Select(s => new Shape(s)).ToArray();
        }

        /// <summary>A wrapper of one shape.</summary>
        public KerasShapesWrapper(Shape shape)
        {
            Shapes = new[] { shape ?? throw new ArgumentNullException(nameof(shape)) };
        }

        /// <summary>One shape per input.</summary>
        public Shape[] Shapes { get; }

        /// <summary>The only input's shape; an InvalidOperationException for a layer of several inputs.</summary>
        public Shape ToSingleShape()
        {
            if (Shapes.Length != 1) throw new InvalidOperationException($"the layer has {Shapes.Length} inputs, not one: read Shapes");
            return Shapes[0];
        }

        /// <summary>Every input's shape.</summary>
        public Shape[] ToShapeArray() => (Shape[])Shapes.Clone();

        public override string ToString() => string.Join(", ", Shapes.Select(s => s.ToString()));
    }
}
