// Stand-ins, for the proof of the API classes only, of TF.NET types that the generated areas name and the current
// face lacks. The face's own assembly defines these types (TF.NET's RaggedTensor, IInitializer; Axis is in Axis.cs)
// and registers them with its codec; here each holds its Python object and shows it as Python does.
using System;
using System.Linq;
using Python.Runtime;

namespace Tensorflow.NumPy
{
    // The generated files name TF.NET's namespaces; the current face has its NDArray in TfNetTrain.
    internal static class NamespacePlaceholder
    {
    }
}

namespace Tensorflow
{
    /// <summary>A Python object held for a stand-in type.</summary>
    public abstract class PythonValue : IPythonObject
    {
        protected PythonValue(PyObject value)
        {
            PythonObject = value;
        }

        public PyObject PythonObject { get; }

        /// <summary>Python's str() of the value.</summary>
        public override string ToString() => FaceCodec.Run(() => PythonObject.ToString());
    }

    /// <summary>TF.NET's RaggedTensor (stand-in): its rows as Python's to_list().</summary>
    public sealed class RaggedTensor : PythonValue
    {
        public RaggedTensor(PyObject value) : base(value)
        {
        }

        public string to_list_string() => FaceCodec.Run(() =>
        {
            using (PyObject list = PythonObject.InvokeMethod("to_list")) return list.Repr();
        });
    }

    /// <summary>TF.NET's IInitializer (stand-in).</summary>
    public interface IInitializer
    {
        string ClassName { get; }
    }

    internal sealed class PythonInitializer : PythonValue, IInitializer
    {
        public PythonInitializer(PyObject value) : base(value)
        {
        }

        public string ClassName => FaceCodec.Run(() => PythonObject.GetPythonType().Name);
    }

    public static partial class FaceCodec
    {
        static partial void Standins()
        {
            Register<RaggedTensor>(py => new RaggedTensor(py));
            Register<IInitializer>(py => new PythonInitializer(py));
        }
    }
}
