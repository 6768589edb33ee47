using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// TF.NET's <c>np</c> (<c>Tensorflow.NumPy</c>): a thin layer over Python NumPy. Results are Python-backed
    /// <see cref="NDArray"/>s (the data stays in NumPy); a C#-backed argument crosses once, as a zero-copy view of
    /// its storage. Every function runs tfnet_train.bridge.numpy_face.
    /// </summary>
    public sealed class NumPyApi
    {
        internal NumPyApi()
        {
        }

        public TF_DataType float32 => TF_DataType.TF_FLOAT;
        public TF_DataType float64 => TF_DataType.TF_DOUBLE;
        public TF_DataType @double => TF_DataType.TF_DOUBLE;
        public TF_DataType int32 => TF_DataType.TF_INT32;
        public TF_DataType int64 => TF_DataType.TF_INT64;
        public TF_DataType uint8 => TF_DataType.TF_UINT8;
        public TF_DataType int16 => TF_DataType.TF_INT16;
        public TF_DataType int8 => TF_DataType.TF_INT8;
        public TF_DataType @bool => TF_DataType.TF_BOOL;
        public TF_DataType float16 => TF_DataType.TF_HALF;

        /// <summary>np.random: NumPy's global generator.</summary>
        public NumPyRandom random { get; } = new NumPyRandom();

        /// <summary>np.newaxis: a new axis of length 1 as an index, among slices (<c>x[np.newaxis, Slice.All]</c>) or in slice text (<c>x["np.newaxis, ..."]</c>).</summary>
        public Slice newaxis => Slice.NewAxis;

        /// <summary>An array of the given elements (a copy, in C# storage until an np operation uses it).</summary>
        public NDArray array<T>(params T[] data) where T : struct
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            if (data is byte[] bytes) return FromBytes(bytes);
            if (data is bool[] bools) return FromBools(bools);
            return NDArray.From((Array)data.Clone());
        }

        /// <summary>An array copied from a C# (multi-dimensional) array, e.g. float[,].</summary>
        public NDArray array(Array data)
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            if (data is byte[] bytes) return FromBytes(bytes);
            if (data is bool[] bools) return FromBools(bools);
            return NDArray.From(data);
        }

        /// <summary>A copy of <paramref name="data"/> (converted to <paramref name="dtype"/> when given).</summary>
        public NDArray array(NDArray data, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            return Invoke("array", data, DTypeArgument(dtype, nameof(array), nameof(dtype), true));
        }

        /// <summary>np.asarray: the array itself (numbers and C# arrays are converted).</summary>
        public NDArray asarray(NDArray data) => data ?? throw new ArgumentNullException(nameof(data));

        public NDArray zeros(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT) => Create("zeros", shape, dtype, nameof(zeros));
        public NDArray ones(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT) => Create("ones", shape, dtype, nameof(ones));
        public NDArray empty(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT) => Create("empty", shape, dtype, nameof(empty));

        /// <summary>An array of <paramref name="shape"/> filled with <paramref name="fill_value"/>.</summary>
        public NDArray full(Shape shape, object fill_value, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            if (fill_value == null) throw new ArgumentNullException(nameof(fill_value));
            return Module("create", "full", shape, DTypeArgument(dtype, nameof(full), nameof(dtype), true), fill_value);
        }

        public NDArray zeros_like(NDArray a) => Invoke("zeros_like", a);
        public NDArray ones_like(NDArray a) => Invoke("ones_like", a);

        /// <summary>An array shaped and typed as <paramref name="a"/> (or as <paramref name="dtype"/>), filled with <paramref name="fill_value"/>.</summary>
        public NDArray full_like<T>(NDArray a, T fill_value, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (a == null) throw new ArgumentNullException(nameof(a));
            if (fill_value == null) throw new ArgumentNullException(nameof(fill_value));
            return full(a.shape, fill_value, dtype == TF_DataType.DtInvalid ? a.dtype : dtype);
        }

        /// <summary>np.load: the array of a .npy file (pickled objects refused; at most 2 GiB).</summary>
        public NDArray load(string file)
        {
            if (file == null) throw new ArgumentNullException(nameof(file));
            return Module("load", file);
        }

        public NDArray eye(int N, TF_DataType dtype = TF_DataType.TF_FLOAT) => Invoke("eye", N, DTypeArgument(dtype, nameof(eye), nameof(dtype)));

        /// <summary>0, 1, ..., stop - 1 (int32, as TF.NET).</summary>
        public NDArray arange(int stop) => Module("arange", 0, stop, 1, "int32");
        public NDArray arange(int start, int stop, int step = 1) => Module("arange", start, stop, step, "int32");
        public NDArray arange(float stop) => Module("arange", 0f, stop, 1f, "float32");
        public NDArray arange(float start, float stop, float step = 1) => Module("arange", start, stop, step, "float32");
        public NDArray arange(double start, double stop, double step = 1) => Module("arange", start, stop, step, "float64");

        /// <summary><paramref name="num"/> evenly spaced values from start to stop (float32 unless a dtype is given).</summary>
        public NDArray linspace<T>(T start, T stop, int num = 50, bool endpoint = true, TF_DataType dtype = TF_DataType.DtInvalid)
            where T : struct
        {
            if (num < 0) throw new TfNetTrainArgumentException(nameof(num), $"np.linspace: must be >= 0; got {num}");
            return Module("linspace", Convert.ToDouble(start), Convert.ToDouble(stop), num, endpoint, DTypeArgument(dtype, nameof(linspace), nameof(dtype), true));
        }

        public NDArray reshape(NDArray a, Shape newshape) => (a ?? throw new ArgumentNullException(nameof(a))).reshape(newshape);
        public NDArray transpose(NDArray a) => Invoke("transpose", a);
        public NDArray transpose(NDArray a, int[] axes) => Invoke("transpose", a, axes);
        public NDArray squeeze(NDArray a) => Invoke("squeeze", a);
        public NDArray expand_dims(NDArray a, int axis = -1) => Invoke("expand_dims", a, axis);
        public NDArray concatenate(NDArray[] arrays, int axis = 0) => Invoke("concatenate", List(arrays, nameof(arrays)), axis);
        public NDArray stack(NDArray[] arrays, int axis = 0) => Invoke("stack", List(arrays, nameof(arrays)), axis);
        public NDArray vstack(params NDArray[] arrays) => Invoke("vstack", List(arrays, nameof(arrays)));
        public NDArray hstack(params NDArray[] arrays) => Invoke("hstack", List(arrays, nameof(arrays)));
        public NDArray dstack(params NDArray[] arrays) => Invoke("dstack", List(arrays, nameof(arrays)));

        public NDArray add(NDArray x, NDArray y) => Binary("add", x, y);
        public NDArray subtract(NDArray x, NDArray y) => Binary("subtract", x, y);
        public NDArray multiply(NDArray x, NDArray y) => Binary("multiply", x, y);
        public NDArray divide(NDArray x, NDArray y) => Binary("divide", x, y);
        public NDArray power(NDArray x, NDArray y) => Binary("power", x, y);
        // scalar exponents as Python numbers: a float32 array stays float32 (TF.NET's tf.pow casts them to x's dtype)
        public NDArray power(NDArray x, int y) => Binary("power", x, y);
        public NDArray power(NDArray x, double y) => Binary("power", x, y);
        public NDArray maximum(NDArray x, NDArray y) => Binary("maximum", x, y);
        public NDArray minimum(NDArray x, NDArray y) => Binary("minimum", x, y);
        public NDArray dot(NDArray a, NDArray b) => Binary("dot", a, b);
        public NDArray matmul(NDArray a, NDArray b) => Binary("matmul", a, b);
        public NDArray abs(NDArray x) => Invoke("abs", x);
        public NDArray exp(NDArray x) => Invoke("exp", x);
        public NDArray log(NDArray x) => Invoke("log", x);
        public NDArray sqrt(NDArray x) => Invoke("sqrt", x);
        public NDArray square(NDArray x) => Invoke("square", x);
        public NDArray sin(NDArray x) => Invoke("sin", x);
        public NDArray cos(NDArray x) => Invoke("cos", x);
        public NDArray tanh(NDArray x) => Invoke("tanh", x);
        public NDArray round(NDArray x) => Invoke("round", x);
        public NDArray floor(NDArray x) => Invoke("floor", x);
        public NDArray ceil(NDArray x) => Invoke("ceil", x);
        public NDArray sign(NDArray x) => Invoke("sign", x);
        public NDArray clip(NDArray x, float a_min, float a_max) => Invoke("clip", x, a_min, a_max);
        public NDArray where(NDArray condition, NDArray x, NDArray y) => Invoke("where", condition, x, y);
        public NDArray unique(NDArray x) => Invoke("unique", x);
        public NDArray copy(NDArray x) => Invoke("copy", x);

        public NDArray sum(NDArray x, int? axis = null, bool keepdims = false) => Reduce("sum", x, axis, keepdims);
        public NDArray mean(NDArray x, int? axis = null, bool keepdims = false) => Reduce("mean", x, axis, keepdims);
        public NDArray amax(NDArray x, int? axis = null, bool keepdims = false) => Reduce("amax", x, axis, keepdims);
        public NDArray amin(NDArray x, int? axis = null, bool keepdims = false) => Reduce("amin", x, axis, keepdims);
        public NDArray max(NDArray x, int? axis = null, bool keepdims = false) => Reduce("amax", x, axis, keepdims);
        public NDArray min(NDArray x, int? axis = null, bool keepdims = false) => Reduce("amin", x, axis, keepdims);
        public NDArray prod(NDArray x, int? axis = null, bool keepdims = false) => Reduce("prod", x, axis, keepdims);
        public NDArray std(NDArray x, int? axis = null, bool keepdims = false) => Reduce("std", x, axis, keepdims);
        public NDArray var(NDArray x, int? axis = null, bool keepdims = false) => Reduce("var", x, axis, keepdims);
        public NDArray argmax(NDArray x, int? axis = null) => axis.HasValue ? Invoke("argmax", x, axis.Value) : Invoke("argmax", x);
        public NDArray argmin(NDArray x, int? axis = null) => axis.HasValue ? Invoke("argmin", x, axis.Value) : Invoke("argmin", x);

        /// <summary>True when the arrays are elementwise equal within rtol/atol.</summary>
        public bool allclose(NDArray a, NDArray b, double rtol = 1e-5, double atol = 1e-8)
            => (bool)Call("allclose", new object[] { a, b }, new Dictionary<string, object> { { "rtol", rtol }, { "atol", atol } });

        /// <summary>True when shapes and elements are equal.</summary>
        public bool array_equal(NDArray a, NDArray b) => (bool)Invoke("array_equal", a, b);

        private NDArray Reduce(string name, NDArray x, int? axis, bool keepdims)
            => Call(name, new object[] { x }, new Dictionary<string, object> { { "axis", axis }, { "keepdims", keepdims } });

        private NDArray Create(string name, Shape shape, TF_DataType dtype, string member)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            if (shape.dims.Any(d => d < 0)) throw new TfNetTrainArgumentException(nameof(shape), $"np.{member}: dimensions must be >= 0; got {shape}");
            return Module("create", name, shape, DTypeArgument(dtype, member, nameof(dtype)));
        }

        private static List<NDArray> List(NDArray[] arrays, string paramName)
        {
            if (arrays == null) throw new ArgumentNullException(paramName);
            for (int i = 0; i < arrays.Length; i++) if (arrays[i] == null) throw new ArgumentNullException(paramName, $"{paramName}[{i}] is null");
            return arrays.ToList();
        }

        // ---- the one path to numpy_face --------------------------------------------------------------------

        /// <summary>The numpy dtype name of <paramref name="dtype"/>; DtInvalid is null when <paramref name="optional"/>, else refused.</summary>
        internal static string DTypeArgument(TF_DataType dtype, string member, string paramName, bool optional = false)
        {
            string name = Face.DTypeName(dtype);
            if (name == null && !(optional && dtype == TF_DataType.DtInvalid))
                throw new TfNetTrainArgumentException(paramName, $"np.{member}: takes float32, float64, int8, int16, int32, int64, uint8, float16 or bool; got {dtype}");
            return name;
        }

        /// <summary>numpy_face.call(name, args) as an NDArray.</summary>
        internal static NDArray Invoke(string name, params object[] args) => Call(name, args, null);

        internal static NDArray Binary(string name, object a, object b)
        {
            if (a == null) throw new ArgumentNullException(nameof(a), $"np.{name}: the left operand is null");
            if (b == null) throw new ArgumentNullException(nameof(b), $"np.{name}: the right operand is null");
            if (a is float || b is float) return Module("call_float32", name, new[] { a, b }, null); // C# floats stay float32
            return Call(name, new[] { a, b }, null);
        }

        internal static NDArray Call(string name, object[] args, Dictionary<string, object> kwargs)
        {
            return Module("call", name, args, kwargs);
        }

        /// <summary>numpy_face.&lt;function&gt;(*args) as an NDArray; NDArray arguments go as numpy arrays (views of C# storage).</summary>
        internal static NDArray Module(string function, params object[] args)
        {
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                var converted = new List<PyObject>();
                try
                {
                    object[] pyArgs = args.Select(a => Arg(a, converted)).ToArray();
                    PyObject result = Face.Invoke(f, "numpy_face", function, pyArgs);
                    return NDArray.WrapPython(runtime, result);
                }
                finally
                {
                    foreach (var p in converted) p.Dispose();
                }
            });
        }

        internal static object Arg(object value, List<PyObject> converted)
        {
            var array = value as NDArray;
            if (array != null)
            {
                PyObject view = array.PythonView();
                converted.Add(view);
                return view;
            }
            if (value is Array multi && multi.Rank > 1)
            {
                PyObject view = NDArray.From(multi).PythonView();
                converted.Add(view);
                return view;
            }
            if (value is object[] items) return items.Select(i => Arg(i, converted)).ToList();
            if (value is System.Collections.IList list && !(value is Array)) return list.Cast<object>().Select(i => Arg(i, converted)).ToList();
            if (value is Dictionary<string, object> dict) return dict.ToDictionary(p => p.Key, p => Arg(p.Value, converted));
            return value;
        }

        internal static NDArray GetItem(NDArray array, object[] key)
        {
            if (key.Any(k => k == null)) throw new ArgumentNullException(nameof(key), "an index is null");
            return Module("getitem", array, key.ToList());
        }

        internal static void SetItem(NDArray array, object[] key, NDArray value)
        {
            if (value == null) throw new ArgumentNullException(nameof(value));
            if (!array.IsPythonBacked)
            {
                // C# storage: write through a view of it, so the array itself changes.
                Module("setitem", array, key.ToList(), value);
                return;
            }
            Module("setitem", array, key.ToList(), value);
        }

        internal static double ScalarOf(NDArray array, string target)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            if (array.Size != 1)
                throw new TfNetTrainArgumentException(nameof(array), $"({target}) takes an array of one element; got shape {array.shape}");
            if (!array.IsPythonBacked) return array.GetDouble(0);
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var py = array.PythonView())
                using (var item = Face.Invoke(f, "numpy_face", "scalar_value", new object[] { py }))
                {
                    return item.As<double>();
                }
            });
        }

        /// <summary>An NDArray of a C# array (bytes and bools through numpy, the four C# dtypes by block copy; jagged rows as a matrix).</summary>
        internal static NDArray FromAny(Array data)
        {
            if (data is byte[] bytes) return FromBytes(bytes);
            if (data is bool[] bools) return FromBools(bools);
            return NDArray.From(TensorFlowApi.Rectangular(data, nameof(data)));
        }

        /// <summary>The values as NumPy prints them.</summary>
        internal static string Text(NDArray array)
        {
            if (array == null) return "None";
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var py = array.PythonView())
                using (var text = Face.Invoke(f, "numpy_face", "to_string", new object[] { py }))
                {
                    return text.As<string>();
                }
            });
        }

        internal static NDArray FromBytes(byte[] data) => FromBuffer(data, data.Length, "uint8");

        internal static NDArray FromBools(bool[] data)
        {
            var bytes = new byte[data.Length];
            for (int i = 0; i < data.Length; i++) bytes[i] = data[i] ? (byte)1 : (byte)0;
            return FromBuffer(bytes, bytes.Length, "bool");
        }

        private static NDArray FromBuffer(Array data, int length, string dtype)
        {
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var exported = data.ToPython())
                {
                    ExchangeCounters.ToPython(length * (dtype == "bool" || dtype == "uint8" ? 1 : 4));
                    return NDArray.WrapPython(runtime, Face.Invoke(f, "numpy_face", "from_buffer", new object[] { exported, new[] { length }, dtype }));
                }
            });
        }
    }

    /// <summary>np.random: NumPy's global generator (np.random.seed seeds it).</summary>
    public sealed class NumPyRandom
    {
        internal NumPyRandom()
        {
        }

        public void seed(int seed) => Call("seed", seed);

        /// <summary>Standard normal samples of <paramref name="shape"/> (float64, as NumPy; TF.NET's randn&lt;T&gt; casts).</summary>
        public NDArray randn(params int[] shape) => Call("randn", shape.Cast<object>().ToArray());

        public NDArray rand(params int[] shape) => Call("rand", shape.Cast<object>().ToArray());

        /// <summary>Integers in [low, high) of <paramref name="size"/> (int32 unless a dtype is given).</summary>
        public NDArray randint(int low, int high = int.MinValue, Shape size = null, TF_DataType dtype = TF_DataType.TF_INT32)
        {
            var kwargs = new Dictionary<string, object> { { "dtype", NumPyApi.DTypeArgument(dtype, "random.randint", nameof(dtype)) } };
            if (size != null) kwargs["size"] = size.dims;
            var args = high == int.MinValue ? new object[] { low } : new object[] { low, high };
            return NumPyApi.Module("random", "randint", args, kwargs);
        }

        public NDArray normal(float loc = 0f, float scale = 1f, Shape size = null)
            => NumPyApi.Module("random", "normal", new object[] { loc, scale }, Size(size)).astype(TF_DataType.TF_FLOAT);

        public NDArray uniform(float low = 0f, float high = 1f, Shape size = null)
            => NumPyApi.Module("random", "uniform", new object[] { low, high }, Size(size)).astype(TF_DataType.TF_FLOAT);

        public NDArray random(Shape size = null) => NumPyApi.Module("random", "random", new object[0], Size(size));

        /// <summary>A random permutation of 0..n-1 (int32).</summary>
        public NDArray permutation(int n) => Call("permutation", n).astype(TF_DataType.TF_INT32);

        /// <summary>A shuffled copy along the first axis.</summary>
        public NDArray permutation(NDArray x) => Call("permutation", x);

        /// <summary>Shuffles <paramref name="x"/> in place along the first axis.</summary>
        public void shuffle(NDArray x)
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            if (!x.IsPythonBacked)
                throw new TfNetTrainArgumentException(nameof(x), "np.random.shuffle: shuffles an array made by np in place; for a C# array use np.random.permutation(x)");
            Call("shuffle", x);
        }

        public NDArray choice(int a, Shape size = null, bool replace = true)
        {
            var kwargs = Size(size);
            kwargs["replace"] = replace;
            return NumPyApi.Module("random", "choice", new object[] { a }, kwargs);
        }

        private static Dictionary<string, object> Size(Shape size)
        {
            var kwargs = new Dictionary<string, object>();
            if (size != null) kwargs["size"] = size.dims;
            return kwargs;
        }

        private static NDArray Call(string name, params object[] args) => NumPyApi.Module("random", name, args, null);
    }

    /// <summary>TF.NET's <c>Slice</c>: start:stop:step on one axis (null bounds: the whole axis).</summary>
    public sealed class Slice
    {
        public Slice(int? start = null, int? stop = null, int step = 1)
        {
            if (step == 0) throw new TfNetTrainArgumentException(nameof(step), "Slice: step must not be 0");
            Start = start;
            Stop = stop;
            Step = step;
        }

        public int? Start { get; }
        public int? Stop { get; }
        public int Step { get; }

        /// <summary>The whole axis.</summary>
        public static Slice All => new Slice();

        /// <summary>One index.</summary>
        public static Slice Index(int index) => new Slice(index, index == -1 ? (int?)null : index + 1);

        /// <summary>A new axis of length 1 (<c>np.newaxis</c>).</summary>
        public static Slice NewAxis => new Slice { IsNewAxis = true };

        /// <summary>As many whole axes as the other indices leave (<c>...</c>).</summary>
        public static Slice Ellipsis => new Slice { IsEllipsis = true };

        /// <summary>True for <see cref="NewAxis"/>.</summary>
        public bool IsNewAxis { get; private set; }

        /// <summary>True for <see cref="Ellipsis"/>.</summary>
        public bool IsEllipsis { get; private set; }

        /// <summary>"start:stop:step" ("np.newaxis" for <see cref="NewAxis"/>, "..." for <see cref="Ellipsis"/>).</summary>
        public override string ToString() => IsNewAxis ? "np.newaxis" : IsEllipsis ? "..." : $"{Start}:{Stop}:{Step}";
    }
}
