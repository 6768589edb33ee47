#!/usr/bin/env bash
# Builds the C# projects with Mono's mcs into dotnet/bin/ (the .csproj files serve the .NET SDK instead).
# Each project directory holds its sources; this script lists what each one references.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/bin"
mkdir -p "$out"
PYTHON="${PYTHON:-python3}"

runtime_dll="$("$PYTHON" -c 'import os, pythonnet; print(os.path.join(os.path.dirname(pythonnet.__file__), "runtime", "Python.Runtime.dll"))')"
cp -f "$runtime_dll" "$out/Python.Runtime.dll"
nunit_dir="$(ls -d /usr/lib/cli/nunit.framework-2.6* 2>/dev/null | head -n1 || true)"
[ -n "$nunit_dir" ] && cp -f "$nunit_dir/nunit.framework.dll" "$out/nunit.framework.dll"

# Python.Runtime.dll targets netstandard2.0: Mono resolves it through its facade assembly.
facades="$(dirname "$(command -v mono)")/../lib/mono/4.5/Facades"

# build NAME DIR KIND [REFERENCE...]   KIND is library or exe; references are names in $out or framework assemblies.
build() {
  local name="$1" dir="$2" kind="$3"; shift 3
  [ -d "$here/$dir" ] || [ -d "$dir" ] || return 0
  local src_dir="$here/$dir"; [ -d "$src_dir" ] || src_dir="$dir"
  local ext=dll; [ "$kind" = exe ] && ext=exe
  local refs=(-r:System.dll -r:System.Core.dll -r:Microsoft.CSharp.dll)
  [ -f "$facades/netstandard.dll" ] && refs+=("-r:$facades/netstandard.dll")
  local r
  for r in "$@"; do
    if [ -f "$out/$r" ]; then refs+=("-r:$out/$r"); else refs+=("-r:$r"); fi
  done
  mapfile -t sources < <(find "$src_dir" -name '*.cs' -not -path '*/obj/*' -not -path '*/bin/*' | sort)
  [ "${#sources[@]}" -gt 0 ] || return 0
  mcs -nologo -langversion:7.2 -debug -optimize+ -nowarn:1591 -target:"$kind" -out:"$out/$name.$ext" "${refs[@]}" "${sources[@]}"
}

build TfNetTrain.Reference       src/TfNetTrain.Reference       library System.IO.Compression.dll System.IO.Compression.FileSystem.dll \
                                                                 System.Runtime.Serialization.dll System.Xml.dll System.Xml.Linq.dll
build TfNetTrain.Reference.Tests tests/TfNetTrain.Reference.Tests library nunit.framework.dll TfNetTrain.Reference.dll System.IO.Compression.dll
build TfNetTrain                 src/TfNetTrain                 library Python.Runtime.dll
build TfNetTrain.Bench           src/TfNetTrain.Bench           exe     TfNetTrain.dll Python.Runtime.dll
build TfNetTrain.Demo            src/TfNetTrain.Demo            exe     TfNetTrain.dll TfNetTrain.Reference.dll Python.Runtime.dll
build TfNetTrain.Conformance     src/TfNetTrain.Conformance     exe     TfNetTrain.Reference.dll TfNetTrain.dll Python.Runtime.dll
build TfNetTrain.Tests           tests/TfNetTrain.Tests           library nunit.framework.dll TfNetTrain.dll Python.Runtime.dll
# Interop examples: one executable per file.
for f in "$here/../interop_examples/csharp/"*.cs; do
  [ -f "$f" ] || continue
  n="$(basename "$f" .cs)"
  mcs -nologo -langversion:7.2 -debug -target:exe -out:"$out/$n.exe" -r:System.dll -r:System.Core.dll \
    -r:Microsoft.CSharp.dll -r:"$facades/netstandard.dll" -r:"$out/Python.Runtime.dll" -r:"$out/TfNetTrain.dll" -r:"$out/TfNetTrain.Reference.dll" "$f"
done
echo "built into $out"
