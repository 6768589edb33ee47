using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// A Keras loss to build (<c>keras.losses.&lt;ClassName&gt;(**Arguments)</c>), or a string identifier such as
    /// "mse" (a string converts implicitly).
    /// </summary>
    public sealed class LossSpec : KerasObjectSpec
    {
        /// <summary>A loss spec; see <see cref="Losses"/>.</summary>
        public LossSpec(string className, IEnumerable<KeyValuePair<string, object>> arguments = null)
            : base(className, arguments, isName: false)
        {
        }

        private LossSpec(string name) : base(name, null, isName: true)
        {
        }

        /// <summary>A string identifier, passed to compile unchanged ("mse", "sparse_categorical_crossentropy", ...).</summary>
        public static implicit operator LossSpec(string name) => name == null ? null : new LossSpec(name);
    }
}
