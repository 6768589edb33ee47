using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// An optimizer of tfnet_train.optimizers to build (SGD, Adam, AdamW, RMSprop), or a string identifier such as
    /// "sgd" (a string converts implicitly, so Compile("sgd", "mse") works).
    /// </summary>
    public sealed class OptimizerSpec : KerasObjectSpec
    {
        /// <summary>An optimizer spec; see <see cref="Optimizers"/>.</summary>
        public OptimizerSpec(string className, IEnumerable<KeyValuePair<string, object>> arguments = null)
            : base(className, arguments, isName: false)
        {
        }

        private OptimizerSpec(string name) : base(name, null, isName: true)
        {
        }

        /// <summary>A string identifier, passed to compile unchanged ("sgd", "adam", "rmsprop", ...).</summary>
        public static implicit operator OptimizerSpec(string name) => name == null ? null : new OptimizerSpec(name);

        /// <summary>The same optimizer with a learning-rate schedule instead of a constant rate.</summary>
        public OptimizerSpec WithLearningRate(ScheduleSpec schedule)
        {
            if (schedule == null) throw new System.ArgumentNullException(nameof(schedule));
            if (IsName) throw new TfNetTrainArgumentException(nameof(schedule), "a string optimizer has no learning rate to replace; use Optimizers.*");
            var arguments = CopyArguments();
            arguments["learning_rate"] = schedule;
            return new OptimizerSpec(ClassName, arguments);
        }
    }
}
