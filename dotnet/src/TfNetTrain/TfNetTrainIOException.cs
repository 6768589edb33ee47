using System;

namespace TfNetTrain
{
    /// <summary>A Python OSError (file not found, permission denied, ...), e.g. from SaveWeights or LoadWeights.</summary>
    public class TfNetTrainIOException : TfNetTrainException
    {
        /// <summary>An I/O error raised in Python.</summary>
        public TfNetTrainIOException(PythonErrorInfo python, Exception innerException = null)
            : base(python, innerException)
        {
        }
    }
}
