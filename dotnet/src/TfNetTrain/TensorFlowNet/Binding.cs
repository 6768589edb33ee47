using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's <c>Tensorflow.Binding</c>: <c>using static TfNetTrain.TensorFlowNet.Binding;</c> gives tf and zip.</summary>
    public static partial class Binding
    {
        /// <summary>The tf namespace: ops, GradientTape, data, dtypes.</summary>
        public static readonly TensorFlowApi tf = new TensorFlowApi();

        /// <summary>Pairs items of two sequences (for <c>optimizer.apply_gradients(zip(grads, vars))</c>).</summary>
        public static IEnumerable<(T1, T2)> zip<T1, T2>(IEnumerable<T1> first, IEnumerable<T2> second)
        {
            if (first == null) throw new ArgumentNullException(nameof(first));
            if (second == null) throw new ArgumentNullException(nameof(second));
            return first.Zip(second, (a, b) => (a, b));
        }

        /// <summary>0, 1, ..., end - 1.</summary>
        public static IEnumerable<int> range(int end) => Enumerable.Range(0, Math.Max(0, end));

        /// <summary>start, ..., end - 1.</summary>
        public static IEnumerable<int> range(int start, int end) => Enumerable.Range(start, Math.Max(0, end - start));

        /// <summary>Console.WriteLine of the value.</summary>
        public static void print(object value) => Console.WriteLine(value);
    }

    /// <summary>TF.NET's <c>tf</c>: the common ops on eager tensors, each running the TensorFlow function of the same name.</summary>
    public sealed partial class TensorFlowApi
    {
        internal TensorFlowApi()
        {
        }

        public TF_DataType float32 => TF_DataType.TF_FLOAT;
        public TF_DataType float64 => TF_DataType.TF_DOUBLE;
        public TF_DataType int32 => TF_DataType.TF_INT32;
        public TF_DataType int64 => TF_DataType.TF_INT64;
        public TF_DataType uint8 => TF_DataType.TF_UINT8;
        public TF_DataType @bool => TF_DataType.TF_BOOL;

        /// <summary>tf.data: datasets.</summary>
        public DataApi data { get; } = new DataApi();

        /// <summary>tf.nn: activations.</summary>
        public NnApi nn { get; } = new NnApi();

        /// <summary>A tape recording operations for gradients (dispose it: the end of the <c>using</c> block).</summary>
        public GradientTape GradientTape(bool persistent = false)
        {
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => new GradientTape(runtime, Face.Invoke(f, "tensors", "gradient_tape", new object[] { persistent }), persistent));
        }

        /// <summary>Seeds Python, NumPy and Keras (as keras.utils.set_random_seed).</summary>
        public void set_random_seed(int seed)
        {
            PythonRuntime unused = Face.Runtime;
            Keras.SetRandomSeed(seed);
        }

        /// <summary>An eager tensor holding a copy of <paramref name="value"/> (NDArray, number, C# array).</summary>
        public Tensor constant(object value, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (value == null) throw new ArgumentNullException(nameof(value));
            if (value is Tensor) return Op("identity", value);
            if (value is Array array) value = NumPyApi.FromAny(array); // C# arrays keep their shape
            return Make("to_tensor", new[] { value, dtype });
        }

        /// <summary>Same as <see cref="constant"/> (a tensor is returned unchanged).</summary>
        public Tensor convert_to_tensor(object value, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (value is Tensor t && dtype == TF_DataType.DtInvalid) return t;
            return constant(value, dtype);
        }

        public Tensor add(Tensor x, Tensor y) => Op("add", x, y);
        public Tensor subtract(Tensor x, Tensor y) => Op("subtract", x, y);
        public Tensor multiply(Tensor x, Tensor y) => Op("multiply", x, y);
        public Tensor divide(Tensor x, Tensor y) => Op("divide", x, y);
        public Tensor negative(Tensor x) => Op("negative", x);
        public Tensor abs(Tensor x) => Op("abs", x);
        public Tensor square(Tensor x) => Op("square", x);
        public Tensor sqrt(Tensor x) => Op("sqrt", x);
        public Tensor exp(Tensor x) => Op("exp", x);
        public Tensor log(Tensor x) => Op("log", x);
        public Tensor pow(Tensor x, float y) => Op("pow", x, y);
        public Tensor maximum(Tensor x, Tensor y) => Op("maximum", x, y);
        public Tensor minimum(Tensor x, Tensor y) => Op("minimum", x, y);
        public Tensor matmul(Tensor a, Tensor b) => Op("matmul", a, b);
        public Tensor equal(Tensor x, Tensor y) => Op("equal", x, y);
        public Tensor not_equal(Tensor x, Tensor y) => Op("not_equal", x, y);
        public Tensor greater(Tensor x, Tensor y) => Op("greater", x, y);
        public Tensor less(Tensor x, Tensor y) => Op("less", x, y);
        public Tensor sigmoid(Tensor x) => Op("sigmoid", x);
        public Tensor tanh(Tensor x) => Op("tanh", x);
        public Tensor identity(Tensor x) => Op("identity", x);
        public Tensor reduce_mean(Tensor input_tensor, int? axis = null, bool keepdims = false) => Reduce("reduce_mean", input_tensor, axis, keepdims);
        public Tensor reduce_sum(Tensor input, int? axis = null, bool keepdims = false) => Reduce("reduce_sum", input, axis, keepdims);
        public Tensor reduce_max(Tensor input_tensor, int? axis = null, bool keepdims = false) => Reduce("reduce_max", input_tensor, axis, keepdims);
        public Tensor reduce_min(Tensor input_tensor, int? axis = null, bool keepdims = false) => Reduce("reduce_min", input_tensor, axis, keepdims);
        public Tensor argmax(Tensor input, int axis) => Op("argmax", input, axis);
        public Tensor argmin(Tensor input, int axis) => Op("argmin", input, axis);
        public Tensor one_hot(Tensor indices, int depth) => Op("one_hot", indices, depth);
        public Tensor cast(Tensor x, TF_DataType dtype) => Op("cast", x, dtype);
        public Tensor reshape(Tensor tensor, Shape shape) => Op("reshape", tensor, shape);
        public Tensor transpose(Tensor a, int[] perm = null) => perm == null ? Op("transpose", a) : Op("transpose", a, perm);
        public Tensor squeeze(Tensor input, int axis) => Op("squeeze", input, axis);
        public Tensor squeeze(Tensor input) => Op("squeeze", input);
        public Tensor expand_dims(Tensor input, int axis = -1) => Op("expand_dims", input, axis);
        public Tensor concat(IEnumerable<Tensor> values, int axis) => Op("concat", values.ToList(), axis);
        public Tensor stack(IEnumerable<Tensor> values, int axis = 0) => Op("stack", values.ToList(), axis);
        public Tensor zeros(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT) => Op("zeros", shape, dtype);
        public Tensor ones(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT) => Op("ones", shape, dtype);
        public Tensor clip_by_value(Tensor t, float clip_value_min, float clip_value_max) => Op("clip_by_value", t, clip_value_min, clip_value_max);

        private Tensor Reduce(string name, Tensor input, int? axis, bool keepdims)
        {
            return Make("tensor_op", new object[] { name, new object[] { input }, new Dictionary<string, object> { { "axis", axis }, { "keepdims", keepdims } } });
        }

        /// <summary>tf.&lt;name&gt;(*args) for a name the bridge lists (tensors.OPS).</summary>
        internal Tensor Op(string name, params object[] args)
        {
            for (int i = 0; i < args.Length; i++)
            {
                if (args[i] == null) throw new ArgumentNullException("args", $"tf.{name}: argument {i} is null");
            }
            return Make("tensor_op", new object[] { name, args });
        }

        private static Tensor Make(string function, object[] args)
        {
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => Tensor.Wrap(runtime, Face.Invoke(f, "tensors", function, args)));
        }
    }

    /// <summary>TF.NET's <c>tf.nn</c> (the activations a custom loop uses).</summary>
    public sealed partial class NnApi
    {
        internal NnApi()
        {
        }

        public Tensor softmax(Tensor logits) => Binding.tf.Op("softmax", logits);
        public Tensor relu(Tensor features) => Binding.tf.Op("relu", features);
        public Tensor sigmoid(Tensor x) => Binding.tf.Op("sigmoid", x);
    }
}
