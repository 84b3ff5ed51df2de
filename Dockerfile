# perflab server image for a team deployment (docker-compose.yml). The UI is built in a Node stage.
FROM node:20-bookworm-slim AS ui
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY backend/requirements.lock backend/requirements.lock
RUN pip install --no-cache-dir --require-hashes -r backend/requirements.lock
COPY backend/ backend/
COPY agents/ agents/
COPY migrations/ migrations/
COPY alembic.ini ./
RUN pip install --no-cache-dir --no-deps -e backend -e agents
COPY --from=ui /src/frontend/dist /app/frontend/dist
RUN useradd --system --home /var/lib/perflab perflab && mkdir -p /var/lib/perflab && chown perflab /var/lib/perflab
USER perflab
ENV PERFLAB_HOME=/var/lib/perflab PERFLAB_HOST=0.0.0.0 PERFLAB_PORT=8000 PERFLAB_ENV=production
EXPOSE 8000
CMD ["perflab", "serve"]
