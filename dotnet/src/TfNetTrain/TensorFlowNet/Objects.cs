using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>An optimizer (TF.NET's IOptimizer).</summary>
    public interface IOptimizer
    {
        /// <summary>One update of the variables by their gradients.</summary>
        void apply_gradients(IEnumerable<(Tensor, IVariableV1)> grads_and_vars);
    }

    /// <summary>
    /// An optimizer: an <see cref="OptimizerSpec"/> (what compile builds afresh) and the Python optimizer a custom loop
    /// updates with apply_gradients. TF.NET's classes (<see cref="Adam"/>, <see cref="SGD"/>, <see cref="RMSprop"/>,
    /// <see cref="AdamW"/>) and <c>keras.optimizers.*</c> make the same objects.
    /// </summary>
    public class OptimizerV2 : IOptimizer
    {
        private PythonHandleBox _built;

        internal OptimizerV2(OptimizerSpec spec, bool build = false)
        {
            Spec = spec;
            // Made now rather than at the first apply_gradients: that may run while a C# step is traced, and an
            // optimizer created inside a trace makes TensorFlow trace the step twice.
            if (build)
            {
                PythonRuntime runtime = Face.Runtime;
                _built = Face.Run(runtime, f => new PythonHandleBox(runtime, Face.Invoke(f, "tensors", "make_optimizer", new object[] { Spec })));
            }
        }

        /// <summary>A model's compiled optimizer (apply_gradients updates it).</summary>
        internal static OptimizerV2 FromPython(PythonRuntime runtime, PyObject optimizer)
        {
            string name;
            using (var cls = optimizer.GetAttr("__class__"))
            using (var n = cls.GetAttr("__name__")) name = n.As<string>();
            return new OptimizerV2(new OptimizerSpec(name)) { _built = new PythonHandleBox(runtime, optimizer) };
        }

        /// <summary>What compile builds (a fresh optimizer per compile).</summary>
        public OptimizerSpec Spec { get; }

        /// <summary>One update of <paramref name="grads_and_vars"/>; counts and shapes are checked before anything changes.</summary>
        public void apply_gradients(IEnumerable<(Tensor, IVariableV1)> grads_and_vars)
        {
            if (grads_and_vars == null) throw new ArgumentNullException(nameof(grads_and_vars));
            var pairs = grads_and_vars.ToList();
            for (int i = 0; i < pairs.Count; i++)
            {
                if (pairs[i].Item1 == null || pairs[i].Item2 == null)
                    throw new ArgumentNullException(nameof(grads_and_vars), $"grads_and_vars[{i}] holds null");
                if (!(pairs[i].Item2 is PythonHandle))
                    throw new TfNetTrainArgumentException(nameof(grads_and_vars), $"grads_and_vars[{i}] must pair with a model variable");
            }
            PythonRuntime runtime = Face.Runtime;
            Face.Run(runtime, f =>
            {
                if (_built == null) _built = new PythonHandleBox(runtime, Face.Invoke(f, "tensors", "make_optimizer", new object[] { Spec }));
                Face.Call(f, "tensors", "apply_gradients", new object[] { _built, pairs.Select(p => p.Item1).ToList(), pairs.Select(p => (object)p.Item2).ToList() });
                return 0;
            });
        }

        public override string ToString() => Spec.ToString();
    }

    internal sealed class PythonHandleBox : PythonHandle
    {
        public PythonHandleBox(PythonRuntime runtime, PyObject value) : base(runtime, value)
        {
        }
    }

    /// <summary>keras.optimizers with TF.NET argument names, over <see cref="Optimizers"/>.</summary>
    public sealed partial class OptimizerApi
    {
        internal OptimizerApi()
        {
        }

        public OptimizerV2 SGD(float learning_rate = 0.01f, float momentum = 0f, bool nesterov = false) => new SGD(learning_rate, momentum, nesterov);

        public OptimizerV2 Adam(float learning_rate = 0.001f, float beta_1 = 0.9f, float beta_2 = 0.999f, float epsilon = 1e-7f, bool amsgrad = false, string name = null)
            => new Adam(learning_rate, beta_1, beta_2, epsilon, amsgrad, name);

        public OptimizerV2 AdamW(float learning_rate = 0.001f, float weight_decay = 0.004f, float beta_1 = 0.9f, float beta_2 = 0.999f, float epsilon = 1e-7f)
            => new AdamW(learning_rate, weight_decay, beta_1, beta_2, epsilon);

        public OptimizerV2 RMSprop(float learning_rate = 0.001f, float rho = 0.9f, float momentum = 0f, float epsilon = 1e-7f, bool centered = false, string name = null)
            => new RMSprop(learning_rate, rho, momentum, epsilon, centered, name);
    }

    /// <summary>Stochastic gradient descent (TF.NET's <c>new SGD(...)</c>).</summary>
    public sealed class SGD : OptimizerV2
    {
        public SGD(float learning_rate = 0.01f, float momentum = 0f, bool nesterov = false)
            : base(Optimizers.SGD(learningRate: learning_rate, momentum: momentum, nesterov: nesterov), build: true)
        {
        }
    }

    /// <summary>Adam (TF.NET's <c>new Adam(...)</c>).</summary>
    public sealed class Adam : OptimizerV2
    {
        public Adam(float learning_rate = 0.001f, float beta_1 = 0.9f, float beta_2 = 0.999f, float epsilon = 1e-7f, bool amsgrad = false, string name = null)
            : base(Optimizers.Create("Adam", new Dictionary<string, object>
            {
                { "learning_rate", learning_rate }, { "beta_1", beta_1 }, { "beta_2", beta_2 }, { "epsilon", epsilon }, { "amsgrad", amsgrad }, { "name", name },
            }), build: true)
        {
        }
    }

    /// <summary>AdamW (TF.NET's <c>new AdamW(...)</c>).</summary>
    public sealed class AdamW : OptimizerV2
    {
        public AdamW(float learning_rate = 0.001f, float weight_decay = 0.004f, float beta_1 = 0.9f, float beta_2 = 0.999f, float epsilon = 1e-7f)
            : base(Optimizers.AdamW(learningRate: learning_rate, weightDecay: weight_decay, beta1: beta_1, beta2: beta_2, epsilon: epsilon), build: true)
        {
        }
    }

    /// <summary>RMSprop (TF.NET's <c>new RMSprop(...)</c>).</summary>
    public sealed class RMSprop : OptimizerV2
    {
        public RMSprop(float learning_rate = 0.001f, float rho = 0.9f, float momentum = 0f, float epsilon = 1e-7f, bool centered = false, string name = null)
            : base(Optimizers.RMSprop(learningRate: learning_rate, rho: rho, momentum: momentum, epsilon: epsilon, centered: centered, name: name), build: true)
        {
        }
    }

    /// <summary>
    /// A loss object (TF.NET's ILossFunc): a <see cref="LossSpec"/>, built in Python on first Call; or a C#
    /// subclass overriding <see cref="Apply"/> (the per-sample loss), which Keras reduces and weighs as its own
    /// losses — in compile it runs while TensorFlow traces the training step.
    /// </summary>
    public class Loss : ILossFunc
    {
        private PythonHandleBox _built;
        private readonly string _reduction;
        private readonly string _name;

        /// <summary>Whether y_pred holds logits (given to <see cref="Apply"/> by subclasses that use it).</summary>
        protected bool from_logits;

        internal Loss(LossSpec spec)
        {
            Spec = spec;
        }

        /// <summary>A loss written in C#: override <see cref="Apply"/>.</summary>
        protected Loss(string reduction = null, string name = null, bool from_logits = false)
        {
            _reduction = reduction == null || reduction == ReductionV2.AUTO ? ReductionV2.SUM_OVER_BATCH_SIZE : reduction;
            _name = name;
            this.from_logits = from_logits;
        }

        /// <summary>What compile builds; null for a C# subclass.</summary>
        public LossSpec Spec { get; }

        /// <summary>The reduction ("sum_over_batch_size" unless given).</summary>
        public string Reduction => Spec == null ? _reduction : Spec.Arguments.TryGetValue("reduction", out object r) && r != null ? (string)r : "sum_over_batch_size";

        /// <summary>The loss's name (null until Keras names it).</summary>
        public string Name => Spec == null ? _name : Spec.Arguments.TryGetValue("name", out object n) ? (string)n : null;

        /// <summary>
        /// The per-sample loss of a batch, before reduction (a C# subclass overrides it; for keras.losses it is the
        /// Keras loss function). Runs with symbolic tensors while TensorFlow traces.
        /// </summary>
        public virtual Tensor Apply(Tensor y_true, Tensor y_pred, bool from_logits = false, int axis = -1)
        {
            if (Spec == null) throw new NotImplementedException($"{GetType().Name} must override Apply(Tensor y_true, Tensor y_pred, bool from_logits, int axis)");
            if (y_true == null) throw new ArgumentNullException(nameof(y_true));
            if (y_pred == null) throw new ArgumentNullException(nameof(y_pred));
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => Tensor.Wrap(runtime, Face.Invoke(f, "host_code", "loss_values", new object[] { new PyObjectBox(PythonLoss(runtime, f)), y_true, y_pred })));
        }

        /// <summary>The loss of a batch, reduced as <see cref="Reduction"/> says.</summary>
        public Tensor Call(Tensor y_true, Tensor y_pred, Tensor sample_weight = null)
        {
            if (y_true == null) throw new ArgumentNullException(nameof(y_true));
            if (y_pred == null) throw new ArgumentNullException(nameof(y_pred));
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => Tensor.Wrap(runtime, Face.Invoke(f, "tensors", "loss_call", new object[] { new PyObjectBox(PythonLoss(runtime, f)), y_true, y_pred, sample_weight })));
        }

        /// <summary>The Python loss object (GIL held).</summary>
        internal PyObject PythonLoss(PythonRuntime runtime, BridgeFacade f)
        {
            if (_built != null) return _built.Handle;
            if (Spec != null)
            {
                _built = new PythonHandleBox(runtime, Face.Invoke(f, "tensors", "build_loss_object", new object[] { Spec.ClassName, Spec.Arguments.ToDictionary(p => p.Key, p => p.Value) }));
            }
            else
            {
                using (var host = PyObject.FromManagedObject(HostCode.ForLoss(this)))
                {
                    _built = new PythonHandleBox(runtime, Face.Invoke(f, "host_code", "host_loss", new object[] { new PyObjectBox(host), _name, _reduction }));
                }
            }
            return _built.Handle;
        }

        public override string ToString() => Spec == null ? GetType().Name : Spec.ToString();
    }

    /// <summary>A loss function (TF.NET's ILossFunc).</summary>
    public interface ILossFunc
    {
        /// <summary>The reduction.</summary>
        string Reduction { get; }

        /// <summary>The loss of a batch.</summary>
        Tensor Call(Tensor y_true, Tensor y_pred, Tensor sample_weight = null);
    }

    /// <summary>TF.NET's loss reductions (Keras 3's names; AUTO is sum_over_batch_size).</summary>
    public static class ReductionV2
    {
        public const string NONE = "none";
        public const string AUTO = "auto";
        public const string SUM = "sum";
        public const string SUM_OVER_BATCH_SIZE = "sum_over_batch_size";
        public const string WEIGHTED_MEAN = "sum_over_batch_size";
    }

    /// <summary>keras.losses with TF.NET argument names, over <see cref="LossSpec"/>.</summary>
    public sealed partial class LossesApi
    {
        internal LossesApi()
        {
        }

        private static Loss L(string className, string reduction, string name, params object[] namesAndValues)
        {
            var pairs = TfNetTrain.Layers.Pairs(namesAndValues).ToList();
            pairs.Add(new KeyValuePair<string, object>("reduction", reduction));
            pairs.Add(new KeyValuePair<string, object>("name", name));
            return new Loss(new LossSpec(className, pairs));
        }

        public Loss SparseCategoricalCrossentropy(string reduction = null, string name = null, bool from_logits = false)
            => L("SparseCategoricalCrossentropy", reduction, name, "from_logits", from_logits);

        public Loss CategoricalCrossentropy(string reduction = null, string name = null, bool from_logits = false, float label_smoothing = 0f)
            => L("CategoricalCrossentropy", reduction, name, "from_logits", from_logits, "label_smoothing", label_smoothing);

        public Loss BinaryCrossentropy(bool from_logits = false, float label_smoothing = 0f, string reduction = null, string name = null)
            => L("BinaryCrossentropy", reduction, name, "from_logits", from_logits, "label_smoothing", label_smoothing);

        public Loss MeanSquaredError(string reduction = null, string name = null) => L("MeanSquaredError", reduction, name);
        public Loss MeanAbsoluteError(string reduction = null, string name = null) => L("MeanAbsoluteError", reduction, name);
        public Loss MeanAbsolutePercentageError(string reduction = null, string name = null) => L("MeanAbsolutePercentageError", reduction, name);
        public Loss MeanSquaredLogarithmicError(string reduction = null, string name = null) => L("MeanSquaredLogarithmicError", reduction, name);
        public Loss CosineSimilarity(string reduction = null, int axis = -1, string name = null) => L("CosineSimilarity", reduction, name, "axis", axis);
        public Loss Huber(string reduction = null, string name = null, float delta = 1f) => L("Huber", reduction, name, "delta", delta);
        public Loss LogCosh(string reduction = null, string name = null) => L("LogCosh", reduction, name);
    }

    /// <summary>
    /// A metric object (TF.NET's IMetricFunc): keras.metrics.&lt;ClassName&gt; living in Python; or a C# subclass
    /// that keeps its state in variables from <see cref="add_weight"/> and overrides <see cref="update_state"/> and
    /// <see cref="result"/> — in compile they run while TensorFlow traces the training step.
    /// </summary>
    public class Metric : PythonHandle
    {
        private readonly bool _isHostCode;

        internal Metric(PythonRuntime runtime, PyObject metric, string className) : base(runtime, metric)
        {
            ClassName = className;
        }

        /// <summary>A metric written in C#: add state with <see cref="add_weight"/>, override update_state and result.</summary>
        protected Metric(string name = null, TF_DataType dtype = TF_DataType.DtInvalid) : this(HostParts.Create(name, dtype))
        {
        }

        private Metric(HostParts parts) : base(parts.Runtime, parts.Handle)
        {
            parts.Code.Bind(this);
            ClassName = GetType().Name;
            _isHostCode = true;
        }

        /// <summary>The Keras class name (the C# class name for a subclass).</summary>
        public string ClassName { get; }

        /// <summary>The metric's name, as logs show it ("loss", "accuracy", ...).</summary>
        public string Name => Run(f => { using (var n = Handle.GetAttr("name")) return n.As<string>(); });

        /// <summary>Accumulates a batch (returns null: Keras 3's update_state returns nothing).</summary>
        public virtual Tensor update_state(Tensor y_true, Tensor y_pred, Tensor sample_weight = null)
        {
            if (_isHostCode) throw new NotImplementedException($"{GetType().Name} must override update_state(Tensor y_true, Tensor y_pred, Tensor sample_weight)");
            if (y_true == null) throw new ArgumentNullException(nameof(y_true));
            if (y_pred == null) throw new ArgumentNullException(nameof(y_pred));
            Run(f => { Face.Call(f, "tensors", "metric_update", new object[] { this, y_true, y_pred, sample_weight }); return 0; });
            return null;
        }

        /// <summary>Accumulates values (a metric of values: Mean, Sum), optionally weighted.</summary>
        public Tensor update_state(Tensor values)
        {
            if (values == null) throw new ArgumentNullException(nameof(values));
            if (_isHostCode) return update_state(values, values);
            Run(f => { Face.Call(f, "host_code", "metric_update_values", new object[] { this, values }); return 0; });
            return null;
        }

        /// <summary>The value over every batch since the last reset.</summary>
        public virtual Tensor result()
        {
            if (_isHostCode) throw new NotImplementedException($"{GetType().Name} must override result()");
            return Run(f => Tensor.Wrap(Runtime, Face.Invoke(f, "tensors", "metric_result", new object[] { this })));
        }

        /// <summary>Forgets the accumulated batches (for a C# subclass: every state variable back to zero).</summary>
        public virtual void reset_states()
        {
            string function = _isHostCode ? "metric_reset_default" : "metric_reset";
            Run(f => { Face.Call(f, _isHostCode ? "host_code" : "tensors", function, new object[] { this }); return 0; });
        }

        /// <summary>A state variable of a C# metric (Keras's add_variable; <paramref name="initializer"/> a Keras name).</summary>
        protected IVariableV1 add_weight(string name, Shape shape = null, TF_DataType dtype = TF_DataType.TF_FLOAT, string initializer = "zeros")
        {
            if (!_isHostCode) throw new InvalidOperationException("add_weight is for C# Metric subclasses");
            return Run(f => new ResourceVariable(Runtime, Face.Invoke(f, "host_code", "metric_add_weight",
                new object[] { this, name, (shape ?? new Shape(new long[0])).dims.ToList(), Face.DTypeName(dtype), initializer })));
        }

        internal static Metric Create(string className, params object[] namesAndValues)
        {
            var kwargs = TfNetTrain.Layers.Pairs(namesAndValues).Where(p => p.Value != null).ToDictionary(p => p.Key, p => p.Value);
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => new Metric(runtime, Face.Invoke(f, "tensors", "build_metric", new object[] { className, kwargs }), className));
        }

        private sealed class HostParts
        {
            public PythonRuntime Runtime;
            public PyObject Handle;
            public HostCode Code;

            public static HostParts Create(string name, TF_DataType dtype)
            {
                var parts = new HostParts { Runtime = Face.Runtime, Code = HostCode.ForMetric(null) };
                parts.Handle = Face.Run(parts.Runtime, f =>
                {
                    using (var host = PyObject.FromManagedObject(parts.Code))
                    {
                        return Face.Invoke(f, "host_code", "host_metric", new object[] { new PyObjectBox(host), name, Face.DTypeName(dtype) });
                    }
                });
                return parts;
            }
        }
    }

    /// <summary>keras.metrics with TF.NET argument names.</summary>
    public sealed partial class MetricsApi
    {
        internal MetricsApi()
        {
        }

        public Metric Accuracy(string name = null) => Metric.Create("Accuracy", "name", name);
        public Metric BinaryAccuracy(string name = null, float threshold = 0.5f) => Metric.Create("BinaryAccuracy", "name", name, "threshold", threshold);
        public Metric CategoricalAccuracy(string name = null) => Metric.Create("CategoricalAccuracy", "name", name);
        public Metric SparseCategoricalAccuracy(string name = null) => Metric.Create("SparseCategoricalAccuracy", "name", name);
        public Metric TopKCategoricalAccuracy(int k = 5, string name = null) => Metric.Create("TopKCategoricalAccuracy", "k", k, "name", name);
        public Metric SparseTopKCategoricalAccuracy(int k = 5, string name = null) => Metric.Create("SparseTopKCategoricalAccuracy", "k", k, "name", name);
        public Metric Precision(float thresholds = 0.5f, int? top_k = null, int? class_id = null, string name = null)
            => Metric.Create("Precision", "thresholds", thresholds, "top_k", top_k, "class_id", class_id, "name", name);
        public Metric Recall(float thresholds = 0.5f, int? top_k = null, int? class_id = null, string name = null)
            => Metric.Create("Recall", "thresholds", thresholds, "top_k", top_k, "class_id", class_id, "name", name);
        public Metric AUC(int num_thresholds = 200, string curve = "ROC", string name = null)
            => Metric.Create("AUC", "num_thresholds", num_thresholds, "curve", curve, "name", name);
        /// <summary>F1Score; <paramref name="num_classes"/> is TF.NET's argument, Keras 3 infers it and ignores it here.
        /// TF.NET's result arithmetic when <see cref="FaceOptions.Semantics"/> is "tfnet" as it is made (docs/semantics.md row 27).</summary>
        public Metric F1Score(int num_classes = 0, string average = null, float? threshold = null, string name = null)
            => Metric.Create("F1Score", "average", average, "threshold", threshold, "name", name, "semantics", FaceOptions.Semantics);
        public Metric MeanSquaredError(string name = null) => Metric.Create("MeanSquaredError", "name", name);
        public Metric MeanAbsoluteError(string name = null) => Metric.Create("MeanAbsoluteError", "name", name);
        public Metric Mean(string name = null) => Metric.Create("Mean", "name", name);
    }
}
