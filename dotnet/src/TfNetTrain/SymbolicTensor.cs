using System;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// A symbolic Keras tensor for building functional models: start from <see cref="Keras.Input"/>, apply layers
    /// with <see cref="LayerSpec.Apply"/>, finish with <see cref="Keras.Model(SymbolicTensor, SymbolicTensor, string)"/>.
    /// </summary>
    public sealed class SymbolicTensor
    {
        internal SymbolicTensor(PythonRuntime runtime, PyObject tensor, int[] shape)
        {
            Runtime = runtime;
            PythonObject = tensor;
            _shape = shape;
        }

        private readonly int[] _shape;

        internal PythonRuntime Runtime { get; }

        /// <summary>The Python KerasTensor (use only with the GIL held).</summary>
        public PyObject PythonObject { get; }

        /// <summary>The shape, with -1 for the batch and any other unknown dimension.</summary>
        public int[] Shape => (int[])_shape.Clone();

        /// <summary>"SymbolicTensor (None, 8)".</summary>
        public override string ToString()
        {
            return "SymbolicTensor (" + string.Join(", ", _shape.Select(d => d < 0 ? "None" : d.ToString())) + ")";
        }

        internal static SymbolicTensor Wrap(PythonRuntime runtime, BridgeFacade facade, PyObject tensor)
        {
            using (var shape = facade["tensor_shape"].Invoke(tensor))
            {
                return new SymbolicTensor(runtime, tensor, PyConvert.ToInts(shape));
            }
        }

        internal static void CheckSameRuntime(SymbolicTensor[] tensors, string paramName)
        {
            if (tensors == null) throw new ArgumentNullException(paramName);
            if (tensors.Length == 0) throw new TfNetTrainArgumentException(paramName, "at least one tensor is required");
            for (int i = 0; i < tensors.Length; i++)
            {
                if (tensors[i] == null) throw new ArgumentNullException(paramName, $"{paramName}[{i}] is null");
                if (tensors[i].Runtime != tensors[0].Runtime || tensors[i].Runtime.IsDisposed)
                    throw new TfNetTrainArgumentException(paramName, "tensors must come from the running Python runtime");
            }
        }
    }
}
