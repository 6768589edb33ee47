using System;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>More of TF.NET's <c>tf.nn</c>: losses on logits, convolution, pooling, bias, dropout.</summary>
    public sealed partial class NnApi
    {
        public Tensor sparse_softmax_cross_entropy_with_logits(Tensor labels = null, Tensor logits = null, string name = null)
            => Binding.tf.Kw("nn_sparse_softmax_cross_entropy_with_logits", new object[0], name, "labels", Required(labels, nameof(labels)), "logits", Required(logits, nameof(logits)));

        public Tensor softmax_cross_entropy_with_logits(Tensor labels, Tensor logits, int dim = -1, string name = null)
            => Binding.tf.Kw("nn_softmax_cross_entropy_with_logits", new object[0], name, "labels", Required(labels, nameof(labels)), "logits", Required(logits, nameof(logits)), "axis", dim);

        public Tensor softmax_cross_entropy_with_logits_v2(Tensor labels, Tensor logits, int axis = -1, string name = null)
            => softmax_cross_entropy_with_logits(labels, logits, axis, name);

        public Tensor sigmoid_cross_entropy_with_logits(Tensor labels, Tensor logits, string name = null)
            => Binding.tf.Kw("nn_sigmoid_cross_entropy_with_logits", new object[0], name, "labels", Required(labels, nameof(labels)), "logits", Required(logits, nameof(logits)));

        public Tensor softmax(Tensor logits, int axis, string name = null) => Binding.tf.Kw("softmax", new object[] { logits }, name, "axis", axis);
        public Tensor log_softmax(Tensor logits, int axis = -1, string name = null) => Binding.tf.Kw("nn_log_softmax", new object[] { logits }, name, "axis", axis);
        public Tensor tanh(Tensor x, string name = null) => Binding.tf.Kw("nn_tanh", new object[] { x }, name);
        public Tensor elu(Tensor features, string name = null) => Binding.tf.Kw("nn_elu", new object[] { features }, name);
        public Tensor relu6(Tensor features, string name = null) => Binding.tf.Kw("nn_relu6", new object[] { features }, name);
        public Tensor leaky_relu(Tensor features, float alpha = 0.2f, string name = null) => Binding.tf.Kw("nn_leaky_relu", new object[] { features }, name, "alpha", alpha);
        public Tensor l2_loss(Tensor t, string name = null) => Binding.tf.Kw("nn_l2_loss", new object[] { t }, name);

        public Tensor conv2d(Tensor input, Tensor filter, int[] strides, string padding, bool use_cudnn_on_gpu = true, string data_format = "NHWC", int[] dilations = null, string name = null)
        {
            if (!use_cudnn_on_gpu)
                throw new TfNetTrainArgumentException(nameof(use_cudnn_on_gpu), "tf.nn.conv2d: TensorFlow 2 chooses the kernel itself; takes only true");
            return Binding.tf.Kw("nn_conv2d", new object[] { input, filter, Required(strides, nameof(strides)), Padding(padding, "conv2d") }, name,
                "data_format", data_format, "dilations", dilations);
        }

        public Tensor bias_add(Tensor value, Tensor bias, string data_format = null, string name = null)
            => Binding.tf.Kw("nn_bias_add", new object[] { value, bias }, name, "data_format", data_format);

        public Tensor bias_add(Tensor value, IVariableV1 bias, string data_format = null, string name = null)
        {
            var tensor = bias as Tensor;
            if (tensor == null) throw new TfNetTrainArgumentException(nameof(bias), $"tf.nn.bias_add: takes a variable held from Python; got {bias?.GetType().Name ?? "null"}");
            return bias_add(value, tensor, data_format, name);
        }

        public Tensor max_pool(Tensor value, int[] ksize, int[] strides, string padding, string data_format = "NHWC", string name = null)
            => Binding.tf.Kw("nn_max_pool", new object[] { value, Required(ksize, nameof(ksize)), Required(strides, nameof(strides)), Padding(padding, "max_pool") }, name, "data_format", data_format);

        public Tensor avg_pool(Tensor value, int[] ksize, int[] strides, string padding, string data_format = "NHWC", string name = null)
            => Binding.tf.Kw("nn_avg_pool", new object[] { value, Required(ksize, nameof(ksize)), Required(strides, nameof(strides)), Padding(padding, "avg_pool") }, name, "data_format", data_format);

        /// <summary>Dropout with <paramref name="rate"/> (TF.NET's keep_prob is 1 - rate; give one of them).</summary>
        public Tensor dropout(Tensor x, Tensor keep_prob = null, Tensor noise_shape = null, int? seed = null, string name = null, float? rate = null)
        {
            if (noise_shape != null) throw new TfNetTrainArgumentException(nameof(noise_shape), "tf.nn.dropout: noise_shape is not taken; leave it null");
            if ((keep_prob == null) == (rate == null)) throw new TfNetTrainArgumentException(nameof(rate), "tf.nn.dropout: give exactly one of keep_prob and rate");
            object r = rate.HasValue ? (object)rate.Value : 1f - keep_prob;
            return Binding.tf.Kw("nn_dropout", new object[] { x }, name, "rate", r, "seed", seed);
        }

        public Tensor embedding_lookup(Tensor @params, Tensor ids, string partition_strategy = "mod", string name = null)
        {
            if (partition_strategy != "mod") throw new TfNetTrainArgumentException(nameof(partition_strategy), $"tf.nn.embedding_lookup: takes only \"mod\"; got {partition_strategy}");
            return Binding.tf.Kw("nn_embedding_lookup", new object[] { @params, ids }, name);
        }

        private static T Required<T>(T value, string paramName) where T : class => value ?? throw new ArgumentNullException(paramName);

        private static string Padding(string padding, string member)
        {
            if (padding != "SAME" && padding != "VALID")
                throw new TfNetTrainArgumentException(nameof(padding), $"tf.nn.{member}: takes \"SAME\" or \"VALID\"; got {padding ?? "null"}");
            return padding;
        }
    }
}
