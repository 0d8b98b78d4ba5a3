#!/usr/bin/env bash
# Checks a built libtern_jni.so the way Android's loader and ART will see it:
#  - it exports exactly one Java_dev_tern_* symbol per `native` method of the Java sources (and nothing
#    else but JNI_OnLoad/JNI_OnUnload): a missing one is an UnsatisfiedLinkError at the first call, an
#    extra one leaks libc++/SentencePiece symbols into the app's namespace;
#  - it needs only libraries every Android device has (NDK "stable APIs": libc, libm, libdl, liblog);
#  - for aarch64 Android, it is an AArch64 ELF shared object.
# Usage: check-jni.sh LIBTERN_JNI.SO JAVA_SOURCE_DIR [NM] [READELF]
set -euo pipefail
so=${1:?usage: check-jni.sh LIBTERN_JNI.SO JAVA_SOURCE_DIR [NM] [READELF]} java=${2:?} nm=${3:-llvm-nm-14} readelf=${4:-llvm-readelf-14}
fail=0
want=$(for f in "$java"/dev/tern/*.java; do
         grep -Eho 'native []A-Za-z0-9_<>[]+ [A-Za-z0-9_]+\(' "$f" |
           sed -E "s/.* ([A-Za-z0-9_]+)\\(\$/Java_dev_tern_$(basename "$f" .java)_\\1/" || true
       done | LC_ALL=C sort -u)
[ -n "$want" ] || { echo "check-jni: no native methods found under $java" >&2; exit 1; }
have=$("$nm" -D --defined-only "$so" | awk '$2 ~ /^[TDBVWRi]$/ {print $3}' | LC_ALL=C sort -u)
missing=$(LC_ALL=C comm -23 <(echo "$want") <(echo "$have"))
extra=$(LC_ALL=C comm -13 <(echo "$want") <(echo "$have") | grep -v -x -e JNI_OnLoad -e JNI_OnUnload || true)
if [ -n "$missing" ]; then echo "check-jni: $so lacks: $missing" >&2; fail=1; fi
if [ -n "$extra" ]; then
  echo "check-jni: $so exports $(echo "$extra" | wc -l) symbols beyond the JNI entry points, e.g.: $(echo "$extra" | head -n 3 | tr '\n' ' ')" >&2
  fail=1
fi
needed=$("$readelf" -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
  case "$lib" in
    libc.so|libm.so|libdl.so|liblog.so) ;;
    *) if [ "${TERN_JNI_HOST:-0}" != 1 ]; then echo "check-jni: $so needs $lib, which an Android device does not provide" >&2; fail=1; fi ;;
  esac
done
[ "$fail" = 0 ] || exit 1
echo "check-jni: $so: $(echo "$want" | wc -l) JNI entry points, needs: $(echo $needed)"
