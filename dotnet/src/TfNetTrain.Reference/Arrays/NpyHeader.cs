using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace TfNetTrain.Reference
{
    /// <summary>The fields of a .npy header: a Python dict literal with 'descr', 'fortran_order' and 'shape'.</summary>
    internal sealed class NpyHeader
    {
        private readonly string _text;
        private readonly string _source;
        private int _pos;

        private NpyHeader(string text, string source)
        {
            _text = text;
            _source = source;
        }

        public string Descr { get; private set; }

        public bool FortranOrder { get; private set; }

        public int[] Shape { get; private set; }

        /// <summary>Parses the header dict; every one of the three keys must be present, others are rejected.</summary>
        public static NpyHeader Parse(string text, string source)
        {
            var header = new NpyHeader(text, source);
            header.ParseDict();
            return header;
        }

        private void ParseDict()
        {
            var seen = new HashSet<string>();
            SkipSpace();
            Expect('{');
            while (true)
            {
                SkipSpace();
                if (Peek() == '}') { _pos++; break; }
                string key = ParseString();
                SkipSpace();
                Expect(':');
                SkipSpace();
                if (!seen.Add(key)) throw Error("expected each header key once, got '" + key + "' twice");
                switch (key)
                {
                    case "descr":
                        if (Peek() != '\'' && Peek() != '"')
                            throw Error("expected a simple dtype string for 'descr', got a structured dtype (not supported)");
                        Descr = ParseString();
                        break;
                    case "fortran_order":
                        FortranOrder = ParseBool();
                        break;
                    case "shape":
                        Shape = ParseShape();
                        break;
                    default:
                        throw Error("expected header keys 'descr', 'fortran_order', 'shape', got '" + key + "'");
                }
                SkipSpace();
                if (Peek() == ',') { _pos++; continue; }
                SkipSpace();
                Expect('}');
                break;
            }
            foreach (string required in new[] { "descr", "fortran_order", "shape" })
            {
                if (!seen.Contains(required)) throw Error("expected header key '" + required + "', got none");
            }
        }

        private int[] ParseShape()
        {
            Expect('(');
            var dims = new List<int>();
            while (true)
            {
                SkipSpace();
                if (Peek() == ')') { _pos++; break; }
                int start = _pos;
                while (_pos < _text.Length && char.IsDigit(_text[_pos])) _pos++;
                if (_pos < _text.Length && _text[_pos] == 'L') _pos++;
                string digits = _text.Substring(start, _pos - start).TrimEnd('L');
                int dim;
                if (digits.Length == 0 || !int.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out dim))
                    throw Error("expected a non-negative dimension in 'shape'");
                dims.Add(dim);
                SkipSpace();
                if (Peek() == ',') { _pos++; continue; }
                Expect(')');
                break;
            }
            return dims.ToArray();
        }

        private bool ParseBool()
        {
            if (string.CompareOrdinal(_text, _pos, "True", 0, 4) == 0) { _pos += 4; return true; }
            if (string.CompareOrdinal(_text, _pos, "False", 0, 5) == 0) { _pos += 5; return false; }
            throw Error("expected True or False for 'fortran_order'");
        }

        private string ParseString()
        {
            char quote = Peek();
            if (quote != '\'' && quote != '"') throw Error("expected a quoted string");
            _pos++;
            var sb = new StringBuilder();
            while (_pos < _text.Length && _text[_pos] != quote)
            {
                if (_text[_pos] == '\\') throw Error("expected a plain string without escapes");
                sb.Append(_text[_pos++]);
            }
            Expect(quote);
            return sb.ToString();
        }

        private char Peek()
        {
            return _pos < _text.Length ? _text[_pos] : '\0';
        }

        private void Expect(char c)
        {
            if (Peek() != c) throw Error("expected '" + c + "' in the header");
            _pos++;
        }

        private void SkipSpace()
        {
            while (_pos < _text.Length && char.IsWhiteSpace(_text[_pos])) _pos++;
        }

        private NpyFormatException Error(string message)
        {
            return new NpyFormatException(_source, string.Format("{0} at header offset {1} (header: {2})",
                message, _pos, _text.Trim()));
        }
    }
}
