using System;
using System.Globalization;
using System.IO;

namespace TfNetTrain.Demo
{
    /// <summary>Command-line options of the demo (all optional).</summary>
    public sealed class DemoOptions
    {
        /// <summary>Training epochs (--epochs, default 20).</summary>
        public int Epochs { get; private set; } = 20;

        /// <summary>Rows per training step (--batch-size, default 32).</summary>
        public int BatchSize { get; private set; } = 32;

        /// <summary>Steps replayed by both implementations in the conformance check (--steps, default 5).</summary>
        public int ConformanceSteps { get; private set; } = 5;

        /// <summary>Test accuracy the training has to reach (--target, default 0.95).</summary>
        public double TargetAccuracy { get; private set; } = 0.95;

        /// <summary>Where the conformance case and report are written (--report-dir, default reports/demo).</summary>
        public string ReportDirectory { get; private set; } = Path.Combine("reports", "demo");

        /// <summary>Seed of the weight initialisers and of the train/test split (--seed, default 0).</summary>
        public int Seed { get; private set; }

        /// <summary>Parses "--name value" pairs; throws ArgumentException naming the option on bad input.</summary>
        public static DemoOptions Parse(string[] args)
        {
            var options = new DemoOptions();
            for (int i = 0; i < args.Length; i++)
            {
                string name = args[i];
                if (i + 1 >= args.Length) throw new ArgumentException($"option {name} needs a value");
                string value = args[++i];
                switch (name)
                {
                    case "--epochs": options.Epochs = Positive(name, value); break;
                    case "--batch-size": options.BatchSize = Positive(name, value); break;
                    case "--steps": options.ConformanceSteps = Positive(name, value); break;
                    case "--seed": options.Seed = Positive(name, value, allowZero: true); break;
                    case "--report-dir": options.ReportDirectory = value; break;
                    case "--target":
                        double target;
                        if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out target)
                            || target < 0 || target > 1)
                        {
                            throw new ArgumentException($"option --target must be a number in [0, 1], got '{value}'");
                        }
                        options.TargetAccuracy = target;
                        break;
                    default:
                        throw new ArgumentException(
                            $"unknown option {name}; expected --epochs, --batch-size, --steps, --seed, --target or --report-dir");
                }
            }
            return options;
        }

        private static int Positive(string name, string value, bool allowZero = false)
        {
            int parsed;
            if (!int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out parsed)
                || parsed < (allowZero ? 0 : 1))
            {
                throw new ArgumentException(
                    $"option {name} must be an integer >= {(allowZero ? 0 : 1)}, got '{value}'");
            }
            return parsed;
        }
    }
}
