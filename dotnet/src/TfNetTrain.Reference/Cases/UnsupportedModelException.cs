using System;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// A case whose model is Keras's architecture config (<c>model.keras_config</c>) with a layer the reference does not
    /// implement (it trains the Dense form only). Runners report such a case as not applicable (n/a), not as a failure.
    /// </summary>
    public sealed class UnsupportedModelException : NotSupportedException
    {
        /// <summary>Creates the exception for the first layer the reference cannot run.</summary>
        /// <param name="layer">The layer as reports name it, e.g. <c>layer Conv2D (conv2d)</c>.</param>
        public UnsupportedModelException(string layer)
            : base(layer + " is not implemented by the C# reference")
        {
            Layer = layer;
        }

        /// <summary>The layer the reference cannot run, e.g. <c>layer Conv2D (conv2d)</c>.</summary>
        public string Layer { get; }
    }
}
