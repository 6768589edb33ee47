using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Reflection;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// Receives hooks from the Python side (tfnet_train.bridge.HostCallback) and calls one <see cref="ICallback"/>.
    /// Public only so that Python can call <see cref="Dispatch"/>; not meant for direct use.
    /// </summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public sealed class CallbackDispatcher
    {
        private static readonly string[] HookNames =
        {
            "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_train_batch_begin", "on_train_batch_end",
        };

        private static readonly string[] MethodNames =
        {
            "OnTrainBegin", "OnTrainEnd", "OnEpochBegin", "OnEpochEnd", "OnTrainBatchBegin", "OnTrainBatchEnd",
        };

        private readonly ICallback _callback;

        internal CallbackDispatcher(ICallback callback)
        {
            _callback = callback;
        }

        /// <summary>The Python hook names this callback implements (for CallbackBase: the overridden ones).</summary>
        internal List<string> ImplementedHooks()
        {
            var hooks = new List<string>();
            var asBase = _callback as CallbackBase;
            for (int i = 0; i < HookNames.Length; i++)
            {
                if (asBase == null || IsOverridden(_callback.GetType(), MethodNames[i])) hooks.Add(HookNames[i]);
            }
            return hooks;
        }

        /// <summary>
        /// Called from Python: one hook with its index (-1 when none) and logs. pythonnet releases the GIL around
        /// calls into .NET, so the logs are read under a re-acquired GIL and the callback itself runs without it.
        /// </summary>
        public void Dispatch(string hook, long index, PyObject logs)
        {
            Dictionary<string, float> values;
            using (Py.GIL()) values = PyConvert.ToFloatDictionary(logs);
            PythonWorker.EnterPythonCall(); // the callback's library calls run inline, whichever thread Python calls from
            try
            {
                switch (hook)
                {
                    case "on_train_begin": _callback.OnTrainBegin(values); break;
                    case "on_train_end": _callback.OnTrainEnd(values); break;
                    case "on_epoch_begin": _callback.OnEpochBegin(checked((int)index), values); break;
                    case "on_epoch_end": _callback.OnEpochEnd(checked((int)index), values); break;
                    case "on_train_batch_begin": _callback.OnTrainBatchBegin(index, values); break;
                    case "on_train_batch_end": _callback.OnTrainBatchEnd(index, values); break;
                    default: throw new ArgumentException($"unknown hook '{hook}'", nameof(hook));
                }
            }
            finally
            {
                PythonWorker.LeavePythonCall();
            }
        }

        private static bool IsOverridden(Type type, string methodName)
        {
            foreach (MethodInfo method in type.GetMethods(BindingFlags.Instance | BindingFlags.Public))
            {
                if (method.Name == methodName && method.GetBaseDefinition().DeclaringType == typeof(CallbackBase)
                    && method.DeclaringType != typeof(CallbackBase))
                {
                    return true;
                }
            }
            return false;
        }
    }
}
