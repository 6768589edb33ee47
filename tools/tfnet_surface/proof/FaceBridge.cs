// The bridge entry point that generated members call (FaceBridge, FaceCall, FaceMethod, FaceCodec), written for the
// proof over the current face in TfNetTrain.dll, which it reaches through reflection (Tensor.Wrap, NDArray.WrapPython,
// Face.ToPython are internal there). The face's own assembly provides the same types with direct calls; see
// tools/tfnet_surface/README.md for the contract. It compiles into the proof of the API classes (beside the current
// face's Tensor) and into the proof of TF.NET's types (beside the generated Tensorflow.Tensor): the current face's
// types are named by the aliases below, never by their simple names.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using Python.Runtime;
using TfNetTrain;
using FaceTensor = TfNetTrain.TensorFlowNet.Tensor;
using FaceTensors = TfNetTrain.TensorFlowNet.Tensors;
using FaceShape = TfNetTrain.TensorFlowNet.Shape;
using FaceDType = TfNetTrain.TensorFlowNet.TF_DataType;
using FaceArray = TfNetTrain.NDArray;
using FaceHandle = TfNetTrain.TensorFlowNet.PythonHandle;

namespace Tensorflow
{
    /// <summary>
    /// One Python callable that generated members call: a dotted path from a root module (<c>tf</c>, <c>keras</c>,
    /// <c>np</c>) and an argument spec. Values before <c>/</c> in the spec go positionally (<c>*x</c> spread),
    /// the rest by keyword, a null keyword left out (Python's default applies).
    /// </summary>
    public sealed class FaceCall
    {
        private readonly FaceArguments _arguments;
        private PyObject _target;

        internal FaceCall(string path, string spec)
        {
            Path = path ?? throw new ArgumentNullException(nameof(path));
            _arguments = new FaceArguments(path, spec);
        }

        /// <summary>The Python path (<c>tf.linalg.eye</c>).</summary>
        public string Path { get; }

        /// <summary>Calls the function with <paramref name="values"/> in spec order and converts its result.</summary>
        public T Call<T>(params object[] values) => FaceCodec.Run(() =>
        {
            using (PyObject result = _arguments.Invoke(Target(), values)) return FaceCodec.FromPython<T>(result);
        });

        /// <summary>Calls the function, dropping its result.</summary>
        public void Run(params object[] values) => FaceCodec.Run(() =>
        {
            _arguments.Invoke(Target(), values).Dispose();
            return 0;
        });

        /// <summary>The value of the attribute at <see cref="Path"/>.</summary>
        public T Get<T>() => FaceCodec.Run(() => FaceCodec.FromPython<T>(Target()));

        private PyObject Target() => _target ?? (_target = FaceCodec.Resolve(Path));
    }

    /// <summary>
    /// One attribute of a receiver's Python object that members of TF.NET's types call or read: a name (dotted:
    /// <c>output.shape</c> reads <c>output</c> first), an argument spec as FaceCall's, and optionally a Python function
    /// that makes the receiver from the codec's value (<c>tf.TensorShape</c> for a Shape, which converts to a tuple).
    /// </summary>
    public sealed class FaceMethod
    {
        private readonly string[] _path;
        private readonly FaceArguments _arguments;
        private readonly string _receiver;
        private PyObject _receiverFunction;

        internal FaceMethod(string name, string spec, string receiver)
        {
            Name = name ?? throw new ArgumentNullException(nameof(name));
            _path = name.Split('.');
            _arguments = new FaceArguments(name, spec);
            _receiver = string.IsNullOrEmpty(receiver) ? null : receiver;
        }

        /// <summary>The attribute (<c>get_weights</c>, <c>output.shape</c>).</summary>
        public string Name { get; }

        /// <summary>Calls the attribute of <paramref name="self"/>'s Python object with <paramref name="values"/>.</summary>
        public T Call<T>(object self, params object[] values) => FaceCodec.Run(() =>
        {
            using (PyObject target = Attribute(self))
            using (PyObject result = _arguments.Invoke(target, values))
                return FaceCodec.FromPython<T>(result);
        });

        /// <summary>Calls the attribute, dropping its result.</summary>
        public void Run(object self, params object[] values) => FaceCodec.Run(() =>
        {
            using (PyObject target = Attribute(self)) _arguments.Invoke(target, values).Dispose();
            return 0;
        });

        /// <summary>The attribute's value.</summary>
        public T Get<T>(object self) => FaceCodec.Run(() =>
        {
            using (PyObject value = Attribute(self)) return FaceCodec.FromPython<T>(value);
        });

