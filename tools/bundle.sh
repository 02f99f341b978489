#!/bin/sh
# Makes a relocatable bundle of a dynamically linked binary: the binary, the shared libraries a bare host lacks
# (found with ldd: libgloo, libhiredis, libibverbs, libnl, libfmt, ...), and a wrapper script that puts the
# bundle's lib/ on LD_LIBRARY_PATH (relative to wherever the bundle now lies) and execs the binary. For GPU
# nodes and cluster nodes that have a C runtime and the GPU stack but no dev packages.
#
#   tools/bundle.sh [--name NAME] [--with-gpu-libs] BINARY OUTDIR
#
# Not bundled, because the target host has them and they must match it: glibc (libc, libm, libpthread, libdl,
# librt, the loader), the GPU stack (libcuda, libnvidia-*, libnccl, libcudart; --with-gpu-libs copies the last
# two as a fallback, ~220 MB). libstdc++ and libgcc_s are copied to lib/stdcxx/ but used only when the host's
# libstdc++ is older than the binary needs. The wrapper checks glibc, finds libnccl/libcudart where the host has
# them (LD_LIBRARY_PATH, the binary's RUNPATH, ldconfig's cache, $COMMBENCH_LIB_PATH, /usr/local/cuda, Python
# wheels such as nvidia-nccl-cu13) and says what is missing instead of leaving it to the loader.
#
# COMMBENCH_BUNDLE_SHOW=1 OUTDIR/NAME prints the library path and how each library resolves, without running.
set -eu

usage() {
  echo "usage: $0 [--name NAME] [--with-gpu-libs] BINARY OUTDIR" >&2
  exit 2
}

name=""
with_gpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --name) [ $# -ge 2 ] || usage; name="$2"; shift 2 ;;
    --with-gpu-libs) with_gpu=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "$0: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || usage
binary="$1"
out="$2"
[ -f "$binary" ] && [ -x "$binary" ] || { echo "$0: $binary is not an executable file" >&2; exit 2; }
[ -n "$name" ] || name=$(basename "$binary")
command -v ldd >/dev/null || { echo "$0: needs ldd" >&2; exit 2; }
command -v readelf >/dev/null || { echo "$0: needs readelf (binutils)" >&2; exit 2; }

# Which class a library (by soname) belongs to: system (never copied), stdcxx (fallback copy), gpu (host's,
# fallback copy with --with-gpu-libs), driver (host's, never copied), bundle (copied).
classify() {
  case "$1" in
    linux-vdso.so*|linux-gate.so*|ld-linux*|ld64.so*|libc.so*|libm.so*|libmvec.so*|libpthread.so*|libdl.so*| \
    librt.so*|libutil.so*|libresolv.so*|libanl.so*|libBrokenLocale.so*|libnsl.so*|libcrypt.so.1) echo system ;;
    libstdc++.so*|libgcc_s.so*) echo stdcxx ;;
    libnccl.so*|libcudart.so*) echo gpu ;;
    libcuda.so*|libnvidia-*|libnvcuvid.so*|libcudadebugger.so*) echo driver ;;
    *) echo bundle ;;
  esac
}

rm -rf "$out"
mkdir -p "$out/libexec" "$out/lib/stdcxx"
[ "$with_gpu" -eq 0 ] || mkdir -p "$out/lib/gpu"
cp -L "$binary" "$out/libexec/$name"
chmod 755 "$out/libexec/$name"

manifest="$out/MANIFEST"
{
  echo "# bundle of $name made by tools/bundle.sh on $(uname -n) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binary libexec/$name $(sha256sum "$out/libexec/$name" | cut -d' ' -f1)"
} >"$manifest"

host_libs=""
missing=""
# ldd lines: "soname => /path (addr)", "soname => not found", "/lib64/ld-linux... (addr)", "linux-vdso... (addr)".
ldd "$binary" >"$out/.ldd" 2>&1 || { cat "$out/.ldd" >&2; echo "$0: ldd failed on $binary (static binary?)" >&2; exit 1; }
while read -r soname arrow path _; do
  [ "$arrow" = "=>" ] || continue
  class=$(classify "$soname")
  if [ "$path" = "not" ]; then
    case "$class" in
      gpu|driver) host_libs="$host_libs $soname"; echo "host $soname (not found here either)" >>"$manifest" ;;
      *) missing="$missing $soname" ;;
    esac
    continue
  fi
  case "$class" in
    system) echo "host $soname" >>"$manifest" ;;
    driver) echo "host $soname" >>"$manifest" ;;
    stdcxx) cp -L "$path" "$out/lib/stdcxx/$soname"; echo "fallback lib/stdcxx/$soname from $path" >>"$manifest" ;;
    gpu)
      host_libs="$host_libs $soname"
      if [ "$with_gpu" -eq 1 ]; then
        cp -L "$path" "$out/lib/gpu/$soname"
        echo "fallback lib/gpu/$soname from $path" >>"$manifest"
      else
        echo "host $soname" >>"$manifest"
      fi
      ;;
    bundle) cp -L "$path" "$out/lib/$soname"; echo "bundled lib/$soname from $path" >>"$manifest" ;;
  esac
