namespace TfNetTrain
{
    /// <summary>Learning-rate schedules of tfnet_train.optimizers.schedules, for <see cref="OptimizerSpec.WithLearningRate"/>.</summary>
    public static class Schedules
    {
        /// <summary>initial * rate ^ (step / decaySteps), floored exponent when <paramref name="staircase"/>.</summary>
        public static ScheduleSpec ExponentialDecay(float initialLearningRate, float decaySteps, float decayRate, bool staircase = false)
        {
            return Spec("ExponentialDecay", "initial_learning_rate", initialLearningRate, "decay_steps", decaySteps,
                        "decay_rate", decayRate, "staircase", staircase);
        }

        /// <summary>initial / (1 + rate * step / decaySteps).</summary>
        public static ScheduleSpec InverseTimeDecay(float initialLearningRate, float decaySteps, float decayRate, bool staircase = false)
        {
            return Spec("InverseTimeDecay", "initial_learning_rate", initialLearningRate, "decay_steps", decaySteps,
                        "decay_rate", decayRate, "staircase", staircase);
        }

        /// <summary>values[i] between boundaries (values has one more element than boundaries).</summary>
        public static ScheduleSpec PiecewiseConstantDecay(long[] boundaries, float[] values)
        {
            return Spec("PiecewiseConstantDecay", "boundaries", boundaries, "values", values);
        }

        /// <summary>Polynomial decay from the initial to the end rate over decaySteps.</summary>
        public static ScheduleSpec PolynomialDecay(float initialLearningRate, float decaySteps, float endLearningRate = 0.0001f,
                                                   float power = 1f, bool cycle = false)
        {
            return Spec("PolynomialDecay", "initial_learning_rate", initialLearningRate, "decay_steps", decaySteps,
                        "end_learning_rate", endLearningRate, "power", power, "cycle", cycle);
        }

        /// <summary>Cosine decay to alpha × the initial rate over decaySteps.</summary>
        public static ScheduleSpec CosineDecay(float initialLearningRate, float decaySteps, float alpha = 0f)
        {
            return Spec("CosineDecay", "initial_learning_rate", initialLearningRate, "decay_steps", decaySteps, "alpha", alpha);
        }

        private static ScheduleSpec Spec(string className, params object[] namesAndValues)
        {
            return new ScheduleSpec(className, Layers.Pairs(namesAndValues));
        }
    }
}
