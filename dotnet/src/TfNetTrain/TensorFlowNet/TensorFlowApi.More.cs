using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>More of TF.NET's <c>tf</c>: tf.keras, eager-mode switches, variables, random, math, initializers, ops.</summary>
    public sealed partial class TensorFlowApi
    {
        /// <summary>tf.keras: the same object as <c>KerasApi.keras</c>.</summary>
        public KerasInterface keras => KerasApi.keras;

        /// <summary>TF.NET's eager context: always initialised here (<c>tf.Context.ensure_initialized()</c> does nothing).</summary>
        public EagerContext Context { get; } = new EagerContext();

        /// <summary>tf.random.</summary>
        public RandomApi random { get; } = new RandomApi();

        /// <summary>tf.math.</summary>
        public MathApi math { get; } = new MathApi();

        /// <summary>tf.initializers (TF.NET's initializer objects, each a Keras initializer by name).</summary>
        public InitializersApi initializers { get; } = new InitializersApi();

        /// <summary>An initializer of one constant value (tf.constant_initializer).</summary>
        public Initializer constant_initializer(double value, TF_DataType dtype = TF_DataType.TF_FLOAT) => initializers.constant_initializer(value);

        public Initializer zeros_initializer => initializers.zeros_initializer;
        public Initializer ones_initializer => initializers.ones_initializer;
        public Initializer glorot_uniform_initializer => initializers.glorot_uniform_initializer;

        /// <summary>tf.train: graph-mode optimizers, present only so programs compile (each throws).</summary>
        public TrainApi train { get; } = new TrainApi();

        /// <summary>tf.saved_model (load: a Keras SavedModel directory).</summary>
        public SavedModelApi saved_model { get; } = new SavedModelApi();

        public TF_DataType int8 => TF_DataType.TF_INT8;
        public TF_DataType int16 => TF_DataType.TF_INT16;
        public TF_DataType float16 => TF_DataType.TF_HALF;
        public TF_DataType @double => TF_DataType.TF_DOUBLE;
        public TF_DataType @string => TF_DataType.TF_STRING;

        /// <summary>
        /// Does nothing: eager execution is the only mode here (TensorFlow 2 runs eagerly; compiled training steps
        /// are Keras's business), so there is nothing to enable.
        /// </summary>
        public void enable_eager_execution()
        {
        }

        /// <summary>
        /// Refused: graph mode is not supported. Throws <see cref="GraphModeNotSupportedException"/>.
        /// </summary>
        public void compat_v1_disable_eager_execution() => throw new GraphModeNotSupportedException("tf.compat.v1.disable_eager_execution", "keep eager execution");

        /// <summary>True: eager execution is the only mode (TensorFlow's own answer, asked once).</summary>
        public bool executing_eagerly()
        {
            if (_eager.HasValue) return _eager.Value;
            PythonRuntime runtime = Face.Runtime;
            _eager = Face.Run(runtime, f => { using (var r = Face.Invoke(f, "tensors", "executing_eagerly", new object[0])) return r.IsTrue(); });
            return _eager.Value;
        }

        private bool? _eager;

        /// <summary>A trainable variable holding <paramref name="initial_value"/> (number, NDArray, C# array or tensor).</summary>
        public ResourceVariable Variable(object initial_value, bool trainable = true, string name = null, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (initial_value == null) throw new ArgumentNullException(nameof(initial_value));
            object value = initial_value is Array array ? NumPyApi.FromAny(array) : initial_value;
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => new ResourceVariable(runtime, Face.Invoke(f, "tensors", "make_variable", new[] { value, dtype, name, (object)trainable })));
        }

        /// <summary>TF.NET's jagged arrays (new[] { new[] { 1f } }) as a rectangular array.</summary>
        internal static Array Rectangular(Array array, string paramName)
        {
            if (array.Rank > 1 || !(array.GetType().GetElementType().IsArray)) return array;
            var rows = array.Cast<Array>().ToArray();
            if (rows.Length == 0 || rows.Any(r => r == null || r.Rank != 1 || r.Length != rows[0].Length || r.GetType().GetElementType().IsArray))
                throw new TfNetTrainArgumentException(paramName, "a jagged array must have rows of one length (a matrix)");
            Type element = rows[0].GetType().GetElementType();
            Array result = Array.CreateInstance(element, rows.Length, rows[0].Length);
            for (int i = 0; i < rows.Length; i++)
                for (int j = 0; j < rows[i].Length; j++) result.SetValue(rows[i].GetValue(j), i, j);
            return result;
        }

        public Tensor constant(object value, TF_DataType dtype, Shape shape, string name = null)
        {
            Tensor t = constant(value, dtype);
            return shape == null ? t : reshape(t, shape);
        }

        public Tensor slice(Tensor input, int[] begin, int[] size, string name = null) => Kw("slice", new object[] { input, begin, size }, name);
        public Tensor slice(Tensor input, long[] begin, long[] size, string name = null) => Kw("slice", new object[] { input, begin, size }, name);
        public Tensor tile(Tensor input, Shape multiples, string name = null) => Kw("tile", new object[] { input, multiples }, name);
        public Tensor tile(Tensor input, Tensor multiples, string name = null) => Kw("tile", new object[] { input, multiples }, name);
        public Tensor gather(Tensor @params, Tensor indices, int axis = 0, string name = null) => Kw("gather", new object[] { @params, indices }, name, "axis", axis);
        public Tensor gather_nd(Tensor @params, Tensor indices, string name = null) => Kw("gather_nd", new object[] { @params, indices }, name);
        public Tensor squared_difference(Tensor x, Tensor y, string name = null) => Kw("squared_difference", new object[] { x, y }, name);
        public Tensor ones_like(Tensor tensor, TF_DataType dtype = TF_DataType.DtInvalid, string name = null) => Kw("ones_like", new object[] { tensor }, name, "dtype", Face.DTypeName(dtype));
        public Tensor zeros_like(Tensor tensor, TF_DataType dtype = TF_DataType.DtInvalid, string name = null) => Kw("zeros_like", new object[] { tensor }, name, "dtype", Face.DTypeName(dtype));
        public Tensor reduce_prod(Tensor input_tensor, int? axis = null, bool keepdims = false, string name = null) => Kw("reduce_prod", new object[] { input_tensor }, name, "axis", axis, "keepdims", keepdims);
        public Tensor shape(Tensor input, string name = null, TF_DataType out_type = TF_DataType.TF_INT32) => Kw("shape", new object[] { input }, name, "out_type", Face.DTypeName(out_type));
        public Tensor rank(Tensor input, string name = null) => Kw("rank", new object[] { input }, name);
        public Tensor reduce_std(Tensor input_tensor, int? axis = null, bool keepdims = false, string name = null) => Kw("reduce_std", new object[] { input_tensor }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_mean(Tensor input_tensor, int[] axis, bool keepdims = false, string name = null) => Kw("reduce_mean", new object[] { input_tensor }, name, "axis", axis, "keepdims", keepdims);
        /// <summary>TF 1's spelling: <paramref name="reduction_indices"/> is the axis.</summary>
        public Tensor reduce_sum(Tensor input, int reduction_indices, bool keepdims = false, string name = null)
            => Kw("reduce_sum", new object[] { input }, name, "axis", reduction_indices, "keepdims", keepdims);
        public Tensor reduce_sum(Tensor input, int[] axis, bool keepdims = false, string name = null) => Kw("reduce_sum", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor greater_equal(Tensor x, Tensor y, string name = null) => Kw("greater_equal", new object[] { x, y }, name);
        public Tensor less_equal(Tensor x, Tensor y, string name = null) => Kw("less_equal", new object[] { x, y }, name);
        public Tensor logical_and(Tensor x, Tensor y, string name = null) => Kw("logical_and", new object[] { x, y }, name);
        public Tensor logical_or(Tensor x, Tensor y, string name = null) => Kw("logical_or", new object[] { x, y }, name);
        public Tensor where(Tensor condition, Tensor x, Tensor y, string name = null) => Kw("where", new object[] { condition, x, y }, name);
        public Tensor range(object start, object limit = null, object delta = null, TF_DataType dtype = TF_DataType.DtInvalid, string name = null)
            => limit == null ? Kw("range", new[] { start }, name, "dtype", Face.DTypeName(dtype))
                             : Kw("range", new[] { start, limit, delta ?? 1 }, name, "dtype", Face.DTypeName(dtype));
        public Tensor size(Tensor input, string name = null) => Kw("size", new object[] { input }, name);
        public Tensor sin(Tensor x, string name = null) => Kw("sin", new object[] { x }, name);
        public Tensor cos(Tensor x, string name = null) => Kw("cos", new object[] { x }, name);
        public Tensor floor(Tensor x, string name = null) => Kw("floor", new object[] { x }, name);
        public Tensor round(Tensor x, string name = null) => Kw("round", new object[] { x }, name);
        public Tensor sign(Tensor x, string name = null) => Kw("sign", new object[] { x }, name);
        public Tensor add_n(Tensor[] inputs, string name = null) => Kw("add_n", new object[] { inputs.ToList() }, name);
        public Tensor split(Tensor value, int num_split, int axis = 0, string name = null) => throw new TfNetTrainArgumentException(nameof(num_split), "tf.split returns several tensors: use tf.unstack or tf.slice");
        public Tensor pad(Tensor tensor, int[,] paddings, string name = null) => Kw("pad", new object[] { tensor, To2D(paddings) }, name);
        public Tensor broadcast_to(Tensor input, Shape shape, string name = null) => Kw("broadcast_to", new object[] { input, shape }, name);
        public Tensor boolean_mask(Tensor tensor, Tensor mask, string name = null) => Kw("boolean_mask", new object[] { tensor, mask }, name);
        public Tensor einsum(string equation, params Tensor[] inputs) => Op("einsum", new object[] { equation }.Concat(inputs).ToArray());
        public Tensor reshape(Tensor tensor, Shape shape, string name) => Kw("reshape", new object[] { tensor, shape }, name);
        public Tensor cast(Tensor x, TF_DataType dtype, string name) => Kw("cast", new object[] { x, Face.DTypeName(dtype) }, name);
        public Tensor reduce_mean(Tensor input_tensor, int? axis, bool keepdims, string name) => Kw("reduce_mean", new object[] { input_tensor }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_mean(Tensor input_tensor, string name) => Kw("reduce_mean", new object[] { input_tensor }, name);
        public Tensor reduce_sum(Tensor input, int? axis, bool keepdims, string name) => Kw("reduce_sum", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor matmul(Tensor a, Tensor b, bool transpose_a = false, bool transpose_b = false, string name = null)
            => Kw("matmul", new object[] { a, b }, name, "transpose_a", transpose_a, "transpose_b", transpose_b);
        public Tensor argmax(Tensor input, int axis, TF_DataType output_type, string name = null) => Kw("argmax", new object[] { input, axis }, name, "output_type", Face.DTypeName(output_type));

        /// <summary>Samples from a truncated normal distribution (same as tf.random.truncated_normal).</summary>
        public Tensor truncated_normal(Shape shape, float mean = 0.0f, float stddev = 1.0f, TF_DataType dtype = TF_DataType.TF_FLOAT, int? seed = null, string name = null)
            => random.truncated_normal(shape, mean, stddev, dtype, seed, name);

        /// <summary>Samples from a uniform distribution (same as tf.random.uniform).</summary>
        public Tensor random_uniform(Shape shape, float minval = 0, float maxval = 1, TF_DataType dtype = TF_DataType.TF_FLOAT, int? seed = null, string name = null)
            => random.uniform(shape, minval, maxval, dtype, seed, name);

        /// <summary>Samples from a normal distribution (same as tf.random.normal).</summary>
        public Tensor random_normal(Shape shape, float mean = 0.0f, float stddev = 1.0f, TF_DataType dtype = TF_DataType.TF_FLOAT, int? seed = null, string name = null)
            => random.normal(shape, mean, stddev, dtype, seed, name);

        // ---- graph mode: present so programs compile ------------------------------------------------------

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/>.</summary>
        public Session Session() => throw new GraphModeNotSupportedException("tf.Session", "run operations eagerly and read tensor.numpy()");

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/>.</summary>
        public Session Session(Graph graph) => throw new GraphModeNotSupportedException("tf.Session", "run operations eagerly and read tensor.numpy()");

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/>.</summary>
        public Tensor placeholder(TF_DataType dtype, Shape shape = null, string name = null)
            => throw new GraphModeNotSupportedException("tf.placeholder", "pass the values themselves (tf.constant / NDArray), or use keras.Input for a functional model");

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/>.</summary>
        public object global_variables_initializer() => throw new GraphModeNotSupportedException("tf.global_variables_initializer", "variables made by tf.Variable are initialised when made");

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/>.</summary>
        public Graph Graph() => throw new GraphModeNotSupportedException("tf.Graph", "run operations eagerly");

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/>.</summary>
        public Graph get_default_graph() => throw new GraphModeNotSupportedException("tf.get_default_graph", "run operations eagerly");

        /// <summary>tf.&lt;name&gt;(*args, name=name, **kwargs) with keyword pairs (null values are left out).</summary>
        internal Tensor Kw(string op, object[] args, string name, params object[] namesAndValues)
        {
            for (int i = 0; i < args.Length; i++)
                if (args[i] == null) throw new ArgumentNullException("args", $"tf.{op}: argument {i} is null");
            var kwargs = new Dictionary<string, object>();
            for (int i = 0; i + 1 < namesAndValues.Length; i += 2)
                if (namesAndValues[i + 1] != null) kwargs[(string)namesAndValues[i]] = namesAndValues[i + 1];
            if (name != null) kwargs["name"] = name;
            return Make("tensor_op", new object[] { op, args, kwargs });
        }

        private static List<List<int>> To2D(int[,] values)
        {
            if (values == null) throw new ArgumentNullException(nameof(values));
            var result = new List<List<int>>();
            for (int i = 0; i < values.GetLength(0); i++)
            {
                var row = new List<int>();
                for (int j = 0; j < values.GetLength(1); j++) row.Add(values[i, j]);
                result.Add(row);
            }
            return result;
        }
    }

    /// <summary>TF.NET's eager context.</summary>
    public sealed class EagerContext
    {
        internal EagerContext()
        {
        }

        /// <summary>Does nothing: TensorFlow's eager context is initialised when the runtime starts.</summary>
        public void ensure_initialized()
        {
        }

        /// <summary>True: eager execution is the only mode.</summary>
        public bool executing_eagerly() => true;

        /// <summary>
        /// TensorFlow.NET makes a new eager context; here one eager context serves the whole process, so this does
        /// what <c>keras.backend.clear_session()</c> does (Keras's name counters and global state, TensorFlow's
        /// kernel caches). Models built before keep working.
        /// </summary>
        public void reset_context()
        {
            PythonRuntime runtime = Face.Runtime;
            Face.Run(runtime, f => { Face.Call(f, "tensors", "clear_session", new object[0]); return 0; });
        }
    }

    /// <summary>TF.NET's InitializerArgs: the shape and dtype an initializer fills.</summary>
    public sealed class InitializerArgs
    {
        public InitializerArgs(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT, bool? verify_shape = null)
        {
            Shape = shape ?? throw new ArgumentNullException(nameof(shape));
            DType = dtype;
        }

        public Shape Shape { get; }
        public TF_DataType DType { get; }
    }

    /// <summary>tf.random: TensorFlow's random ops (op-level <c>seed</c> as TensorFlow takes it).</summary>
    public sealed class RandomApi
    {
        internal RandomApi()
        {
        }

        public Tensor normal(Shape shape, float mean = 0.0f, float stddev = 1.0f, TF_DataType dtype = TF_DataType.TF_FLOAT, int? seed = null, string name = null)
            => Binding.tf.Kw("random_normal", new object[] { Checked(shape, "normal") }, name, "mean", mean, "stddev", stddev, "dtype", Face.DTypeName(dtype), "seed", seed);

        public Tensor truncated_normal(Shape shape, float mean = 0.0f, float stddev = 1.0f, TF_DataType dtype = TF_DataType.TF_FLOAT, int? seed = null, string name = null)
            => Binding.tf.Kw("truncated_normal", new object[] { Checked(shape, "truncated_normal") }, name, "mean", mean, "stddev", stddev, "dtype", Face.DTypeName(dtype), "seed", seed);

        public Tensor uniform(Shape shape, float minval = 0, float maxval = 1, TF_DataType dtype = TF_DataType.TF_FLOAT, int? seed = null, string name = null)
        {
            bool integer = dtype == TF_DataType.TF_INT32 || dtype == TF_DataType.TF_INT64;
            return Binding.tf.Kw("random_uniform", new object[] { Checked(shape, "uniform") }, name,
                "minval", integer ? (object)(long)minval : minval, "maxval", integer ? (object)(long)maxval : maxval, "dtype", Face.DTypeName(dtype), "seed", seed);
        }

        public Tensor shuffle(Tensor value, int? seed = null, string name = null) => Binding.tf.Kw("random_shuffle", new object[] { value }, name, "seed", seed);

        /// <summary>Sets TensorFlow's global seed (with Python's and NumPy's, as keras.utils.set_random_seed).</summary>
        public void set_seed(int seed) => Binding.tf.set_random_seed(seed);

        private static Shape Checked(Shape shape, string member)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            if (shape.dims.Any(d => d < 0)) throw new TfNetTrainArgumentException(nameof(shape), $"tf.random.{member}: dimensions must be >= 0; got {shape}");
            return shape;
        }
    }

    /// <summary>tf.math: the math ops, each TensorFlow's function of the same name.</summary>
    public sealed class MathApi
    {
        internal MathApi()
        {
        }

        public Tensor log(Tensor x, string name = null) => Binding.tf.Kw("log", new object[] { x }, name);
        public Tensor exp(Tensor x, string name = null) => Binding.tf.Kw("exp", new object[] { x }, name);
        public Tensor sqrt(Tensor x, string name = null) => Binding.tf.Kw("sqrt", new object[] { x }, name);
        public Tensor square(Tensor x, string name = null) => Binding.tf.Kw("square", new object[] { x }, name);
        public Tensor abs(Tensor x, string name = null) => Binding.tf.Kw("abs", new object[] { x }, name);
        public Tensor pow(Tensor x, float y, string name = null) => Binding.tf.Kw("pow", new object[] { x, y }, name);
        public Tensor tanh(Tensor x, string name = null) => Binding.tf.Kw("tanh", new object[] { x }, name);
        public Tensor sigmoid(Tensor x, string name = null) => Binding.tf.Kw("sigmoid", new object[] { x }, name);
        public Tensor sin(Tensor x, string name = null) => Binding.tf.Kw("sin", new object[] { x }, name);
        public Tensor cos(Tensor x, string name = null) => Binding.tf.Kw("cos", new object[] { x }, name);
        public Tensor tan(Tensor x, string name = null) => Binding.tf.Kw("tan", new object[] { x }, name);
        public Tensor log1p(Tensor x, string name = null) => Binding.tf.Kw("log1p", new object[] { x }, name);
        public Tensor reciprocal(Tensor x, string name = null) => Binding.tf.Kw("reciprocal", new object[] { x }, name);
        public Tensor rsqrt(Tensor x, string name = null) => Binding.tf.Kw("rsqrt", new object[] { x }, name);
        public Tensor softplus(Tensor x, string name = null) => Binding.tf.Kw("softplus", new object[] { x }, name);
        public Tensor erf(Tensor x, string name = null) => Binding.tf.Kw("erf", new object[] { x }, name);
        public Tensor floor(Tensor x, string name = null) => Binding.tf.Kw("floor", new object[] { x }, name);
        public Tensor ceil(Tensor x, string name = null) => Binding.tf.Kw("ceil", new object[] { x }, name);
        public Tensor round(Tensor x, string name = null) => Binding.tf.Kw("round", new object[] { x }, name);
        public Tensor sign(Tensor x, string name = null) => Binding.tf.Kw("sign", new object[] { x }, name);
        public Tensor add(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("add", new object[] { x, y }, name);
        public Tensor subtract(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("subtract", new object[] { x, y }, name);
        public Tensor multiply(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("multiply", new object[] { x, y }, name);
        public Tensor divide(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("divide", new object[] { x, y }, name);
        public Tensor truediv(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("truediv", new object[] { x, y }, name);
        public Tensor floordiv(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("floordiv", new object[] { x, y }, name);
        public Tensor floormod(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("floormod", new object[] { x, y }, name);
        public Tensor maximum(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("maximum", new object[] { x, y }, name);
        public Tensor minimum(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("minimum", new object[] { x, y }, name);
        public Tensor squared_difference(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("squared_difference", new object[] { x, y }, name);
        public Tensor equal(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("equal", new object[] { x, y }, name);
        public Tensor greater(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("greater", new object[] { x, y }, name);
        public Tensor less(Tensor x, Tensor y, string name = null) => Binding.tf.Kw("less", new object[] { x, y }, name);
        public Tensor argmax(Tensor input, int axis, string name = null) => Binding.tf.Kw("argmax", new object[] { input, axis }, name);
        public Tensor argmin(Tensor input, int axis, string name = null) => Binding.tf.Kw("argmin", new object[] { input, axis }, name);
        public Tensor reduce_sum(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_sum", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_mean(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_mean", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_max(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_max", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_min(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_min", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_prod(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_prod", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_std(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_std", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor reduce_variance(Tensor input, int? axis = null, bool keepdims = false, string name = null) => Binding.tf.Kw("reduce_variance", new object[] { input }, name, "axis", axis, "keepdims", keepdims);
        public Tensor cumsum(Tensor x, int axis = 0, string name = null) => Binding.tf.Kw("cumsum", new object[] { x }, name, "axis", axis);
        public Tensor count_nonzero(Tensor input, int? axis = null, string name = null) => Binding.tf.Kw("count_nonzero", new object[] { input }, name, "axis", axis);
        public Tensor l2_normalize(Tensor x, int axis = -1, float epsilon = 1e-12f, string name = null) => Binding.tf.Kw("l2_normalize", new object[] { x }, name, "axis", axis, "epsilon", epsilon);
        public Tensor top_k(Tensor input, int k = 1) => Binding.tf.Op("top_k", input, k);
        public Tensor in_top_k(Tensor predictions, Tensor targets, int k, string name = null) => Binding.tf.Kw("in_top_k", new object[] { targets, predictions, k }, name);
    }

    /// <summary>tf.initializers: Keras initializers by TF.NET's names (given to layers as kernel_initializer names).</summary>
    public sealed class InitializersApi
    {
        internal InitializersApi()
        {
        }

        public Initializer glorot_uniform_initializer => new Initializer("glorot_uniform");
        public Initializer glorot_normal_initializer => new Initializer("glorot_normal");
        public Initializer zeros_initializer => new Initializer("zeros");
        public Initializer ones_initializer => new Initializer("ones");
        public Initializer GlorotUniform(int? seed = null) => new Initializer("glorot_uniform", seed);
        public Initializer GlorotNormal(int? seed = null) => new Initializer("glorot_normal", seed);
        public Initializer HeNormal(int? seed = null) => new Initializer("he_normal", seed);
        public Initializer HeUniform(int? seed = null) => new Initializer("he_uniform", seed);
        public Initializer Zeros() => new Initializer("zeros");
        public Initializer Ones() => new Initializer("ones");
        public Initializer random_normal_initializer(float mean = 0f, float stddev = 0.05f, int? seed = null) => new Initializer("random_normal", seed, mean, stddev);
        public Initializer constant_initializer(double value) => new Initializer("constant") { ConstantValue = value };
        public Initializer truncated_normal_initializer(float mean = 0f, float stddev = 0.05f, int? seed = null) => new Initializer("truncated_normal", seed, mean, stddev);
    }

    /// <summary>
    /// An initializer (TF.NET's IInitializer): the Keras name it converts to for a layer's <c>kernel_initializer</c>,
    /// or called on a shape for a tensor of initial values.
    /// </summary>
    public sealed class Initializer
    {
        internal Initializer(string name, int? seed = null, float mean = 0f, float stddev = 0f)
        {
            Name = name;
            Seed = seed;
            Mean = mean;
            Stddev = stddev;
        }

        /// <summary>Keras's name of the initializer ("glorot_uniform", ...).</summary>
        public string Name { get; }

        public int? Seed { get; }
        internal float Mean { get; }
        internal float Stddev { get; }

        internal object ConstantValue { get; set; }

        /// <summary>What a layer's initializer argument takes: the name, or Keras's config for a constant.</summary>
        public object Config => ConstantValue == null ? (object)Name
            : new Dictionary<string, object> { { "class_name", "Constant" }, { "config", new Dictionary<string, object> { { "value", ConstantValue } } } };

        /// <summary>The Keras name (what layers take as kernel_initializer).</summary>
        public static implicit operator string(Initializer initializer) => initializer?.Name;

        /// <summary>Initial values for <paramref name="args"/> (TF.NET's <c>initializer.Apply(new InitializerArgs(shape))</c>).</summary>
        public Tensor Apply(InitializerArgs args) => Apply((args ?? throw new ArgumentNullException(nameof(args))).Shape, args.DType);

        /// <summary>Initial values of <paramref name="shape"/>.</summary>
        public Tensor Apply(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT)
        {
            switch (Name)
            {
                case "zeros": return Binding.tf.zeros(shape, dtype);
                case "ones": return Binding.tf.ones(shape, dtype);
                case "random_normal": return Binding.tf.random.normal(shape, Mean, Stddev, dtype, Seed);
                case "truncated_normal": return Binding.tf.random.truncated_normal(shape, Mean, Stddev, dtype, Seed);
                default: throw new TfNetTrainArgumentException(nameof(shape), $"initializer {Name}: give it to a layer as kernel_initializer (Keras draws the values there)");
            }
        }

        public override string ToString() => Name;
    }
}
