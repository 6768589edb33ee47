using System;
using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain.Tests
{
    /// <summary>
    /// Runs Python code on the runtime's thread, with C# values as variables, and reads back `out`: a dict of
    /// name → array-like that the prelude's `put(name, value)` fills (lists and dicts are flattened to "name/i" and
    /// "name/key"). Expected values in the tests come from here: the engine called directly from Python.
    /// </summary>
    public static class PyScript
    {
        private const string Prelude =
            "import numpy as np\n" +
            "import keras\n" +
            "import tensorflow as tf\n" +
            "import tfnet_train\n" +
            "from tfnet_train import optimizers\n" +
            "out = {}\n" +
            "def put(name, value):\n" +
            "    if isinstance(value, dict):\n" +
            "        for k, v in value.items():\n" +
            "            put(f'{name}/{k}', v)\n" +
            "    elif isinstance(value, (list, tuple)):\n" +
            "        for i, v in enumerate(value):\n" +
            "            put(f'{name}/{i}', v)\n" +
            "    elif isinstance(value, float):\n" +
            "        out[name] = np.asarray(value, dtype=np.float64)\n" +
            "    else:\n" +
            "        out[name] = np.array(value, order='C')\n";

        /// <summary>Runs <paramref name="code"/>; variables are given as name, value pairs (NDArray, lists of NDArray, plain values).</summary>
        public static Dictionary<string, NDArray> Run(string code, params object[] namesAndValues)
        {
            return PythonSetup.Runtime.Run(() =>
            {
                using (var scope = Py.CreateScope())
                {
                    for (int i = 0; i + 1 < namesAndValues.Length; i += 2)
                    {
                        using (var value = ToPython(namesAndValues[i + 1])) scope.Set((string)namesAndValues[i], value);
                    }
                    scope.Exec(Prelude);
                    scope.Exec(code);
                    var result = new Dictionary<string, NDArray>();
                    using (var outDict = scope.Get("out"))
                    using (var keys = outDict.InvokeMethod("keys"))
                    using (var iterator = keys.GetIterator())
                    {
                        while (iterator.MoveNext())
                        {
                            using (var key = iterator.Current)
                            using (var value = outDict[key])
                            {
                                result[key.As<string>()] = NDArray.FromPython(value);
                            }
                        }
                    }
                    return result;
                }
            });
        }

        private static PyObject ToPython(object value)
        {
            var array = value as NDArray;
            if (array != null) return array.ToPython();
            var arrays = value as IList<NDArray>;
            if (arrays != null)
            {
                var list = new PyList();
                foreach (var a in arrays)
                {
                    using (var item = a.ToPython()) list.Append(item);
                }
                return list;
            }
            var model = value as Model;
            if (model != null) return model.PythonObject.NewReference();
            if (value == null) return PyObject.None;
            return value.ToPython();
        }
    }
}
