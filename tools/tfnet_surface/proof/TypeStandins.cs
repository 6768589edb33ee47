// Stand-ins, for the proof of TF.NET's types only, of TF.NET's own types that the codec converts (Tensors). The
// halves of the generated classes (a Python object and a constructor each) and empty declarations of the TF.NET types
// that generated signatures name are written by proof.py (TypeHalves.g.cs); the face's own assembly defines all of
// these.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace Tensorflow
{
    /// <summary>TF.NET's Tensors (stand-in): one tensor or several; the codec passes them as a list.</summary>
    public sealed class Tensors : IEnumerable<Tensor>
    {
        private readonly List<Tensor> _items;

        public Tensors(params Tensor[] tensors)
        {
            _items = new List<Tensor>(tensors ?? throw new ArgumentNullException(nameof(tensors)));
        }

        public int Length => _items.Count;

        public Tensor this[int index] => _items[index];

        public IEnumerator<Tensor> GetEnumerator() => _items.GetEnumerator();

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }

    internal static class TypeStandins
    {
        // How a Python value becomes an instance of a twin that it is not yet (the codec's rules for these types).
        private static readonly Dictionary<string, string> Converters = new Dictionary<string, string>
        {
            { "tf.Tensor", "tf.convert_to_tensor" }, { "tf.TensorShape", "tf.TensorShape" }, { "np.ndarray", "np.asarray" },
        };

        /// <summary>The value as an instance of <paramref name="twin"/> (a new reference; consumes <paramref name="py"/>).</summary>
        internal static PyObject Prepare(string twin, PyObject py)
        {
            string converter;
            if (!Converters.TryGetValue(twin, out converter)) return py;
            using (PyObject cls = FaceCodec.Resolve(twin))
            {
                if (py.IsInstance(cls)) return py;
            }
            using (py)
            using (PyObject convert = FaceCodec.Resolve(converter))
                return convert.Invoke(py);
        }

        internal static void Register()
        {
            FaceCodec.Register<Tensors>(py =>
            {
                using (py)
                {
                    bool many = py.IsInstance(FaceCodec.Resolve("np.ndarray")) ? false
                        : PyList.IsListType(py) || PyTuple.IsTupleType(py);
                    return many ? new Tensors(FaceCodec.FromPython<Tensor[]>(py)) : new Tensors(FaceCodec.FromPython<Tensor>(py));
                }
            });
        }
    }
}
