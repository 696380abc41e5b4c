# One image for every service; docker-compose.yml picks the entry point per service.
FROM node:24-bookworm-slim
# Interpreters for code steps, bubblewrap for the sandbox's per-step namespaces.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 ruby lua5.4 bubblewrap ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# The console is built into the image: a container serves it and never builds at run time.
RUN npm install --no-audit --no-fund && node scripts/ensure-console-build.mjs && chown -R node:node /app
USER node
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "services/all-in-one/src/main.ts"]
