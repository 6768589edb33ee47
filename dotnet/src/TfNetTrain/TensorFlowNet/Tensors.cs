using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// One tensor or several (TF.NET's <c>Tensors</c>): what <c>predict</c> returns, one tensor per model output.
    /// A single tensor converts to <see cref="Tensor"/> implicitly, so single-output code reads as before
    /// (<c>Tensor y = model.predict(x)</c>, <c>model.predict(x).numpy()</c>); with several outputs index it or
    /// enumerate it. <see cref="Add"/> appends (TF.NET's collection initialisers: <c>new Tensors { a, b }</c>).
    /// </summary>
    public sealed class Tensors : IReadOnlyList<Tensor>, IDisposable
    {
        private readonly List<Tensor> _items;

        /// <summary>The given tensors, in order.</summary>
        public Tensors(params Tensor[] tensors)
        {
            if (tensors == null) throw new ArgumentNullException(nameof(tensors));
            for (int i = 0; i < tensors.Length; i++)
                if (tensors[i] == null) throw new ArgumentNullException(nameof(tensors), $"tensors[{i}] is null");
            _items = new List<Tensor>(tensors);
        }

        /// <summary>Appends <paramref name="tensor"/>.</summary>
        public void Add(Tensor tensor) => _items.Add(tensor ?? throw new ArgumentNullException(nameof(tensor)));

        /// <summary>A label for the group (TF.NET's <c>Nest.Name</c>); the tensors themselves are unchanged.</summary>
        public string Name { get; set; }

        /// <summary>Number of tensors.</summary>
        public int Length => _items.Count;

        /// <inheritdoc/>
        public int Count => _items.Count;

        /// <summary>Tensor <paramref name="index"/> (model output <paramref name="index"/>).</summary>
        public Tensor this[int index] => _items[index];

        /// <summary>The only tensor; an InvalidOperationException when there are several (index them instead).</summary>
        public Tensor Single
        {
            get
            {
                if (_items.Count != 1)
                    throw new InvalidOperationException($"Tensors holds {_items.Count} tensors, not one: index it (tensors[i]) or enumerate it");
                return _items[0];
            }
        }

        /// <summary>True when there is exactly one tensor.</summary>
        public bool IsSingle() => _items.Count == 1;

        /// <summary>
        /// <c>var (output, states) = cell.Apply(x, states)</c>: the first tensor and the rest (null when there is only
        /// one), as TF.NET splits an RNN cell's result.
        /// </summary>
        public void Deconstruct(out Tensor first, out Tensors rest)
        {
            if (_items.Count == 0) throw new InvalidOperationException("Tensors is empty: nothing to deconstruct");
            first = _items[0];
            rest = _items.Count == 1 ? null : new Tensors(_items.Skip(1).ToArray());
        }

        /// <summary>The value of the only tensor, copied into C# (see <see cref="Single"/>).</summary>
        public NDArray numpy() => Single.numpy();

        /// <summary>The shape of the first tensor.</summary>
        public Shape shape => _items[0].shape;

        /// <summary>The dtype of the first tensor.</summary>
        public TF_DataType dtype => _items[0].dtype;

        /// <inheritdoc/>
        public IEnumerator<Tensor> GetEnumerator() => _items.GetEnumerator();

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

        public static implicit operator Tensors(Tensor tensor) => tensor == null ? null : new Tensors(tensor);

        public static implicit operator Tensors(Tensor[] tensors) => tensors == null ? null : new Tensors(tensors);

        /// <summary>Two tensors (TF.NET's <c>layer.Apply((a, b))</c>, <c>keras.Model((in1, in2), out)</c>).</summary>
        public static implicit operator Tensors((Tensor, Tensor) pair) => new Tensors(pair.Item1, pair.Item2);

        /// <summary>Two layer results (each a single tensor, as <c>Apply</c> returns them): <c>layer.Apply((a, b))</c>.</summary>
        public static implicit operator Tensors((Tensors, Tensors) pair) => new Tensors(pair.Item1?.Single, pair.Item2?.Single);

        /// <summary>A layer result and a tensor.</summary>
        public static implicit operator Tensors((Tensors, Tensor) pair) => new Tensors(pair.Item1?.Single, pair.Item2);

        /// <summary>A tensor and a layer result.</summary>
        public static implicit operator Tensors((Tensor, Tensors) pair) => new Tensors(pair.Item1, pair.Item2?.Single);

        /// <summary>Three tensors.</summary>
        public static implicit operator Tensors((Tensor, Tensor, Tensor) triple) => new Tensors(triple.Item1, triple.Item2, triple.Item3);

        /// <summary>The only tensor (an InvalidOperationException when there are several).</summary>
        public static implicit operator Tensor(Tensors tensors) => tensors?.Single;

        public static implicit operator Tensor[](Tensors tensors) => tensors?._items.ToArray();

        /// <summary>Releases every tensor.</summary>
        public void Dispose()
        {
            foreach (var t in _items) t.Dispose();
        }

        /// <summary>The tensor, or "N Tensors: ...".</summary>
        public override string ToString() => _items.Count == 1 ? _items[0].ToString() : $"{_items.Count} Tensors: " + string.Join("; ", _items.Select(t => t.ToString()));
    }
}
