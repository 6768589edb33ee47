using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>Keras regularizer configs for the *Regularizer arguments of <see cref="Layers"/>.</summary>
    public static class Regularizers
    {
        /// <summary>L1: l1 * sum(|w|).</summary>
        public static IDictionary<string, object> L1(float l1 = 0.01f) => Config("L1", "l1", l1);

        /// <summary>L2: l2 * sum(w²).</summary>
        public static IDictionary<string, object> L2(float l2 = 0.01f) => Config("L2", "l2", l2);

        /// <summary>L1 and L2 together.</summary>
        public static IDictionary<string, object> L1L2(float l1 = 0f, float l2 = 0f)
        {
            return new Dictionary<string, object>
            {
                { "class_name", "L1L2" },
                { "config", new Dictionary<string, object> { { "l1", l1 }, { "l2", l2 } } },
            };
        }

        private static IDictionary<string, object> Config(string className, string key, float value)
        {
            return new Dictionary<string, object>
            {
                { "class_name", className },
                { "config", new Dictionary<string, object> { { key, value } } },
            };
        }
    }
}
