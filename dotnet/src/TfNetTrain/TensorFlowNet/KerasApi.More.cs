using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>More keras entry points: a functional model of an input pair.</summary>
    public sealed partial class KerasInterface
    {
        /// <summary>A functional model of two inputs (TF.NET's <c>keras.Model((input1, input2), output)</c>).</summary>
        public Functional Model((Tensor, Tensor) inputs, Tensor outputs, string name = null) => Model(new[] { inputs.Item1, inputs.Item2 }, new[] { outputs }, name);

        /// <summary>A functional model of two inputs whose outputs come as <see cref="Tensors"/> (a layer applied to a tuple).</summary>
        public Functional Model((Tensor, Tensor) inputs, Tensors outputs, string name = null) => Model(new Tensors(inputs.Item1, inputs.Item2), outputs, name);
    }

    /// <summary>More keras.layers: Input, EinsumDense, CategoryEncoding, Resizing and keras.layers.preprocessing.</summary>
    public sealed partial class LayersApi
    {
        /// <summary>keras.layers.preprocessing (Resizing, Rescaling, ...).</summary>
        public LayersPreprocessingApi preprocessing => new LayersPreprocessingApi(this);

        /// <summary>A symbolic input (same as <c>keras.Input</c>).</summary>
        public Tensor Input(Shape shape = null, int batch_size = -1, string name = null, TF_DataType dtype = TF_DataType.DtInvalid)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape), "keras.layers.Input: give the per-sample shape");
            return KerasApi.keras.Input(shape, batch_size, dtype, name);
        }

        /// <summary>keras.layers.EinsumDense; initializers by name or as <see cref="Initializer"/> objects (constant values included).</summary>
        public Layer EinsumDense(string equation, Shape output_shape, string bias_axes, Activation activation = null,
                                 Initializer kernel_initializer = null, Initializer bias_initializer = null, string name = null)
        {
            if (equation == null) throw new ArgumentNullException(nameof(equation));
            if (output_shape == null) throw new ArgumentNullException(nameof(output_shape));
            return L("EinsumDense", null, "equation", equation, "output_shape", S(output_shape), "bias_axes", bias_axes,
                     "activation", activation?.Name, "kernel_initializer", kernel_initializer?.Config, "bias_initializer", bias_initializer?.Config, "name", name);
        }

        /// <summary>keras.layers.CategoryEncoding (output_mode "one_hot", "multi_hot" or "count").</summary>
        public Layer CategoryEncoding(int num_tokens, string output_mode = "one_hot", bool sparse = false, NDArray count_weights = null)
        {
            if (num_tokens < 1) throw new TfNetTrainArgumentException(nameof(num_tokens), $"keras.layers.CategoryEncoding: must be >= 1; got {num_tokens}");
            if (sparse) throw new TfNetTrainArgumentException(nameof(sparse), "keras.layers.CategoryEncoding: sparse outputs are not taken; leave it false");
            if (count_weights != null) // TF.NET weighs every call with them; Keras 3 takes them per call
                return L("CountWeightedCategoryEncoding", null, "num_tokens", num_tokens, "output_mode", output_mode, "count_weights", count_weights);
            return L("CategoryEncoding", null, "num_tokens", num_tokens, "output_mode", output_mode);
        }

        /// <summary>keras.layers.Resizing.</summary>
        public Layer Resizing(int height, int width, string interpolation = "bilinear")
            => L("Resizing", null, "height", height, "width", width, "interpolation", interpolation);

        /// <summary>keras.layers.Dense with an <see cref="Activation"/> object (TF.NET's <c>activation: keras.activations.Relu</c>).</summary>
        public Layer Dense(int units, Activation activation, Initializer kernel_initializer = null, bool use_bias = true, Initializer bias_initializer = null, Shape input_shape = null, string name = null)
            => L("Dense", input_shape, "units", units, "activation", activation?.Name, "kernel_initializer", kernel_initializer?.Config,
                 "use_bias", use_bias, "bias_initializer", bias_initializer?.Config, "name", name);
    }

    /// <summary>keras.layers.preprocessing.</summary>
    public sealed class LayersPreprocessingApi
    {
        private readonly LayersApi _layers;

        internal LayersPreprocessingApi(LayersApi layers)
        {
            _layers = layers;
        }

        public Layer Resizing(int height, int width, string interpolation = "bilinear") => _layers.Resizing(height, width, interpolation);

        public Layer Rescaling(float scale, float offset = 0f) => _layers.Rescaling(scale, offset);
    }

    /// <summary>More keras.metrics (Keras 3 classes of TF.NET's names) and the metric functions.</summary>
    public sealed partial class MetricsApi
    {
        public Metric CategoricalCrossentropy(bool from_logits = false, float label_smoothing = 0f, int axis = -1, string name = null)
            => Metric.Create("CategoricalCrossentropy", "from_logits", from_logits, "label_smoothing", label_smoothing, "axis", axis, "name", name);

        public Metric SparseCategoricalCrossentropy(bool from_logits = false, int axis = -1, string name = null)
            => Metric.Create("SparseCategoricalCrossentropy", "from_logits", from_logits, "axis", axis, "name", name);

        public Metric CosineSimilarity(int axis = -1, string name = null) => Metric.Create("CosineSimilarity", "axis", axis, "name", name);

        public Metric BinaryCrossentropy(bool from_logits = false, float label_smoothing = 0f, string name = null)
            => Metric.Create("BinaryCrossentropy", "from_logits", from_logits, "label_smoothing", label_smoothing, "name", name);

        public Metric RootMeanSquaredError(string name = null) => Metric.Create("RootMeanSquaredError", "name", name);

        public Metric MeanAbsolutePercentageError(string name = null) => Metric.Create("MeanAbsolutePercentageError", "name", name);

        /// <summary>keras.metrics.FBetaScore; TF.NET's num_classes is accepted (Keras 3 reads it from the data).</summary>
        public Metric FBetaScore(int num_classes = 0, string average = null, float beta = 1f, float? threshold = null, string name = null)
        {
            if (num_classes < 0) throw new TfNetTrainArgumentException(nameof(num_classes), $"keras.metrics.FBetaScore: must be >= 0; got {num_classes}");
            return Metric.Create("FBetaScore", "average", average, "beta", beta, "threshold", threshold, "name", name, "semantics", FaceOptions.Semantics);
        }

        /// <summary>TF Addons' HammingLoss (mode "multiclass" or "multilabel"; no threshold: each row's maximum is the prediction).</summary>
        public Metric HammingLoss(string mode, float? threshold = null, string name = "hamming_loss")
        {
            if (mode != "multiclass" && mode != "multilabel")
                throw new TfNetTrainArgumentException(nameof(mode), $"keras.metrics.HammingLoss: takes \"multiclass\" or \"multilabel\"; got {mode ?? "null"}");
            return Metric.Create("HammingLoss", "mode", mode, "threshold", threshold, "name", name);
        }

        /// <summary>Per-sample top-k categorical accuracy (keras.metrics.top_k_categorical_accuracy).</summary>
        public Tensor top_k_categorical_accuracy(Tensor y_true, Tensor y_pred, int k = 5)
            => Binding.tf.Kw("keras_top_k_categorical_accuracy", new object[] { y_true, y_pred }, null, "k", k);

        /// <summary>Per-sample sparse top-k categorical accuracy.</summary>
        public Tensor sparse_top_k_categorical_accuracy(Tensor y_true, Tensor y_pred, int k = 5)
            => Binding.tf.Kw("keras_sparse_top_k_categorical_accuracy", new object[] { y_true, y_pred }, null, "k", k);
    }

    /// <summary>More keras.losses.</summary>
    public sealed partial class LossesApi
    {
        /// <summary>
        /// TF Addons' sigmoid focal cross-entropy, TF.NET's defaults (alpha 0.25, gamma 2, no reduction): Keras 3's
        /// BinaryFocalCrossentropy with class balancing, or TF.NET's arithmetic when <see cref="FaceOptions.Semantics"/>
        /// is "tfnet" as it is made (docs/semantics.md row 27).
        /// </summary>
        public Loss SigmoidFocalCrossEntropy(bool from_logits = false, float alpha = 0.25f, float gamma = 2.0f, string reduction = ReductionV2.NONE, string name = "sigmoid_focal_crossentropy")
            => L("SigmoidFocalCrossEntropy", reduction, name, "alpha", alpha, "gamma", gamma, "from_logits", from_logits, "semantics", FaceOptions.Semantics);

        public Loss BinaryFocalCrossentropy(bool apply_class_balancing = false, float alpha = 0.25f, float gamma = 2.0f, bool from_logits = false, string reduction = null, string name = null)
            => L("BinaryFocalCrossentropy", reduction, name, "apply_class_balancing", apply_class_balancing, "alpha", alpha, "gamma", gamma, "from_logits", from_logits);

        public Loss KLDivergence(string reduction = null, string name = null) => L("KLDivergence", reduction, name);

        public Loss Poisson(string reduction = null, string name = null) => L("Poisson", reduction, name);

        public Loss Hinge(string reduction = null, string name = null) => L("Hinge", reduction, name);
    }
}
