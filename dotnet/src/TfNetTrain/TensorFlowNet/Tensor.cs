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

        /// <summary>The value, copied into C#.</summary>
        public NDArray numpy()
        {
            return Run(f =>
            {
                using (var a = Face.Invoke(f, "tensors", "tensor_numpy", new object[] { this })) return ArrayExchange.FromNumpy(a);
            });
        }

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

        /// <summary>"tf.Tensor: shape=(2, 3), dtype=TF_FLOAT".</summary>
        public override string ToString() => IsDisposed ? "tf.Tensor (disposed)" : $"tf.Tensor: shape={shape}, dtype={dtype}";
    }

    /// <summary>A trainable variable (TF.NET's IVariableV1).</summary>
    public interface IVariableV1
    {
        /// <summary>The variable's path, e.g. "sequential/dense/kernel".</summary>
        string Name { get; }

        /// <summary>The shape.</summary>
        Shape shape { get; }

        /// <summary>The value, copied into C#.</summary>
        NDArray numpy();
    }

    /// <summary>A Keras/TensorFlow variable held from C#; reads are live (they see every update).</summary>
    public sealed class ResourceVariable : Tensor, IVariableV1
    {
        internal ResourceVariable(PythonRuntime runtime, PyObject handle) : base(runtime, handle)
        {
        }

        /// <summary>The variable's path.</summary>
        public string Name => name;

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
