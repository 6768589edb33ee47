using System;
using System.ComponentModel;
using System.Threading;

namespace TfNetTrain
{
    /// <summary>
    /// A <see cref="CancellationToken"/> seen from Python (tfnet_train.bridge.cancellation): the token's registration
    /// only sets <see cref="Requested"/>, on whichever thread cancels; the Python worker reads it at each batch end.
    /// Public only so that Python can read it; not meant for direct use.
    /// </summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public sealed class CancellationFlag : IDisposable
    {
        private volatile bool _requested;
        private CancellationTokenRegistration _registration;

        internal CancellationFlag(CancellationToken token)
        {
            _registration = token.Register(state => ((CancellationFlag)state)._requested = true, this);
        }

        /// <summary>True once the token has been cancelled.</summary>
        public bool Requested => _requested;

        /// <summary>Unregisters from the token.</summary>
        public void Dispose() => _registration.Dispose();
    }
}
