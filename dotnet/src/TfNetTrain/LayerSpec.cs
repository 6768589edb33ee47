using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>A Keras layer to build: <c>keras.layers.&lt;ClassName&gt;(**Arguments)</c> ("Input" → keras.Input).</summary>
    public sealed class LayerSpec : KerasObjectSpec
    {
        /// <summary>A layer spec; see <see cref="Layers"/> for the common ones.</summary>
        public LayerSpec(string className, IEnumerable<KeyValuePair<string, object>> arguments = null)
            : base(className, arguments, isName: false)
        {
        }

        /// <summary>
        /// Builds this layer and calls it on <paramref name="inputs"/> (one tensor, or several for merge layers such
        /// as Add and Concatenate), for functional models. Each call builds a new layer (no weight sharing).
        /// </summary>
        public SymbolicTensor Apply(params SymbolicTensor[] inputs)
        {
            SymbolicTensor.CheckSameRuntime(inputs, nameof(inputs));
            PythonRuntime runtime = inputs[0].Runtime;
            return runtime.Run(() =>
            {
                using (var spec = PyConvert.SpecPair(this))
                using (var list = new PyList())
                {
                    foreach (var input in inputs) list.Append(input.PythonObject);
                    PyObject tensor = runtime.Facade["apply_layer"].Invoke(spec, list);
                    return SymbolicTensor.Wrap(runtime, runtime.Facade, tensor);
                }
            });
        }
    }
}
