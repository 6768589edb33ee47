using System;
using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// The x of a Model call: one array (sent as a numpy array) or one array per model input (sent as a list, the
    /// way Keras takes multi-input data). Null arrays are refused here, before anything crosses to Python.
    /// </summary>
    internal sealed class ModelInputs
    {
        private ModelInputs(IList<NDArray> arrays, bool isList, string paramName)
        {
            Arrays = arrays;
            IsList = isList;
            ParamName = paramName;
        }

        public IList<NDArray> Arrays { get; }

        public bool IsList { get; }

        public string ParamName { get; }

        public static ModelInputs One(NDArray x, string paramName)
        {
            if (x == null) throw new ArgumentNullException(paramName);
            return new ModelInputs(new[] { x }, false, paramName);
        }

        public static ModelInputs Many(IList<NDArray> xs, string paramName)
        {
            if (xs == null) throw new ArgumentNullException(paramName);
            var copy = new NDArray[xs.Count];
            for (int i = 0; i < copy.Length; i++)
            {
                copy[i] = xs[i] ?? throw new ArgumentNullException(paramName, $"{paramName}[{i}] is null");
            }
            return new ModelInputs(copy, true, paramName);
        }

        /// <summary>A numpy copy (or, with <paramref name="view"/>, a zero-copy view) of each array; a list for many.</summary>
        public PyObject ToPython(bool view)
        {
            if (IsList) return ArrayExchange.ToNumpyList(Arrays, ParamName, view);
            return view ? ArrayExchange.ViewAsNumpy(Arrays[0]) : ArrayExchange.ToNumpy(Arrays[0]);
        }
    }
}
