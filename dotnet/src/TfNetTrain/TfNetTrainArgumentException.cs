using System;

namespace TfNetTrain
{
    /// <summary>
    /// A bad argument: raised in C# for wrong shapes, dtypes or values that are cheap to check (then
    /// <see cref="ParamName"/> names the parameter), and for Python ValueError, TypeError, KeyError, IndexError and
    /// TensorFlow's InvalidArgumentError (then the Python detail is set).
    /// </summary>
    public class TfNetTrainArgumentException : TfNetTrainException
    {
        /// <summary>A C#-side argument error naming the parameter.</summary>
        public TfNetTrainArgumentException(string paramName, string message)
            : base(paramName == null ? message : paramName + ": " + message)
        {
            ParamName = paramName;
        }

        /// <summary>An argument error raised in Python.</summary>
        public TfNetTrainArgumentException(PythonErrorInfo python, Exception innerException = null)
            : base(python, innerException)
        {
        }

        /// <summary>The C# parameter at fault, when the error was found in C#.</summary>
        public string ParamName { get; }
    }
}
