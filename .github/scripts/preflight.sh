#!/usr/bin/env bash
# First-run checks: each workflow's first job runs one of these with the token it has,
# and fails with the setting to change rather than an obscure error later. The list,
# in the order a new repository needs it, is CONTRIBUTING's "Publishing".
#   preflight.sh pages          Pages enabled, its source "GitHub Actions"  (pages: read)
#   preflight.sh pull-requests  the record pull request can be opened       (pull-requests: write;
#                               RECORDS_PR_TOKEN checked when it is set)
#   preflight.sh issues         issues are enabled                          (issues: read)
#   preflight.sh gpu-runner JOB a runner took the job named JOB of this run
#                               within GPU_WAIT minutes, else cancel the run (actions: write)
# Needs GH_TOKEN (the workflow's token) and GITHUB_REPOSITORY; gh and jq are on the
# hosted runners.
set -euo pipefail
repo="${GITHUB_REPOSITORY:?}"
settings="$GITHUB_SERVER_URL/$repo/settings"

fail() { # title, message
  echo "::error title=$1::$2"
  exit 1
}

check_pages() {
  local info build_type
  if ! info="$(gh api "repos/$repo/pages" 2>&1)"; then
    fail "Pages is not enabled" "$settings/pages: Build and deployment > Source: GitHub Actions. (GitHub said: $info)"
  fi
  build_type="$(jq -r '.build_type // "legacy"' <<<"$info")"
  if [ "$build_type" != workflow ]; then
    fail "Pages publishes from a branch" "$settings/pages: Build and deployment > Source: GitHub Actions (it is \"$build_type\": a branch build would publish the Markdown, not this workflow's site)."
  fi
  echo "Pages: enabled, source GitHub Actions ($(jq -r '.html_url' <<<"$info"))"
}

# A pull request for a head that does not exist: GitHub refuses it with 422 when the
# token may open pull requests, and with 403 "not permitted to create or approve pull
# requests" when Actions may not. Nothing is created either way.
probe_pull_request() {
  local base out
  base="$(gh api "repos/$repo" --jq .default_branch)"
  if out="$(gh api -X POST "repos/$repo/pulls" -f "head=preflight-no-such-branch-${GITHUB_RUN_ID:-0}" \
              -f "base=$base" -f title=preflight 2>&1)"; then
    fail "Unexpected" "a probe pull request was accepted: close it ($out)"
  fi
  case "$out" in
    *"not permitted to create or approve pull requests"*)
      fail "Actions may not open pull requests" "$settings/actions: Workflow permissions > Allow GitHub Actions to create and approve pull requests (or set the secret RECORDS_PR_TOKEN: CONTRIBUTING, \"Publishing\")." ;;
    *"HTTP 422"*) echo "pull requests: this token may open them" ;;
    *) echo "::warning title=Could not tell::whether this token may open pull requests: $out" ;;
  esac
}

check_pull_requests() {
  local base required
  if [ -n "${RECORDS_PR_TOKEN:-}" ]; then
    local push
    if ! push="$(GH_TOKEN="$RECORDS_PR_TOKEN" gh api "repos/$repo" --jq .permissions.push 2>&1)"; then
      fail "RECORDS_PR_TOKEN does not work" "GitHub refused it ($push): it expired or was revoked. An App installation token lasts one hour, so a stored one always expires: store a fine-grained personal access token (Contents and Pull requests: read and write) at $settings/secrets/actions, or delete the secret to use GITHUB_TOKEN."
    fi
    [ "$push" = true ] || fail "RECORDS_PR_TOKEN cannot push" "it has no write access to Contents of $repo: give the fine-grained token Contents and Pull requests read and write."
    echo "RECORDS_PR_TOKEN: valid, may push"
    GH_TOKEN="$RECORDS_PR_TOKEN" probe_pull_request
    return
  fi
  probe_pull_request
  base="$(gh api "repos/$repo" --jq .default_branch)"
  required="$(gh api "repos/$repo/rules/branches/$base" --jq '[.[] | select(.type == "required_status_checks")] | length' 2>/dev/null || echo 0)"
  if [ "$(gh api "repos/$repo/branches/$base" --jq '.protection.required_status_checks.contexts // [] | length' 2>/dev/null || echo 0)" != 0 ]; then
    required=1
  fi
  if [ "$required" != 0 ]; then
    fail "Required checks need RECORDS_PR_TOKEN" "$base requires status checks, and a pull request opened with GITHUB_TOKEN starts no workflow, so they would never run: set the secret RECORDS_PR_TOKEN ($settings/secrets/actions; CONTRIBUTING, \"Publishing\")."
  fi
}

check_issues() {
  [ "$(gh api "repos/$repo" --jq .has_issues)" = true ] \
    || fail "Issues are disabled" "$settings: Features > Issues (the upkeep workflow reports in one issue)."
  echo "issues: enabled"
}

check_gpu_runner() {
  local job="${1:?usage: preflight.sh gpu-runner JOB-NAME-PREFIX}" wait="${GPU_WAIT:-15}" status i
  for ((i = 0; i < wait * 2; i++)); do
    status="$(gh api "repos/$repo/actions/runs/$GITHUB_RUN_ID/jobs" \
                --jq "[.jobs[] | select(.name | startswith(\"$job\")) | .status] | if length == 0 then \"absent\" elif all(. as \$s | [\"queued\", \"waiting\", \"pending\", \"requested\"] | index(\$s)) then \"queued\" else \"started\" end")"
    case "$status" in
      started) echo "a runner took \"$job\""; return ;;
      # The job may not be listed yet in the first minutes (created with this one).
      absent) if [ "$i" -ge 4 ]; then echo "no job named \"$job\" in this run (skipped)"; return; fi ;;
    esac
    sleep 30
  done
  gh api -X POST "repos/$repo/actions/runs/$GITHUB_RUN_ID/cancel" >/dev/null || true
  fail "No GPU runner" "no runner with the labels self-hosted and gpu took \"$job\" in $wait minutes, so the run is cancelled rather than left queued for a day: $settings/actions/runners (online, idle, labels self-hosted and gpu; in an organization, its runner group must allow this workflow)."
}

case "${1:-}" in
  pages) check_pages ;;
  pull-requests) check_pull_requests ;;
  issues) check_issues ;;
  gpu-runner) check_gpu_runner "${2:-}" ;;
  *) echo "usage: $0 pages|pull-requests|issues|gpu-runner JOB" >&2; exit 2 ;;
esac
