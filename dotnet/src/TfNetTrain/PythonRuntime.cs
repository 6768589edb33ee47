using System;
using System.Collections.Generic;
using System.Diagnostics;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// The embedded Python interpreter with the tfnet_train engine loaded. Start it once per process
    /// (<c>using (var python = PythonRuntime.Start()) { ... }</c>); every model call is then marshalled to one
    /// long-lived Python worker thread, so any C# thread may call and TensorFlow always sees the same thread.
    /// Disposing shuts Python down quickly (the Python garbage collector is frozen first, which turns a multi-second
    /// shutdown with TensorFlow loaded into tens of milliseconds).
    /// <para>When this assembly is loaded into a running Python process (Python hosting .NET), Start attaches to
    /// that interpreter instead: calls run on the calling thread and Dispose leaves Python running.</para>
    /// </summary>
    public sealed class PythonRuntime : IDisposable
    {
        private static readonly object StartLock = new object();
        private static PythonRuntime _current;
        private static bool _interpreterLoaded;

        private readonly PythonWorker _worker;
        private readonly PythonRuntimeOptions _options;
        private BridgeFacade _facade;
        private volatile bool _disposed;
        private bool _disposing; // under StartLock: a Dispose is shutting the worker down

        private PythonRuntime(PythonLocation location, PythonRuntimeOptions options, bool attached)
        {
            Location = location;
            _options = options;
            IsAttached = attached;
            if (!attached) _worker = new PythonWorker(InitializeOnWorker, ShutdownOnWorker);
        }

        /// <summary>The running runtime, or null.</summary>
        public static PythonRuntime Current
        {
            get { lock (StartLock) return _current; }
        }

        /// <summary>Where Python was found; null when attached to a Python process that hosts .NET.</summary>
        public PythonLocation Location { get; }

        /// <summary>True when running inside a Python process that loaded this assembly.</summary>
        public bool IsAttached { get; }

        /// <summary>True after <see cref="Dispose"/>.</summary>
        public bool IsDisposed => _disposed;

        /// <summary>Time Start took (finding Python, initialising it, importing the engine).</summary>
        public TimeSpan StartDuration { get; private set; }

        /// <summary>Time Dispose took to shut Python down (zero until disposed, and when attached).</summary>
        public TimeSpan ShutdownDuration { get; private set; }

        /// <summary>
        /// Finds Python (see <see cref="PythonLocation.Find"/>), starts it on a dedicated worker thread and imports
        /// tfnet_train.bridge. Throws <see cref="TfNetTrainStartupException"/> saying what was looked for and where
        /// when Python or the engine cannot be found, and InvalidOperationException when a runtime is already running.
        /// </summary>
        public static PythonRuntime Start(PythonRuntimeOptions options = null)
        {
            options = options ?? new PythonRuntimeOptions();
            lock (StartLock)
            {
                if (_current != null)
                {
                    throw new InvalidOperationException(
                        "A PythonRuntime is already running in this process; use PythonRuntime.Current or dispose it first.");
                }
                var clock = Stopwatch.StartNew();
                PythonRuntime runtime;
                if (PythonEngine.IsInitialized && !_interpreterLoaded)
                {
                    runtime = new PythonRuntime(null, options, attached: true);
                    using (Py.GIL())
                    {
                        runtime.LoadFacade();
                        OutputForwarder.Install(options.Output == null ? null : new OutputForwarder(options.Output, error: false),
                                                options.ErrorOutput == null ? null : new OutputForwarder(options.ErrorOutput, error: true));
                    }
                }
                else
                {
                    runtime = new PythonRuntime(PythonLocation.Find(options), options, attached: false);
                    runtime._worker.Start();
                }
                runtime.StartDuration = clock.Elapsed;
                _current = runtime;
                return runtime;
            }
        }

        /// <summary>Runs <paramref name="action"/> on the Python thread with the GIL held.</summary>
        public void Run(Action action)
        {
            if (action == null) throw new ArgumentNullException(nameof(action));
            Run<object>(() => { action(); return null; });
        }

        /// <summary>
        /// Runs <paramref name="func"/> on the Python thread with the GIL held and returns its result; Python errors
        /// become <see cref="TfNetTrainException"/>s. Safe to call from any thread, and from inside a callback.
        /// </summary>
        public T Run<T>(Func<T> func)
        {
            if (func == null) throw new ArgumentNullException(nameof(func));
            if (_disposed) throw new ObjectDisposedException(nameof(PythonRuntime), "the Python runtime has been shut down");
            if (IsAttached)
            {
                using (Py.GIL()) return PythonWorker.RunMapped(func);
            }
            return _worker.Invoke(func);
        }

        /// <summary>True when this thread runs Python calls inline (the worker, or C# code that Python called).</summary>
        internal bool IsCallerOnPythonThread => PythonWorker.InPythonCall || (!IsAttached && _worker.IsCurrentThread);

        /// <summary>The cached tfnet_train.bridge functions; only on the Python thread.</summary>
        internal BridgeFacade Facade => _facade;

        /// <summary>
        /// Shuts Python down: freezes the Python garbage collector (so the shutdown's collection passes find nothing
        /// to scan), releases cached objects and calls PythonEngine.Shutdown on the worker thread. Attached
        /// runtimes only release their cached objects. Models of this runtime cannot be used afterwards.
        /// <para>A call running on the worker (a Fit on another thread) finishes first, and its callbacks may still
        /// use the runtime meanwhile (<see cref="Current"/>, models): the start lock is not held while waiting. From
        /// the worker thread itself (inside a callback), from C# code that Python runs on a thread of its own (a
        /// traced Layer.Call) and from a batch enumerator (each waited for by the running call) Dispose throws
        /// InvalidOperationException and stops nothing. While it waits it says so on standard error every 30 s.
        /// A second concurrent Dispose waits for the first.</para>
        /// </summary>
        public void Dispose()
        {
            if (!IsAttached && (_worker.IsCurrentThread || PythonWorker.InPythonCall))
                throw new InvalidOperationException(
                    "The Python runtime cannot be disposed from its own worker thread or from C# code that Python runs " +
                    "(a callback, a traced Layer.Call): dispose it after Fit, Evaluate or Predict returns.");
            if (HostBatchStream.IsProducing)
                throw new InvalidOperationException(
                    "The Python runtime cannot be disposed from a batch enumerator: the Python thread waits for its batch. " +
                    "Dispose it after Fit, Evaluate or Predict returns.");
            lock (StartLock)
            {
                if (_disposed) return;
                if (_disposing)
                {
                    while (!_disposed) System.Threading.Monitor.Wait(StartLock);
                    return;
                }
                _disposing = true;
            }
            var clock = Stopwatch.StartNew();
            try
            {
                HostBatchStream.StopAll(); // a pass being read ends with an error, not its end mark, before Python goes
                if (IsAttached)
                {
                    _disposed = true;
                    using (Py.GIL())
                    {
                        OutputForwarder.Detach();
                        ReleaseCachedObjects();
                    }
                }
                else
                {
                    _worker.Stop(); // the running call finishes; its callbacks may read Current meanwhile
                }
            }
            finally
            {
                lock (StartLock)
                {
                    _disposed = true;
                    ShutdownDuration = clock.Elapsed;
                    if (_current == this) _current = null;
                    System.Threading.Monitor.PulseAll(StartLock);
                }
            }
        }

        internal void ThrowIfDisposed()
        {
            if (_disposed) throw new ObjectDisposedException(nameof(PythonRuntime), "the Python runtime has been shut down");
        }

        private void InitializeOnWorker()
        {
            bool restart = _interpreterLoaded;
            if (!restart)
            {
                Runtime.PythonDLL = Location.PythonDll;
                if (Location.ProgramName != null) PythonEngine.ProgramName = Location.ProgramName;
            }
            try
            {
                PythonEngine.Initialize();
            }
            catch (Exception e) when (!(e is TfNetTrainException))
            {
                throw new TfNetTrainStartupException(
                    $"Python could not be initialised from {Location.PythonDll}: {e.GetBaseException().Message}",
                    Location.Searched, e);
            }
            _interpreterLoaded = true;
            try
            {
                ConfigurePaths(restart);
                // before the engine's import: TensorFlow's and Keras's loggers keep the sys.stderr they find
                OutputForwarder.Install(new OutputForwarder(_options.Output, error: false),
                                        new OutputForwarder(_options.ErrorOutput, error: true));
                LoadFacade();
                PythonEngine.AddShutdownHandler(FreezeGarbageCollector);
            }
            finally
            {
                PythonEngine.BeginAllowThreads();
            }
        }

        private void ConfigurePaths(bool restart)
        {
            using (var scope = Py.CreateScope())
            {
                using (var extra = PyConvert.ToPython(new List<string>(_options.ExtraPythonPaths ?? new string[0])))
                using (var again = PyConvert.ToPython(restart))
                {
                    scope.Set("extra", extra);
                    scope.Set("restart", again);
                }
                scope.Exec(
                    "import gc, sys\n" +
                    "if restart:\n" +
                    "    gc.unfreeze()\n" +
                    "    gc.enable()\n" +
                    "for p in reversed(list(extra)):\n" +
                    "    if p not in sys.path:\n" +
                    "        sys.path.insert(0, p)\n");
            }
        }

        private void LoadFacade()
        {
            try
            {
                _facade = new BridgeFacade();
            }
            catch (PythonException e)
            {
                var info = PythonErrors.Describe(e);
                var searched = new List<string>(Location?.Searched ?? new string[0]);
                searched.Add("sys.path: " + SysPath());
                throw new TfNetTrainStartupException(
                    $"Python started but could not import {BridgeFacade.ModuleName} ({info.Summary}). Is the project " +
                    "installed in this Python environment (`pip install -e .` in the venv)?", searched,
                    new TfNetTrainException(info, e));
            }
        }

        private static string SysPath()
        {
            try
            {
                using (var sys = Py.Import("sys"))
                using (var path = sys.GetAttr("path"))
                {
                    return path.ToString();
                }
            }
            catch (PythonException)
            {
                return "?";
            }
        }

        private void ShutdownOnWorker()
        {
            using (Py.GIL())
            {
                OutputForwarder.Detach(); // nothing printed while Python shuts down calls into .NET
                ReleaseCachedObjects();
                FreezeGarbageCollectorHoldingGil();
            }
            PythonEngine.RemoveShutdownHandler(FreezeGarbageCollector);
            PythonEngine.Shutdown();
        }

        private void ReleaseCachedObjects()
        {
            _facade?.Release();
            _facade = null;
            ArrayExchange.Reset();
        }

        private static void FreezeGarbageCollector()
        {
            using (Py.GIL()) FreezeGarbageCollectorHoldingGil();
        }

        private static void FreezeGarbageCollectorHoldingGil()
        {
            PythonEngine.Exec("import gc\ngc.disable()\ngc.freeze()");
        }
    }
}
