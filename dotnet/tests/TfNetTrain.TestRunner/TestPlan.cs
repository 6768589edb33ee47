using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Reflection;
using NUnit.Framework;

namespace TfNetTrain.TestRunner
{
    /// <summary>One runnable test: a method and the arguments of one of its cases.</summary>
    public sealed class TestCase
    {
        public TestCase(MethodInfo method, object[] arguments, string name, int timeoutMs)
        {
            Method = method;
            Arguments = arguments;
            FullName = method.DeclaringType.FullName + "." + name;
            TimeoutMs = timeoutMs;
            SkipReason = TestPlan.SkipReasonOf(method);
            Unsupported = TestPlan.UnsupportedAttributesOf(method);
        }

        public MethodInfo Method { get; }
        public object[] Arguments { get; }
        public string FullName { get; }
        /// <summary>[Timeout] in milliseconds, 0 for none.</summary>
        public int TimeoutMs { get; }
        /// <summary>Why the case does not run ([Ignore], [Explicit] on it or its fixture), or null.</summary>
        public string SkipReason { get; }
        /// <summary>NUnit attributes this runner does not implement (the case fails naming them), or null.</summary>
        public string Unsupported { get; }
    }

    /// <summary>A fixture class with its one-time and per-test set-up and tear-down methods and its cases.</summary>
    public sealed class Fixture
    {
        public Type Type;
        public List<MethodInfo> FixtureSetUp = new List<MethodInfo>();
        public List<MethodInfo> FixtureTearDown = new List<MethodInfo>();
        public List<MethodInfo> SetUp = new List<MethodInfo>();
        public List<MethodInfo> TearDown = new List<MethodInfo>();
        public List<TestCase> Cases = new List<TestCase>();
    }

    /// <summary>What to run: [SetUpFixture] classes (their [SetUp] before every fixture of their namespace, their
    /// [TearDown] after) and fixtures, each with its cases from [Test], [TestCase], [TestCaseSource] and [Values].</summary>
    public sealed class TestPlan
    {
        public List<Fixture> SetUpFixtures = new List<Fixture>();
        public List<Fixture> Fixtures = new List<Fixture>();

        public static TestPlan Discover(Assembly assembly, string where, ISet<string> fixtures = null)
        {
            var plan = new TestPlan();
            foreach (Type type in assembly.GetTypes().Where(t => t.IsClass && !t.IsAbstract).OrderBy(t => t.FullName, StringComparer.Ordinal))
            {
                if (type.IsDefined(typeof(SetUpFixtureAttribute), false))
                {
                    plan.SetUpFixtures.Add(new Fixture
                    {
                        Type = type, FixtureSetUp = Marked<SetUpAttribute>(type), FixtureTearDown = Marked<TearDownAttribute>(type),
                    });
                    continue;
                }
                var fixture = new Fixture
                {
                    Type = type,
                    FixtureSetUp = Marked<TestFixtureSetUpAttribute>(type),
                    FixtureTearDown = Marked<TestFixtureTearDownAttribute>(type),
                    SetUp = Marked<SetUpAttribute>(type),
                    TearDown = Marked<TearDownAttribute>(type),
                };
                foreach (MethodInfo method in type.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static)
                                                   .OrderBy(m => m.MetadataToken))
                    fixture.Cases.AddRange(CasesOf(type, method));
                if (where != null) fixture.Cases.RemoveAll(c => c.FullName.IndexOf(where, StringComparison.Ordinal) < 0);
                if (fixtures != null && !fixtures.Contains(type.FullName)) continue;
                if (fixture.Cases.Count > 0) plan.Fixtures.Add(fixture);
            }
            return plan;
        }

        /// <summary>The NUnit attributes this runner implements; any other one on a case makes it fail rather than run
        /// differently from NUnit.</summary>
        private static readonly HashSet<string> Supported = new HashSet<string>
        {
            "TestFixture", "Test", "TestCase", "TestCaseSource", "Values", "SetUp", "TearDown", "TestFixtureSetUp",
            "TestFixtureTearDown", "SetUpFixture", "Timeout", "Ignore", "Explicit", "Category", "Description",
        };

        internal static string UnsupportedAttributesOf(MethodInfo method)
        {
            var attributes = method.GetCustomAttributes(true)
                .Concat(method.DeclaringType.GetCustomAttributes(true))
                .Concat(method.GetParameters().SelectMany(p => p.GetCustomAttributes(true)));
            var names = attributes.Select(a => a.GetType()).Where(t => t.Namespace == "NUnit.Framework")
                                  .Select(t => t.Name.EndsWith("Attribute", StringComparison.Ordinal) ? t.Name.Substring(0, t.Name.Length - 9) : t.Name)
                                  .Where(n => !Supported.Contains(n)).Distinct().OrderBy(n => n, StringComparer.Ordinal).ToList();
            return names.Count == 0 ? null : "unsupported NUnit attribute(s): " + string.Join(", ", names.Select(n => "[" + n + "]"));
        }

        internal static string SkipReasonOf(MethodInfo method)
        {
            foreach (ICustomAttributeProvider target in new ICustomAttributeProvider[] { method, method.DeclaringType })
            {
                var ignore = (IgnoreAttribute)target.GetCustomAttributes(typeof(IgnoreAttribute), true).FirstOrDefault();
                if (ignore != null) return "ignored: " + (ignore.Reason ?? "");
                if (target.IsDefined(typeof(ExplicitAttribute), true)) return "explicit: runs only when selected";
            }
            return null;
        }

