using System;
using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// Python could not be found or started. <see cref="Searched"/> lists every place that was looked at, in order,
    /// with what was found there; the message says how to point the library at the right Python.
    /// </summary>
    public class TfNetTrainStartupException : TfNetTrainException
    {
        /// <summary>A start-up failure with the list of places searched.</summary>
        public TfNetTrainStartupException(string message, IList<string> searched, Exception innerException = null)
            : base(Compose(message, searched), innerException)
        {
            Searched = searched ?? new string[0];
        }

        /// <summary>Every candidate looked at ("what: where -> result").</summary>
        public IList<string> Searched { get; }

        private static string Compose(string message, IList<string> searched)
        {
            if (searched == null || searched.Count == 0) return message;
            return message + Environment.NewLine + "Searched:" + Environment.NewLine + "  "
                + string.Join(Environment.NewLine + "  ", searched);
        }
    }
}
