using System;
using System.Collections.Generic;
using System.Runtime.ExceptionServices;
using System.Threading;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// The one long-lived thread that runs every Python call. It initialises the interpreter (so its thread state
    /// is the interpreter's first and is never torn down, which keeps TensorFlow's thread-local context), releases
    /// the GIL between calls and takes it around each one. Callers on any thread queue work and wait; calls made on
    /// the worker itself (from a callback during Fit) run inline, and so do calls from C# code that Python runs on
    /// a thread of its own (<see cref="EnterPythonCall"/>: a Layer's Call that TensorFlow traces on a
    /// MirroredStrategy replica thread while the worker waits for that thread). A batch producer thread never
    /// waits for the worker: its calls are refused.
    /// </summary>
    internal sealed class PythonWorker
    {
        private readonly Queue<Job> _queue = new Queue<Job>();
        private readonly object _lock = new object();
        private readonly Thread _thread;
        private Action _initialize;
        private Action _shutdown;
        private volatile bool _closed;
        private volatile int _queued;

        private Exception _startError;
        private Exception _shutdownError;
        private readonly ManualResetEventSlim _started = new ManualResetEventSlim(false);

        [ThreadStatic] private static int _pythonCalls;

        public PythonWorker(Action initialize, Action shutdown)
        {
            _initialize = initialize;
            _shutdown = shutdown;
            _thread = new Thread(Loop) { Name = "TfNetTrain Python worker", IsBackground = true };
        }

        /// <summary>True on the worker thread.</summary>
        public bool IsCurrentThread => Thread.CurrentThread == _thread;

        /// <summary>
        /// C# code called from Python starts on this thread (the Python frame that called it waits for it, and the
        /// thread has a Python thread state): until <see cref="LeavePythonCall"/>, calls on this thread run inline
        /// under the GIL instead of queueing for the worker, which may itself be waiting for this thread.
        /// </summary>
        internal static void EnterPythonCall() => _pythonCalls++;

        /// <summary>Ends what <see cref="EnterPythonCall"/> began.</summary>
        internal static void LeavePythonCall() => _pythonCalls--;

        /// <summary>True while this thread runs C# code that Python called (on the worker or on a thread of Python's own).</summary>
        internal static bool InPythonCall => _pythonCalls > 0;

        /// <summary>Starts the thread and waits for the interpreter to be ready; rethrows a start-up failure.</summary>
        public void Start()
        {
            _thread.Start();
            _started.Wait();
            if (_startError != null)
            {
                _thread.Join();
                ExceptionDispatchInfo.Capture(_startError).Throw();
            }
        }

        /// <summary>Runs <paramref name="func"/> on the worker with the GIL held and returns its result.</summary>
        public T Invoke<T>(Func<T> func)
        {
            if (IsCurrentThread || InPythonCall)
            {
                using (Py.GIL()) return RunMapped(func);
            }
            if (HostBatchStream.IsProducing)
                throw new InvalidOperationException(
                    "a C# batch enumerator feeding a dataset must not call TfNetTrain: it runs on a producer thread of the " +
                    "library while the Python thread waits for its batch (produce NDArrays made beforehand, or plain C# ones)");
            var job = new Job<T>(func);
            bool nextInLine;
            lock (_lock)
            {
                if (_closed) throw new ObjectDisposedException(nameof(PythonRuntime), "the Python runtime has been shut down");
                nextInLine = _queue.Count == 0;
                _queue.Enqueue(job);
                _queued = _queue.Count;
                if (nextInLine) Monitor.Pulse(_lock);
            }
            job.Wait(yieldFirst: nextInLine);
            return job.Result;
        }

        /// <summary>
        /// Stops taking work, runs the shutdown action on the worker and waits for the thread to end: for the call
        /// running there to return first (a Fit on another thread may run for hours). While it waits, it says so on
        /// standard error every <see cref="StopNotice"/>, naming what it waits for.
        /// </summary>
        public void Stop()
        {
            if (IsCurrentThread)
                throw new InvalidOperationException("The Python runtime cannot be disposed from its own worker thread (e.g. inside a callback).");
            lock (_lock)
            {
                if (_closed) return;
                _closed = true;
                Monitor.Pulse(_lock);
            }
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (!_thread.Join(StopNotice))
            {
                Console.Error.WriteLine(
                    $"TfNetTrain: PythonRuntime.Dispose has waited {clock.Elapsed.TotalSeconds:F0} s for the call running on the Python " +
                    "thread (a Fit, Evaluate or Predict on another thread) to return; Python shuts down once it has");
            }
            if (_shutdownError != null) ExceptionDispatchInfo.Capture(_shutdownError).Throw();
        }

        /// <summary>How often a waiting <see cref="Stop"/> says so.</summary>
        internal static readonly TimeSpan StopNotice = TimeSpan.FromSeconds(30);

        private void Loop()
        {
            try
            {
                _initialize();
            }
            catch (Exception e)
            {
                _startError = e;
                _closed = true;
                _started.Set();
                return;
            }
            finally
            {
                _initialize = null;
            }
            _started.Set();
            while (true)
            {
                Job job = NextJob();
                if (job == null) break;
                using (Py.GIL()) job.Run();
                job.Complete();
            }
            try
            {
                _shutdown();
            }
            catch (Exception e)
            {
                _shutdownError = e;
            }
        }

        /// <summary>
        /// The next queued job, or null once closed and drained. The worker yields the processor for a short while
        /// before it sleeps: a caller in a loop (steps, property reads) sends its next call within microseconds, and
        /// a sleeping worker is woken late on a busy machine (a no-op call costs about 20 µs instead of 2).
        /// </summary>
        private Job NextJob()
        {
            long until = System.Diagnostics.Stopwatch.GetTimestamp() + WorkerSpinTicks;
            while (_queued == 0 && !_closed && System.Diagnostics.Stopwatch.GetTimestamp() < until) Thread.Yield();
            lock (_lock)
            {
                while (_queue.Count == 0 && !_closed) Monitor.Wait(_lock);
                Job job = _queue.Count > 0 ? _queue.Dequeue() : null;
                _queued = _queue.Count;
                return job;
            }
        }

        private static readonly long WorkerSpinTicks = System.Diagnostics.Stopwatch.Frequency / 5000; // 200 µs

        /// <summary>Runs <paramref name="func"/>, turning Python errors into TfNetTrainException (GIL held).</summary>
        internal static T RunMapped<T>(Func<T> func)
        {
            try
            {
                return func();
            }
            catch (PythonException e)
            {
                throw PythonErrors.Map(e);
            }
        }

        private abstract class Job
        {
            private readonly ManualResetEventSlim _done = new ManualResetEventSlim(false, 1);
            private volatile bool _finished;
            protected Exception Error;

            public abstract void Run();

            public void Complete()
            {
                _finished = true;
                _done.Set();
            }

            /// <summary>
            /// Waits for the worker. The caller next in line yields the processor rather than sleeping for the
            /// first milliseconds: a sleeping caller is woken late (about 0.6 ms measured) when TensorFlow's
            /// threads spin on every core after a step. Callers queued behind others sleep at once.
            /// </summary>
            public void Wait(bool yieldFirst)
            {
                if (yieldFirst)
                {
                    long until = System.Diagnostics.Stopwatch.GetTimestamp() + CallerSpinTicks;
                    while (!_finished && System.Diagnostics.Stopwatch.GetTimestamp() < until) Thread.Yield();
                }
                _done.Wait();
                _done.Dispose();
                if (Error != null) ExceptionDispatchInfo.Capture(Error).Throw();
            }
        }

        private static readonly long CallerSpinTicks = System.Diagnostics.Stopwatch.Frequency / 50; // 20 ms

        private sealed class Job<T> : Job
        {
            private readonly Func<T> _func;

            public Job(Func<T> func) { _func = func; }

            public T Result { get; private set; }

            public override void Run()
            {
                try
                {
                    Result = RunMapped(_func);
                }
                catch (Exception e)
                {
                    Error = e;
                }
            }
        }
    }
}
