using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// An eager TensorFlow tensor (or a symbolic Keras tensor from <c>keras.Input</c>) kept in Python: nothing is
    /// copied to C# until <see cref="numpy"/> / <see cref="ToArray{T}"/>. Operators +, -, *, / run tf.add and friends.
    /// </summary>
    public class Tensor : PythonHandle
    {
        private Shape _shape;
        private TF_DataType? _dtype;
        private string _name;

        internal Tensor(PythonRuntime runtime, PyObject handle) : base(runtime, handle)
        {
        }

        /// <summary>The shape (-1 for unknown dimensions).</summary>
        public Shape shape
        {
            get { Info(); return _shape; }
        }

        /// <summary>The element type.</summary>
        public TF_DataType dtype
        {
            get { Info(); return _dtype.Value; }
        }

        /// <summary>The name (variables: their path, e.g. "sequential/dense/kernel").</summary>
        public string name
        {
            get { Info(); return _name; }
        }

        /// <summary>The rank.</summary>
        public int ndim => shape.ndim;

        /// <summary>
        /// The value as an NDArray backed by the numpy array TensorFlow gives (no copy into C# until it is read with
        /// GetData/ToArray or a cast).
        /// </summary>
        public NDArray numpy()
        {
            return Run(f => NDArray.WrapPython(Runtime, Face.Invoke(f, "tensors", "tensor_value", new object[] { this })));
        }

        /// <summary>t[i, j, ...]: a sub-tensor (TensorFlow's strided slice).</summary>
        public Tensor this[params int[] indices] => Slice(indices.Cast<object>().ToList());

        /// <summary>t["1:3, :"], t[":, 0"], t["::2"]: NumPy's slice notation, comma-separated per axis.</summary>
        public Tensor this[string slice] => Slice(new List<object> { slice ?? throw new ArgumentNullException(nameof(slice)) });

        /// <summary>t[slices]: one <see cref="TensorFlowNet.Slice"/> per axis.</summary>
        public Tensor this[params Slice[] slices] => Slice(new List<object> { string.Join(",", slices.Select(s => s.ToString())) });

        private Tensor Slice(List<object> key) => Run(f => Wrap(Runtime, Face.Invoke(f, "tensors", "tensor_getitem", new object[] { this, key })));

        /// <summary>Graph mode is not supported: throws <see cref="GraphModeNotSupportedException"/> (read <see cref="numpy"/> instead).</summary>
        public NDArray eval(Session session, params FeedItem[] feed_dict) => throw new GraphModeNotSupportedException("Tensor.eval", "read tensor.numpy()");

        /// <summary>The elements in row-major order (T: float, double, int or long, as the dtype).</summary>
        public T[] ToArray<T>() => numpy().ToArray<T>();

        private void Info()
        {
            if (_dtype.HasValue) return;
            Run(f =>
            {
                using (var d = Face.Invoke(f, "tensors", "tensor_info", new object[] { this }))
                using (var s = d["shape"])
                using (var t = d["dtype"])
                using (var n = d["name"])
                {
                    _shape = new Shape(PyConvert.ToInts(s));
                    _name = n.As<string>();
                    _dtype = Face.FromName(t.As<string>());
                }
                return 0;
            });
        }

        internal static Tensor Wrap(PythonRuntime runtime, PyObject value) => new Tensor(runtime, value);

        internal static Tensor[] WrapList(PythonRuntime runtime, PyObject list)
        {
            var result = new List<Tensor>();
            foreach (PyObject item in PyConvert.Iterate(list)) result.Add(new Tensor(runtime, item));
            return result.ToArray();
        }

        /// <summary>An eager tensor holding a copy of <paramref name="array"/>.</summary>
        public static implicit operator Tensor(NDArray array) => array == null ? null : Binding.tf.constant(array);

        public static Tensor operator +(Tensor a, Tensor b) => Binding.tf.add(a, b);
        public static Tensor operator +(Tensor a, float b) => Binding.tf.Op("add", a, b);
        public static Tensor operator +(float a, Tensor b) => Binding.tf.Op("add", a, b);
        public static Tensor operator -(Tensor a, Tensor b) => Binding.tf.subtract(a, b);
        public static Tensor operator -(Tensor a, float b) => Binding.tf.Op("subtract", a, b);
        public static Tensor operator -(float a, Tensor b) => Binding.tf.Op("subtract", a, b);
        public static Tensor operator -(Tensor a) => Binding.tf.negative(a);
        public static Tensor operator *(Tensor a, Tensor b) => Binding.tf.multiply(a, b);
        public static Tensor operator *(Tensor a, float b) => Binding.tf.Op("multiply", a, b);
        public static Tensor operator *(float a, Tensor b) => Binding.tf.Op("multiply", a, b);
        public static Tensor operator /(Tensor a, Tensor b) => Binding.tf.divide(a, b);
        public static Tensor operator /(Tensor a, float b) => Binding.tf.Op("divide", a, b);
        public static Tensor operator /(float a, Tensor b) => Binding.tf.Op("divide", a, b);
        // Tensor with NDArray: the array as a constant (without these, C# would pick the float operators through
        // NDArray's implicit float conversion, which takes one element only).
        public static Tensor operator +(Tensor a, NDArray b) => Binding.tf.add(a, (Tensor)b);
        public static Tensor operator +(NDArray a, Tensor b) => Binding.tf.add((Tensor)a, b);
        public static Tensor operator -(Tensor a, NDArray b) => Binding.tf.subtract(a, (Tensor)b);
        public static Tensor operator -(NDArray a, Tensor b) => Binding.tf.subtract((Tensor)a, b);
        public static Tensor operator *(Tensor a, NDArray b) => Binding.tf.multiply(a, (Tensor)b);
        public static Tensor operator *(NDArray a, Tensor b) => Binding.tf.multiply((Tensor)a, b);
        public static Tensor operator /(Tensor a, NDArray b) => Binding.tf.divide(a, (Tensor)b);
        public static Tensor operator /(NDArray a, Tensor b) => Binding.tf.divide((Tensor)a, b);
        // doubles as a Python float: a float32 tensor stays float32 (TF.NET converts the scalar to the tensor's dtype)
        public static Tensor operator +(Tensor a, double b) => Binding.tf.Op("add", a, b);
        public static Tensor operator +(double a, Tensor b) => Binding.tf.Op("add", a, b);
        public static Tensor operator -(Tensor a, double b) => Binding.tf.Op("subtract", a, b);
        public static Tensor operator -(double a, Tensor b) => Binding.tf.Op("subtract", a, b);
        public static Tensor operator *(Tensor a, double b) => Binding.tf.Op("multiply", a, b);
        public static Tensor operator *(double a, Tensor b) => Binding.tf.Op("multiply", a, b);
        public static Tensor operator /(Tensor a, double b) => Binding.tf.Op("divide", a, b);
        public static Tensor operator /(double a, Tensor b) => Binding.tf.Op("divide", a, b);
        // ints as before the NDArray operators: as floats (an int also converts to NDArray implicitly)
        public static Tensor operator +(Tensor a, int b) => a + (float)b;
        public static Tensor operator +(int a, Tensor b) => (float)a + b;
        public static Tensor operator -(Tensor a, int b) => a - (float)b;
        public static Tensor operator -(int a, Tensor b) => (float)a - b;
        public static Tensor operator *(Tensor a, int b) => a * (float)b;
        public static Tensor operator *(int a, Tensor b) => (float)a * b;
        public static Tensor operator /(Tensor a, int b) => a / (float)b;
        public static Tensor operator /(int a, Tensor b) => (float)a / b;
        public static Tensor operator <(Tensor a, Tensor b) => Binding.tf.less(a, b);
        public static Tensor operator >(Tensor a, Tensor b) => Binding.tf.greater(a, b);
        public static Tensor operator <=(Tensor a, Tensor b) => Binding.tf.less_equal(a, b);
        public static Tensor operator >=(Tensor a, Tensor b) => Binding.tf.greater_equal(a, b);
        public static Tensor operator <(Tensor a, float b) => Binding.tf.Op("less", a, b);
        public static Tensor operator >(Tensor a, float b) => Binding.tf.Op("greater", a, b);
        public static Tensor operator <=(Tensor a, float b) => Binding.tf.Op("less_equal", a, b);
        public static Tensor operator >=(Tensor a, float b) => Binding.tf.Op("greater_equal", a, b);

        /// <summary>An eager tensor of a C# number (float32, float64, int32, int64, as the C# type).</summary>
        public static implicit operator Tensor(float value) => Binding.tf.constant(value);
        public static implicit operator Tensor(double value) => Binding.tf.constant(value);
        public static implicit operator Tensor(int value) => Binding.tf.constant(value);
        public static implicit operator Tensor(long value) => Binding.tf.constant(value);

        // A one-element tensor reads as a number (TF.NET's explicit casts).
        public static explicit operator float(Tensor t) => (float)(t ?? throw new ArgumentNullException(nameof(t))).numpy();
        public static explicit operator double(Tensor t) => (double)(t ?? throw new ArgumentNullException(nameof(t))).numpy();
        public static explicit operator int(Tensor t) => (int)(t ?? throw new ArgumentNullException(nameof(t))).numpy();
        public static explicit operator long(Tensor t) => (long)(t ?? throw new ArgumentNullException(nameof(t))).numpy();
        public static explicit operator bool(Tensor t) => (bool)(t ?? throw new ArgumentNullException(nameof(t))).numpy();

        /// <summary>"tf.Tensor: shape=(2, 3), dtype=TF_FLOAT".</summary>
        public override string ToString() => IsDisposed ? "tf.Tensor (disposed)" : $"tf.Tensor: shape={shape}, dtype={dtype}";
    }

    /// <summary>A trainable variable (TF.NET's IVariableV1).</summary>
    public interface IVariableV1
    {
        /// <summary>The variable's name as TF.NET's eager mode gives it: "kernel:0" (no layer scope).</summary>
        string Name { get; }

        /// <summary>The shape.</summary>
        Shape shape { get; }

        /// <summary>The value, copied into C#.</summary>
        NDArray numpy();

        /// <summary>The current value as a tensor (a snapshot).</summary>
        Tensor AsTensor();
    }

    /// <summary>A Keras/TensorFlow variable held from C#; reads are live (they see every update).</summary>
    public sealed class ResourceVariable : Tensor, IVariableV1
    {
        internal ResourceVariable(PythonRuntime runtime, PyObject handle) : base(runtime, handle)
        {
        }

        /// <summary>
        /// The variable's name as TF.NET's eager mode gives it, "beta:0": Keras's short name with TensorFlow's output
        /// suffix (TF.NET skips layer name scopes in eager mode); <see cref="Path"/> is the scoped one.
        /// </summary>
        public string Name => Run(f =>
        {
            using (var n = Handle.GetAttr("name"))
            {
                string short_name = n.As<string>();
                return short_name.Contains(":") ? short_name : short_name + ":0";
            }
        });

        /// <summary>The variable's path, e.g. "sequential/dense/kernel" (Keras's variable.path).</summary>
        public string Path => name;

        /// <summary>Sets the value (same shape; converted to the variable's dtype); returns this variable.</summary>
        public ResourceVariable assign(Tensor value) => Assign("assign", value, nameof(value));

        /// <summary>Adds <paramref name="delta"/> in place; returns this variable.</summary>
        public ResourceVariable assign_add(Tensor delta) => Assign("assign_add", delta, nameof(delta));

        /// <summary>Subtracts <paramref name="delta"/> in place; returns this variable.</summary>
        public ResourceVariable assign_sub(Tensor delta) => Assign("assign_sub", delta, nameof(delta));

        /// <summary>The current value as a tensor (a snapshot: later updates do not change it).</summary>
        public Tensor AsTensor() => Binding.tf.identity(this);

        /// <summary>Same as <see cref="AsTensor"/>.</summary>
        public Tensor value() => AsTensor();

        /// <summary>True when a tape watches it without being told (trainable variables).</summary>
        public bool trainable => Run(f => { using (var t = Handle.GetAttr("trainable")) return t.IsTrue(); });

        private ResourceVariable Assign(string method, Tensor value, string paramName)
        {
            if (value == null) throw new ArgumentNullException(paramName);
            Run(f => { Face.Call(f, "tensors", "variable_assign", new object[] { this, method, value }); return 0; });
            return this;
        }

        internal static List<IVariableV1> WrapVariables(PythonRuntime runtime, PyObject list)
        {
            var result = new List<IVariableV1>();
            foreach (PyObject item in PyConvert.Iterate(list)) result.Add(new ResourceVariable(runtime, item));
            return result;
        }
    }

    /// <summary>
    /// tf.GradientTape: records the operations run on the Python thread from creation until <see cref="Dispose"/>
    /// (the end of the <c>using</c> block); <see cref="gradient(Tensor, IEnumerable{IVariableV1})"/> may be called
    /// inside the block, as TF.NET programs do.
    /// </summary>
    public sealed class GradientTape : PythonHandle
    {
        private readonly bool _persistent;
        private bool _used;

        internal GradientTape(PythonRuntime runtime, PyObject tape, bool persistent) : base(runtime, tape)
        {
            _persistent = persistent;
        }

        /// <summary>Records operations on <paramref name="x"/> (a constant tensor) too.</summary>
        public void watch(Tensor x)
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            Run(f => { Face.Call(f, "tensors", "tape_watch", new object[] { this, new[] { x } }); return 0; });
        }

        /// <summary>d target / d each source; a source the target does not depend on is an error.</summary>
        public Tensor[] gradient(Tensor target, IEnumerable<IVariableV1> sources)
        {
            if (sources == null) throw new ArgumentNullException(nameof(sources));
            return Gradient(target, sources.Cast<object>().ToArray(), nameof(sources));
        }

        /// <summary>d target / d each source tensor (watched or variables).</summary>
        public Tensor[] gradient(Tensor target, IEnumerable<Tensor> sources)
        {
            if (sources == null) throw new ArgumentNullException(nameof(sources));
            return Gradient(target, sources.Cast<object>().ToArray(), nameof(sources));
        }

        /// <summary>d target / d each of two sources (TF.NET's <c>var (dW, db) = tape.gradient(loss, (W, b))</c>).</summary>
        public (Tensor, Tensor) gradient(Tensor target, (ResourceVariable, ResourceVariable) sources)
        {
            if (sources.Item1 == null || sources.Item2 == null) throw new ArgumentNullException(nameof(sources));
            Tensor[] g = Gradient(target, new object[] { sources.Item1, sources.Item2 }, nameof(sources));
            return (g[0], g[1]);
        }

        /// <summary>d target / d each source variable.</summary>
        public Tensor[] gradient(Tensor target, ResourceVariable[] sources)
        {
            if (sources == null) throw new ArgumentNullException(nameof(sources));
            return Gradient(target, sources.Cast<object>().ToArray(), nameof(sources));
        }

        /// <summary>d target / d source.</summary>
        public Tensor gradient(Tensor target, Tensor source)
        {
            if (source == null) throw new ArgumentNullException(nameof(source));
            return Gradient(target, new object[] { source }, nameof(source))[0];
        }

        private Tensor[] Gradient(Tensor target, object[] sources, string paramName)
        {
            if (target == null) throw new ArgumentNullException(nameof(target));
            for (int i = 0; i < sources.Length; i++)
            {
                if (sources[i] == null) throw new ArgumentNullException(paramName, $"{paramName}[{i}] is null");
                if (!(sources[i] is PythonHandle))
                    throw new TfNetTrainArgumentException(paramName, $"{paramName}[{i}] is a {sources[i].GetType().Name}, not a tensor or variable");
            }
            if (_used && !_persistent)
                throw new InvalidOperationException("a non-persistent GradientTape gives gradients once; use tf.GradientTape(persistent: true)");
            Tensor[] grads = Run(f =>
            {
                using (var list = Face.Invoke(f, "tensors", "tape_gradient", new object[] { this, target, sources }))
                {
                    return Tensor.WrapList(Runtime, list);
                }
            });
            _used = true;
            return grads;
        }

        /// <summary>Stops recording and releases the tape; using it afterwards throws ObjectDisposedException.</summary>
        public override void Dispose()
        {
            if (IsDisposed) return;
            if (!Runtime.IsDisposed) Run(f => { Face.Call(f, "tensors", "tape_stop", new object[] { this }); return 0; });
            base.Dispose();
        }
    }
}
