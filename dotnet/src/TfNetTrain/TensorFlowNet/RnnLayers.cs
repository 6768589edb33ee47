using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>A recurrent cell (TF.NET's IRnnCell): one step of an RNN, <c>Apply(inputs, states)</c>.</summary>
    public interface IRnnCell : ILayer
    {
    }

    /// <summary>
    /// A Keras layer made from other layers' Python objects (RNN cells, StackedRNNCells, RNN, Bidirectional): its
    /// arguments hold layers, which are built first, so the wrapper and the C# objects share them.
    /// </summary>
    public class ComposedLayer : Layer
    {
        private readonly Dictionary<string, object> _layerArguments;

        internal ComposedLayer(LayerSpec spec, Dictionary<string, object> layerArguments) : base(spec)
        {
            _layerArguments = layerArguments ?? new Dictionary<string, object>();
        }

        internal override PyObject MakeSpecObject(PythonRuntime runtime, BridgeFacade f)
        {
            var names = _layerArguments.Keys.ToList();
            var values = names.Select(k => _layerArguments[k] is IEnumerable<ILayer> many
                ? (object)many.Select(l => (object)new PyObjectBox(((Layer)l).PythonLayer(runtime, f))).ToList()
                : new PyObjectBox(((Layer)_layerArguments[k]).PythonLayer(runtime, f))).ToList();
            return Face.Invoke(f, "host_code", "composed_layer", new object[] { Spec.ClassName, Spec.Arguments.ToDictionary(p => p.Key, p => p.Value), names, values });
        }
    }

    /// <summary>
    /// A recurrent cell: <c>Apply(inputs, states)</c> runs one step and returns the output followed by the new states
    /// (TF.NET's <c>var (output, states) = cell.Apply(inputs, states)</c>).
    /// </summary>
    public sealed class RnnCell : ComposedLayer, IRnnCell
    {
        internal RnnCell(LayerSpec spec, Dictionary<string, object> layerArguments = null) : base(spec, layerArguments)
        {
        }

        /// <summary>One step: the output, then every new state (flattened).</summary>
        public override Tensors Apply(Tensors inputs, Tensors states = null, bool? training = null, IOptionalArgs optional_args = null)
        {
            if (inputs == null) throw new ArgumentNullException(nameof(inputs));
            if (states == null) throw new TfNetTrainArgumentException(nameof(states), $"{Spec.ClassName}.Apply needs the states of the previous step (e.g. tf.zeros((batch, units)) each)");
            if (optional_args != null) throw new TfNetTrainArgumentException(nameof(optional_args), "no optional arguments are taken by Layer.Apply here; pass null");
            HostCode.CheckOwned(this);
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var result = Face.Invoke(f, "host_code", "cell_call", new object[] { new PyObjectBox(PythonLayer(runtime, f)), inputs.ToList(), states.ToList(), training }))
                {
                    return new Tensors(Tensor.WrapList(runtime, result));
                }
            });
        }
    }

    public sealed partial class LayersApi
    {
        private static Dictionary<string, object> Pairs(params object[] namesAndValues)
            => TfNetTrain.Layers.Pairs(namesAndValues).Where(p => p.Value != null).ToDictionary(p => p.Key, p => p.Value);

        public RnnCell SimpleRNNCell(int units, string activation = "tanh", bool use_bias = true, float dropout = 0f, float recurrent_dropout = 0f, string name = null)
            => new RnnCell(new LayerSpec("SimpleRNNCell", Pairs("units", units, "activation", activation, "use_bias", use_bias, "dropout", dropout,
                                                                  "recurrent_dropout", recurrent_dropout, "name", name)));

        public RnnCell LSTMCell(int units, string activation = "tanh", string recurrent_activation = "sigmoid", bool use_bias = true,
                                bool unit_forget_bias = true, float dropout = 0f, float recurrent_dropout = 0f, string name = null)
            => new RnnCell(new LayerSpec("LSTMCell", Pairs("units", units, "activation", activation, "recurrent_activation", recurrent_activation,
                                                             "use_bias", use_bias, "unit_forget_bias", unit_forget_bias, "dropout", dropout,
                                                             "recurrent_dropout", recurrent_dropout, "name", name)));

        public RnnCell GRUCell(int units, string activation = "tanh", string recurrent_activation = "sigmoid", bool use_bias = true,
                               float dropout = 0f, float recurrent_dropout = 0f, bool reset_after = true, string name = null)
            => new RnnCell(new LayerSpec("GRUCell", Pairs("units", units, "activation", activation, "recurrent_activation", recurrent_activation,
                                                            "use_bias", use_bias, "dropout", dropout, "recurrent_dropout", recurrent_dropout,
                                                            "reset_after", reset_after, "name", name)));

        /// <summary>Cells run one after the other in each step (their states in order).</summary>
        public RnnCell StackedRNNCells(IEnumerable<IRnnCell> cells, string name = null)
        {
            if (cells == null) throw new ArgumentNullException(nameof(cells));
            var list = cells.Cast<ILayer>().ToList();
            if (list.Count == 0 || list.Any(c => !(c is Layer))) throw new TfNetTrainArgumentException(nameof(cells), "must hold at least one cell from keras.layers");
            return new RnnCell(new LayerSpec("StackedRNNCells", Pairs("name", name)), new Dictionary<string, object> { { "cells", list } });
        }

        /// <summary>An RNN over a cell (or StackedRNNCells).</summary>
        public ComposedLayer RNN(IRnnCell cell, bool return_sequences = false, bool return_state = false, bool go_backwards = false,
                                 bool stateful = false, bool unroll = false, string name = null)
        {
            if (!(cell is Layer)) throw new TfNetTrainArgumentException(nameof(cell), "must be a cell from keras.layers (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells)");
            return new ComposedLayer(new LayerSpec("RNN", Pairs("return_sequences", return_sequences, "return_state", return_state,
                "go_backwards", go_backwards, "stateful", stateful, "unroll", unroll, "name", name)), new Dictionary<string, object> { { "cell", cell } });
        }

        /// <summary>Runs <paramref name="layer"/> forwards and a copy backwards, merging their outputs.</summary>
        public ComposedLayer Bidirectional(ILayer layer, string merge_mode = "concat", string name = null)
        {
            if (!(layer is Layer)) throw new TfNetTrainArgumentException(nameof(layer), "must be a recurrent layer from keras.layers (LSTM, GRU, SimpleRNN, RNN)");
            return new ComposedLayer(new LayerSpec("Bidirectional", Pairs("merge_mode", merge_mode, "name", name)), new Dictionary<string, object> { { "layer", layer } });
        }
    }
}
