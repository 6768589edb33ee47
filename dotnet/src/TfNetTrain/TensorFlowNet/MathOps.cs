namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// TensorFlow.NET's <c>math_ops</c> as its programs call it (<c>math_ops.reduce_mean(math_ops.square(d))</c>): the
    /// same TensorFlow ops as <c>tf.*</c>.
    /// </summary>
    public static class math_ops
    {
        /// <summary>tf.reduce_mean.</summary>
        public static Tensor reduce_mean(Tensor input_tensor, int? axis = null, bool keepdims = false, string name = null)
            => Binding.tf.reduce_mean(input_tensor, axis, keepdims, name);

        /// <summary>tf.square.</summary>
        public static Tensor square(Tensor x, string name = null) => Binding.tf.Kw("square", new object[] { x }, name);
    }
}
