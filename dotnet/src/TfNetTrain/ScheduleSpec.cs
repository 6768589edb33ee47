using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>A learning-rate schedule of tfnet_train.optimizers.schedules; see <see cref="Schedules"/>.</summary>
    public sealed class ScheduleSpec : KerasObjectSpec
    {
        /// <summary>A schedule spec by class name ("ExponentialDecay", ...).</summary>
        public ScheduleSpec(string className, IEnumerable<KeyValuePair<string, object>> arguments = null)
            : base(className, arguments, isName: false)
        {
        }
    }
}
