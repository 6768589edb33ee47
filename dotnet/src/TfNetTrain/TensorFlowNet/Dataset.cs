using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's <c>tf.data</c>.</summary>
    public sealed partial class DataApi
    {
        internal DataApi()
        {
        }

        /// <summary>tf.data.Dataset.</summary>
        public DatasetApi Dataset { get; } = new DatasetApi();

        /// <summary>Let tf.data choose the prefetch buffer size.</summary>
        public int AUTOTUNE => -1;
    }

    /// <summary>Dataset constructors (TF.NET's <c>tf.data.Dataset</c>).</summary>
    public sealed class DatasetApi
    {
        internal DatasetApi()
        {
        }

        /// <summary>One element per row of <paramref name="x"/>.</summary>
        public IDatasetV2 from_tensor_slices(NDArray x) => Slices(new[] { x });

        /// <summary>Elements of the datasets side by side: (a, b) from datasets of one component each.</summary>
        public IDatasetV2 zip(params IDatasetV2[] datasets)
        {
            if (datasets == null || datasets.Length < 2) throw new TfNetTrainArgumentException(nameof(datasets), "tf.data.Dataset.zip: takes two or more datasets");
            for (int i = 0; i < datasets.Length; i++)
            {
                if (datasets[i] == null) throw new ArgumentNullException(nameof(datasets), $"datasets[{i}] is null");
                if (!(datasets[i] is DatasetV2)) throw new TfNetTrainArgumentException(nameof(datasets), $"datasets[{i}] is a {datasets[i].GetType().Name}, not a dataset made by tf.data");
            }
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => (IDatasetV2)new DatasetV2(runtime, Face.Invoke(f, "tensors", "dataset_zip", new object[] { datasets.Cast<object>().ToList() })));
        }

        /// <summary>One (x, y) element per row.</summary>
        public IDatasetV2 from_tensor_slices(NDArray x, NDArray y) => Slices(new[] { x, y });

        /// <summary>One (x, y, sample_weight) element per row.</summary>
        public IDatasetV2 from_tensor_slices(NDArray x, NDArray y, NDArray sample_weight) => Slices(new[] { x, y, sample_weight });

        /// <summary>
        /// Batches produced by C# (each item one batch: x, (x, y) or (x, y, sample_weight) arrays), fed to the
        /// engine. Streamed (<paramref name="materialize"/> false): each pass over the dataset (an epoch, an
        /// evaluate, a predict) calls <c>GetEnumerator()</c> again on a producer thread of the library and makes one
        /// batch per request (fit reads up to two compiled blocks ahead, a tf.data pipeline one batch); nothing is held. Each
        /// batch is copied before the next is asked for, so the enumerator may refill the same arrays. The
        /// enumerator must not call TfNetTrain (refused with InvalidOperationException); it may yield C# arrays and
        /// arrays held in Python made before the pass (np results), which the Python side reads itself.
        /// Materialised (true): the batches are enumerated once, here, all checked before any model sees them, and
        /// held in Python. The default (null) streams, except on Mono without MONO_THREADS_SUSPEND=preemptive, where
        /// a .NET collection during a pass can deadlock (docs/bridge.md) and the batches are held. Either way the first
        /// batch, read here, fixes dtypes and per-batch shapes (the batch dimension may vary); a later batch that
        /// differs is a TfNetTrainArgumentException.
        /// </summary>
        public IDatasetV2 from_generator(IEnumerable<NDArray[]> batches, bool? materialize = null)
        {
            if (batches == null) throw new ArgumentNullException(nameof(batches));
            NDArray[] first;
            using (var e = batches.GetEnumerator()) first = e.MoveNext() ? e.Current : null;
            if (first == null || first.Length == 0 || first.Length > 3 || first.Any(a => a == null))
                throw new TfNetTrainArgumentException(nameof(batches), "must yield at least one batch of 1 to 3 non-null arrays (x, y, sample_weight)");
            HostBatchStream.Check(first, first, 0, nameof(batches));
            PythonRuntime runtime = Face.Runtime;
            var signature = first.Select(a => new object[] { Enumerable.Repeat(-1, 1).Concat(a.Shape.Skip(1)).ToArray(), a.DType.NumpyName() }).ToList();
            if (!(materialize ?? StreamingMayDeadlock))
            {
                return Face.Run(runtime, f =>
                {
                    using (var pySignature = Face.ToPython(signature))
                    using (var stream = HostBatchStream.Start(f, batches, first, pySignature))
                    {
                        return (IDatasetV2)new DatasetV2(runtime, Face.Invoke(f, "datasets", "from_host_stream", new object[] { new PyObjectBox(stream) }));
                    }
                });
            }
            return Face.Run(runtime, f =>
            {
                using (var list = new PyList())
                {
                    int index = 0;
                    foreach (NDArray[] batch in batches)
                    {
                        HostBatchStream.Check(batch, first, index, nameof(batches));
                        var arrays = batch.Select(ArrayExchange.ToNumpy).ToArray();
                        try
                        {
                            using (var tuple = new PyTuple(arrays)) list.Append(tuple);
                        }
                        finally
                        {
                            foreach (var a in arrays) a.Dispose();
                        }
                        index++;
                    }
                    return (IDatasetV2)new DatasetV2(runtime, Face.Invoke(f, "datasets", "from_host_batches", new object[] { new PyObjectBox(list), signature }));
                }
            });
        }

        /// <summary>
        /// Mono in its default (hybrid) or cooperative thread-suspend mode: streaming large batches hung there, as a
        /// .NET collection started by the producer thread waits for the Python worker to reach a safepoint while the
        /// worker waits inside Python (a call Mono evidently does not count as safe) for that producer's next batch. Preemptive suspend (MONO_THREADS_SUSPEND=preemptive)
        /// stops the worker wherever it is, and .NET (CoreCLR) treats native calls as safe.
        /// </summary>
        private static readonly bool StreamingMayDeadlock = Type.GetType("Mono.Runtime") != null
            && !string.Equals(Environment.GetEnvironmentVariable("MONO_THREADS_SUSPEND"), "preemptive", StringComparison.OrdinalIgnoreCase);

        private static IDatasetV2 Slices(NDArray[] arrays)
        {
            for (int i = 0; i < arrays.Length; i++)
            {
                if (arrays[i] == null) throw new ArgumentNullException(i == 0 ? "x" : i == 1 ? "y" : "sample_weight");
                if (arrays[i].Rank == 0) throw new TfNetTrainArgumentException(i == 0 ? "x" : i == 1 ? "y" : "sample_weight", "must have a batch dimension; got a scalar");
            }
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f => (IDatasetV2)new DatasetV2(runtime, Face.Invoke(f, "datasets", "from_tensor_slices", new object[] { arrays.ToList() })));
        }
    }

    /// <summary>
    /// A tf.data dataset (TF.NET's IDatasetV2). Enumerating it from C# runs one pass: each element as (x, y) —
    /// y null for one-component elements, and a third component (sample weights) refused.
    /// </summary>
    public interface IDatasetV2 : IDisposable, IEnumerable<(Tensors, Tensors)>
    {
        /// <summary>Shuffles with a buffer of <paramref name="buffer_size"/> elements.</summary>
        IDatasetV2 shuffle(int buffer_size, int? seed = null, bool reshuffle_each_iteration = true);

        /// <summary>Groups consecutive elements into batches.</summary>
        IDatasetV2 batch(int batch_size, bool drop_remainder = false);

        /// <summary>Prepares elements ahead (-1: AUTOTUNE).</summary>
        IDatasetV2 prefetch(int buffer_size = -1);

        /// <summary>Repeats the dataset (-1: forever).</summary>
        IDatasetV2 repeat(int count = -1);

        /// <summary>The first <paramref name="count"/> elements.</summary>
        IDatasetV2 take(int count);

        /// <summary>All but the first <paramref name="count"/> elements.</summary>
        IDatasetV2 skip(int count);

        /// <summary>Caches elements in memory after the first pass.</summary>
        IDatasetV2 cache();

        /// <summary>Number of elements (-1 infinite, -2 unknown).</summary>
        long length { get; }

        /// <summary>The Python tf.data.Dataset (GIL held only).</summary>
        PyObject PythonObject { get; }

        /// <summary>Class names in label order (image_dataset_from_directory; kept by shuffle, batch, ...), else null.</summary>
        string[] class_names { get; set; }

        /// <summary>
        /// How many leading components of each element are model inputs (TF.NET's name; 1 by default). Set to n &gt; 1,
        /// elements (x1, ..., xn, y) are read as ((x1, ..., xn), y) by fit, evaluate and predict.
        /// </summary>
        int FirstInputTensorCount { get; set; }
    }

    /// <summary>A tf.data.Dataset held from C#.</summary>
    public sealed class DatasetV2 : PythonHandle, IDatasetV2
    {
        private PyObject _ungrouped;
        private int _firstInputs = 1;
        private bool _groupedBefore;

        internal DatasetV2(PythonRuntime runtime, PyObject dataset, string[] classNames = null) : base(runtime, dataset)
        {
            class_names = classNames;
        }

        private DatasetV2(PythonRuntime runtime, PyObject dataset, string[] classNames, int firstInputs) : this(runtime, dataset, classNames)
        {
            _firstInputs = firstInputs;
            _groupedBefore = firstInputs > 1;
        }

        /// <inheritdoc/>
        public int FirstInputTensorCount
        {
            get => _firstInputs;
            set
            {
                if (value < 1) throw new TfNetTrainArgumentException(nameof(FirstInputTensorCount), $"must be >= 1; got {value}");
                if (value == _firstInputs) return;
                if (_groupedBefore)
                    throw new InvalidOperationException($"this dataset was made from one whose FirstInputTensorCount was {_firstInputs}: its elements are grouped already; set FirstInputTensorCount before shuffle, batch, ...");
                Run(f =>
                {
                    if (value == 1)
                    {
                        SwapHandle(_ungrouped).Dispose();
                        _ungrouped = null;
                    }
                    else
                    {
                        PyObject grouped = Face.Invoke(f, "datasets", "group_inputs", new object[] { new PyObjectBox(_ungrouped ?? Handle), value });
                        PyObject old = SwapHandle(grouped);
                        if (_ungrouped == null) _ungrouped = old;
                        else old.Dispose();
                    }
                    return 0;
                });
                _firstInputs = value;
            }
        }

        /// <inheritdoc/>
        public override void Dispose()
        {
            PyObject ungrouped = _ungrouped;
            _ungrouped = null;
            if (ungrouped != null && !Runtime.IsDisposed) Runtime.Run(() => { ungrouped.Dispose(); return 0; });
            base.Dispose();
        }

        /// <summary>Class names in label order (image_dataset_from_directory; kept by shuffle, batch, ...), else null.</summary>
        public string[] class_names { get; set; }

        public IDatasetV2 shuffle(int buffer_size, int? seed = null, bool reshuffle_each_iteration = true)
        {
            if (buffer_size < 1) throw new TfNetTrainArgumentException(nameof(buffer_size), $"must be >= 1; got {buffer_size}");
            return Method("shuffle", "buffer_size", buffer_size, "seed", seed, "reshuffle_each_iteration", reshuffle_each_iteration);
        }

        public IDatasetV2 batch(int batch_size, bool drop_remainder = false)
        {
            if (batch_size < 1) throw new TfNetTrainArgumentException(nameof(batch_size), $"must be >= 1; got {batch_size}");
            return Method("batch", "batch_size", batch_size, "drop_remainder", drop_remainder);
        }

        public IDatasetV2 prefetch(int buffer_size = -1) => Method("prefetch", "buffer_size", buffer_size);

        public IDatasetV2 repeat(int count = -1) => Method("repeat", "count", count);

        public IDatasetV2 take(int count) => Method("take", "count", count);

        public IDatasetV2 skip(int count) => Method("skip", "count", count);

        public IDatasetV2 cache() => Method("cache");

        public long length => Run(f => { using (var n = Face.Invoke(f, "datasets", "dataset_cardinality", new object[] { this })) return n.As<long>(); });

        private IDatasetV2 Method(string name, params object[] namesAndValues)
        {
            var kwargs = new List<KeyValuePair<string, object>>();
            for (int i = 0; i + 1 < namesAndValues.Length; i += 2) kwargs.Add(new KeyValuePair<string, object>((string)namesAndValues[i], namesAndValues[i + 1]));
            return Run(f => (IDatasetV2)new DatasetV2(Runtime, Face.Invoke(f, "datasets", "dataset_call", new object[] { this, name, kwargs.Where(p => p.Value != null).ToDictionary(p => p.Key, p => p.Value) }), class_names, _firstInputs));
        }

        /// <summary>One pass over the dataset: each element read from Python as it is asked for.</summary>
        public IEnumerator<(Tensors, Tensors)> GetEnumerator()
        {
            PythonHandleBox iterator = Run(f => new PythonHandleBox(Runtime, Face.Invoke(f, "tensors", "dataset_iterator", new object[] { this })));
            try
            {
                while (true)
                {
                    Tensor[] element = Run(f =>
                    {
                        using (var next = Face.Invoke(f, "tensors", "iterator_next", new object[] { iterator }))
                        {
                            return next.IsNone() ? null : Tensor.WrapList(Runtime, next);
                        }
                    });
                    if (element == null) yield break;
                    if (element.Length > 2)
                        throw new TfNetTrainArgumentException("dataset", $"enumerating a dataset from C# gives (x, y); its elements have {element.Length} components");
                    yield return (new Tensors(element[0]), element.Length > 1 ? new Tensors(element[1]) : null);
                }
            }
            finally
            {
                iterator.Dispose();
            }
        }

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

        /// <summary>"DatasetV2".</summary>
        public override string ToString() => "DatasetV2";
    }
}
