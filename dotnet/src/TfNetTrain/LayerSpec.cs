using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>A Keras layer to build: <c>keras.layers.&lt;ClassName&gt;(**Arguments)</c> ("Input" → keras.Input).</summary>
    public sealed class LayerSpec : KerasObjectSpec
    {
        /// <summary>A layer spec; see <see cref="Layers"/> for the common ones.</summary>
        public LayerSpec(string className, IEnumerable<KeyValuePair<string, object>> arguments = null)
            : base(className, arguments, isName: false)
        {
        }
    }
}