        /// <summary>Sets the attribute (its last segment) to <paramref name="value"/>.</summary>
        public void Set(object self, object value) => FaceCodec.Run(() =>
        {
            using (PyObject owner = Walk(self, _path.Length - 1))
            using (PyObject v = FaceCodec.ToPython(value))
                owner.SetAttr(_path[_path.Length - 1], v);
            return 0;
        });

        private PyObject Attribute(object self) => Walk(self, _path.Length);

        // The receiver's Python object, then `count` segments of the path (a new reference; GIL held).
        private PyObject Walk(object self, int count)
        {
            if (self == null) throw new TfNetTrainArgumentException("self", $"{Name}: the receiver is null");
            PyObject obj = FaceCodec.ToPython(self);
            if (_receiver != null)
            {
                if (_receiverFunction == null) _receiverFunction = FaceCodec.Resolve(_receiver);
                PyObject made = _receiverFunction.Invoke(obj);
                obj.Dispose();
                obj = made;
            }
            for (int i = 0; i < count; i++)
            {
                PyObject next = obj.GetAttr(_path[i]);
                obj.Dispose();
                obj = next;
            }
            return obj;
        }
    }

    /// <summary>An argument spec (<c>num_rows, /, num_columns</c>) and the call it makes with values in its order.</summary>
    internal sealed class FaceArguments
    {
        private readonly string _what; // the Python path or attribute, for errors
        private readonly string[] _names; // the Python keyword, or the TF.NET name of a positional value
        private readonly char[] _how; // 'p' positional, '*' spread, 'k' keyword
        private readonly string[] _casts; // "int", "float" or null

        internal FaceArguments(string what, string spec)
        {
            _what = what;
            var names = new List<string>();
            var how = new List<char>();
            var casts = new List<string>();
            bool keywords = false;
            foreach (string raw in (spec ?? "").Split(new[] { ',' }, StringSplitOptions.RemoveEmptyEntries))
            {
                string entry = raw.Trim();
                if (entry == "/") { keywords = true; continue; }
                int colon = entry.IndexOf(':');
                casts.Add(colon < 0 ? null : entry.Substring(colon + 1));
                if (colon >= 0) entry = entry.Substring(0, colon);
                if (entry.StartsWith("*")) { names.Add(entry.Substring(1)); how.Add('*'); continue; }
                names.Add(entry);
                how.Add(keywords ? 'k' : 'p');
            }
            _names = names.ToArray();
            _how = how.ToArray();
            _casts = casts.ToArray();
        }

        internal PyObject Invoke(PyObject target, object[] values)
        {
            values = values ?? new object[] { null };
            if (values.Length != _names.Length)
                throw new TfNetTrainArgumentException("values", $"{_what}: {_names.Length} values expected, got {values.Length}");
            var positional = new List<PyObject>();
            var keywords = new PyDict();
            try
            {
                for (int i = 0; i < values.Length; i++)
                {
                    if (_how[i] == 'k')
                    {
                        if (values[i] == null) continue;
                        using (PyObject v = Convert(i, values[i])) keywords[_names[i]] = v;
                    }
                    else if (_how[i] == '*')
                    {
                        if (values[i] == null) continue;
                        foreach (object item in (IEnumerable)values[i]) positional.Add(Convert(i, item));
                    }
                    else positional.Add(Convert(i, values[i]));
                }
                return target.Invoke(positional.ToArray(), keywords);
            }
            finally
            {
                foreach (PyObject p in positional) p.Dispose();
                keywords.Dispose();
            }
        }

        private PyObject Convert(int i, object value)
        {
            try
            {
                if (_casts[i] == "int" && value != null)
                {
                    double d = System.Convert.ToDouble(value);
                    if (Math.Floor(d) != d) throw new ArgumentException($"expected a whole number, got {value}");
                    value = (long)d;
                }
                else if (_casts[i] == "float" && value != null) value = System.Convert.ToDouble(value);
                return FaceCodec.ToPython(value);
            }
            catch (Exception e) when (!(e is PythonException))
            {
                throw new TfNetTrainArgumentException(_names[i], $"{_what}: argument {_names[i]}: {e.Message}");
            }
        }
    }

    /// <summary>What generated code names: a FaceCall per Python function, and the exception of an unsupported member.</summary>
    public static class FaceBridge
    {
        /// <summary>The call of <paramref name="path"/> with arguments passed as <paramref name="spec"/> says.</summary>
        public static FaceCall Function(string path, string spec) => new FaceCall(path, spec);

