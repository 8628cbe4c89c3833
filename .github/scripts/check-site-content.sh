#!/usr/bin/env bash
# What a built site must hold, whoever built it:  check-site-content.sh SITE
#   every harness marker expanded (no "<!-- harness:" left in a page), the English
#   twin (en/index.html), and each notebook of docs/cuadernos/ built as a page in
#   both languages. Prints each finding; exit 1 if any.
set -euo pipefail
site="${1:?usage: $0 SITE}"
[ -d "$site" ] || { echo "$site: no such site folder" >&2; exit 2; }
status=0
left="$(grep -rl --include='*.html' -e '<!-- harness:' -e '&lt;!-- harness:' "$site" || true)"
if [ -n "$left" ]; then
  echo "::error::markers not expanded in: $(echo "$left" | head -5 | tr '\n' ' ')"
  status=1
fi
if [ ! -f "$site/en/index.html" ]; then
  echo "::error::no English site ($site/en/index.html)"
  status=1
fi
shopt -s nullglob
for notebook in docs/cuadernos/*.ipynb; do
  name="$(basename "$notebook" .ipynb)"
  case "$name" in *.en) continue ;; esac
  for page in "$site/cuadernos/$name/index.html" "$site/en/cuadernos/$name/index.html"; do
    if [ ! -f "$page" ]; then
      echo "::error::notebook $notebook not built ($page missing)"
      status=1
    fi
  done
done
if [ "$status" = 0 ]; then echo "$site: markers expanded, en/ present, notebooks built"; fi
exit "$status"
