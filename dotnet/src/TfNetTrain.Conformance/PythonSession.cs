using System;
using Python.Runtime;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// The Python runtime of one command, started on first use (TensorFlow's start-up logging off) and shut down on
    /// dispose. A runtime that was already running is used and left running.
    /// </summary>
    public sealed class PythonSession : IDisposable
    {
        private PythonRuntime _runtime;
        private bool _owned;

        /// <summary>True once the runtime is running.</summary>
        public bool IsStarted => _runtime != null;

        /// <summary>The running runtime: the one already running, or one started now (once).</summary>
        public PythonRuntime Start()
        {
            if (_runtime != null) return _runtime;
            PythonRuntime current = PythonRuntime.Current;
            if (current != null)
            {
                _runtime = current;
                return current;
            }
            if (Environment.GetEnvironmentVariable("TF_CPP_MIN_LOG_LEVEL") == null)
                Environment.SetEnvironmentVariable("TF_CPP_MIN_LOG_LEVEL", "3");
            _runtime = PythonRuntime.Start();
            _owned = true;
            // Retracing notices are not results.
            _runtime.Run(() => PythonEngine.Exec("import logging\nlogging.getLogger('tensorflow').setLevel(logging.ERROR)"));
            return _runtime;
        }

        /// <summary>Shuts the runtime down if this session started it.</summary>
        public void Dispose()
        {
            if (_owned && _runtime != null) _runtime.Dispose();
            _runtime = null;
            _owned = false;
        }
    }
}
