using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TF.NET's Binding helpers: np, enumerate, len, zip over pairs.</summary>
    public static partial class Binding
    {
        /// <summary>TF.NET's <c>np</c> (Tensorflow.NumPy), over Python NumPy.</summary>
        public static readonly NumPyApi np = new NumPyApi();

        /// <summary>TF.NET's <c>np_utils</c> (to_categorical).</summary>
        public static NpUtils np_utils => KerasApi.keras.utils.np_utils;

        /// <summary>(index, item) pairs, counting from <paramref name="start"/>.</summary>
        public static IEnumerable<(int, T)> enumerate<T>(IEnumerable<T> values, int start = 0, int step = 1)
        {
            if (values == null) throw new ArgumentNullException(nameof(values));
            int i = start;
            foreach (T v in values)
            {
                yield return (i, v);
                i += step;
            }
        }

        /// <summary>(key, value) pairs of a dictionary.</summary>
        public static IEnumerable<(TKey, TValue)> enumerate<TKey, TValue>(Dictionary<TKey, TValue> values)
        {
            if (values == null) throw new ArgumentNullException(nameof(values));
            return values.Select(p => (p.Key, p.Value));
        }

        /// <summary>
        /// Length: an NDArray's or tensor's first dimension, a string's length, a collection's count; anything else is
        /// a TfNetTrainArgumentException.
        /// </summary>
        public static int len(object a)
        {
            if (a == null) throw new ArgumentNullException(nameof(a));
            if (a is NDArray array) return array.Rank == 0 ? throw new TfNetTrainArgumentException(nameof(a), "len() of a 0-d array") : array.ShapeNoCopy[0];
            if (a is Tensor t) return t.ndim == 0 ? throw new TfNetTrainArgumentException(nameof(a), "len() of a 0-d tensor") : (int)t.shape[0];
            if (a is string s) return s.Length;
            if (a is ICollection c) return c.Count;
            if (a is Array arr) return arr.Length;
            if (a is IEnumerable e) return e.Cast<object>().Count();
            throw new TfNetTrainArgumentException(nameof(a), $"len() takes an array, tensor, string or collection; got {a.GetType().Name}");
        }

        /// <summary>Pairs the two items of each tuple (TF.NET's <c>zip(gradients, (W, b))</c>).</summary>
        public static IEnumerable<(T1, T2)> zip<T1, T2>((T1, T1) first, (T2, T2) second)
        {
            yield return (first.Item1, second.Item1);
            yield return (first.Item2, second.Item2);
        }

        /// <summary>Pairs items of two lists.</summary>
        public static IEnumerable<(T1, T2)> zip<T1, T2>(IList<T1> first, IList<T2> second) => zip((IEnumerable<T1>)first, (IEnumerable<T2>)second);

        /// <summary>Triples of three lists.</summary>
        public static IEnumerable<(T1, T2, T3)> zip<T1, T2, T3>(IList<T1> first, IList<T2> second, IList<T3> third)
        {
            if (first == null) throw new ArgumentNullException(nameof(first));
            if (second == null) throw new ArgumentNullException(nameof(second));
            if (third == null) throw new ArgumentNullException(nameof(third));
            int n = Math.Min(first.Count, Math.Min(second.Count, third.Count));
            for (int i = 0; i < n; i++) yield return (first[i], second[i], third[i]);
        }

        /// <summary>Python's str(): NDArrays and tensors print their values as NumPy does.</summary>
        public static string str(object value)
        {
            if (value is NDArray a) return NumPyApi.Text(a);
            if (value is Tensor t && !t.IsDisposed) return NumPyApi.Text(t.numpy());
            return value?.ToString() ?? "None";
        }
    }

    /// <summary>Graph-mode names: present so TF.NET programs compile; using one throws <see cref="GraphModeNotSupportedException"/>.</summary>
    public sealed class GraphModeNotSupportedException : NotSupportedException
    {
        public GraphModeNotSupportedException(string member, string instead)
            : base($"{member}: graph mode is not supported (eager execution is the only mode); {instead}")
        {
            Member = member;
        }

        /// <summary>The member called, e.g. "tf.Session".</summary>
        public string Member { get; }
    }

    /// <summary>TF.NET's Graph (graph mode): every member throws <see cref="GraphModeNotSupportedException"/>.</summary>
    public class Graph
    {
        public Graph()
        {
            throw new GraphModeNotSupportedException("Graph", "run operations eagerly, or compile a Keras model (model.compile/fit)");
        }

        public Graph as_default() => throw new GraphModeNotSupportedException("Graph.as_default", "run operations eagerly");

        public object Import(string file_path) => throw new GraphModeNotSupportedException("Graph.Import", "load a Keras model file instead");

        public GraphOperation OperationByName(string operName) => throw new GraphModeNotSupportedException("Graph.OperationByName", "call the model or layer eagerly");
    }

    /// <summary>A graph operation (graph mode only; never made).</summary>
    public sealed class GraphOperation
    {
        private GraphOperation()
        {
        }

        public Tensor[] outputs => throw new GraphModeNotSupportedException("Operation.outputs", "run operations eagerly");
    }

    /// <summary>TF.NET's feed-dict item for Session.run (graph mode only).</summary>
    public sealed class FeedItem
    {
        public FeedItem(object key, object value)
        {
            Key = key;
            Value = value;
        }

        public object Key { get; }
        public object Value { get; }

        public static implicit operator FeedItem((object, object) pair) => new FeedItem(pair.Item1, pair.Item2);
    }

    /// <summary>A graph-mode optimizer (tf.train.*Optimizer): never made; present so programs compile.</summary>
    public sealed class GraphOptimizer
    {
        private GraphOptimizer()
        {
        }

        public Tensor minimize(Tensor loss) => throw new GraphModeNotSupportedException("Optimizer.minimize", "use keras.optimizers.* with tf.GradientTape and apply_gradients");
    }

    /// <summary>tf.train.Saver (graph mode): never made.</summary>
    public sealed class GraphSaver
    {
        private GraphSaver()
        {
        }

        public string save(Session sess, string save_path) => throw new GraphModeNotSupportedException("Saver.save", "use model.save_weights");

        public void restore(Session sess, string save_path) => throw new GraphModeNotSupportedException("Saver.restore", "use model.load_weights");
    }

    /// <summary>TF.NET's freeze_graph tool (graph mode): throws <see cref="GraphModeNotSupportedException"/>.</summary>
    public static class FreezeGraph
    {
        public static string freeze_graph(string input_graph, string input_saver, bool input_binary, string input_checkpoint, string output_node_names,
                                          string restore_op_name, string filename_tensor_name, string output_graph, bool clear_devices, string initializer_nodes)
            => throw new GraphModeNotSupportedException("FreezeGraph.freeze_graph", "save the Keras model (model.save_weights) instead");
    }

    /// <summary>TF.NET's ValueError (Python's name for a bad value).</summary>
    public class ValueError : ArgumentException
    {
        public ValueError(string message) : base(message)
        {
        }
    }

    /// <summary>TF.NET's Session (graph mode): constructing one throws <see cref="GraphModeNotSupportedException"/>.</summary>
    public sealed class Session : IDisposable
    {
        internal Session()
        {
        }

        public NDArray run(object fetches, params FeedItem[] feed_dict) => throw new GraphModeNotSupportedException("Session.run", "call the operations eagerly and read tensor.numpy()");

        public (NDArray, NDArray) run((Tensor, Tensor) fetches, params FeedItem[] feed_dict) => throw new GraphModeNotSupportedException("Session.run", "call the operations eagerly and read tensor.numpy()");

        public Graph graph => throw new GraphModeNotSupportedException("Session.graph", "run operations eagerly");

        public void Dispose()
        {
        }
    }

    /// <summary>TF.NET's <c>tf.saved_model</c>.</summary>
    public sealed class SavedModelApi
    {
        internal SavedModelApi()
        {
        }

        /// <summary>A Keras SavedModel directory as a model (TF.NET's <c>tf.saved_model.load(dir) as Model</c>): keras.models.load_model, under its default safe_mode (a folder whose layers only its graph can run needs <c>keras.models.load_model(dir, safe_mode: false)</c>).</summary>
        public Functional load(string export_dir)
        {
            if (export_dir == null) throw new ArgumentNullException(nameof(export_dir));
            return KerasApi.keras.models.load_model(export_dir);
        }
    }

    /// <summary>tf.train (graph-mode optimizers): each throws <see cref="GraphModeNotSupportedException"/>.</summary>
    public sealed class TrainApi
    {
        internal TrainApi()
        {
        }

        private const string Instead = "use keras.optimizers.* with tf.GradientTape and optimizer.apply_gradients";

        public GraphOptimizer GradientDescentOptimizer(float learning_rate) => throw new GraphModeNotSupportedException("tf.train.GradientDescentOptimizer", Instead);
        public GraphOptimizer AdamOptimizer(float learning_rate, float beta1 = 0.9f, float beta2 = 0.999f, float epsilon = 1e-8f, string name = "Adam") => throw new GraphModeNotSupportedException("tf.train.AdamOptimizer", Instead);
        public GraphSaver Saver() => throw new GraphModeNotSupportedException("tf.train.Saver", "use model.save_weights / model.load_weights");
        public string write_graph(Graph graph, string logdir, string name, bool as_text = true) => throw new GraphModeNotSupportedException("tf.train.write_graph", "save the Keras model instead");
    }
}