        /// <summary>
        /// The attribute <paramref name="name"/> of a receiver's Python object, called with arguments as
        /// <paramref name="spec"/> says (or read); <paramref name="receiver"/> makes the receiver from the codec's value.
        /// </summary>
        public static FaceMethod Method(string name, string spec, string receiver = null) => new FaceMethod(name, spec, receiver);

        /// <summary>What a member with no Python counterpart throws.</summary>
        public static NotSupportedException NotSupported(string member, string reason)
            => new NotSupportedException($"{member} is not supported: {reason}");
    }

    /// <summary>
    /// The one codec between the face's values and Python's: Tensor, NDArray, Shape, Axis, TF_DataType, tuples, C#
    /// arrays and sequences, registered handle types.
    /// </summary>
    public static partial class FaceCodec
    {
        /// <summary>A keyword value that is Python's None even where leaving it out would give another default.</summary>
        public static readonly object None = new object();

        private static readonly Dictionary<Type, Func<PyObject, object>> Wrappers = new Dictionary<Type, Func<PyObject, object>>();
        private static readonly Dictionary<string, string> Roots = new Dictionary<string, string>
        {
            { "tf", "tensorflow" }, { "keras", "keras" }, { "np", "numpy" }, { "operator", "operator" },
        };
        private static readonly Assembly Face = typeof(FaceTensor).Assembly;
        private static readonly MethodInfo FaceToPython = Face.GetType("TfNetTrain.TensorFlowNet.Face")
            .GetMethod("ToPython", BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic);
        private static readonly PropertyInfo FaceRuntime = Face.GetType("TfNetTrain.TensorFlowNet.Face")
            .GetProperty("Runtime", BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic);
        private static readonly MethodInfo TensorWrap = typeof(FaceTensor)
            .GetMethod("Wrap", BindingFlags.Static | BindingFlags.NonPublic);
        private static readonly MethodInfo ArrayWrap = typeof(FaceArray)
            .GetMethod("WrapPython", BindingFlags.Static | BindingFlags.NonPublic);
        private static readonly MethodInfo FromAny = Face.GetType("TfNetTrain.TensorFlowNet.NumPyApi")
            .GetMethod("FromAny", BindingFlags.Static | BindingFlags.NonPublic);
        private static readonly MethodInfo DTypeFromName = Face.GetType("TfNetTrain.TensorFlowNet.Face")
            .GetMethod("FromName", BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic);

        private static List<Tuple<Type, PyObject, string>> _twins;

        static FaceCodec()
        {
            Standins();
        }

        // The proof's stand-ins register their wrappers here (Standins.cs, the types proof's generated halves).
        static partial void Standins();

        /// <summary>The Python object at a dotted path from a root module (<c>tf.linalg.eye</c>; GIL held).</summary>
        public static PyObject Resolve(string path)
        {
            string[] parts = path.Split('.');
            string module;
            if (!Roots.TryGetValue(parts[0], out module))
                throw new TfNetTrainArgumentException("path", $"{path}: a Python path starts with tf, keras, np or operator");
            PyObject obj = Py.Import(module);
            for (int i = 1; i < parts.Length; i++)
            {
                PyObject next = obj.GetAttr(parts[i]);
                obj.Dispose();
                obj = next;
            }
            return obj;
        }

        internal static PythonRuntime Runtime => (PythonRuntime)FaceRuntime.GetValue(null);

        /// <summary>Runs on the Python thread with the GIL held (Python errors become TfNetTrainExceptions).</summary>
        public static T Run<T>(Func<T> body) => Runtime.Run(body);

        /// <summary>How a face type with no rule of its own comes back from Python (IInitializer, RaggedTensor).</summary>
        public static void Register<T>(Func<PyObject, T> wrap) => Wrappers[typeof(T)] = py => wrap(py);

