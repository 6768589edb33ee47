using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>Updates of a variable's value (eager, or ops of a graph while TensorFlow traces C# code).</summary>
    public static class VariableUpdates
    {
        /// <summary>variable.assign_add(value); returns the variable.</summary>
        public static IVariableV1 assign_add(this IVariableV1 variable, Tensor value) => Update(variable, "assign_add", value);

        /// <summary>variable.assign_sub(value); returns the variable.</summary>
        public static IVariableV1 assign_sub(this IVariableV1 variable, Tensor value) => Update(variable, "assign_sub", value);

        /// <summary>variable.assign(value); returns the variable.</summary>
        public static IVariableV1 assign(this IVariableV1 variable, Tensor value) => Update(variable, "assign", value);

        private static IVariableV1 Update(IVariableV1 variable, string method, Tensor value)
        {
            if (variable == null) throw new System.ArgumentNullException(nameof(variable));
            if (value == null) throw new System.ArgumentNullException(nameof(value));
            if (!(variable is ResourceVariable v)) throw new TfNetTrainArgumentException(nameof(variable), $"{method} needs a variable of this library; got {variable.GetType().Name}");
            v.Runtime.Run(() => { Face.Call(v.Runtime.Facade, "host_code", "variable_update", new object[] { v, method, value }); return 0; });
            return variable;
        }
    }
}
