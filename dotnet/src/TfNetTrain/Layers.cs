using System;
using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// Keras layers by their Keras names and arguments (C# camelCase for Python snake_case). Arguments left null
    /// take Keras's defaults. <see cref="Create"/> reaches any other keras.layers class. Initializers and
    /// regularizers take a Keras identifier string ("he_normal", "l2") or a config from <see cref="Regularizers"/>
    /// / a dictionary {"class_name": ..., "config": {...}}.
    /// </summary>
    public static class Layers
    {
        /// <summary>Any Keras layer: keras.layers.&lt;className&gt;(**kwargs) with Python argument names.</summary>
        public static LayerSpec Create(string className, IDictionary<string, object> kwargs = null)
        {
            return new LayerSpec(className, kwargs);
        }

        /// <summary>The model input: keras.Input(shape) — the per-sample shape, without the batch dimension.</summary>
        public static LayerSpec Input(params int[] shape)
        {
            return Input(shape, null);
        }

        /// <summary>The model input with a dtype ("float32", "int32", ...) and/or a name.</summary>
        public static LayerSpec Input(int[] shape, string dtype, string name = null)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            return Spec("Input", "shape", shape, "dtype", dtype, "name", name);
        }

        /// <summary>keras.layers.Dense.</summary>
        public static LayerSpec Dense(int units, string activation = null, bool? useBias = null,
                                      object kernelInitializer = null, object biasInitializer = null,
                                      object kernelRegularizer = null, object biasRegularizer = null,
                                      object activityRegularizer = null, string name = null, string dtype = null)
        {
            return Spec("Dense", "units", units, "activation", activation, "use_bias", useBias,
                        "kernel_initializer", kernelInitializer, "bias_initializer", biasInitializer,
                        "kernel_regularizer", kernelRegularizer, "bias_regularizer", biasRegularizer,
                        "activity_regularizer", activityRegularizer, "name", name, "dtype", dtype);
        }

        /// <summary>keras.layers.Conv2D with a square kernel.</summary>
        public static LayerSpec Conv2D(int filters, int kernelSize, int? strides = null, string padding = null,
                                       string activation = null, bool? useBias = null, object kernelInitializer = null,
                                       object kernelRegularizer = null, string name = null)
        {
            return Conv2D(filters, new[] { kernelSize, kernelSize }, strides.HasValue ? new[] { strides.Value, strides.Value } : null,
                          padding, activation, useBias, null, kernelInitializer, kernelRegularizer, name);
        }

        /// <summary>keras.layers.Conv2D.</summary>
        public static LayerSpec Conv2D(int filters, int[] kernelSize, int[] strides = null, string padding = null,
                                       string activation = null, bool? useBias = null, int[] dilationRate = null,
                                       object kernelInitializer = null, object kernelRegularizer = null, string name = null)
        {
            if (kernelSize == null) throw new ArgumentNullException(nameof(kernelSize));
            return Spec("Conv2D", "filters", filters, "kernel_size", kernelSize, "strides", strides, "padding", padding,
                        "activation", activation, "use_bias", useBias, "dilation_rate", dilationRate,
                        "kernel_initializer", kernelInitializer, "kernel_regularizer", kernelRegularizer, "name", name);
        }

        /// <summary>keras.layers.Conv1D.</summary>
        public static LayerSpec Conv1D(int filters, int kernelSize, int? strides = null, string padding = null,
                                       string activation = null, bool? useBias = null, string name = null)
        {
            return Spec("Conv1D", "filters", filters, "kernel_size", kernelSize, "strides", strides,
                        "padding", padding, "activation", activation, "use_bias", useBias, "name", name);
        }

        /// <summary>keras.layers.MaxPooling2D with a square window (default 2).</summary>
        public static LayerSpec MaxPooling2D(int poolSize = 2, int? strides = null, string padding = null, string name = null)
        {
            return Spec("MaxPooling2D", "pool_size", new[] { poolSize, poolSize },
                        "strides", strides.HasValue ? new[] { strides.Value, strides.Value } : null, "padding", padding, "name", name);
        }

        /// <summary>keras.layers.AveragePooling2D with a square window (default 2).</summary>
        public static LayerSpec AveragePooling2D(int poolSize = 2, int? strides = null, string padding = null, string name = null)
        {
            return Spec("AveragePooling2D", "pool_size", new[] { poolSize, poolSize },
                        "strides", strides.HasValue ? new[] { strides.Value, strides.Value } : null, "padding", padding, "name", name);
        }

        /// <summary>keras.layers.MaxPooling1D.</summary>
        public static LayerSpec MaxPooling1D(int poolSize = 2, int? strides = null, string padding = null, string name = null)
        {
            return Spec("MaxPooling1D", "pool_size", poolSize, "strides", strides, "padding", padding, "name", name);
        }

        /// <summary>keras.layers.GlobalAveragePooling2D.</summary>
        public static LayerSpec GlobalAveragePooling2D(string name = null) => Spec("GlobalAveragePooling2D", "name", name);

        /// <summary>keras.layers.GlobalMaxPooling2D.</summary>
        public static LayerSpec GlobalMaxPooling2D(string name = null) => Spec("GlobalMaxPooling2D", "name", name);

        /// <summary>keras.layers.GlobalAveragePooling1D.</summary>
        public static LayerSpec GlobalAveragePooling1D(string name = null) => Spec("GlobalAveragePooling1D", "name", name);

        /// <summary>keras.layers.Flatten.</summary>
        public static LayerSpec Flatten(string name = null) => Spec("Flatten", "name", name);

        /// <summary>keras.layers.Dropout (active only in training steps).</summary>
        public static LayerSpec Dropout(float rate, int? seed = null, string name = null)
        {
            return Spec("Dropout", "rate", rate, "seed", seed, "name", name);
        }

        /// <summary>keras.layers.BatchNormalization.</summary>
        public static LayerSpec BatchNormalization(int? axis = null, float? momentum = null, float? epsilon = null,
                                                   bool? center = null, bool? scale = null, string name = null)
        {
            return Spec("BatchNormalization", "axis", axis, "momentum", momentum, "epsilon", epsilon,
                        "center", center, "scale", scale, "name", name);
        }

        /// <summary>keras.layers.LayerNormalization.</summary>
        public static LayerSpec LayerNormalization(int? axis = null, float? epsilon = null, string name = null)
        {
            return Spec("LayerNormalization", "axis", axis, "epsilon", epsilon, "name", name);
        }

        /// <summary>keras.layers.Add: element-wise sum of its inputs (functional models).</summary>
        public static LayerSpec Add(string name = null) => Spec("Add", "name", name);

        /// <summary>keras.layers.Concatenate along <paramref name="axis"/> (functional models).</summary>
        public static LayerSpec Concatenate(int? axis = null, string name = null) => Spec("Concatenate", "axis", axis, "name", name);

        /// <summary>keras.layers.Multiply: element-wise product of its inputs (functional models).</summary>
        public static LayerSpec Multiply(string name = null) => Spec("Multiply", "name", name);

        /// <summary>keras.layers.Activation ("relu", "softmax", ...).</summary>
        public static LayerSpec Activation(string activation, string name = null)
        {
            if (activation == null) throw new ArgumentNullException(nameof(activation));
            return Spec("Activation", "activation", activation, "name", name);
        }

        /// <summary>keras.layers.ReLU.</summary>
        public static LayerSpec ReLU(string name = null) => Spec("ReLU", "name", name);

        /// <summary>keras.layers.Softmax.</summary>
        public static LayerSpec Softmax(int? axis = null, string name = null) => Spec("Softmax", "axis", axis, "name", name);

        /// <summary>keras.layers.Reshape (per-sample target shape; -1 allowed once).</summary>
        public static LayerSpec Reshape(params int[] targetShape)
        {
            if (targetShape == null) throw new ArgumentNullException(nameof(targetShape));
            return Spec("Reshape", "target_shape", targetShape);
        }

        /// <summary>keras.layers.Rescaling: x * scale + offset.</summary>
        public static LayerSpec Rescaling(float scale, float? offset = null, string name = null)
        {
            return Spec("Rescaling", "scale", scale, "offset", offset, "name", name);
        }

        /// <summary>keras.layers.Embedding.</summary>
        public static LayerSpec Embedding(int inputDim, int outputDim, string name = null)
        {
            return Spec("Embedding", "input_dim", inputDim, "output_dim", outputDim, "name", name);
        }

        /// <summary>keras.layers.SimpleRNN.</summary>
        public static LayerSpec SimpleRNN(int units, string activation = null, bool? returnSequences = null, string name = null)
        {
            return Spec("SimpleRNN", "units", units, "activation", activation, "return_sequences", returnSequences, "name", name);
        }

        /// <summary>keras.layers.LSTM.</summary>
        public static LayerSpec LSTM(int units, bool? returnSequences = null, string name = null)
        {
            return Spec("LSTM", "units", units, "return_sequences", returnSequences, "name", name);
        }

        /// <summary>keras.layers.GRU.</summary>
        public static LayerSpec GRU(int units, bool? returnSequences = null, string name = null)
        {
            return Spec("GRU", "units", units, "return_sequences", returnSequences, "name", name);
        }

        internal static LayerSpec Spec(string className, params object[] namesAndValues)
        {
            return new LayerSpec(className, Pairs(namesAndValues));
        }

        internal static IEnumerable<KeyValuePair<string, object>> Pairs(object[] namesAndValues)
        {
            for (int i = 0; i + 1 < namesAndValues.Length; i += 2)
                yield return new KeyValuePair<string, object>((string)namesAndValues[i], namesAndValues[i + 1]);
        }
    }
}
