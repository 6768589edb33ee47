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

# Sources compiled into more than one library: the trace's key format (TraceKeys.cs), defined once for C#.
shared_sources=("$here/src/Shared/TraceKeys.cs")
sources_of() {  # sources_of NAME DIR: the project's own sources, and the shared ones for the two libraries
  find "$2" -name '*.cs' -not -path '*/obj/*' -not -path '*/bin/*' | sort
  case "$1" in TfNetTrain|TfNetTrain.Reference) printf '%s\n' "${shared_sources[@]}" ;; esac
}

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
  mapfile -t sources < <(sources_of "$name" "$src_dir")
  [ "${#sources[@]}" -gt 0 ] || return 0
  mcs -nologo -langversion:7.2 -debug -optimize+ -nowarn:1591 -target:"$kind" -out:"$out/$name.$ext" "${refs[@]}" "${sources[@]}"
}

build TfNetTrain.Reference       src/TfNetTrain.Reference       library System.IO.Compression.dll System.IO.Compression.FileSystem.dll \
                                                                 System.Runtime.Serialization.dll System.Xml.dll System.Xml.Linq.dll
build TfNetTrain.Reference.Tests tests/TfNetTrain.Reference.Tests library nunit.framework.dll TfNetTrain.Reference.dll System.IO.Compression.dll
build TfNetTrain                 src/TfNetTrain                 library Python.Runtime.dll
build TfNetTrain.Bench           src/TfNetTrain.Bench           exe     TfNetTrain.dll Python.Runtime.dll
build TfNetTrain.FaceBench       src/TfNetTrain.FaceBench       exe     TfNetTrain.dll Python.Runtime.dll
build TfNetTrain.TracedBench     src/TfNetTrain.TracedBench     exe     TfNetTrain.dll Python.Runtime.dll
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

# --- .NET (CoreCLR) ---------------------------------------------------------------------------------------------
# The same sources again, compiled by mcs against the shared framework of .NET Core 3.1 into bin/coreclr/: that of
# the `dotnetcore2` wheel (the `coreclr` extra, installed by `make install`), else the oldest one under DOTNET_ROOT
# (mcs cannot read the frameworks of .NET 7 and later). The assemblies run on 3.1 and on any later .NET; the
# executables' runtimeconfig says `rollForward: LatestMajor`. Mono's assemblies reference mscorlib, whose
# forwarders .NET lacks (e.g. Queue<T>), hence the second build.
coreclr_framework() {
  local roots=() root
  root="$("$PYTHON" - <<'PY' 2>/dev/null || true
import importlib.util, os
spec = importlib.util.find_spec("dotnetcore2")
if spec and spec.submodule_search_locations:
    print(os.path.join(spec.submodule_search_locations[0], "bin"))
PY
)"
  [ -n "$root" ] && roots+=("$root")
  [ -n "${DOTNET_ROOT:-}" ] && roots+=("$DOTNET_ROOT")
  for root in "${roots[@]}"; do
    if [ -d "$root/shared/Microsoft.NETCore.App" ]; then
      ls -d "$root"/shared/Microsoft.NETCore.App/* 2>/dev/null | sort -V | head -n1
      return
    fi
  done
}

coreclr_fx="$(coreclr_framework)"
coreclr_out="$out/coreclr"

# build_coreclr NAME DIR KIND [REFERENCE...]   like build, for .NET; references are names in $coreclr_out.
build_coreclr() {
  local name="$1" dir="$2" kind="$3"; shift 3
  local src_dir="$here/$dir"
  [ -d "$src_dir" ] || return 0
  local refs=() r f
  for f in "$coreclr_fx"/*.dll; do refs+=("-r:$f"); done
  for r in "$@"; do refs+=("-r:$coreclr_out/$r"); done
  mapfile -t sources < <(sources_of "$name" "$src_dir")
  [ "${#sources[@]}" -gt 0 ] || return 0
  # CS1702: mcs notes that the framework's own assemblies reference each other by version; harmless.
  mcs -nologo -nostdlib -noconfig -langversion:7.2 -optimize+ -nowarn:1591,1702 -target:"$kind" \
    -out:"$coreclr_out/$name.dll" "${refs[@]}" "${sources[@]}"
  if [ "$kind" = exe ]; then
    printf '{"runtimeOptions": {"rollForward": "LatestMajor", "framework": {"name": "Microsoft.NETCore.App", "version": "%s"}}}\n' \
      "$(basename "${coreclr_fx%.*}").0" > "$coreclr_out/$name.runtimeconfig.json"
  fi
}

if [ -z "$coreclr_fx" ]; then
  echo "no .NET framework found (install the coreclr extra: pip install -e '.[coreclr]'; or set DOTNET_ROOT):" \
       "skipped the CoreCLR build" >&2
else
  mkdir -p "$coreclr_out"
  cp -f "$runtime_dll" "$coreclr_out/Python.Runtime.dll"
  [ -n "$nunit_dir" ] && cp -f "$nunit_dir/nunit.framework.dll" "$coreclr_out/nunit.framework.dll"
  build_coreclr TfNetTrain                 src/TfNetTrain                   library Python.Runtime.dll
  build_coreclr TfNetTrain.Reference       src/TfNetTrain.Reference         library
  build_coreclr TfNetTrain.Tests           tests/TfNetTrain.Tests           library nunit.framework.dll TfNetTrain.dll Python.Runtime.dll
  build_coreclr TfNetTrain.Reference.Tests tests/TfNetTrain.Reference.Tests library nunit.framework.dll TfNetTrain.Reference.dll
  build_coreclr TfNetTrain.TestRunner      tests/TfNetTrain.TestRunner      exe     nunit.framework.dll
  build_coreclr TfNetTrain.FaceBench       src/TfNetTrain.FaceBench         exe     TfNetTrain.dll Python.Runtime.dll
  build_coreclr TfNetTrain.TracedBench     src/TfNetTrain.TracedBench       exe     TfNetTrain.dll Python.Runtime.dll
  echo "built for .NET (against $(basename "$coreclr_fx")) into $coreclr_out"
fi

# --- Package data -----------------------------------------------------------------------------------------------
# The libraries a C# program references, one folder per runtime, inside the Python package so that the wheel
# (`python -m build`) carries them and `tfnet-train dotnet --path` finds them.
package_dotnet="$here/../src/tfnet_train/dotnet"
for runtime in mono coreclr; do
  src="$out"; [ "$runtime" = coreclr ] && src="$coreclr_out"
  [ -f "$src/TfNetTrain.dll" ] || continue
  rm -rf "$package_dotnet/$runtime" && mkdir -p "$package_dotnet/$runtime"
  for lib in TfNetTrain TfNetTrain.Reference; do
    [ -f "$src/$lib.dll" ] && cp -f "$src/$lib.dll" "$package_dotnet/$runtime/"
  done
done
