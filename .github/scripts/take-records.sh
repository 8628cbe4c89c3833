#!/usr/bin/env bash
# Copies record sets out of downloaded artifacts into a results/ folder, taking only
# what a record set is made of:
#   take-records.sh DEST ARTIFACT_DIR...
# Each ARTIFACT_DIR is one extracted artifact (download-artifact into a scratch
# folder, never into the checkout) holding results/<build>/<files>. Only files named
#   <device>.csv  <device>.control.csv  <device>.examples.jsonl  <device>.env.json
#   <device>.sha256  <device>.sha256.sig  (the recording workflow's signature)
# (device: lowercase letters, digits and dashes), regular files and not links, in a
# folder named like a torch build, are copied; results/unsigned.sha256 too, when the
# artifact carries one; the writers' .<name>.lock files are skipped. Anything else
# is refused with an error naming it.
# A set is one <build>/<device>: its files replace that set's files in DEST, and
# leave the build's other devices alone. The ARTIFACT_DIRs are in priority order: a
# set taken from an earlier one is not replaced by a later one (the record jobs'
# sets win over the test matrix's examples-only sets of the same build), and an
# examples-only set never replaces a set with trial rows. Prints "<build> <device>"
# for every set taken, for `publish add`.
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 DEST ARTIFACT_DIR..." >&2
  exit 2
fi
dest="$1"
shift
mkdir -p "$dest"
build_re='^[0-9]+\.[0-9]+(\.[0-9]+)?([a-z0-9.]*)?(\+[a-z0-9.]+)?$'
file_re='^[a-z0-9][a-z0-9-]*(\.control\.csv|\.csv|\.examples\.jsonl|\.env\.json|\.sha256|\.sha256\.sig)$'
lock_re='^\.[a-z0-9][a-z0-9-]*\.lock$'
taken=" "
status=0
for artifact in "$@"; do
  [ -d "$artifact/results" ] || { echo "skip $artifact: no results/ in it" >&2; continue; }
  for entry in "$artifact"/results/* "$artifact"/results/.[!.]* "$artifact"/results/..?*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name="$(basename "$entry")"
    # The writers' lock files (filelock) travel with a copied folder; never copied.
    if [[ "$name" =~ $lock_re ]] && [ -f "$entry" ] && [ ! -L "$entry" ]; then continue; fi
    if [ "$name" = unsigned.sha256 ] && [ -f "$entry" ] && [ ! -L "$entry" ]; then
      cp -- "$entry" "$dest/unsigned.sha256"
      continue
    fi
    if [ -L "$entry" ] || [ ! -d "$entry" ] || ! [[ "$name" =~ $build_re ]]; then
      echo "::error::$entry: not a torch build folder (expected results/<build>/)" >&2
      status=1
      continue
    fi
    files=()
    for file in "$entry"/* "$entry"/.[!.]* "$entry"/..?*; do
      [ -e "$file" ] || [ -L "$file" ] || continue
      base="$(basename "$file")"
      if [[ "$base" =~ $lock_re ]] && [ -f "$file" ] && [ ! -L "$file" ]; then continue; fi
      if [ -L "$file" ] || [ ! -f "$file" ] || ! [[ "$base" =~ $file_re ]]; then
        echo "::error::$file: not a record file (<device>.csv, .control.csv, .examples.jsonl, .env.json)" >&2
        status=1
        continue 2
      fi
      files+=("$file")
    done
    for env in "$entry"/*.env.json; do
      [ -e "$env" ] || continue
      key="$(basename "$env" .env.json)"
      case "$taken" in *" $name/$key "*)
        echo "keep $name/$key from an earlier artifact; skip $entry" >&2
        continue ;;
      esac
      # An examples-only set never replaces a set with trial rows: the rows' runs
      # are described in the env file it would overwrite.
      if [ ! -f "$entry/$key.csv" ] && [ -f "$dest/$name/$key.csv" ]; then
        echo "keep $name/$key: it holds trial rows, $entry holds examples only" >&2
        continue
      fi
      mkdir -p "$dest/$name"
      rm -f -- "$dest/$name/$key.csv" "$dest/$name/$key.control.csv" \
        "$dest/$name/$key.examples.jsonl" "$dest/$name/$key.env.json" \
        "$dest/$name/$key.sha256" "$dest/$name/$key.sha256.sig"
      for file in "${files[@]}"; do
        base="$(basename "$file")"
        case "$base" in "$key".*) cp -- "$file" "$dest/$name/$base" ;; esac
      done
      taken+="$name/$key "
      echo "$name $key"
    done
  done
done
exit "$status"
