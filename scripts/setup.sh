#!/bin/sh
# Installs the project with the runtime it runs on, then builds it once. package.json pins that runtime
# (the devDependency "node": the official build from the npm registry, which every npm script then finds
# first on PATH), but npm judges every package's "engines" by the Node that runs npm itself: on a machine
# whose Node is older, a plain `npm ci` works and warns (EBADENGINE) about packages that need the pinned
# one. Running npm on the pinned runtime checks them against what will run them. Building here (tsc and
# vite) leaves the first `npm start` only its own work; later starts rebuild only what changed
# (scripts/build-if-stale.mjs). Extra arguments go to npm ci.
set -e
cd "$(dirname "$0")/.."
runtime=$(node -p "require('./package.json').devDependencies.node")
npm_cli=${npm_execpath:-$(command -v npm)}
npx --yes "node@$runtime" "$npm_cli" ci --no-audit --no-fund "$@"
exec npx --yes "node@$runtime" scripts/build-if-stale.mjs
