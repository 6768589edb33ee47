// Model.Cancellation.cs: CancellationToken for Fit, Evaluate and Predict, and their Async forms.
using System;
using System.Threading;
using System.Threading.Tasks;
using Python.Runtime;

namespace TfNetTrain
{
    public sealed partial class Model
    {
        /// <summary>The Python exception a cancelled call raises (tfnet_train.bridge.cancellation).</summary>
        private const string CancelledType = "tfnet_train.bridge.cancellation.OperationCancelled";

        /// <summary>
        /// Runs <paramref name="body"/> like <see cref="Call{T}"/>, giving it the Python flag of
        /// <paramref name="token"/> (null when the token cannot be cancelled, and then nothing is checked). A token
        /// cancelled already throws before anything runs; one cancelled during the call stops it at the next batch
        /// end, as an <see cref="OperationCanceledException"/> for the token.
        /// </summary>
        private T CallCancellable<T>(CancellationToken token, Func<BridgeFacade, PyObject, T> body)
        {
            token.ThrowIfCancellationRequested();
            if (!token.CanBeCanceled) return Call(f => body(f, null));
            using (var flag = new CancellationFlag(token))
            {
                try
                {
                    return Call(f =>
                    {
                        using (var pyFlag = flag.ToPython()) return body(f, pyFlag);
                    });
                }
                catch (TfNetTrainException e) when (e.PythonTypeFullName == CancelledType)
                {
                    throw new OperationCanceledException(
                        "The operation was cancelled at a batch end (" + e.PythonMessage + ").",
                        e, token);
                }
            }
        }

        /// <summary>
        /// <paramref name="call"/> as a task: on a thread-pool thread, which waits for the Python worker (the worker
        /// itself never waits for it). From the worker thread (inside a callback) it runs inline, as the synchronous
        /// call would, and the task is complete on return.
        /// </summary>
        private Task<T> RunAsync<T>(Func<T> call, CancellationToken token)
        {
            if (token.IsCancellationRequested) return Task.FromCanceled<T>(token);
            ThrowIfDisposed();
            if (!_runtime.IsCallerOnPythonThread) return Task.Run(call, token);
            try
            {
                return Task.FromResult(call());
            }
            catch (OperationCanceledException e) when (e.CancellationToken == token)
            {
                return Task.FromCanceled<T>(token);
            }
            catch (Exception e)
            {
                return Task.FromException<T>(e);
            }
        }
    }
}
