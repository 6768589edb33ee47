using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;

namespace TfNetTrain.Demo
{
    /// <summary>
    /// A live progress bar drawn by C# from the engine's training hooks: redrawn after every batch on a terminal,
    /// one line per epoch when the output goes to a file or pipe.
    /// </summary>
    public sealed class ProgressBar : CallbackBase
    {
        private const int Width = 30;
        private readonly int _epochs;
        private readonly int _stepsPerEpoch;
        private readonly bool _live;
        private readonly Stopwatch _clock = new Stopwatch();
        private int _epoch;

        /// <param name="epochs">Epochs of the fit.</param>
        /// <param name="stepsPerEpoch">Batches per epoch.</param>
        /// <param name="live">Redraw after every batch (default: when the output is a terminal).</param>
        public ProgressBar(int epochs, int stepsPerEpoch, bool? live = null)
        {
            if (epochs < 1) throw new ArgumentOutOfRangeException(nameof(epochs), epochs, "must be >= 1");
            if (stepsPerEpoch < 1) throw new ArgumentOutOfRangeException(nameof(stepsPerEpoch), stepsPerEpoch, "must be >= 1");
            _epochs = epochs;
            _stepsPerEpoch = stepsPerEpoch;
            _live = live ?? !Console.IsOutputRedirected;
        }

        /// <inheritdoc />
        public override void OnEpochBegin(int epoch, IDictionary<string, float> logs)
        {
            _epoch = epoch;
            _clock.Restart();
            if (_live) Console.Write(Line(0, logs));
        }

        /// <inheritdoc />
        public override void OnTrainBatchEnd(long batch, IDictionary<string, float> logs)
        {
            if (_live) Console.Write("\r" + Line((int)Math.Min(batch + 1, _stepsPerEpoch), logs));
        }

        /// <inheritdoc />
        public override void OnEpochEnd(int epoch, IDictionary<string, float> logs)
        {
            Console.WriteLine((_live ? "\r" : "") + Line(_stepsPerEpoch, logs));
        }

        private string Line(int done, IDictionary<string, float> logs)
        {
            int filled = done * Width / _stepsPerEpoch;
            var line = new StringBuilder();
            string epochs = _epochs.ToString();
            line.Append("epoch ").Append((_epoch + 1).ToString().PadLeft(epochs.Length)).Append('/').Append(epochs);
            line.Append(" [").Append('#', filled).Append('.', Width - filled).Append("] ");
            line.Append(done.ToString().PadLeft(_stepsPerEpoch.ToString().Length)).Append('/').Append(_stepsPerEpoch);
            float value;
            if (logs.TryGetValue("loss", out value)) line.Append($"  loss {value:F4}");
            if (logs.TryGetValue("accuracy", out value)) line.Append($"  accuracy {value:F4}");
            line.Append($"  {_clock.Elapsed.TotalSeconds:F1}s");
            return line.ToString();
        }
    }
}
