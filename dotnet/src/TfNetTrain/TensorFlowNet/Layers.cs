using System;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>A Keras layer (TF.NET's ILayer).</summary>
    public interface ILayer
    {
        /// <summary>The layer name (null until Keras names it, for layers not yet built).</summary>
        string Name { get; }

        /// <summary>Calls the layer on <paramref name="inputs"/> (symbolic or eager); the same layer object every call.</summary>
        Tensor Apply(Tensor inputs, bool? training = null);
    }

    /// <summary>
    /// A layer: the <see cref="LayerSpec"/> of the PascalCase API plus, once needed (Apply, adapt), the Python layer
    /// built from it. <c>input_shape</c> given to a layer becomes the Input of the Sequential it starts.
    /// </summary>
    public class Layer : ILayer
    {
        private PyObject _built;

        internal Layer(LayerSpec spec, Shape inputShape = null, int batchSize = -1)
        {
            Spec = spec;
            InputShape = inputShape;
            BatchSize = batchSize;
        }

        /// <summary>What the layer is built from (class name and Keras arguments).</summary>
        public LayerSpec Spec { get; }

        /// <summary>The per-sample input shape given with input_shape (null when none).</summary>
        public Shape InputShape { get; }

        internal int BatchSize { get; }

        public virtual string Name => Spec.Arguments.TryGetValue("name", out object n) ? (string)n : null;

        internal bool IsBuilt => _built != null;

        /// <summary>The Python layer, built on first use (GIL held).</summary>
        internal virtual PyObject PythonLayer(PythonRuntime runtime, BridgeFacade f)
        {
            if (_built == null)
            {
                _built = Face.Invoke(f, "tensors", "make_layer", new object[] { Spec });
            }
            return _built;
        }

        public virtual Tensor Apply(Tensor inputs, bool? training = null) => Apply(new[] { inputs }, training);

        /// <summary>Calls a merge layer (Add, Concatenate, ...) on several inputs.</summary>
        public Tensor Apply(Tensor[] inputs, bool? training = null)
        {
            if (inputs == null || inputs.Length == 0 || inputs.Any(i => i == null))
                throw new TfNetTrainArgumentException(nameof(inputs), "must hold at least one non-null tensor");
            PythonRuntime runtime = Face.Runtime;
            return Face.Run(runtime, f =>
            {
                using (var layer = PythonLayer(runtime, f).NewReference())
                {
                    return Tensor.Wrap(runtime, Face.Invoke(f, "tensors", "layer_call", new object[] { new PyObjectBox(layer), inputs.ToList(), training }));
                }
            });
        }

        /// <summary>Computes preprocessing statistics from <paramref name="data"/> (Normalization, ...).</summary>
        public void adapt(NDArray data)
        {
            if (data == null) throw new ArgumentNullException(nameof(data));
            PythonRuntime runtime = Face.Runtime;
            Face.Run(runtime, f =>
            {
                Face.Call(f, "tensors", "layer_adapt", new object[] { new PyObjectBox(PythonLayer(runtime, f)), data });
                return 0;
            });
        }

        /// <summary>"Dense(units=8)".</summary>
        public override string ToString() => Spec.ToString();
    }

    /// <summary>Passes a PyObject through Face.ToPython unchanged.</summary>
    internal sealed class PyObjectBox : PythonHandle
    {
        public PyObjectBox(PyObject value) : base(Face.Runtime, value)
        {
        }

        public override void Dispose()
        {
        }
    }

    /// <summary>
    /// keras.layers with TF.NET's names and argument names; each maps its arguments onto Keras 3's and returns a
    /// <see cref="Layer"/> over a <see cref="LayerSpec"/> (the PascalCase API's object).
    /// </summary>
    public sealed partial class LayersApi
    {
        internal LayersApi()
        {
        }

        private static Layer L(string className, Shape inputShape, params object[] namesAndValues)
        {
            return new Layer(TfNetTrain.Layers.Spec(className, namesAndValues), inputShape);
        }

        private static object S(Shape s) => s?.as_int_list();

        public Layer InputLayer(Shape input_shape, int batch_size = -1, TF_DataType dtype = TF_DataType.DtInvalid, string name = null)
        {
            if (input_shape == null) throw new ArgumentNullException(nameof(input_shape));
            return new Layer(new LayerSpec("Input", KerasInterface.InputArguments(input_shape, batch_size, dtype, name)));
        }

        public Layer Dense(int units, string activation = null, string kernel_initializer = null, bool use_bias = true,
                           string bias_initializer = null, Shape input_shape = null, string name = null)
            => L("Dense", input_shape, "units", units, "activation", activation, "kernel_initializer", kernel_initializer,
                 "use_bias", use_bias, "bias_initializer", bias_initializer, "name", name);

        public Layer Conv1D(int filters, Shape kernel_size, int strides = 1, string padding = "valid", int dilation_rate = 1,
                            string activation = null, bool use_bias = true, string kernel_initializer = null, Shape input_shape = null, string name = null)
            => L("Conv1D", input_shape, "filters", filters, "kernel_size", S(kernel_size), "strides", strides, "padding", padding,
                 "dilation_rate", dilation_rate, "activation", activation, "use_bias", use_bias, "kernel_initializer", kernel_initializer, "name", name);

        public Layer Conv2D(int filters, Shape kernel_size = null, Shape strides = null, string padding = "valid", Shape dilation_rate = null,
                            string activation = null, bool use_bias = true, string kernel_initializer = null, Shape input_shape = null, string name = null)
            => L("Conv2D", input_shape, "filters", filters, "kernel_size", S(kernel_size ?? new Shape(5, 5)), "strides", S(strides), "padding", padding,
                 "dilation_rate", S(dilation_rate), "activation", activation, "use_bias", use_bias, "kernel_initializer", kernel_initializer, "name", name);

        public Layer MaxPooling1D(int pool_size = 2, int? strides = null, string padding = "valid", string name = null)
            => L("MaxPooling1D", null, "pool_size", pool_size, "strides", strides, "padding", padding, "name", name);

        public Layer MaxPooling2D(Shape pool_size = null, Shape strides = null, string padding = "valid", string name = null)
            => L("MaxPooling2D", null, "pool_size", S(pool_size ?? new Shape(2, 2)), "strides", S(strides), "padding", padding, "name", name);

        public Layer AveragePooling1D(int pool_size = 2, int? strides = null, string padding = "valid", string name = null)
            => L("AveragePooling1D", null, "pool_size", pool_size, "strides", strides, "padding", padding, "name", name);

        public Layer AveragePooling2D(Shape pool_size = null, Shape strides = null, string padding = "valid", string name = null)
            => L("AveragePooling2D", null, "pool_size", S(pool_size ?? new Shape(2, 2)), "strides", S(strides), "padding", padding, "name", name);

        public Layer GlobalAveragePooling1D(string name = null) => L("GlobalAveragePooling1D", null, "name", name);
        public Layer GlobalAveragePooling2D(string name = null) => L("GlobalAveragePooling2D", null, "name", name);
        public Layer GlobalMaxPooling1D(string name = null) => L("GlobalMaxPooling1D", null, "name", name);
        public Layer GlobalMaxPooling2D(string name = null) => L("GlobalMaxPooling2D", null, "name", name);
        public Layer Flatten(Shape input_shape = null, string name = null) => L("Flatten", input_shape, "name", name);

        public Layer Dropout(float rate, int? seed = null, string name = null) => L("Dropout", null, "rate", rate, "seed", seed, "name", name);

        public Layer BatchNormalization(int axis = -1, float momentum = 0.99f, float epsilon = 0.001f, bool center = true, bool scale = true, string name = null)
            => L("BatchNormalization", null, "axis", axis, "momentum", momentum, "epsilon", epsilon, "center", center, "scale", scale, "name", name);

        public Layer LayerNormalization(int axis = -1, float epsilon = 0.001f, bool center = true, bool scale = true, string name = null)
            => L("LayerNormalization", null, "axis", axis, "epsilon", epsilon, "center", center, "scale", scale, "name", name);

        public Layer Embedding(int input_dim, int output_dim, string embeddings_initializer = null, bool mask_zero = false,
                               Shape input_shape = null, int input_length = -1, string name = null)
            => L("Embedding", input_shape ?? (input_length > 0 ? new Shape(input_length) : null), "input_dim", input_dim, "output_dim", output_dim,
                 "embeddings_initializer", embeddings_initializer, "mask_zero", mask_zero, "name", name);

        public Layer SimpleRNN(int units, string activation = "tanh", bool use_bias = true, bool return_sequences = false, bool return_state = false, string name = null)
            => L("SimpleRNN", null, "units", units, "activation", activation, "use_bias", use_bias, "return_sequences", return_sequences, "return_state", return_state, "name", name);

        public Layer LSTM(int units, string activation = "tanh", string recurrent_activation = "sigmoid", bool use_bias = true,
                          bool return_sequences = false, bool return_state = false, string name = null)
            => L("LSTM", null, "units", units, "activation", activation, "recurrent_activation", recurrent_activation, "use_bias", use_bias,
                 "return_sequences", return_sequences, "return_state", return_state, "name", name);

        public Layer GRU(int units, string activation = "tanh", string recurrent_activation = "sigmoid", bool use_bias = true,
                         bool return_sequences = false, bool return_state = false, bool reset_after = true, string name = null)
            => L("GRU", null, "units", units, "activation", activation, "recurrent_activation", recurrent_activation, "use_bias", use_bias,
                 "return_sequences", return_sequences, "return_state", return_state, "reset_after", reset_after, "name", name);

        public Layer Normalization(Shape input_shape = null, int? axis = -1, float? mean = null, float? variance = null, bool invert = false, string name = null)
            => L("Normalization", input_shape, "axis", axis, "mean", mean, "variance", variance, "invert", invert, "name", name);

        public Layer Rescaling(float scale, float offset = 0f, Shape input_shape = null, string name = null)
            => L("Rescaling", input_shape, "scale", scale, "offset", offset, "name", name);

        public Layer Concatenate(int axis = -1, string name = null) => L("Concatenate", null, "axis", axis, "name", name);
        public Layer Add(string name = null) => L("Add", null, "name", name);
        public Layer Subtract(string name = null) => L("Subtract", null, "name", name);
        public Layer Multiply(string name = null) => L("Multiply", null, "name", name);
        public Layer Average(string name = null) => L("Average", null, "name", name);
        public Layer Maximum(string name = null) => L("Maximum", null, "name", name);
        public Layer Minimum(string name = null) => L("Minimum", null, "name", name);
        public Layer Activation(string activation, string name = null) => L("Activation", null, "activation", activation, "name", name);
        public Layer Softmax(int axis = -1, string name = null) => L("Softmax", null, "axis", axis, "name", name);
        public Layer ReLU(string name = null) => L("ReLU", null, "name", name);
        public Layer LeakyReLU(float alpha = 0.3f, string name = null) => L("LeakyReLU", null, "negative_slope", alpha, "name", name);
        public Layer ELU(float alpha = 1f, string name = null) => L("ELU", null, "alpha", alpha, "name", name);
        public Layer Reshape(Shape target_shape, string name = null) => L("Reshape", null, "target_shape", S(target_shape), "name", name);
        public Layer Permute(int[] dims, string name = null) => L("Permute", null, "dims", dims, "name", name);
        public Layer RepeatVector(int n, string name = null) => L("RepeatVector", null, "n", n, "name", name);
        public Layer UpSampling2D(Shape size = null, string interpolation = "nearest", string name = null)
            => L("UpSampling2D", null, "size", S(size ?? new Shape(2, 2)), "interpolation", interpolation, "name", name);
        public Layer ZeroPadding2D(Shape padding, string name = null) => L("ZeroPadding2D", null, "padding", S(padding), "name", name);
    }
}
