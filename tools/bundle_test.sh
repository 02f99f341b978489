#!/bin/sh
# Tests tools/bundle.sh on a real binary: the bundle runs after being moved with LD_LIBRARY_PATH unset, its
# bundled libraries win, and the wrapper's host checks (glibc, libstdc++, GPU libraries from the host, Python
# wheels, COMMBENCH_LIB_PATH) do what they say. The GPU-host cases are simulated by editing the wrapper's
# settings, so this runs on any Linux host.
#
#   tools/bundle_test.sh BINARY      (e.g. bazel-bin/tools/commbench/commbench)
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
binary="${1:?usage: $0 BINARY}"
name=$(basename "$binary")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() {  # check DESCRIPTION COMMAND...
  what="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $what"; else failed=$((failed + 1)); echo "FAIL $what"; fi
}

"$here/bundle.sh" "$binary" "$tmp/made" 2>"$tmp/bundle.err"
check "bundle.sh succeeds" test $? -eq 0
mv "$tmp/made" "$tmp/moved"  # relocatable: nothing may point at the old place
b="$tmp/moved/$name"

env -u LD_LIBRARY_PATH "$b" --help >"$tmp/help.out" 2>&1
check "moved bundle runs --help with LD_LIBRARY_PATH unset" test $? -eq 0
check "--help printed usage" grep -qi "usage" "$tmp/help.out"

env -u LD_LIBRARY_PATH COMMBENCH_BUNDLE_SHOW=1 "$b" >"$tmp/show.out" 2>&1
for lib in $(sed -n 's/^bundled lib\/\([^ ]*\) .*/\1/p' "$tmp/moved/MANIFEST"); do
  check "$lib resolves into the bundle" grep -q "$lib => $tmp/moved/lib/$lib" "$tmp/show.out"
done
check "no library is missing" sh -c "! grep -q 'not found' '$tmp/show.out'"
check "manifest lists no libc or libstdc++ as bundled" sh -c "! grep -q '^bundled lib/lib\(c\|stdc++\)\.so' '$tmp/moved/MANIFEST'"

# A variant of the wrapper with some settings replaced, to simulate other hosts.
variant() {  # variant FILE SED-SCRIPT
  sed "$2" "$b" >"$tmp/moved/$1"
  chmod 755 "$tmp/moved/$1"
  ln -sf "$name" "$tmp/moved/libexec/$1"
}

variant old_glibc 's/^NEED_GLIBC=.*/NEED_GLIBC="99.0"/'
env -u LD_LIBRARY_PATH "$tmp/moved/old_glibc" --help >"$tmp/glibc.out" 2>&1
check "a host with too old a glibc exits 127" test $? -eq 127
check "... saying which glibc it needs" grep -q "needs glibc >= 99.0" "$tmp/glibc.out"

variant old_stdcxx 's/^NEED_GLIBCXX=.*/NEED_GLIBCXX="9.9.99"/'
env -u LD_LIBRARY_PATH COMMBENCH_BUNDLE_SHOW=1 "$tmp/moved/old_stdcxx" >"$tmp/stdcxx.out" 2>&1
check "an old host libstdc++ brings in lib/stdcxx" grep -q "LD_LIBRARY_PATH=$tmp/moved/lib:$tmp/moved/lib/stdcxx" "$tmp/stdcxx.out"
check "a current host libstdc++ is used as is" sh -c "! grep -q 'lib/stdcxx' '$tmp/show.out'"

# A GPU library the loader cannot find by itself: not on LD_LIBRARY_PATH, RUNPATH or in ldconfig's cache.
variant no_nccl 's/^HOST_LIBS=.*/HOST_LIBS="libcommbench-fake-nccl.so.2"/; s/^BUILD_RUNPATH=.*/BUILD_RUNPATH=""/'
env -u LD_LIBRARY_PATH PATH=/usr/bin:/bin "$tmp/moved/no_nccl" --help >"$tmp/nonccl.out" 2>&1
check "a missing host GPU library exits 127" test $? -eq 127
check "... naming it and the way out" grep -q "libcommbench-fake-nccl.so.2 not found on this host.*COMMBENCH_LIB_PATH" "$tmp/nonccl.out"

mkdir -p "$tmp/host-nccl"
touch "$tmp/host-nccl/libcommbench-fake-nccl.so.2"
env -u LD_LIBRARY_PATH COMMBENCH_LIB_PATH="$tmp/host-nccl" COMMBENCH_BUNDLE_SHOW=1 "$tmp/moved/no_nccl" >"$tmp/libpath.out" 2>&1
check "COMMBENCH_LIB_PATH supplies it" grep -q "LD_LIBRARY_PATH=$tmp/moved/lib:$tmp/host-nccl" "$tmp/libpath.out"

# As on the GPU machine: NCCL only inside a Python wheel (nvidia-nccl-cu13 puts it in site-packages/nvidia/nccl/lib).
mkdir -p "$tmp/site/nvidia/nccl/lib" "$tmp/pybin"
touch "$tmp/site/nvidia/nccl/lib/libcommbench-fake-nccl.so.2"
cat >"$tmp/pybin/python3" <<EOF
#!/bin/sh
echo "$tmp/site"
EOF
chmod 755 "$tmp/pybin/python3"
env -u LD_LIBRARY_PATH PATH="$tmp/pybin:/usr/bin:/bin" COMMBENCH_BUNDLE_SHOW=1 "$tmp/moved/no_nccl" >"$tmp/wheel.out" 2>&1
check "a Python wheel's nvidia/*/lib supplies it" grep -q "LD_LIBRARY_PATH=$tmp/moved/lib:$tmp/site/nvidia/nccl/lib" "$tmp/wheel.out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
