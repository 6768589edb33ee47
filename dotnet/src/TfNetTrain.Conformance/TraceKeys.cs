using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// The flat trace keys of docs/conformance.md: the stages in the order a training step computes them, the
    /// stage of a key, and the order keys are compared and reported in.
    /// </summary>
    public static class TraceKeys
    {
        /// <summary>The stages of a step, in order (tfnet_train.engine.trace.STAGES).</summary>
        public static readonly IReadOnlyList<string> Stages = new[]
        {
            "inputs", "y_pred", "loss", "gradients", "aggregated_gradients", "clipped_gradients", "weights",
            "optimizer_state", "metrics",
        };

        /// <summary>Orders keys by stage (known stages first, in <see cref="Stages"/> order), then naturally within a stage.</summary>
        public static readonly IComparer<string> Order = new KeyOrder();

        /// <summary>The stage a key belongs to: "gradients/0" gives "gradients", "loss" gives "loss".</summary>
        public static string StageOf(string key)
        {
            if (key == null) throw new ArgumentNullException(nameof(key));
            int slash = key.IndexOf('/');
            return slash < 0 ? key : key.Substring(0, slash);
        }

        /// <summary>Position of a stage in <see cref="Stages"/>; unknown stages come after all known ones.</summary>
        public static int RankOf(string stage)
        {
            for (int i = 0; i < Stages.Count; i++)
                if (Stages[i] == stage) return i;
            return Stages.Count;
        }

        /// <summary>The keys sorted by <see cref="Order"/>.</summary>
        public static List<string> Ordered(IEnumerable<string> keys)
        {
            var list = keys.ToList();
            list.Sort(Order);
            return list;
        }

        private sealed class KeyOrder : IComparer<string>
        {
            public int Compare(string x, string y)
            {
                string sx = StageOf(x), sy = StageOf(y);
                int c = RankOf(sx).CompareTo(RankOf(sy));
                if (c != 0) return c;
                c = string.CompareOrdinal(sx, sy);
                if (c != 0) return c;
                string[] px = x.Split('/'), py = y.Split('/');
                for (int i = 0; i < Math.Min(px.Length, py.Length); i++)
                {
                    c = ComparePart(px[i], py[i]);
                    if (c != 0) return c;
                }
                return px.Length.CompareTo(py.Length);
            }

            // Numbers sort before names and by value ("2" before "10"); names sort by code point.
            private static int ComparePart(string a, string b)
            {
                bool na = IsNumber(a), nb = IsNumber(b);
                if (na != nb) return na ? -1 : 1;
                if (na)
                {
                    int c = decimal.Parse(a, CultureInfo.InvariantCulture).CompareTo(decimal.Parse(b, CultureInfo.InvariantCulture));
                    if (c != 0) return c;
                }
                return na ? 0 : string.CompareOrdinal(a, b);
            }

            private static bool IsNumber(string part)
            {
                return part.Length > 0 && part.Length <= 28 && part.All(ch => ch >= '0' && ch <= '9');
            }
        }
    }
}
