using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Runtime.InteropServices;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// Streams batches a C# program produces to Python (tfnet_train.bridge.host_stream.HostStream), one per request,
    /// through Unix sockets. A background thread of its own waits for each pass Python starts, then answers each of
    /// the pass's requests with a batch of a fresh enumeration (each checked against the first): copied into the
    /// memory the request offered when it fits, else its bytes after the shapes (the protocol is described there).
    /// A part held in Python (an np result made before the pass) is not read here, which would wait for the Python
    /// thread while that thread waits in fit for this batch: the answer gives the Python array's address, and the
    /// Python side reads it when it takes the batch (<see cref="NDArray.LendPython"/>; the array stays alive until
    /// the pass's Python end has closed).
    /// <para>
    /// Why sockets and a thread of our own: TensorFlow runs dataset generators on its own threads. Had they called
    /// the C# enumerator, each would be attached to the .NET runtime for good (on Mono an AppDomain holding such
    /// threads cannot be unloaded: NUnit's runner hung at the end). Had this thread handed batches over through
    /// Python objects, it would take the GIL beside the Python worker, and on Mono a Python garbage collection on
    /// this thread freeing a .NET object could stop for a .NET collection that waits on a thread waiting for that
    /// GIL (seen as a hang). With sockets, TensorFlow's threads only read, this thread never touches Python, and the
    /// enumerator runs without the GIL.
    /// </para>
    /// The thread ends when the Python stream is released (every dataset made from it gone) or when the runtime
    /// shuts down (<see cref="StopAll"/>).
    /// </summary>
    internal sealed class HostBatchStream
    {
        private static readonly object Registry = new object();
        private static readonly List<HostBatchStream> Live = new List<HostBatchStream>();

        [ThreadStatic] private static int _producing;

        private readonly IEnumerable<NDArray[]> _batches;
        private readonly NDArray[] _first;
        private readonly UnixSocket _requests;
        private readonly UnixSocket _stop;
        private readonly Thread _thread;
        private volatile bool _stopping;

        /// <summary>Creates the Python stream (GIL held, on the Python thread), starts the producer and returns the stream.</summary>
        internal static PyObject Start(BridgeFacade f, IEnumerable<NDArray[]> batches, NDArray[] first, PyObject signature)
        {
            UnixSocket.RequireNative();
            PyObject stream = f["datasets"].InvokeMethod("host_stream", signature);
            try
            {
                int requestRead, stopWrite;
                using (var r = stream.InvokeMethod("take_request_socket")) requestRead = r.As<int>();
                using (var w = stream.InvokeMethod("stop_socket")) stopWrite = w.As<int>();
                var producer = new HostBatchStream(batches, first, requestRead, stopWrite);
                lock (Registry) Live.Add(producer);
                producer._thread.Start();
                return stream;
            }
            catch
            {
                stream.Dispose();
                throw;
            }
        }

        private HostBatchStream(IEnumerable<NDArray[]> batches, NDArray[] first, int requestRead, int stopWrite)
        {
            _batches = batches;
            _first = first;
            _requests = new UnixSocket(requestRead);
            _stop = new UnixSocket(stopWrite);
            _thread = new Thread(Loop) { Name = "TfNetTrain batch producer", IsBackground = true };
        }

        /// <summary>True on a producer thread (which runs C# batch enumerators for Python, and never waits for the Python thread).</summary>
        internal static bool IsProducing => _producing > 0;

        /// <summary>Python-held parts lent to passes whose Python end could not be shown to have closed: kept for good.</summary>
        private static readonly List<NDArray> Unreturned = new List<NDArray>();

        /// <summary>Stops every producer thread (each ends after its current batch) and waits a little for them.</summary>
        internal static void StopAll()
        {
            List<HostBatchStream> streams;
            lock (Registry) streams = Live.ToList();
            foreach (var s in streams) s.RequestStop();
            foreach (var s in streams)
            {
                if (Thread.CurrentThread != s._thread) s._thread.Join(TimeSpan.FromSeconds(2));
            }
        }

        private void RequestStop()
        {
            _stopping = true;
            try
            {
                lock (_stop) _stop.Write(BitConverter.GetBytes(-1), 4);
            }
            catch (Exception e) when (e is PeerClosedException || e is ObjectDisposedException)
            {
            }
        }

        /// <summary>
        /// Serves passes until Python releases the stream or the runtime stops it. Nothing escapes this thread: a
        /// failure inside a pass is that pass's error answer; any other failure ends the thread, and the passes
        /// still queued (and later ones) see the producer gone.
        /// </summary>
        private void Loop()
        {
            _producing = 1; // for the thread's life: its calls into the library are refused, never queued
            try
            {
                var request = new byte[4];
                while (!_stopping && _requests.ReadExactly(request))
                {
                    int fd = BitConverter.ToInt32(request, 0);
                    if (fd < 0) break;
                    using (var output = new UnixSocket(fd)) RunPass(output);
                }
            }
            catch (Exception)
            {
                // cannot reach here from a pass (RunPass answers its own failures): the request channel failed
            }
            finally
            {
                EndQueuedPasses();
                lock (_stop) _stop.Dispose();
                lock (Registry) Live.Remove(this);
            }
        }

        /// <summary>
        /// Refuses the passes Python asked for that this thread will not serve, and closes the request channel: its
        /// reading half is shut first, so a pass asked for later fails to send rather than waiting for good.
        /// </summary>
        private void EndQueuedPasses()
        {
            try
            {
                _requests.ShutdownRead();
                var request = new byte[4];
                while (_requests.ReadExactly(request))
                {
                    int fd = BitConverter.ToInt32(request, 0);
                    if (fd < 0) continue;
                    using (var output = new UnixSocket(fd)) TryWriteError(output, Stopped());
                }
            }
            catch (Exception)
            {
                // the channel is gone either way
            }
            finally
            {
                try { _requests.Dispose(); } catch (Exception) { }
            }
        }

        private static Exception Stopped() =>
            new ObjectDisposedException(nameof(PythonRuntime), "the Python runtime was shut down while the batches were read");

        /// <summary>
        /// One pass (<see cref="ServePass"/>). The Python-held parts it lent stay alive until the Python end has
        /// closed (or shut its writing half): that side reads a lent part only while its end is open.
        /// </summary>
        private void RunPass(UnixSocket output)
        {
            var lent = new List<NDArray>();
            try
            {
                ServePass(output, lent);
            }
            finally
            {
                if (lent.Count > 0) ReturnLent(output, lent);
            }
        }

        private static void ReturnLent(UnixSocket output, List<NDArray> lent)
        {
            bool closed = false;
            try
            {
                output.ShutdownWrite(); // nothing more comes from here: a reader still waiting sees the end
                closed = output.WaitForPeerClose();
            }
            finally
            {
                if (closed)
                {
                    foreach (NDArray part in lent) part.ReturnPython();
                }
                else
                {
                    lock (Unreturned) Unreturned.AddRange(lent);
                }
            }
        }

        /// <summary>
        /// Answers each request with a batch, then the end mark; a failure (the enumerator's, its Dispose's, a bad
        /// batch, the runtime stopping) is the pass's error answer instead. A reader that left ends the pass
        /// silently. <paramref name="lent"/> collects the Python-held parts lent to the Python side.
        /// </summary>
        private void ServePass(UnixSocket output, List<NDArray> lent)
        {
            IEnumerator<NDArray[]> enumerator = null;
            Exception failure = null;
            try
            {
                enumerator = _batches.GetEnumerator();
                var count = new byte[4];
                var offered = new byte[0];
                for (int index = 0; ; index++)
                {
                    // one batch per request (lazy): int32 n, then n (address, capacity) pairs of memory to copy into
                    if (!output.ReadExactly(count)) return;
                    int n = BitConverter.ToInt32(count, 0);
                    if (n < 0 || n > _first.Length) return;
                    if (offered.Length != 16 * n) offered = new byte[16 * n];
                    if (!output.ReadExactly(offered)) return;
                    if (_stopping) throw Stopped();
                    NDArray[] batch = enumerator.MoveNext() ? enumerator.Current : null;
                    if (batch == null) break;
                    if (_stopping) throw Stopped();
                    Check(batch, _first, index, "batches");
                    WriteBatch(output, batch, offered, lent);
                }
            }
            catch (PeerClosedException)
            {
                return; // the pass was left early (its reader closed its socket)
            }
            catch (Exception error)
            {
                failure = error;
            }
            finally
            {
                try
                {
                    enumerator?.Dispose();
                }
                catch (Exception error)
                {
                    failure = failure ?? error;
                }
            }
            if (failure == null)
            {
                try { output.Write(BitConverter.GetBytes(0), 4); } catch (PeerClosedException) { }
            }
            else
            {
                TryWriteError(output, failure);
            }
        }

        /// <summary>Answers with <paramref name="error"/> (a reader that has gone is not told).</summary>
        private static void TryWriteError(UnixSocket output, Exception error)
        {
            bool argument = error is ArgumentException || error is TfNetTrainArgumentException || error is InvalidCastException;
            byte[] message = System.Text.Encoding.UTF8.GetBytes($"the C# batches failed: {error.GetType().Name}: {error.Message}");
            var frame = new MemoryStream();
            frame.Write(BitConverter.GetBytes(-1), 0, 4);
            frame.Write(BitConverter.GetBytes(argument ? 1 : 0), 0, 4);
            frame.Write(BitConverter.GetBytes(message.Length), 0, 4);
            frame.Write(message, 0, message.Length);
            try
            {
                output.Write(frame.GetBuffer(), (int)frame.Length);
            }
            catch (PeerClosedException)
            {
            }
        }

        /// <summary>
        /// Answers a request: copies each part into the memory the request offered when every part fits there (mark
        /// 'k'), else sends the parts' bytes after the header (mark 'd'). Python keeps offered memory alive until it
        /// has read the answer or this end has closed, so a copy never outlives it. A batch with a part held in
        /// Python (mark 'p') gives each part's Python array address (0 for a part in C# storage, whose bytes follow
        /// in order); those parts are lent (<paramref name="lent"/>) and the Python side copies them.
        /// </summary>
        private static void WriteBatch(UnixSocket output, NDArray[] batch, byte[] offered, List<NDArray> lent)
        {
            var addresses = new long[batch.Length];
            bool held = false;
            for (int i = 0; i < batch.Length; i++)
            {
                IntPtr address = batch[i].LendPython();
                if (address == IntPtr.Zero) continue;
                lent.Add(batch[i]);
                addresses[i] = address.ToInt64();
                held = true;
            }
            bool inPlace = !held && offered.Length == 16 * batch.Length;
            for (int i = 0; inPlace && i < batch.Length; i++)
                inPlace = (long)batch[i].Size * batch[i].DType.ElementSize() <= BitConverter.ToInt64(offered, 16 * i + 8);
            var header = new MemoryStream();
            header.Write(BitConverter.GetBytes(batch.Length), 0, 4);
            foreach (NDArray part in batch)
            {
                int[] shape = part.ShapeNoCopy;
                header.Write(BitConverter.GetBytes((int)part.DType), 0, 4);
                header.Write(BitConverter.GetBytes(shape.Length), 0, 4);
                foreach (int d in shape) header.Write(BitConverter.GetBytes((long)d), 0, 8);
            }
            header.WriteByte(held ? (byte)'p' : inPlace ? (byte)'k' : (byte)'d');
            if (held)
            {
                foreach (long address in addresses) header.Write(BitConverter.GetBytes(address), 0, 8);
            }
            if (inPlace)
            {
                for (int i = 0; i < batch.Length; i++)
                    ArrayExchange.CopyToNative(batch[i].LocalData, batch[i].DType, new IntPtr(BitConverter.ToInt64(offered, 16 * i)), batch[i].Size);
            }
            output.Write(header.GetBuffer(), (int)header.Length);
            if (!inPlace)
            {
                for (int i = 0; i < batch.Length; i++)
                {
                    if (addresses[i] == 0) output.Write(batch[i].LocalData, (long)batch[i].Size * batch[i].DType.ElementSize());
                }
            }
        }

        /// <summary>
        /// TfNetTrainArgumentException unless <paramref name="batch"/> has the first batch's part count, dtypes and
        /// per-sample shapes, and all its parts the same number of rows.
        /// </summary>
        internal static void Check(NDArray[] batch, NDArray[] first, int index, string paramName)
        {
            if (batch == null || batch.Length != first.Length || batch.Any(a => a == null))
                throw new TfNetTrainArgumentException(paramName, $"batch {index} must hold {first.Length} non-null arrays");
            for (int part = 0; part < batch.Length; part++)
            {
                NDArray a = batch[part], f0 = first[part];
                if (a.Rank == 0)
                    throw new TfNetTrainArgumentException(paramName, $"batch {index} part {part} must have a batch dimension; got a scalar");
                if (a.DType != f0.DType || a.Rank != f0.Rank || !a.ShapeNoCopy.Skip(1).SequenceEqual(f0.ShapeNoCopy.Skip(1)))
                    throw new TfNetTrainArgumentException(paramName,
                        $"batch {index} part {part} is {a.DType.NumpyName()} {NDArray.FormatShape(a.ShapeNoCopy)}; the first batch fixed " +
                        $"{f0.DType.NumpyName()} (n{string.Concat(f0.ShapeNoCopy.Skip(1).Select(d => ", " + d))})");
                if (a.Dim(0) != batch[0].Dim(0))
                    throw new TfNetTrainArgumentException(paramName,
                        $"batch {index} part {part} has {a.Dim(0)} rows but part 0 has {batch[0].Dim(0)}");
            }
        }

    }

    /// <summary>The Python end of a stream socket was closed (a pass left early, or the stream released).</summary>
    internal sealed class PeerClosedException : Exception
    {
        public PeerClosedException(string message = "the reader has gone") : base(message)
        {
        }
    }

    /// <summary>
    /// One end of a Unix socket pair, read and written with libc's recv/send (no SIGPIPE: a closed peer is a
    /// PeerClosedException). Raw descriptors because Mono's FileStream refuses descriptors it did not open.
    /// </summary>
    internal sealed class UnixSocket : IDisposable
    {
        private const int MsgNoSignal = 0x4000, EINTR = 4;
        private int _fd;

        public UnixSocket(int fd)
        {
            _fd = fd;
        }

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern IntPtr send(int fd, IntPtr buffer, UIntPtr length, int flags);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern IntPtr recv(int fd, IntPtr buffer, UIntPtr length, int flags);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int close(int fd);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int shutdown(int fd, int how);

        /// <summary>
        /// TfNetTrainException unless libc's socket calls load here (glibc's libc.so.6: not on musl or macOS), checked
        /// on the calling thread before a producer thread would need them.
        /// </summary>
        internal static void RequireNative()
        {
            try
            {
                foreach (string name in new[] { nameof(send), nameof(recv), nameof(close), nameof(shutdown) })
                    Marshal.Prelink(typeof(UnixSocket).GetMethod(name, System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static));
            }
            catch (Exception e) when (e is DllNotFoundException || e is EntryPointNotFoundException)
            {
                throw new TfNetTrainException($"streamed batches need glibc's libc.so.6 (send, recv, close, shutdown): {e.Message}; " +
                                              "use from_generator(batches, materialize: true)", e);
            }
        }

        /// <summary>Shuts the reading half: data already queued can still be read, a peer's later send fails.</summary>
        public void ShutdownRead()
        {
            if (_fd >= 0) shutdown(_fd, 0);
        }

        /// <summary>Shuts the writing half: the peer reads the end of the stream after what was sent.</summary>
        public void ShutdownWrite()
        {
            if (_fd >= 0) shutdown(_fd, 1);
        }

        /// <summary>
        /// Reads (and drops) until the peer has closed or shut its writing half; whether it provably did (end of
        /// stream, or the connection reset), not another error.
        /// </summary>
        public bool WaitForPeerClose()
        {
            const int ECONNRESET = 104, EPIPE = 32;
            var buffer = new byte[4096];
            var pin = GCHandle.Alloc(buffer, GCHandleType.Pinned);
            try
            {
                while (true)
                {
                    long n = recv(_fd, pin.AddrOfPinnedObject(), (UIntPtr)(uint)buffer.Length, 0).ToInt64();
                    if (n > 0) continue;
                    if (n == 0) return true;
                    int errno = Marshal.GetLastWin32Error();
                    if (errno == EINTR) continue;
                    return errno == ECONNRESET || errno == EPIPE;
                }
            }
            finally
            {
                pin.Free();
            }
        }

        /// <summary>Writes the first <paramref name="count"/> bytes of <paramref name="buffer"/> (any array of primitives).</summary>
        public void Write(Array buffer, long count)
        {
            var pin = GCHandle.Alloc(buffer, GCHandleType.Pinned);
            try
            {
                IntPtr start = pin.AddrOfPinnedObject();
                for (long done = 0; done < count;)
                {
                    long n = send(_fd, new IntPtr(start.ToInt64() + done), (UIntPtr)(ulong)(count - done), MsgNoSignal).ToInt64();
                    if (n < 0)
                    {
                        int errno = Marshal.GetLastWin32Error();
                        if (errno == EINTR) continue;
                        throw new PeerClosedException($"send failed (errno {errno}): the reader has gone");
                    }
                    done += n;
                }
            }
            finally
            {
                pin.Free();
            }
        }

        /// <summary>Fills <paramref name="into"/>; false at end of stream.</summary>
        public bool ReadExactly(byte[] into)
        {
            var pin = GCHandle.Alloc(into, GCHandleType.Pinned);
            try
            {
                IntPtr start = pin.AddrOfPinnedObject();
                for (int done = 0; done < into.Length;)
                {
                    long n = recv(_fd, start + done, (UIntPtr)(uint)(into.Length - done), 0).ToInt64();
                    if (n < 0 && Marshal.GetLastWin32Error() == EINTR) continue;
                    if (n <= 0) return false;
                    done += (int)n;
                }
                return true;
            }
            finally
            {
                pin.Free();
            }
        }

        public void Dispose()
        {
            if (_fd >= 0) close(_fd);
            _fd = -1;
        }
    }
}
