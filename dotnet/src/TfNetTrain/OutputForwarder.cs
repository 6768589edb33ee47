using System;
using System.ComponentModel;
using System.IO;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// Python's <c>sys.stdout</c> or <c>sys.stderr</c> as the host sees it (<see cref="PythonRuntimeOptions.Output"/>,
    /// <see cref="PythonRuntimeOptions.ErrorOutput"/>). Python calls <see cref="Write"/> on whichever thread prints,
    /// without the GIL (pythonnet releases it around calls into .NET); the text goes to the writer under a lock and
    /// nothing here calls Python or waits for the worker. A writer that throws is not written to again: output
    /// must never make training fail. Public only so that Python can call it; not meant for direct use.
    /// </summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public sealed class OutputForwarder
    {
        private readonly TextWriter _writer;
        private readonly bool _error;
        private readonly object _lock = new object();
        private volatile bool _failed;

        internal OutputForwarder(TextWriter writer, bool error)
        {
            _writer = writer;
            _error = error;
        }

        /// <summary>The writer: the one given, else Console.Out or Console.Error as they are now.</summary>
        private TextWriter Writer => _writer ?? (_error ? Console.Error : Console.Out);

        /// <summary>Writes <paramref name="text"/>; a failing writer is dropped silently.</summary>
        public void Write(string text)
        {
            if (_failed || string.IsNullOrEmpty(text)) return;
            try
            {
                lock (_lock) Writer.Write(text);
            }
            catch (Exception)
            {
                _failed = true;
            }
        }

        /// <summary>Flushes the writer; a failing writer is dropped silently.</summary>
        public void Flush()
        {
            if (_failed) return;
            try
            {
                lock (_lock) Writer.Flush();
            }
            catch (Exception)
            {
                _failed = true;
            }
        }

        /// <summary>
        /// The Python side: stream classes that call the forwarders (kept in sys.modules under
        /// <see cref="ModuleName"/>, so that logging handlers made at import keep their stream across restarts), and
        /// install/detach. Defined here rather than in tfnet_train, whose import loads TensorFlow: the streams must
        /// be in place before TensorFlow's and Keras's loggers take <c>sys.stderr</c>.
        /// </summary>
        internal const string ModuleName = "_tfnet_train_host_output";

        private const string ModuleSource =
            "import io, sys\n" +
            "class HostStream(io.TextIOBase):\n" +
            "    \"\"\"sys.stdout / sys.stderr forwarding to a TextWriter of the C# host; the original stream once detached.\"\"\"\n" +
            "    def __init__(self, name, original):\n" +
            "        self.name, self._original, self._host = name, original, None\n" +
            "    encoding = 'utf-8'\n" +
            "    errors = 'replace'\n" +
            "    def writable(self): return True\n" +
            "    def readable(self): return False\n" +
            "    def isatty(self): return False\n" +
            "    def close(self): pass\n" +
            "    def fileno(self):\n" +
            "        if self._original is None: raise io.UnsupportedOperation('fileno')\n" +
            "        return self._original.fileno()\n" +
            "    def write(self, text):\n" +
            "        if not isinstance(text, str):\n" +
            "            raise TypeError(f'write() argument must be str, not {type(text).__name__}')\n" +
            "        host = self._host\n" +
            "        try:\n" +
            "            if host is not None: host.Write(text)\n" +
            "            elif self._original is not None: self._original.write(text)\n" +
            "        except Exception:\n" +
            "            pass\n" +
            "        return len(text)\n" +
            "    def flush(self):\n" +
            "        host = self._host\n" +
            "        try:\n" +
            "            if host is not None: host.Flush()\n" +
            "            elif self._original is not None: self._original.flush()\n" +
            "        except Exception:\n" +
            "            pass\n" +
            "streams = {}\n" +
            "def install(name, host):\n" +
            "    stream = streams.get(name)\n" +
            "    if stream is None:\n" +
            "        stream = streams[name] = HostStream('<' + name + '>', getattr(sys, '__' + name + '__', None))\n" +
            "    stream._host = host\n" +
            "    setattr(sys, name, stream)\n" +
            "def detach():\n" +
            "    for name, stream in streams.items():\n" +
            "        stream._host = None\n" +
            "        if getattr(sys, name) is stream and stream._original is not None:\n" +
            "            setattr(sys, name, stream._original)\n";

        /// <summary>Makes sys.stdout and sys.stderr forward to <paramref name="output"/> and <paramref name="error"/> (GIL held).</summary>
        internal static void Install(OutputForwarder output, OutputForwarder error)
        {
            using (PyObject module = Module())
            using (PyObject install = module.GetAttr("install"))
            {
                if (output != null)
                    using (var name = new PyString("stdout")) using (var host = output.ToPython()) install.Invoke(name, host).Dispose();
                if (error != null)
                    using (var name = new PyString("stderr")) using (var host = error.ToPython()) install.Invoke(name, host).Dispose();
            }
        }

        /// <summary>Points the streams back at the original ones, so that nothing calls into .NET once Python shuts down (GIL held).</summary>
        internal static void Detach()
        {
            using (PyObject module = Loaded())
            {
                if (module == null) return;
                using (var detach = module.GetAttr("detach")) detach.Invoke().Dispose();
            }
        }

        /// <summary>The module if an earlier start made it (the interpreter outlives a runtime), else null.</summary>
        private static PyObject Loaded()
        {
            using (var sys = Py.Import("sys"))
            using (var modules = sys.GetAttr("modules"))
            using (var name = new PyString(ModuleName))
            {
                PyObject module = modules.InvokeMethod("get", name);
                if (!module.IsNone()) return module;
                module.Dispose();
                return null;
            }
        }

        private static PyObject Module()
        {
            PyObject loaded = Loaded();
            if (loaded != null) return loaded;
            using (var sys = Py.Import("sys"))
            using (var modules = sys.GetAttr("modules"))
            {
                using (var types = Py.Import("types"))
                using (var name = new PyString(ModuleName))
                using (var moduleType = types.GetAttr("ModuleType"))
                using (var builtins = Py.Import("builtins"))
                using (var exec = builtins.GetAttr("exec"))
                using (var source = new PyString(ModuleSource))
                {
                    PyObject module = moduleType.Invoke(name);
                    using (var globals = module.GetAttr("__dict__")) exec.Invoke(source, globals).Dispose();
                    modules.SetItem(ModuleName, module);
                    return module;
                }
            }
        }
    }
}
