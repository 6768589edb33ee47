using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// The Python module tfnet_train.bridge with its functions cached as PyObject callables (a cached call costs
    /// well under a microsecond; `dynamic` costs several). Used only with the GIL held.
    /// </summary>
    internal sealed class BridgeFacade
    {
        public const string ModuleName = "tfnet_train.bridge";

        private readonly PyObject _module;
        private readonly Dictionary<string, PyObject> _functions = new Dictionary<string, PyObject>();

        public BridgeFacade()
        {
            _module = Py.Import(ModuleName);
        }

        /// <summary>The cached function `tfnet_train.bridge.&lt;name&gt;`.</summary>
        public PyObject this[string name]
        {
            get
            {
                PyObject f;
                if (!_functions.TryGetValue(name, out f))
                {
                    f = _module.GetAttr(name);
                    _functions[name] = f;
                }
                return f;
            }
        }

        /// <summary>The cached function `tfnet_train.bridge.&lt;module&gt;.&lt;name&gt;` (one lookup per name, not per call).</summary>
        public PyObject Function(string module, string name)
        {
            string key = module + "." + name;
            PyObject f;
            if (!_functions.TryGetValue(key, out f))
            {
                f = this[module].GetAttr(name);
                _functions[key] = f;
            }
            return f;
        }

        /// <summary>Releases the cached objects.</summary>
        public void Release()
        {
            foreach (var f in _functions.Values) f.Dispose();
            _functions.Clear();
            _module.Dispose();
        }
    }
}
