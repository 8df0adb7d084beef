#!/usr/bin/env bash
# Pack test: what npm users install is what we test. Packs every public package
# with `pnpm pack` (which rewrites `workspace:` ranges to real versions), installs
# the tarballs with npm into a fresh project outside the workspace (no links),
# with the peer dependencies installed explicitly, then runs an ESM consumer, a
# CJS consumer and a `tsc --noEmit` consumer against them.
# Needs: a prior `pnpm run build`, and the npm registry for third-party packages.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/svc-webhooks-pack.XXXXXX")"
# PACK_TEST_KEEP=1 keeps the project for a look after a failure.
[ "${PACK_TEST_KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tarballs" "$work/consumer"

echo "packing into $work/tarballs"
for dir in $(cd "$root" && node .ci/public-packages.mjs); do
  (cd "$root/$dir" && pnpm pack --pack-destination "$work/tarballs" >/dev/null)
done
for tarball in "$work"/tarballs/*.tgz; do
  contents="$(tar -tzf "$tarball")"
  # What users download: the build, the docs and the licence, no sources or tests.
  for required in package/package.json package/LICENSE package/README.md package/CHANGELOG.md; do
    grep -qx "$required" <<<"$contents" || { echo "$(basename "$tarball") lacks $required" >&2; exit 1; }
  done
  if grep -qE '^package/(src|test)/' <<<"$contents"; then
    echo "$(basename "$tarball") ships sources or tests" >&2
    exit 1
  fi
  echo "$(basename "$tarball"): $(wc -l <<<"$contents") files"
done

cp "$root"/.ci/pack-consumer/* "$work/consumer/"
node "$root/.ci/pack-consumer-manifest.mjs" "$work/tarballs" >"$work/consumer/package.json"

cd "$work/consumer"
echo "installing with npm"
npm install --no-audit --no-fund --prefer-offline --loglevel=error

# The optional OpenTelemetry peer must stay out of core's main entry.
for file in node_modules/@svc/webhooks-core/dist/index.js node_modules/@svc/webhooks-core/dist/index.cjs; do
  if grep -q '@opentelemetry/api' "$file"; then
    echo "$file loads @opentelemetry/api: it must only be needed by the /otel entry" >&2
    exit 1
  fi
done

node esm.mjs
node cjs.cjs
# The same consumers on the newer Node lines (node binaries come from the npm registry).
for major in ${PACK_TEST_EXTRA_NODES-22 24}; do
  echo "node $major: $(npx -y -p "node@$major" node esm.mjs) / $(npx -y -p "node@$major" node cjs.cjs)"
done
"$root/node_modules/.bin/tsc" -p tsconfig.json
echo "tsc consumer: ok"

# The CLI as npm installs it from its tarball: the linked bin, its help, and a real round trip (an example
# body from the catalogue, signed, then verified), on each Node line.
cli=node_modules/.bin/svc-webhooks
help="$("$cli" --help)"
grep -q '^Usage: svc-webhooks' <<<"$help" || { echo "svc-webhooks --help printed no usage" >&2; exit 1; }
secret="$(printf '%064d' 7)"
"$cli" schema job_created --example >example.json
header="$("$cli" sign example.json --secret "$secret")"
verdict="$("$cli" verify example.json --header "$header" --secret "$secret")"
grep -q '^valid: ' <<<"$verdict" || { echo "svc-webhooks verify: $verdict" >&2; exit 1; }
for major in ${PACK_TEST_EXTRA_NODES-22 24}; do
  npx -y -p "node@$major" node "$cli" verify example.json --header "$header" --secret "$secret" >/dev/null
done
echo "cli from its tarball: ok"
