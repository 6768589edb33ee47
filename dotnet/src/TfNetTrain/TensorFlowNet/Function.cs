using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>The shape and dtype a traced function accepts for one argument (tf.TensorSpec); -1 is any size.</summary>
    public sealed class TensorSpec
    {
        /// <summary>A spec; a null <paramref name="shape"/> accepts any rank.</summary>
        public TensorSpec(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT)
        {
            if (dtype == TF_DataType.DtInvalid) throw new TfNetTrainArgumentException(nameof(dtype), "a TensorSpec needs a dtype (tf.float32, tf.int64, ...)");
            this.shape = shape;
            this.dtype = dtype;
        }

        /// <summary>The accepted shape (null: any rank).</summary>
        public Shape shape { get; }

        /// <summary>The accepted dtype.</summary>
        public TF_DataType dtype { get; }

        internal object ToPython() => new object[] { shape == null ? null : (object)shape.dims.ToList(), Face.DTypeName(dtype) };

        public override string ToString() => $"TensorSpec(shape={(shape == null ? "<unknown>" : shape.ToString())}, dtype={dtype})";
    }

    /// <summary>
    /// A C# delegate compiled by TensorFlow (<c>tf.function</c> over it). The first call for an input signature runs
    /// the delegate once on the Python thread with symbolic tensors (its <c>tf.*</c> calls add ops to a graph); later
    /// calls with that signature run the graph and do not enter C#. <see cref="Of"/> finds the function behind a
    /// delegate returned by <c>tf.function</c> or <c>tf.autograph.to_graph</c>.
    /// </summary>
    public sealed class TracedFunction : PythonHandle
    {
        private static readonly ConditionalWeakTable<Delegate, TracedFunction> ByDelegate = new ConditionalWeakTable<Delegate, TracedFunction>();

        private TracedFunction(PythonRuntime runtime, PyObject function, string name) : base(runtime, function)
        {
            Name = name;
        }

        /// <summary>The function's name (the delegate's method, unless given).</summary>
        public string Name { get; }

        /// <summary>How often the C# delegate has run: once per input signature TensorFlow traced.</summary>
        public int HostCalls => Run(f =>
        {
            using (var n = Handle.GetAttr("host_calls")) return n.As<int>();
        });

        /// <summary>How many graphs TensorFlow holds for the function (one per input signature).</summary>
        public int Traces => Run(f =>
        {
            using (var n = Handle.GetAttr("traces")) return n.As<int>();
        });

        /// <summary>The traced function behind <paramref name="function"/>, a delegate tf.function returned.</summary>
        public static TracedFunction Of(Delegate function)
        {
            if (function == null) throw new ArgumentNullException(nameof(function));
            if (ByDelegate.TryGetValue(function, out TracedFunction traced)) return traced;
            throw new TfNetTrainArgumentException(nameof(function), "is not a delegate returned by tf.function or tf.autograph.to_graph");
        }

        /// <summary>Runs the compiled function (tracing the delegate first for a new input signature).</summary>
        public Tensors Invoke(params Tensor[] args)
        {
            if (args == null) throw new ArgumentNullException(nameof(args));
            for (int i = 0; i < args.Length; i++)
                if (args[i] == null) throw new ArgumentNullException(nameof(args), $"tf.function '{Name}': argument {i} is null");
            return Run(f =>
            {
                using (var list = new PyList())
                {
                    foreach (var a in args)
                    {
                        using (var p = a.Handle.NewReference()) list.Append(p);
                    }
                    using (var result = Handle.Invoke(list))
                    {
                        if (PyList.IsListType(result)) return new Tensors(Tensor.WrapList(Runtime, result));
                        return new Tensors(Tensor.Wrap(Runtime, result.NewReference()));
                    }
                }
            });
        }

        internal static TracedFunction Create(Delegate body, Func<Tensor[], object> invoke, string name, int outputs,
                                              TensorSpec[] signature, bool jitCompile, int arity)
        {
            if (body == null) throw new ArgumentNullException("func");
            if (signature != null)
            {
                if (signature.Length != arity)
                    throw new TfNetTrainArgumentException("input_signature", $"must hold one TensorSpec per argument of the delegate ({arity}); got {signature.Length}");
                if (signature.Any(s => s == null)) throw new TfNetTrainArgumentException("input_signature", "holds a null TensorSpec");
            }
            name = name ?? body.Method.Name;
            PythonRuntime runtime = Face.Runtime;
            var host = HostCode.ForDelegate(name, invoke);
            return Face.Run(runtime, f =>
            {
                using (var pyHost = PyObject.FromManagedObject(host))
                {
                    var args = new object[]
                    {
                        new PyObjectBox(pyHost), name, outputs,
                        signature == null ? null : signature.Select(s => s.ToPython()).ToList(), jitCompile,
                    };
                    return new TracedFunction(runtime, Face.Invoke(f, "host_code", "host_function", args), name);
                }
            });
        }

        internal T Register<T>(T callable) where T : class
        {
            ByDelegate.Add((Delegate)(object)callable, this);
            return callable;
        }
    }

    public sealed partial class TensorFlowApi
    {
        /// <summary>tf.autograph (TF.NET's <c>to_graph</c>).</summary>
        public AutoGraph autograph { get; } = new AutoGraph();

        /// <summary>
        /// Compiles <paramref name="func"/> with TensorFlow: the delegate runs once per input signature while
        /// TensorFlow traces it, later calls run the graph. <paramref name="input_signature"/> fixes the accepted
        /// shapes and dtypes (one trace); <see cref="TracedFunction.Of"/> tells how often C# was entered.
        /// </summary>
        public Func<Tensor, Tensor> function(Func<Tensor, Tensor> func, string name = null, TensorSpec[] input_signature = null, bool jit_compile = false)
        {
            var traced = TracedFunction.Create(func, a => func(a[0]), name, 1, input_signature, jit_compile, 1);
            return traced.Register<Func<Tensor, Tensor>>(x => traced.Invoke(x).Single);
        }

        /// <summary>Compiles a function of two tensors (see the one-argument overload).</summary>
        public Func<Tensor, Tensor, Tensor> function(Func<Tensor, Tensor, Tensor> func, string name = null, TensorSpec[] input_signature = null, bool jit_compile = false)
        {
            var traced = TracedFunction.Create(func, a => func(a[0], a[1]), name, 1, input_signature, jit_compile, 2);
            return traced.Register<Func<Tensor, Tensor, Tensor>>((x, y) => traced.Invoke(x, y).Single);
        }

        /// <summary>Compiles a function of three tensors (see the one-argument overload).</summary>
        public Func<Tensor, Tensor, Tensor, Tensor> function(Func<Tensor, Tensor, Tensor, Tensor> func, string name = null, TensorSpec[] input_signature = null, bool jit_compile = false)
        {
            var traced = TracedFunction.Create(func, a => func(a[0], a[1], a[2]), name, 1, input_signature, jit_compile, 3);
            return traced.Register<Func<Tensor, Tensor, Tensor, Tensor>>((x, y, z) => traced.Invoke(x, y, z).Single);
        }

        /// <summary>Compiles a function of several tensors returning several (TF.NET's Tensors).</summary>
        public Func<Tensors, Tensors> function(Func<Tensors, Tensors> func, string name = null, TensorSpec[] input_signature = null, bool jit_compile = false)
        {
            if (func == null) throw new ArgumentNullException(nameof(func));
            int arity = input_signature?.Length ?? -1;
            var traced = TracedFunction.Create(func, a => func(new Tensors(a)), name, -1, input_signature, jit_compile, arity < 0 ? 0 : arity);
            return traced.Register<Func<Tensors, Tensors>>(xs => traced.Invoke(xs?.ToArray() ?? throw new ArgumentNullException("inputs")));
        }

        /// <summary>Compiles a step that returns nothing (a training step that updates variables).</summary>
        public Action<Tensor, Tensor> function(Action<Tensor, Tensor> func, string name = null, TensorSpec[] input_signature = null, bool jit_compile = false)
        {
            var traced = TracedFunction.Create(func, a => { func(a[0], a[1]); return new Tensor[0]; }, name, 0, input_signature, jit_compile, 2);
            return traced.Register<Action<Tensor, Tensor>>((x, y) => traced.Invoke(x, y));
        }

        /// <summary>A TensorSpec for <see cref="function(Func{Tensor, Tensor}, string, TensorSpec[], bool)"/>'s input_signature.</summary>
        public TensorSpec TensorSpec(Shape shape, TF_DataType dtype = TF_DataType.TF_FLOAT) => new TensorSpec(shape, dtype);
    }

    /// <summary>TF.NET's <c>tf.autograph</c>: a C# delegate turned into a TensorFlow graph function.</summary>
    public sealed class AutoGraph
    {
        internal AutoGraph()
        {
        }

        /// <summary>The delegate traced once for inputs of <paramref name="dtype"/> (any shape); calls run the graph.</summary>
        public Func<Tensor, Tensor> to_graph(Func<Tensor, Tensor> func, TF_DataType dtype = TF_DataType.TF_INT32)
            => Binding.tf.function(func, null, new[] { new TensorSpec(null, dtype) });

        /// <summary>A two-argument delegate traced once for inputs of <paramref name="dtypes"/> (int32 when none given).</summary>
        public Func<Tensor, Tensor, Tensor> to_graph(Func<Tensor, Tensor, Tensor> func, params TF_DataType[] dtypes)
        {
            if (dtypes != null && dtypes.Length != 0 && dtypes.Length != 2)
                throw new TfNetTrainArgumentException(nameof(dtypes), $"give one dtype per argument (2) or none; got {dtypes.Length}");
            var d = dtypes == null || dtypes.Length == 0 ? new[] { TF_DataType.TF_INT32, TF_DataType.TF_INT32 } : dtypes;
            return Binding.tf.function(func, null, d.Select(t => new TensorSpec(null, t)).ToArray());
        }
    }
}
