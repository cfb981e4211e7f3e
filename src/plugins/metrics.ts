/** Prometheus metrics at /metrics: request counts and latency histograms by route and status. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Histogram, type Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

export const metricsPlugin = fp(
  async (app: FastifyInstance, opts: { registry: Registry }) => {
    const registry = opts.registry;
    if (!registry.getSingleMetric('process_cpu_seconds_total')) collectDefaultMetrics({ register: registry });
    const labelNames = ['method', 'route', 'status_code'] as const;
    // An app built twice over the same deps (tests, the route contract check) shares the metrics.
    const requests =
      (registry.getSingleMetric('http_requests_total') as Counter<(typeof labelNames)[number]> | undefined) ??
      new Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames, registers: [registry] });
    const duration =
      (registry.getSingleMetric('http_request_duration_seconds') as
        | Histogram<(typeof labelNames)[number]>
        | undefined) ??
      new Histogram({
        name: 'http_request_duration_seconds',
        help: 'HTTP request latency',
        labelNames,
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      });
    app.decorate('metrics', registry);

    // The labelled children of each (method, route, status), made once: no label object to build
    // and hash per request. Routes and statuses are finite, so the map stays small.
    const children = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      if (route !== '/metrics') {
        const key = `${request.method} ${reply.statusCode} ${route}`;
        let child = children.get(key);
        if (!child) {
          const labels = { method: request.method, route, status_code: String(reply.statusCode) };
          child = { count: requests.labels(labels), time: duration.labels(labels) };
          children.set(key, child);
        }
        child.count.inc();
        child.time.observe(reply.elapsedTime / 1000);
      }
      done();
    });

    app.get('/metrics', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
      reply.header('Content-Type', registry.contentType);
      return registry.metrics();
    });
  },
  { name: 'metrics' },
);
