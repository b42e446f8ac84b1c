# Image for docker-compose.yml: builds with dev dependencies, runs with production ones.
# The runtime image carries Debian's Chromium, which renders the pages of sites built in the
# browser (docs/api.md §12): it is used by whichever process runs scoring jobs (the worker service
# in docker-compose.yml, or the single process of `npm start`). CHROMIUM_PATH points at it.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json schema.graphql codegen.yml ./
COPY src ./src
COPY rest-compat ./rest-compat
COPY scripts ./scripts
# The build compiles the operator scripts, which read the bench's and the tests' fixtures, and the
# bench's render phase; only dist/src runs in the image.
COPY bench ./bench
COPY test ./test
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# Chromium and the fonts it needs to lay out text; no recommends (no X server, no audio stack).
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production CHROMIUM_PATH=/usr/bin/chromium
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# docs/quickstart.md is the Getting started section of /docs, read when the OpenAPI document is built.
COPY docs ./docs
USER node
EXPOSE 4000
CMD ["node", "--max-semi-space-size=32", "dist/src/main.js"]
