using System;
using System.Collections.Generic;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Compares two implementations' traces (one flat trace per step) key by key, stage by stage, as the Python
    /// side's tfnet_train.conformance.compare does. Only keys both traces have are compared. An element passes when
    /// <c>|a - b| &lt;= atol + rtol * |b|</c> (NaN equals NaN; values are compared as doubles); a shape mismatch or a
    /// missing step is a divergence too. The first divergence is the earliest step, then the earliest stage in
    /// <see cref="TraceKeys.Stages"/> order, then the first key (natural order), then the first flat index.
    /// </summary>
    public static class TraceComparer
    {
        /// <summary>Compares <paramref name="a"/> against the baseline <paramref name="b"/>.</summary>
        public static TraceComparison Compare(IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> a,
                                              IReadOnlyList<IReadOnlyDictionary<string, NpyArray>> b,
                                              Tolerance tolerance, string nameA = "a", string nameB = "b")
        {
            if (a == null) throw new ArgumentNullException(nameof(a));
            if (b == null) throw new ArgumentNullException(nameof(b));
            if (tolerance == null) throw new ArgumentNullException(nameof(tolerance));
            var result = new TraceComparison(nameA, nameB, tolerance);
            var stages = new Dictionary<string, StageResult>();
            if (a.Count > 0 && b.Count > 0)
            {
                result.OnlyInA = TraceKeys.Ordered(a[0].Keys.Where(k => !b[0].ContainsKey(k)));
                result.OnlyInB = TraceKeys.Ordered(b[0].Keys.Where(k => !a[0].ContainsKey(k)));
            }
            int steps = Math.Max(a.Count, b.Count);
            for (int step = 0; step < steps; step++)
            {
                if (step >= a.Count || step >= b.Count)
                {
                    if (result.FirstDivergence == null)
                    {
                        string shorter = step >= a.Count ? nameA : nameB;
                        result.FirstDivergence = new Divergence(step, "steps", "", Divergence.MissingStepReason)
                        {
                            Detail = string.Format("{0} has {1} steps, the other {2}", shorter, Math.Min(a.Count, b.Count),
                                                   Math.Max(a.Count, b.Count)),
                        };
                    }
                    break;
                }
                result.StepsCompared++;
                IReadOnlyDictionary<string, NpyArray> ta = a[step], tb = b[step];
                foreach (string key in TraceKeys.Ordered(ta.Keys.Where(tb.ContainsKey)))
                {
                    string stage = TraceKeys.StageOf(key);
                    StageResult record;
                    if (!stages.TryGetValue(stage, out record)) stages[stage] = record = new StageResult(stage);
                    CompareArrays(step, key, stage, ta[key], tb[key], tolerance, record, result);
                }
            }
            result.Stages = stages.Values
                .OrderBy(s => TraceKeys.RankOf(s.Stage)).ThenBy(s => s.Stage, StringComparer.Ordinal).ToList();
            return result;
        }

        private static void CompareArrays(int step, string key, string stage, NpyArray va, NpyArray vb, Tolerance tol,
                                          StageResult record, TraceComparison result)
        {
            if (va == null || vb == null)
                throw new ArgumentException(string.Format("trace step {0}: expected an array for key '{1}', got null", step, key));
            if (!va.Shape.SequenceEqual(vb.Shape))
            {
                record.Passed = false;
                if (result.FirstDivergence == null)
                {
                    result.FirstDivergence = new Divergence(step, stage, key, Divergence.ShapeReason)
                    {
                        Detail = string.Format("shape {0} in {1} vs {2} in {3}", NpyArray.FormatShape(va.Shape), result.A,
                                               NpyArray.FormatShape(vb.Shape), result.B),
                    };
                }
                return;
            }
            int n = va.Size;
            record.Compared += n;
            if (n == 0) return;
            double maxAbs = double.NegativeInfinity, maxRel = double.NegativeInfinity;
            bool relNaN = false;
            int firstBad = -1;
            double badA = 0, badB = 0, badDiff = 0, badAllowed = 0;
            for (int i = 0; i < n; i++)
            {
                double x = va.GetDouble(i), y = vb.GetDouble(i);
                double diff;
                if (double.IsNaN(x) && double.IsNaN(y)) diff = 0;
                else
                {
                    diff = Math.Abs(x - y);
                    if (double.IsNaN(diff)) diff = double.PositiveInfinity;
                }
                double allowed = tol.Atol + tol.Rtol * Math.Abs(NanToNum(y));
                double rel = y != 0 && !double.IsNaN(y) ? diff / Math.Abs(y) : 0;
                if (diff > maxAbs) maxAbs = diff;
                if (double.IsNaN(rel)) relNaN = true;
                else if (rel > maxRel) maxRel = rel;
                if (firstBad < 0 && diff > allowed)
                {
                    firstBad = i;
                    badA = x;
                    badB = y;
                    badDiff = diff;
                    badAllowed = allowed;
                }
            }
            // As max(running, float(array.max())) in Python: an array's maximum is NaN when any element is, and a NaN
            // never replaces the running maximum.
            if (maxAbs > record.MaxAbs) record.MaxAbs = maxAbs;
            double stepRel = relNaN ? double.NaN : maxRel;
            if (stepRel > record.MaxRel) record.MaxRel = stepRel;
            if (firstBad < 0) return;
            record.Passed = false;
            if (result.FirstDivergence != null) return;
            result.FirstDivergence = new Divergence(step, stage, key, Divergence.ValueReason)
            {
                Index = firstBad,
                Position = Unravel(firstBad, va.Shape),
                A = badA,
                B = badB,
                AbsError = badDiff,
                Allowed = badAllowed,
            };
        }

        private static double NanToNum(double value)
        {
            if (double.IsNaN(value)) return 0;
            if (double.IsPositiveInfinity(value)) return double.MaxValue;
            if (double.IsNegativeInfinity(value)) return -double.MaxValue;
            return value;
        }

        private static int[] Unravel(int index, int[] shape)
        {
            var position = new int[shape.Length];
            for (int axis = shape.Length - 1; axis >= 0; axis--)
            {
                position[axis] = index % shape[axis];
                index /= shape[axis];
            }
            return position;
        }
    }
}
