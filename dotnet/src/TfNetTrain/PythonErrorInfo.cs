namespace TfNetTrain
{
    /// <summary>What is known about one Python exception: class, message, traceback.</summary>
    public sealed class PythonErrorInfo
    {
        /// <summary>Collects the parts of a Python exception.</summary>
        public PythonErrorInfo(string typeName, string typeFullName, string message, string traceback)
        {
            TypeName = typeName;
            TypeFullName = typeFullName ?? typeName;
            Message = message ?? "";
            Traceback = traceback ?? "";
        }

        /// <summary>Class name, e.g. "ValueError".</summary>
        public string TypeName { get; }

        /// <summary>Module-qualified class name (builtins are not qualified).</summary>
        public string TypeFullName { get; }

        /// <summary>str(exception).</summary>
        public string Message { get; }

        /// <summary>Formatted traceback.</summary>
        public string Traceback { get; }

        /// <summary>"Type: message", the exception message shown in C#.</summary>
        public string Summary => TypeName + ": " + Message;
    }
}