        /// <summary>A new reference to the Python value of <paramref name="value"/> (GIL held).</summary>
        public static PyObject ToPython(object value)
        {
            if (value == null || ReferenceEquals(value, None)) return PyObject.None;
            if (value is PyObject py) return py.NewReference();
            if (value is IPythonObject held) return held.PythonObject.NewReference();
            if (value is Enum && value.GetType().Name == "TF_DataType" && !(value is FaceDType))
            {
                int number = System.Convert.ToInt32(value); // TF.NET's values are types.proto's
                if (number == 0) return PyObject.None;
                using (PyObject n = new PyInt(number))
                using (PyObject dtype = Python("tensorflow", "as_dtype").Invoke(n))
                    return dtype.GetAttr("name"); // by name, as the face passes dtypes (NumPy reads it too)
            }
            if (value is Axis axis) return axis.axis.Length == 1 ? ToPython(axis.axis[0]) : ToPython(axis.axis);
            if (value is char c) return new PyString(c.ToString());
            if (value is System.Numerics.Complex z)
                using (PyObject re = new PyFloat(z.Real))
                using (PyObject im = new PyFloat(z.Imaginary))
                    return Python("builtins", "complex").Invoke(re, im);
            if (value is Array array && array.Rank > 1) value = FromAny.Invoke(null, new object[] { array });
            Type type = value.GetType();
            if (IsValueTuple(type))
            {
                object[] items = TupleItems(value);
                var converted = items.Select(ToPython).ToArray();
                try { return new PyTuple(converted); }
                finally { foreach (var p in converted) p.Dispose(); }
            }
            if (value is IDictionary map)
            {
                var dict = new PyDict();
                foreach (DictionaryEntry pair in map)
                    using (PyObject k = ToPython(pair.Key))
                    using (PyObject v = ToPython(pair.Value))
                        dict[k] = v;
                return dict;
            }
            if (value is IEnumerable sequence && !(value is string) && !(value is FaceHandle)
                && !(value is FaceArray) && !(value is Array))
            {
                var list = new PyList();
                foreach (object item in sequence)
                    using (PyObject p = ToPython(item)) list.Append(p);
                return list;
            }
            try
            {
                return (PyObject)FaceToPython.Invoke(null, new[] { value });
            }
            catch (TargetInvocationException e)
            {
                throw e.InnerException;
            }
        }

        /// <summary>The C# value of type <typeparamref name="T"/> for a Python value (borrowed).</summary>
        public static T FromPython<T>(PyObject value) => (T)FromPython(value, typeof(T));

        /// <summary>The C# value of <paramref name="type"/> for a Python value (borrowed: wrappers take new references).</summary>
        public static object FromPython(PyObject value, Type type)
        {
            if (type == typeof(PyObject)) return value.NewReference();
            if (value.IsNone()) return type.IsValueType ? Activator.CreateInstance(type) : null;
            Func<PyObject, object> wrap;
            if (Wrappers.TryGetValue(type, out wrap)) return wrap(value.NewReference());
            if (type == typeof(FaceTensor)) return WrapTensor(value);
            if (type == typeof(FaceTensors))
            {
                if (IsSequence(value)) return new FaceTensors(Items(value).Select(WrapTensor).ToArray());
                return new FaceTensors(WrapTensor(value));
            }
            if (type == typeof(FaceArray))
            {
                PyObject array = Python("numpy", "asarray").Invoke(value);
                return ArrayWrap.Invoke(null, new object[] { Runtime, array });
            }
            if (type == typeof(FaceShape)) return new FaceShape(Items(value).Select(d => d.IsNone() ? -1L : d.As<long>()).ToArray());
            if (type.IsEnum && type.Name == "TF_DataType" && type != typeof(FaceDType))
            {
                using (PyObject dtype = Python("tensorflow", "as_dtype").Invoke(value))
                using (PyObject number = dtype.GetAttr("as_datatype_enum"))
                    return Enum.ToObject(type, number.As<int>());
            }
            if (type == typeof(FaceDType))
            {
                using (PyObject dtype = Python("tensorflow", "as_dtype").Invoke(value))
                using (PyObject name = dtype.GetAttr("name"))
                    return DTypeFromName.Invoke(null, new object[] { name.As<string>() });
            }
            if (type == typeof(string))
            {
                if (value.HasAttr("decode") && !PyString.IsStringType(value)) return value.InvokeMethod("decode").As<string>();
                return value.As<string>();
            }
            if (type.IsPrimitive) return System.Convert.ChangeType(ScalarOf(value), type);
            if (type.IsArray)
            {
                Type element = type.GetElementType();
                List<object> items = Items(value).Select(v => FromPython(v, element)).ToList();
                Array result = Array.CreateInstance(element, items.Count);
                for (int i = 0; i < items.Count; i++) result.SetValue(items[i], i);
                return result;
            }
            if (IsValueTuple(type))
            {
                Type[] args = type.GetGenericArguments();
                List<PyObject> items = Items(value).ToList();
                if (items.Count != args.Length)
                    throw new InvalidCastException($"a Python sequence of {items.Count} items does not make a {type.Name} of {args.Length}");
                return Activator.CreateInstance(type, items.Select((v, i) => FromPython(v, args[i])).ToArray());
            }
            if (type.IsGenericType && new[] { typeof(IEnumerable<>), typeof(List<>), typeof(IList<>), typeof(IReadOnlyList<>) }
                    .Contains(type.GetGenericTypeDefinition()))
            {
                Type element = type.GetGenericArguments()[0];
                var list = (IList)Activator.CreateInstance(typeof(List<>).MakeGenericType(element));
                foreach (PyObject item in Items(value)) list.Add(FromPython(item, element));
                return list;
            }
            if (type.IsGenericType && (type.GetGenericTypeDefinition() == typeof(Dictionary<,>)
                                       || type.GetGenericTypeDefinition() == typeof(IDictionary<,>)))
            {
                Type[] kv = type.GetGenericArguments();
                var dict = (IDictionary)Activator.CreateInstance(typeof(Dictionary<,>).MakeGenericType(kv));
                using (PyObject items = value.InvokeMethod("items"))
                    foreach (PyObject pair in Items(items))
                        using (pair)
                        using (PyObject k = pair[0])
                        using (PyObject v = pair[1])
                            dict[FromPython(k, kv[0])] = FromPython(v, kv[1]);
                return dict;
            }
            object twin = Twin(value, type);
            if (twin != null) return twin;
            throw new InvalidCastException($"no conversion of a Python {value.GetPythonType().Name} to {type.FullName}");
        }

