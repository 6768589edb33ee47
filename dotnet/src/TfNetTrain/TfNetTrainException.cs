using System;

namespace TfNetTrain
{
    /// <summary>
    /// An error raised by the Python engine (or detected by this library before calling it). For Python errors,
    /// <see cref="PythonType"/>, <see cref="PythonMessage"/> and <see cref="PythonTraceback"/> carry the detail.
    /// The interpreter and the model stay usable after the exception.
    /// </summary>
    public class TfNetTrainException : Exception
    {
        /// <summary>A C#-side error (no Python exception behind it).</summary>
        public TfNetTrainException(string message, Exception innerException = null)
            : base(message, innerException)
        {
        }

        /// <summary>An error that came from Python.</summary>
        public TfNetTrainException(PythonErrorInfo python, Exception innerException = null)
            : base(python == null ? "Python error" : python.Summary, innerException)
        {
            if (python != null)
            {
                PythonType = python.TypeName;
                PythonTypeFullName = python.TypeFullName;
                PythonMessage = python.Message;
                PythonTraceback = python.Traceback;
            }
        }

        /// <summary>The Python exception class name, e.g. "ValueError"; null for C#-side errors.</summary>
        public string PythonType { get; }

        /// <summary>Module-qualified class name, e.g. "tensorflow.python.framework.errors_impl.InvalidArgumentError".</summary>
        public string PythonTypeFullName { get; }

        /// <summary>str(exception) on the Python side; null for C#-side errors.</summary>
        public string PythonMessage { get; }

        /// <summary>The formatted Python traceback; null for C#-side errors.</summary>
        public string PythonTraceback { get; }

        /// <summary>True when the error came from Python.</summary>
        public bool IsPythonError => PythonType != null;
    }
}
