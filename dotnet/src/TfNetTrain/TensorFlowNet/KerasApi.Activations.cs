using System;
using System.Collections.Generic;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>keras.activations, keras.backend and keras.utils.np_utils (in a file of their own).</summary>
    public sealed partial class KerasInterface
    {
        /// <summary>keras.activations: activation objects (usable where layers take an activation name).</summary>
        public ActivationsApi activations { get; } = new ActivationsApi();

        /// <summary>keras.backend.</summary>
        public BackendApi backend { get; } = new BackendApi();

        /// <summary>keras.utils (np_utils.to_categorical).</summary>
        public UtilsApi utils { get; } = new UtilsApi();
    }

    /// <summary>
    /// TF.NET's <c>Activation</c>: a Keras activation by name. It converts to that name, so it goes where layers take
    /// <c>string activation</c> (<c>keras.layers.Dense(10, activation: keras.activations.Relu)</c>), and
    /// <see cref="Apply"/> runs it on a tensor.
    /// <para>Every activation the face hands out is a <see cref="Tensorflow.Keras.Activation"/>, this type under
    /// TF.NET's full name, so programs that spell it so compile too.</para>
    /// </summary>
    public class Activation
    {
        internal Activation(string name)
        {
            Name = name;
        }

        /// <summary>Keras's name ("relu", "tanh", ...).</summary>
        public string Name { get; }

        /// <summary>The activation of <paramref name="input"/> (keras.activations.&lt;name&gt;).</summary>
        public Tensor Apply(Tensor input, string name = null)
        {
            if (input == null) throw new ArgumentNullException(nameof(input));
            return Binding.tf.Kw("keras_activation", new object[] { Name, input }, null);
        }

        public static implicit operator string(Activation activation) => activation?.Name;

        public override string ToString() => Name;
    }

    /// <summary>keras.activations by TF.NET's property names.</summary>
    public sealed class ActivationsApi
    {
        internal ActivationsApi()
        {
        }

        public Tensorflow.Keras.Activation Linear => new Tensorflow.Keras.Activation("linear");
        public Tensorflow.Keras.Activation Relu => new Tensorflow.Keras.Activation("relu");
        public Tensorflow.Keras.Activation Relu6 => new Tensorflow.Keras.Activation("relu6");
        public Tensorflow.Keras.Activation Sigmoid => new Tensorflow.Keras.Activation("sigmoid");
        public Tensorflow.Keras.Activation Softmax => new Tensorflow.Keras.Activation("softmax");
        public Tensorflow.Keras.Activation Tanh => new Tensorflow.Keras.Activation("tanh");
        public Tensorflow.Keras.Activation Mish => new Tensorflow.Keras.Activation("mish");
        public Tensorflow.Keras.Activation Elu => new Tensorflow.Keras.Activation("elu");
        public Tensorflow.Keras.Activation Selu => new Tensorflow.Keras.Activation("selu");
        public Tensorflow.Keras.Activation Swish => new Tensorflow.Keras.Activation("swish");
        public Tensorflow.Keras.Activation Gelu => new Tensorflow.Keras.Activation("gelu");
        public Tensorflow.Keras.Activation Softplus => new Tensorflow.Keras.Activation("softplus");
        public Tensorflow.Keras.Activation HardSigmoid => new Tensorflow.Keras.Activation("hard_sigmoid");
        public Tensorflow.Keras.Activation Exponential => new Tensorflow.Keras.Activation("exponential");

        /// <summary>The activation of a Keras name; an unknown name is a TfNetTrainArgumentException listing the known ones.</summary>
        public Tensorflow.Keras.Activation GetActivationFromName(string name)
        {
            if (name == null) return Linear;
            if (!Known.Contains(name))
                throw new TfNetTrainArgumentException(nameof(name), $"keras.activations: takes {string.Join(", ", Known)}; got {name}");
            return new Tensorflow.Keras.Activation(name);
        }

        private static readonly List<string> Known = new List<string>
        {
            "linear", "relu", "relu6", "sigmoid", "softmax", "tanh", "mish", "elu", "selu", "swish", "gelu", "softplus", "hard_sigmoid", "exponential",
        };
    }

    /// <summary>keras.backend.</summary>
    public sealed class BackendApi
    {
        internal BackendApi()
        {
        }

        /// <summary>keras.backend.clear_session(): resets Keras's name counters and global state.</summary>
        public void clear_session()
        {
            PythonRuntime runtime = Face.Runtime;
            Face.Run(runtime, f => { Face.Call(f, "tensors", "clear_session", new object[0]); return 0; });
        }

        /// <summary>The value of a tensor or variable as an NDArray.</summary>
        public NDArray get_value(Tensor x) => (x ?? throw new ArgumentNullException(nameof(x))).numpy();

        /// <summary>Sets a variable's value.</summary>
        public void set_value(ResourceVariable x, NDArray value) => (x ?? throw new ArgumentNullException(nameof(x))).assign(value);

        /// <summary>The fuzz factor (keras.backend.epsilon()).</summary>
        public float epsilon() => 1e-7f;
    }

    /// <summary>keras.utils.</summary>
    public sealed class UtilsApi
    {
        internal UtilsApi()
        {
        }

        /// <summary>keras.utils.np_utils.</summary>
        public NpUtils np_utils { get; } = new NpUtils();

        /// <summary>One-hot rows of class ids (same as np_utils.to_categorical).</summary>
        public NDArray to_categorical(NDArray y, int num_classes = -1, TF_DataType dtype = TF_DataType.TF_FLOAT) => np_utils.to_categorical(y, num_classes, dtype);
    }

    /// <summary>TF.NET's <c>np_utils</c> (also reachable as <c>Binding.np_utils</c>).</summary>
    public sealed class NpUtils
    {
        internal NpUtils()
        {
        }

        /// <summary>One-hot rows of class ids <paramref name="y"/> (num_classes -1: max(y) + 1), float32 by default.</summary>
        public NDArray to_categorical(NDArray y, int num_classes = -1, TF_DataType dtype = TF_DataType.TF_FLOAT)
        {
            if (y == null) throw new ArgumentNullException(nameof(y));
            if (num_classes == 0 || num_classes < -1) throw new TfNetTrainArgumentException(nameof(num_classes), $"to_categorical: must be >= 1 (or -1: max + 1); got {num_classes}");
            return NumPyApi.Module("to_categorical", y, num_classes < 0 ? null : (object)num_classes, NumPyApi.DTypeArgument(dtype, "to_categorical", nameof(dtype)));
        }
    }

    /// <summary>Same constants as <see cref="ReductionV2"/> (TF.NET's older spelling).</summary>
    public static class Reduction
    {
        public const string NONE = ReductionV2.NONE;
        public const string SUM = ReductionV2.SUM;
        public const string SUM_OVER_BATCH_SIZE = ReductionV2.SUM_OVER_BATCH_SIZE;
        public const string AUTO = ReductionV2.AUTO;
        public const string WEIGHTED_MEAN = ReductionV2.WEIGHTED_MEAN;
    }

    /// <summary>TF.NET's optimizer call shapes for variables made by tf.Variable.</summary>
    public static class OptimizerExtensions
    {
        /// <summary>One update of one variable (TF.NET's <c>optimizer.apply_gradients((grad, variable))</c>).</summary>
        public static void apply_gradients(this IOptimizer optimizer, (Tensor, ResourceVariable) grad_and_var)
            => (optimizer ?? throw new ArgumentNullException(nameof(optimizer))).apply_gradients(new List<(Tensor, IVariableV1)> { (grad_and_var.Item1, grad_and_var.Item2) });

        /// <summary>One update of the variables (TF.NET's <c>optimizer.apply_gradients(zip(grads, (W, b)))</c>).</summary>
        public static void apply_gradients(this IOptimizer optimizer, IEnumerable<(Tensor, ResourceVariable)> grads_and_vars)
        {
            if (optimizer == null) throw new ArgumentNullException(nameof(optimizer));
            if (grads_and_vars == null) throw new ArgumentNullException(nameof(grads_and_vars));
            var pairs = new List<(Tensor, IVariableV1)>();
            foreach (var p in grads_and_vars) pairs.Add((p.Item1, p.Item2));
            optimizer.apply_gradients(pairs);
        }
    }
}
