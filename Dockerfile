FROM node:20-bookworm-slim
WORKDIR /app
# postinstall generates the Prisma client: it needs the schema, its config and the engine stub.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
# npm run build compiles the server and builds the web page (its GraphQL operations are checked against
# schema.graphql) into dist/web.
COPY tsconfig.json tsconfig.build.json schema.graphql ./
COPY src ./src
# The calculation guide is served from docs/calculation.md (/api/docs/calculation).
COPY docs ./docs
RUN npm run build
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
EXPOSE 3000
CMD ["node", "dist/main.js"]
