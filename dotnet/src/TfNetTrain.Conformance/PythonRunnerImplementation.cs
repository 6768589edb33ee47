using System;
using System.Collections.Generic;
using Python.Runtime;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// An implementation registered on the Python side (tfnet_train.conformance.implementations), e.g. "numpy" (the
    /// NumPy reference) or "keras" (Keras 3 itself), run in the embedded interpreter on the case file. Python's
    /// NotApplicable becomes <see cref="NotApplicableException"/>.
    /// </summary>
    public sealed class PythonRunnerImplementation : IConformanceImplementation
    {
        private readonly Func<PythonRuntime> _runtime;

        /// <summary>The Python implementation <paramref name="name"/>; <paramref name="runtime"/> gives the running Python.</summary>
        public PythonRunnerImplementation(string name, Func<PythonRuntime> runtime)
        {
            if (string.IsNullOrEmpty(name)) throw new ArgumentException("name: expected a registered implementation name, got an empty string", nameof(name));
            Name = name;
            _runtime = runtime ?? throw new ArgumentNullException(nameof(runtime));
        }

        /// <inheritdoc />
        public string Name { get; }

        /// <inheritdoc />
        public IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> Run(ConformanceCase conformanceCase, string jsonPath)
        {
            if (jsonPath == null) throw new ArgumentNullException(nameof(jsonPath));
            PythonRuntime runtime = _runtime();
            try
            {
                return runtime.Run(() =>
                {
                    using (var implementations = Py.Import("tfnet_train.conformance.implementations"))
                    using (var caseModule = Py.Import("tfnet_train.conformance.case"))
                    using (var path = new PyString(jsonPath))
                    using (var loaded = caseModule.InvokeMethod("load", path))
                    using (var name = new PyString(Name))
                    using (var traces = implementations.InvokeMethod("run", name, loaded))
                    {
                        var result = new List<IReadOnlyDictionary<string, NpyArray>>();
                        using (var iterator = traces.GetIterator())
                        {
                            while (iterator.MoveNext())
                            {
                                using (PyObject trace = iterator.Current) result.Add(ReadTrace(trace));
                            }
                        }
                        return result;
                    }
                });
            }
            catch (TfNetTrainException e) when (e.PythonType == "NotApplicable")
            {
                throw new NotApplicableException(e.PythonMessage);
            }
        }

        private static Dictionary<string, NpyArray> ReadTrace(PyObject trace)
        {
            var result = new Dictionary<string, NpyArray>();
            using (var items = trace.InvokeMethod("items"))
            using (var iterator = items.GetIterator())
            {
                while (iterator.MoveNext())
                {
                    using (PyObject item = iterator.Current)
                    using (var key = item[0])
                    using (var value = item[1])
                    {
                        result[key.As<string>()] = ArrayConversion.ToNpy(NDArray.FromPython(value));
                    }
                }
            }
            return result;
        }
    }
}
