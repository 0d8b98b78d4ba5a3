#!/usr/bin/env bash
# Checks runtime/src's folder rules (runtime/src/README.md): each folder's files include only the folders its
# README's "May include:" line names (besides tern/ public headers, runtime/format/ and system headers), and
# no file under runtime/ is over 300 lines. Usage: layers_test.sh RUNTIME_DIR
set -euo pipefail
runtime=${1:?usage: layers_test.sh RUNTIME_DIR}
fail=0
folders=$(cd "$runtime/src" && ls -d */ | tr -d /)
for d in $folders; do
  readme="$runtime/src/$d/README.md"
  [ -f "$readme" ] || { echo "layers: $d has no README.md"; fail=1; continue; }
  allowed=$(sed -n 's/^May include: *//p' "$readme" | tr ',' ' ')
  [ -n "$(sed -n '/^May include:/p' "$readme")" ] || { echo "layers: $readme has no 'May include:' line"; fail=1; }
  for f in "$runtime/src/$d"/*; do
    case "$f" in *.h|*.cc) ;; *) continue ;; esac
    while IFS= read -r inc; do
      folder=${inc%%/*}
      [ "$folder" = "$inc" ] && continue          # runtime/format/ headers (no folder)
      [ "$folder" = "$d" ] || [ "$folder" = tern ] && continue
      case " $allowed " in *" $folder "*) continue ;; esac
      echo "layers: $f includes \"$inc\": $d/ may include only: $allowed"
      fail=1
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
  done
done
while IFS= read -r f; do
  n=$(wc -l < "$f")
  if [ "$n" -gt 300 ]; then echo "layers: $f has $n lines (at most 300)"; fail=1; fi
done < <(find "$runtime" -name '*.h' -o -name '*.cc')
[ "$fail" = 0 ] && echo "layers: $(echo $folders | wc -w) folders, every include allowed, no file over 300 lines"
exit $fail