        // The first generated class (FaceTypes: subclasses first) that fits `type` and whose Python twin `value` is an
        // instance of, wrapped by its registered wrapper; null when none.
        private static object Twin(PyObject value, Type type)
        {
            if (_twins == null)
            {
                var twins = new List<Tuple<Type, string, string>>();
                FaceTypes.All(twins);
                _twins = twins.Select(t => Tuple.Create(t.Item1, Resolve(t.Item2), t.Item3)).ToList();
            }
            foreach (var twin in _twins)
            {
                Func<PyObject, object> wrap;
                if (type.IsAssignableFrom(twin.Item1) && value.IsInstance(twin.Item2) && Wrappers.TryGetValue(twin.Item1, out wrap))
                    return wrap(twin.Item3 == null ? value.NewReference() : value.GetAttr(twin.Item3));
            }
            return null;
        }

        private static object ScalarOf(PyObject value)
        {
            using (PyObject array = Python("numpy", "asarray").Invoke(value))
            using (PyObject item = array.InvokeMethod("item"))
                return item.As<object>();
        }

        private static FaceTensor WrapTensor(PyObject value)
        {
            bool isTensor;
            using (PyObject answer = Python("tensorflow", "is_tensor").Invoke(value)) isTensor = answer.IsTrue();
            PyObject tensor = isTensor ? value.NewReference() : Python("tensorflow", "convert_to_tensor").Invoke(value);
            return (FaceTensor)TensorWrap.Invoke(null, new object[] { Runtime, tensor });
        }

        private static bool IsSequence(PyObject value)
        {
            return value.IsInstance(Python("builtins", "list")) || value.IsInstance(Python("builtins", "tuple"));
        }

        private static readonly Dictionary<string, PyObject> Cache = new Dictionary<string, PyObject>();

        // module.name, imported once (GIL held).
        private static PyObject Python(string module, string name)
        {
            string key = module + "." + name;
            PyObject found;
            if (!Cache.TryGetValue(key, out found))
            {
                using (PyObject m = Py.Import(module)) found = m.GetAttr(name);
                Cache[key] = found;
            }
            return found;
        }

        private static List<PyObject> Items(PyObject value)
        {
            var items = new List<PyObject>();
            using (PyIter iterator = value.GetIterator())
                while (iterator.MoveNext()) items.Add(iterator.Current);
            return items;
        }

        private static bool IsValueTuple(Type type)
            => type.IsGenericType && type.FullName != null && type.FullName.StartsWith("System.ValueTuple`");

        private static object[] TupleItems(object tuple)
            => tuple.GetType().GetFields().Where(f => f.Name.StartsWith("Item")).OrderBy(f => f.Name).Select(f => f.GetValue(tuple)).ToArray();
    }

    /// <summary>
    /// A face value that is one Python object: the codec passes <see cref="PythonObject"/> (the stand-ins, the
    /// halves of generated classes). Not <c>Handle</c>: TF.NET's IVariableV1 declares a Handle of its own (a Tensor).
    /// </summary>
    public interface IPythonObject
    {
        /// <summary>The Python object (GIL held when used).</summary>
        PyObject PythonObject { get; }
    }

    /// <summary>The generated classes with their Python twins (FaceTypes.g.cs implements <c>Twins</c>).</summary>
    internal static partial class FaceTypes
    {
        static partial void Twins(List<Tuple<Type, string, string>> twins);

        internal static void All(List<Tuple<Type, string, string>> twins) => Twins(twins);
    }
}