done <"$out/.ldd"
rm -f "$out/.ldd"
if [ -n "$missing" ]; then
  echo "$0: libraries not found on this host, cannot bundle them:$missing" >&2
  exit 1
fi
chmod 644 "$out"/lib/*.so* "$out"/lib/stdcxx/* 2>/dev/null || true

# The newest glibc / libstdc++ symbol versions anything we ship asks for: the wrapper checks the host has them.
need_glibc=$(for f in "$out/libexec/$name" "$out"/lib/*.so*; do [ -f "$f" ] && readelf -V --wide "$f"; done 2>/dev/null |
  grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -1)
need_glibcxx=$(for f in "$out/libexec/$name" "$out"/lib/*.so*; do [ -f "$f" ] && readelf -V --wide "$f"; done 2>/dev/null |
  grep -o 'GLIBCXX_[0-9][0-9.]*' | sed 's/GLIBCXX_//' | sort -Vu | tail -1)
runpath=$(readelf -d "$out/libexec/$name" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\].*/\1/p' | head -1)
{
  echo "needs glibc >= ${need_glibc:-?}"
  echo "needs GLIBCXX >= ${need_glibcxx:-?}"
  echo "host_libs${host_libs}"
  echo "runpath ${runpath}"
} >>"$manifest"

cat >"$out/$name" <<EOF
#!/bin/sh
# Generated by tools/bundle.sh: runs $name with the libraries bundled beside it. See MANIFEST.
NEED_GLIBC="${need_glibc}"
NEED_GLIBCXX="${need_glibcxx}"
HOST_LIBS="${host_libs# }"
BUILD_RUNPATH="${runpath}"
EOF
cat >>"$out/$name" <<'EOF'
self="$0"
command -v readlink >/dev/null && self=$(readlink -f "$0")
here=$(cd "$(dirname "$self")" && pwd -P)
bin="$here/libexec/$(basename "$self")"
libpath="$here/lib"

die() { echo "$(basename "$self") bundle: $*" >&2; exit 127; }
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }  # $1 >= $2
ldconfig_cmd=$(command -v ldconfig || echo /sbin/ldconfig)
ldconfig_path() { "$ldconfig_cmd" -p 2>/dev/null | awk -v n="$1" '$1 == n { print $NF; exit }'; }

host_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$NEED_GLIBC" ] && [ -n "$host_glibc" ] && ! version_ge "$host_glibc" "$NEED_GLIBC"; then
  die "needs glibc >= $NEED_GLIBC, this host has $host_glibc (build on an older distribution)"
fi

# The host's libstdc++ unless it is older than what the binary was built with.
if [ -n "$NEED_GLIBCXX" ]; then
  host_stdcxx=$(ldconfig_path libstdc++.so.6)
  if [ -z "$host_stdcxx" ] || ! grep -q "GLIBCXX_$NEED_GLIBCXX" "$host_stdcxx" 2>/dev/null; then
    libpath="$libpath:$here/lib/stdcxx"
  fi
fi

# The GPU stack comes from the host: find each library the loader would not find by itself.
found_in() {  # found_in LIB DIRS(colon-separated): prints the first dir holding LIB
  old_ifs=$IFS; IFS=:
  for d in $2; do
    if [ -n "$d" ] && [ -e "$d/$1" ]; then IFS=$old_ifs; echo "$d"; return 0; fi
  done
  IFS=$old_ifs; return 1
}
wheel_dirs() {
  for py in python3 python; do
    command -v "$py" >/dev/null || continue
    "$py" -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null
    break
  done | while read -r sp; do
    for d in "$sp"/nvidia/*/lib; do [ -d "$d" ] && printf '%s:' "$d"; done
  done
  for d in /usr/local/lib/python3*/*-packages/nvidia/*/lib /usr/lib/python3*/*-packages/nvidia/*/lib \
           /opt/conda/lib/python3*/site-packages/nvidia/*/lib "${HOME:-/nonexistent}"/.local/lib/python3*/site-packages/nvidia/*/lib; do
    [ -d "$d" ] && printf '%s:' "$d"
  done
}
search=""
for lib in $HOST_LIBS; do
  if found_in "$lib" "${LD_LIBRARY_PATH:-}:$BUILD_RUNPATH" >/dev/null || [ -n "$(ldconfig_path "$lib")" ]; then
    continue
  fi
  [ -n "$search" ] || search="${COMMBENCH_LIB_PATH:-}:/usr/local/cuda/lib64:/usr/local/cuda/lib:$(wheel_dirs):$here/lib/gpu"
  dir=$(found_in "$lib" "$search") || die "$lib not found on this host (searched LD_LIBRARY_PATH, $BUILD_RUNPATH, ldconfig, COMMBENCH_LIB_PATH, /usr/local/cuda, Python nvidia-* wheels); set COMMBENCH_LIB_PATH=/dir/holding/it"
  case ":$libpath:" in *":$dir:"*) ;; *) libpath="$libpath:$dir" ;; esac
done

LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
if [ -n "${COMMBENCH_BUNDLE_SHOW:-}" ]; then
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd "$bin"
  exit 0
fi
exec "$bin" "$@"
EOF
chmod 755 "$out/$name"
echo "bundled $name into $out: $(ls "$out/lib" | grep -c '\.so') libraries in lib/; host provides:${host_libs:- nothing GPU}" >&2
