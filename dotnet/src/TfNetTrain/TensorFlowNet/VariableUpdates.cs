namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// Updates of a variable held as <see cref="IVariableV1"/> (eager, or ops of a graph while TensorFlow traces C#
    /// code): <see cref="ResourceVariable"/>'s own assign, assign_add and assign_sub.
    /// </summary>
    public static class VariableUpdates
    {
        /// <summary>variable.assign_add(value); returns the variable.</summary>
        public static IVariableV1 assign_add(this IVariableV1 variable, Tensor value) => Of(variable, "assign_add").assign_add(value);

        /// <summary>variable.assign_sub(value); returns the variable.</summary>
        public static IVariableV1 assign_sub(this IVariableV1 variable, Tensor value) => Of(variable, "assign_sub").assign_sub(value);

        /// <summary>variable.assign(value); returns the variable.</summary>
        public static IVariableV1 assign(this IVariableV1 variable, Tensor value) => Of(variable, "assign").assign(value);

        private static ResourceVariable Of(IVariableV1 variable, string method)
        {
            if (variable == null) throw new System.ArgumentNullException(nameof(variable));
            if (variable is ResourceVariable v) return v;
            throw new TfNetTrainArgumentException(nameof(variable), $"{method} needs a variable of this library; got {variable.GetType().Name}");
        }
    }
}
