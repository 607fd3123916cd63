#!/bin/sh
# Prisma's CLI downloads its native schema engine unless this path exists; we migrate with the
# WASM engine instead (src/db/migrate.ts), so the native one is never needed.
echo "no native schema engine here: migrations run through @prisma/schema-engine-wasm (npm run db:migrate)" >&2
exit 1
