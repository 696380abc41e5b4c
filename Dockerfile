# One image for every service: `node dist/<service>.js`, which docker-compose.yml
# and deploy/kubernetes/ pick per container (the default runs all of them in one process).

# Build: every entry point bundled into dist/ (`npm run build`, which builds the console too).
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm install --no-audit --no-fund && npm run build

# Production dependencies only, of the packages whose code runs from dist/ (not the console's,
# which is built into dist/console, nor the CLI's TypeScript loader: the CLI is dist/wf.js).
FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY services/edge/package.json services/edge/
COPY services/executor/package.json services/executor/
COPY services/approvals/package.json services/approvals/
COPY services/scheduler/package.json services/scheduler/
COPY services/all-in-one/package.json services/all-in-one/
RUN npm install --omit=dev --no-audit --no-fund \
      -w shared -w services/edge -w services/executor -w services/approvals -w services/scheduler -w services/all-in-one \
 # The workspaces themselves are bundled into dist/: their links would point at nothing.
 && rm -rf node_modules/@wf

FROM node:24-bookworm-slim
# Interpreters for code steps, bubblewrap for the sandbox's per-step namespaces.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 ruby lua5.4 bubblewrap ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=dependencies /app/node_modules node_modules
# The console is built into the image (dist/console): a container serves it and never builds at run time.
COPY --from=build /src/dist dist
# The code is root's, not the services' user's: nothing they run can rewrite it. They may write
# only WF_DATA_DIR (./.data), where a process whose key variable is unset keeps keys.json.
RUN mkdir .data && chown node:node .data
# Stack traces name the TypeScript sources' lines (dist/*.js.map).
ENV NODE_OPTIONS=--enable-source-maps
USER node
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/all-in-one.js"]