        /// <summary>The methods carrying attribute T, base classes first (NUnit's order for set-up).</summary>
        private static List<MethodInfo> Marked<T>(Type type) where T : Attribute
        {
            var chain = new List<Type>();
            for (Type t = type; t != null && t != typeof(object); t = t.BaseType) chain.Insert(0, t);
            return chain.SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                                      BindingFlags.Static | BindingFlags.DeclaredOnly))
                        .Where(m => m.IsDefined(typeof(T), false)).ToList();
        }

        private static IEnumerable<TestCase> CasesOf(Type type, MethodInfo method)
        {
            int timeout = method.GetCustomAttributes(typeof(TimeoutAttribute), true).Cast<TimeoutAttribute>()
                                .Select(a => (int)a.Properties["Timeout"]).FirstOrDefault();
            ParameterInfo[] parameters = method.GetParameters();
            foreach (TestCaseAttribute attribute in method.GetCustomAttributes(typeof(TestCaseAttribute), false))
            {
                object[] arguments = Convert(attribute.Arguments ?? new object[0], parameters, method);
                yield return new TestCase(method, arguments, attribute.TestName ?? NameOf(method, arguments), timeout);
            }
            foreach (TestCaseSourceAttribute attribute in method.GetCustomAttributes(typeof(TestCaseSourceAttribute), false))
            {
                foreach (object item in SourceItems(attribute.SourceType ?? type, attribute.SourceName))
                {
                    var data = item as TestCaseData;
                    object[] raw = data != null ? data.Arguments : item as object[] ?? new[] { item };
                    object[] arguments = Convert(raw, parameters, method);
                    yield return new TestCase(method, arguments, data?.TestName ?? NameOf(method, arguments), timeout);
                }
            }
            if (!method.IsDefined(typeof(TestAttribute), false)) yield break;
            if (parameters.Length == 0)
            {
                yield return new TestCase(method, new object[0], method.Name, timeout);
                yield break;
            }
            // [Values] on every parameter: NUnit's default combinatorial product.
            var values = new List<object[]>();
            foreach (ParameterInfo parameter in parameters)
            {
                var attribute = (ValuesAttribute)parameter.GetCustomAttributes(typeof(ValuesAttribute), false).FirstOrDefault();
                if (attribute == null)
                    throw new NotSupportedException($"{type.FullName}.{method.Name}: parameter '{parameter.Name}' has no [Values]");
                values.Add(attribute.GetData(parameter).Cast<object>().ToArray());
            }
            foreach (object[] combination in Product(values))
            {
                object[] arguments = Convert(combination, parameters, method);
                yield return new TestCase(method, arguments, NameOf(method, arguments), timeout);
            }
        }

        private static IEnumerable<object> SourceItems(Type type, string name)
        {
            const BindingFlags flags = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance;
            MemberInfo member = type.GetMember(name, flags).FirstOrDefault()
                                ?? throw new MissingMemberException(type.FullName, name);
            object target = null;
            bool isStatic = member is FieldInfo f ? f.IsStatic : member is PropertyInfo p ? p.GetGetMethod(true).IsStatic : ((MethodInfo)member).IsStatic;
            if (!isStatic) target = Activator.CreateInstance(type);
            object source = member is FieldInfo field ? field.GetValue(target)
                          : member is PropertyInfo property ? property.GetValue(target)
                          : ((MethodInfo)member).Invoke(target, null);
            return ((IEnumerable)source).Cast<object>();
        }

        private static IEnumerable<object[]> Product(List<object[]> values)
        {
            IEnumerable<object[]> result = new[] { new object[0] };
            foreach (object[] options in values)
            {
                object[] current = options;
                result = result.SelectMany(prefix => current.Select(v => prefix.Concat(new[] { v }).ToArray()));
            }
            return result;
        }

        /// <summary>NUnit's widening of attribute arguments (e.g. an int literal for a double parameter).</summary>
        private static object[] Convert(object[] arguments, ParameterInfo[] parameters, MethodInfo method)
        {
            if (arguments.Length != parameters.Length)
                throw new ArgumentException($"{method.DeclaringType.FullName}.{method.Name} takes {parameters.Length} arguments, a case gives {arguments.Length}");
            var converted = new object[arguments.Length];
            for (int i = 0; i < arguments.Length; i++)
            {
                object value = arguments[i];
                Type target = parameters[i].ParameterType;
                if (value != null && !target.IsInstanceOfType(value) && value is IConvertible && !target.IsEnum)
                    value = System.Convert.ChangeType(value, Nullable.GetUnderlyingType(target) ?? target, CultureInfo.InvariantCulture);
                converted[i] = value;
            }
            return converted;
        }

        private static string NameOf(MethodInfo method, object[] arguments)
        {
            if (arguments.Length == 0) return method.Name;
            return method.Name + "(" + string.Join(",", arguments.Select(Display)) + ")";
        }

        private static string Display(object value)
        {
            if (value == null) return "null";
            if (value is string)
                return "\"" + ((string)value).Replace("\\", "\\\\").Replace("\"", "\\\"").Replace("\n", "\\n").Replace("\r", "\\r").Replace("\t", "\\t") + "\"";
            if (value is float) return ((float)value).ToString("R", CultureInfo.InvariantCulture) + "f";
            if (value is double) return ((double)value).ToString("R", CultureInfo.InvariantCulture) + "d";
            if (value is bool) return (bool)value ? "True" : "False";
            var formattable = value as IFormattable;
            return formattable != null ? formattable.ToString(null, CultureInfo.InvariantCulture) : value.ToString();
        }
    }
}
