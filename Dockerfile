# quotecheck's own image, for people who want the tool in a container: Node 20, poppler's pdftotext and quotecheck on
# PATH, running as a non-root user.   docker build -t quotecheck:latest .
# Benchmark tasks do NOT build on it: a task's agent image starts from public images only and has no quotecheck in it
# (design.md §6); the oracle and the verifier bring their own self-contained builds (dist/bundle/, made below too).

# Build stage: compile TypeScript and pack the package exactly as npm would publish it.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.src.json ./
COPY src ./src
COPY scripts ./scripts
COPY skills ./skills
COPY bin ./bin
COPY README.md ./
# dist/src (the package) and dist/bundle (the self-contained builds a task ships, by scripts/bundle.ts), then the pack.
RUN npx tsc -p tsconfig.json && node dist/scripts/bundle.js && npm pack --silent && mv quotecheck-*.tgz /quotecheck.tgz

# Runtime stage: the packed package plus its production dependencies, pinned by the lockfile.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends poppler-utils ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/quotecheck
COPY --from=build /quotecheck.tgz /tmp/quotecheck.tgz
COPY package-lock.json ./
RUN tar -xzf /tmp/quotecheck.tgz --strip-components=1 \
 && npm ci --omit=dev --no-audit --no-fund \
 && rm /tmp/quotecheck.tgz \
 && ln -s /opt/quotecheck/bin/quotecheck.js /usr/local/bin/quotecheck \
 && useradd --create-home --uid 10001 quotecheck \
 && mkdir -p /app /logs/verifier /logs/agent \
 && chown quotecheck:quotecheck /app /logs/verifier /logs/agent
USER quotecheck
WORKDIR /app
CMD ["quotecheck", "--help"]
