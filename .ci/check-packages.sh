#!/usr/bin/env bash
# Packaging checks for every public package (run after the build):
# - publint: package.json fields, exports map and files agree with what is packed;
# - attw (Are the Types Wrong?): each entry's types resolve for both the ESM and
#   the CJS build, under node16 and bundler resolution. The node16 profile skips
#   node10, which cannot see subpath exports at all (Node >= 20 is required anyway).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$PWD/node_modules/.bin"
status=0
for dir in $(node .ci/public-packages.mjs); do
  printf '\n--- %s\n' "$dir"
  # npm packs README, LICENSE and CHANGELOG from the package directory only.
  for file in README.md CHANGELOG.md LICENSE; do
    [ -f "$dir/$file" ] || { echo "$dir/$file is missing" >&2; status=1; }
  done
  cmp -s LICENSE "$dir/LICENSE" || { echo "$dir/LICENSE differs from the root LICENSE" >&2; status=1; }
  (cd "$dir" && "$bin/publint" --strict) || status=1
  # A package without a CommonJS main (the portal: a browser module) is checked as ESM-only.
  profile=node16
  node -e "process.exit(require('./$dir/package.json').main ? 0 : 1)" || profile=esm-only
  "$bin/attw" --pack "$dir" --profile "$profile" --no-emoji --no-color || status=1
done
exit "$status"
