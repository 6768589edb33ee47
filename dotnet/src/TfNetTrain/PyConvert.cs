using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>Conversions between plain C# values and Python objects (GIL required).</summary>
    internal static class PyConvert
    {
        /// <summary>An argument value that is Python's None where leaving the argument out would give its default (a
        /// spec leaves null values out): TF.NET's <c>Normalization(axis: null)</c>.</summary>
        internal static readonly object None = new NoneMarker();

        private sealed class NoneMarker
        {
            public override string ToString() => "None";
        }

        /// <summary>
        /// A Python object for a plain C# value: null → None, bool, integers, floats (a float becomes the shortest
        /// decimal that round-trips, so 0.9f means Python's 0.9), strings, int/long/float/double arrays → tuples,
        /// NDArray → numpy array, dictionaries → dict, specs → (class name, kwargs), other sequences → list.
        /// </summary>
        public static PyObject ToPython(object value)
        {
            if (value == null || value is NoneMarker) return PyObject.None;
            var py = value as PyObject;
            if (py != null) return py.NewReference();
            if (value is bool) return ((bool)value).ToPython();
            if (value is int) return Int((int)value);
            if (value is long) return Int((long)value);
            if (value is float) return new PyFloat(ShortestDouble((float)value));
            if (value is double) return new PyFloat((double)value);
            var s = value as string;
            if (s != null) return new PyString(s);
            var array = value as NDArray;
            if (array != null) return ArrayExchange.ToNumpy(array);
            var spec = value as KerasObjectSpec;
            if (spec != null) return SpecPair(spec);
            var ints = value as int[];
            if (ints != null) return Tuple(ints.Length, k => Int(ints[k]));
            var longs = value as long[];
            if (longs != null) return Tuple(longs.Length, k => Int(longs[k]));
            var floats = value as float[];
            if (floats != null) return Tuple(floats.Length, k => new PyFloat(ShortestDouble(floats[k])));
            var doubles = value as double[];
            if (doubles != null) return Tuple(doubles.Length, k => new PyFloat(doubles[k]));
            var dictionary = value as IDictionary;
            if (dictionary != null) return Dict(dictionary);
            var sequence = value as IEnumerable;
            if (sequence != null) return List(sequence);
            throw new TfNetTrainArgumentException("value",
                $"cannot pass a {value.GetType().FullName} to Python; use numbers, strings, bools, arrays, NDArray, dictionaries or lists");
        }

        /// <summary>A Python dict of keyword arguments; null gives an empty dict.</summary>
        public static PyDict Kwargs(IEnumerable<KeyValuePair<string, object>> arguments)
        {
            var dict = new PyDict();
            if (arguments == null) return dict;
            foreach (var pair in arguments)
            {
                using (var v = ToPython(pair.Value)) dict[pair.Key] = v;
            }
            return dict;
        }

        /// <summary>(class name, kwargs) — the form tfnet_train.bridge builds layers, optimizers and losses from.</summary>
        public static PyObject SpecPair(KerasObjectSpec spec)
        {
            if (spec.IsName) return new PyString(spec.ClassName);
            using (var name = new PyString(spec.ClassName))
            using (var kwargs = Kwargs(spec.Arguments))
            {
                return new PyTuple(new PyObject[] { name, kwargs });
            }
        }

        /// <summary>The items of a Python iterable (each must be disposed by the caller).</summary>
        public static IEnumerable<PyObject> Iterate(PyObject iterable)
        {
            using (var iterator = iterable.GetIterator())
            {
                while (iterator.MoveNext()) yield return iterator.Current;
            }
        }

        /// <summary>A Python int.</summary>
        public static PyObject Int(long value) => value.ToPython();

        /// <summary>The shortest decimal that reads back as <paramref name="value"/> in float32, as a double.</summary>
        public static double ShortestDouble(float value)
        {
            if (float.IsNaN(value) || float.IsInfinity(value)) return value;
            for (int digits = 6; digits <= 9; digits++)
            {
                string text = value.ToString("G" + digits.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
                if (float.Parse(text, CultureInfo.InvariantCulture) == value)
                    return double.Parse(text, CultureInfo.InvariantCulture);
            }
            return value;
        }

        /// <summary>A Python number as a double (float or anything float() accepts).</summary>
        public static double ToDouble(PyObject value)
        {
            if (PyFloat.IsFloatType(value)) return value.As<double>();
            using (var f = PyFloat.AsFloat(value)) return f.As<double>();
        }

        /// <summary>{str: number} → Dictionary, keeping Python's order; None gives an empty dictionary.</summary>
        public static Dictionary<string, float> ToFloatDictionary(PyObject dict)
        {
            var result = new Dictionary<string, float>();
            if (dict != null && !dict.IsNone()) ForEachItem(dict, (key, value) => result[key] = (float)ToDouble(value));
            return result;
        }

        /// <summary>Calls <paramref name="body"/> with each (str key, value) of a Python dict, in its order.</summary>
        public static void ForEachItem(PyObject dict, Action<string, PyObject> body)
        {
            using (var items = dict.InvokeMethod("items"))
            {
                foreach (PyObject item in Iterate(items))
                {
                    using (item)
                    using (var key = item[0])
                    using (var value = item[1])
                    {
                        body(key.As<string>(), value);
                    }
                }
            }
        }

        /// <summary>A Python sequence of arrays (or None entries) → NDArrays (null for None).</summary>
        public static List<NDArray> ToArrayList(PyObject sequence)
        {
            var result = new List<NDArray>();
            foreach (PyObject item in Iterate(sequence))
            {
                using (item) result.Add(item.IsNone() ? null : ArrayExchange.FromNumpy(item));
            }
            return result;
        }

        /// <summary>A Python sequence of ints → int[].</summary>
        public static int[] ToInts(PyObject sequence) => sequence.As<int[]>();

        private static PyTuple Tuple(int count, Func<int, PyObject> item)
        {
            var items = new PyObject[count];
            try
            {
                for (int k = 0; k < count; k++) items[k] = item(k);
                return new PyTuple(items);
            }
            finally
            {
                foreach (var i in items) i?.Dispose();
            }
        }

        private static PyDict Dict(IDictionary dictionary)
        {
            var dict = new PyDict();
            foreach (DictionaryEntry entry in dictionary)
            {
                using (var k = ToPython(entry.Key))
                using (var v = ToPython(entry.Value))
                {
                    dict[k] = v;
                }
            }
            return dict;
        }

        private static PyList List(IEnumerable sequence)
        {
            var list = new PyList();
            foreach (object item in sequence)
            {
                using (var v = ToPython(item)) list.Append(v);
            }
            return list;
        }
    }
}
