#!/usr/bin/env bash
# Whether two built sites are the same, file for file, but for what names the
# generator:  compare-sites.sh SITE_A SITE_B
# The <meta name="generator"> tag is dropped from every HTML page, and gzip files are
# compared by content (their header holds a time stamp). Exit 1 and a diff otherwise.
set -euo pipefail
if [ "$#" -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: $0 SITE_A SITE_B (two built site folders)" >&2
  exit 2
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for side in a b; do
  if [ "$side" = a ]; then src="$1"; else src="$2"; fi
  cp -R "$src" "$scratch/$side"
  find "$scratch/$side" -name '*.html' -exec sed -i -E 's#<meta name="generator" content="[^"]*">##' {} +
  find "$scratch/$side" -name '*.gz' -exec gunzip -f {} +
done
if diff -r "$scratch/a" "$scratch/b" > "$scratch/diff.txt"; then
  echo "the two sites are the same ($(find "$1" -type f | wc -l) files), generator tag aside"
else
  head -c 20000 "$scratch/diff.txt"
  echo "::error::the two builds differ (above)"
  exit 1
fi
