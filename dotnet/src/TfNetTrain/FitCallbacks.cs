using System;
using System.Collections.Generic;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// The callbacks of one fit as Python sees them: each C# <see cref="ICallback"/> behind a host callback
    /// (tfnet_train.bridge.host_callback) and each <see cref="KerasCallback"/> spec built in Python, in list order.
    /// Checked in C# first (null entries), so a bad list changes nothing.
    /// </summary>
    internal sealed class FitCallbacks
    {
        private readonly IList<ICallback> _callbacks;
        private readonly List<CallbackDispatcher> _dispatchers = new List<CallbackDispatcher>();

        /// <summary>Checks <paramref name="callbacks"/> and points every <see cref="CallbackBase"/> at <paramref name="model"/>.</summary>
        public FitCallbacks(IList<ICallback> callbacks, Model model, string paramName = "callbacks")
        {
            _callbacks = callbacks ?? new ICallback[0];
            for (int i = 0; i < _callbacks.Count; i++)
            {
                if (_callbacks[i] == null) throw new ArgumentNullException(paramName, $"{paramName}[{i}] is null");
            }
            foreach (var callback in _callbacks)
            {
                if (callback is KerasCallback) continue;
                var asBase = callback as CallbackBase;
                if (asBase != null) asBase.Model = model;
                _dispatchers.Add(new CallbackDispatcher(callback));
            }
        }

        /// <summary>The Python list of callbacks for fit's <c>callbacks</c> argument (GIL held).</summary>
        public PyList ToPython(BridgeFacade f)
        {
            var list = new PyList();
            try
            {
                int next = 0;
                foreach (var item in _callbacks)
                {
                    var spec = item as KerasCallback;
                    if (spec != null)
                    {
                        using (var name = new PyString(spec.ClassName))
                        using (var kwargs = PyConvert.Kwargs(spec.Arguments))
                        using (var callback = f["build_callback"].Invoke(name, kwargs))
                        {
                            list.Append(callback);
                        }
                        continue;
                    }
                    var dispatcher = _dispatchers[next++];
                    using (var host = dispatcher.ToPython())
                    using (var hooks = PyConvert.ToPython(dispatcher.ImplementedHooks()))
                    using (var callback = f["host_callback"].Invoke(host, hooks))
                    {
                        list.Append(callback);
                    }
                }
                return list;
            }
            catch
            {
                list.Dispose();
                throw;
            }
        }
    }
}
