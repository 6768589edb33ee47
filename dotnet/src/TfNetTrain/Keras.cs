using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>Model constructors, in the running <see cref="PythonRuntime"/> (see <see cref="PythonRuntime.Start"/>).</summary>
    public static class Keras
    {
        /// <summary>
        /// A Sequential model of <paramref name="layers"/>; start with <see cref="Layers.Input(int[])"/> so the model is
        /// built (and its weights exist) right away.
        /// </summary>
        public static Model Sequential(params LayerSpec[] layers)
        {
            return Sequential((IEnumerable<LayerSpec>)layers);
        }

        /// <summary>A Sequential model of <paramref name="layers"/> with an optional model name.</summary>
        public static Model Sequential(IEnumerable<LayerSpec> layers, string name = null)
        {
            if (layers == null) throw new ArgumentNullException(nameof(layers));
            LayerSpec[] list = layers.ToArray();
            if (list.Length == 0) throw new TfNetTrainArgumentException(nameof(layers), "at least one layer is required");
            for (int i = 0; i < list.Length; i++)
                if (list[i] == null) throw new ArgumentNullException(nameof(layers), $"layers[{i}] is null");
            PythonRuntime runtime = Model.RequireRuntime();
            return Model.Create(runtime, f =>
            {
                using (var specs = new PyList())
                using (var pyName = name == null ? PyObject.None : new PyString(name))
                {
                    foreach (var layer in list)
                    {
                        using (var pair = PyConvert.SpecPair(layer)) specs.Append(pair);
                    }
                    return f["sequential"].Invoke(specs, pyName);
                }
            });
        }
    }
}
