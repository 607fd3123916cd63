#!/bin/sh
# Installs the project with the runtime it runs on. package.json pins that runtime (the devDependency
# "node": the official build from the npm registry, which every npm script then finds first on PATH),
# but npm judges every package's "engines" by the Node that runs npm itself: on a machine whose Node is
# older, a plain `npm ci` works and warns (EBADENGINE) about packages that need the pinned one. Running
# npm on the pinned runtime checks them against what will run them. Extra arguments go to npm ci.
set -e
cd "$(dirname "$0")/.."
runtime=$(node -p "require('./package.json').devDependencies.node")
npm_cli=${npm_execpath:-$(command -v npm)}
exec npx --yes "node@$runtime" "$npm_cli" ci --no-audit --no-fund "$@"
