namespace TfNetTrain.TensorFlowNet
{
    public partial class Model
    {
        /// <summary>The outputs of a model of two inputs, one array per input (TF.NET's <c>predict((x1, x2))</c>).</summary>
        public Tensors predict((NDArray, NDArray) x, int batch_size = -1, int verbose = 0,
                               System.Threading.CancellationToken cancellationToken = default(System.Threading.CancellationToken))
            => predict(new[] { x.Item1, x.Item2 }, batch_size, verbose, cancellationToken);
    }
}
