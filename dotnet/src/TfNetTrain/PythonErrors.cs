using System;
using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>Turns a <see cref="PythonException"/> into the library's exception types (needs the GIL).</summary>
    internal static class PythonErrors
    {
        private static readonly HashSet<string> ArgumentErrors = new HashSet<string>
        {
            "ValueError", "TypeError", "KeyError", "IndexError", "InvalidArgumentError",
        };

        /// <summary>The TfNetTrainException (or subclass) for a Python error, with class, message and traceback.</summary>
        public static TfNetTrainException Map(PythonException error)
        {
            TensorFlowNet.HostCode.RethrowPending(error); // C# code run while tracing threw: its own exception
            var info = Describe(error);
            List<string> classes = ClassNames(error.Type);
            if (classes.Exists(ArgumentErrors.Contains)) return new TfNetTrainArgumentException(info, error);
            if (classes.Contains("OSError")) return new TfNetTrainIOException(info, error);
            return new TfNetTrainException(info, error);
        }

        /// <summary>Class, module-qualified class, message and formatted traceback of a Python error.</summary>
        public static PythonErrorInfo Describe(PythonException error)
        {
            string name = Attribute(error.Type, "__name__") ?? "Exception";
            string module = Attribute(error.Type, "__module__");
            string full = string.IsNullOrEmpty(module) || module == "builtins" ? name : module + "." + name;
            string traceback;
            try
            {
                traceback = error.Format();
            }
            catch (Exception e) when (e is PythonException || e is InvalidOperationException)
            {
                traceback = error.StackTrace;
            }
            return new PythonErrorInfo(name, full, error.Message, traceback);
        }

        private static List<string> ClassNames(PyType type)
        {
            var names = new List<string>();
            if (type == null) return names;
            try
            {
                using (var mro = type.GetAttr("__mro__"))
                {
                    foreach (PyObject cls in PyConvert.Iterate(mro))
                    {
                        using (cls)
                        {
                            string n = Attribute(cls, "__name__");
                            if (n != null) names.Add(n);
                        }
                    }
                }
            }
            catch (PythonException)
            {
                names.Add(Attribute(type, "__name__") ?? "Exception");
            }
            return names;
        }

        private static string Attribute(PyObject obj, string name)
        {
            if (obj == null) return null;
            try
            {
                using (var value = obj.GetAttr(name)) return value.IsNone() ? null : value.ToString();
            }
            catch (PythonException)
            {
                return null;
            }
        }
    }
}
