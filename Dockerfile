# The runtime is the one package.json pins (devDependencies.node); test/deploy.test.ts holds the two equal.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
# postinstall generates the Prisma client: it needs the schema, its config and the engine stub.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
# npm run build compiles the server and builds the web page (its GraphQL operations are checked against
# schema.graphql) into dist/; then everything only the build and the tests need is dropped.
COPY tsconfig.json tsconfig.build.json schema.graphql ./
COPY src ./src
COPY docs ./docs
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# What runs: the compiled server, its production dependencies, the migrations and the calculation guide
# (served from docs/calculation.md), owned by root and run by the unprivileged user the image provides;
# only the embedded database's folder is writable.
FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/docs ./docs
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
CMD ["node", "dist/bundle/main.js"]
