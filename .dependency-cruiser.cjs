/**
 * Import rules `npm run lint` enforces (docs/platform.md, "Layers"): no cycles; the shared and
 * platform layers never import a feature (shared may use the platform's pure value modules, decimal
 * and calendar, which import nothing of the service); providers never import a feature; features reach other
 * features only through what those export on purpose (their service, schemas, views are fine); a
 * feature is wired in only through its manifest (`src/modules/<feature>/index.ts`, listed once in
 * src/modules/index.ts), so no other feature imports its routes; nothing outside src/providers imports
 * a vendor folder (src/providers/<kind>/<vendor>/): features use the ports.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles make load order matter and hide layering mistakes.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'src/shared holds helpers every layer uses; it never reaches up into features, providers or the platform.',
      from: { path: '^src/shared/' },
      to: {
        path: '^src/(modules|providers|platform|plugins|workers|outbox)/',
        pathNot: '^src/platform/(decimal|calendar)[.]ts$',
      },
    },
    {
      name: 'platform-values-are-leaves',
      severity: 'error',
      comment: 'The decimal and calendar modules are pure values every layer (shared included) may use, so they import nothing of the service.',
      from: { path: '^src/platform/(decimal|calendar)[.]ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'platform-below-features',
      severity: 'error',
      comment: 'The platform layer serves features; features plug into it (manifests), not the reverse.',
      from: { path: '^src/platform/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'providers-below-features',
      severity: 'error',
      comment: 'Adapters speak the vendor and the port; what a feature shows (views, services) stays in the feature.',
      from: { path: '^src/providers/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'no-vendor-outside-providers',
      severity: 'error',
      comment:
        "A feature (or any layer but the providers') reaches a vendor only through its kind's port and capabilities; a vendor folder (src/providers/<kind>/<vendor>/) is used by the registry alone (docs/architecture.md, \"Adding a provider\").",
      from: { path: '^src/', pathNot: '^src/providers/' },
      to: { path: '^src/providers/[^/]+/[^/]+/' },
    },
    {
      name: 'routes-through-manifests',
      severity: 'error',
      comment: "A feature's routes are registered by its manifest; another feature never imports them.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/.+[.]routes[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'outbox-and-plugins-use-feature-surfaces',
      severity: 'error',
      comment:
        "The outbox and the plugins sit beside the features: they may use what a feature exports on purpose (its schemas, service, machine table, policy, view, messages), never its internals (repo, routes, transitions, jobs, workers, listeners, pages, statements). Justified exception: the webhook event-data catalogue (webhooks/event-data/), whose schemas the outbox and the OpenAPI documents read.",
      from: { path: '^src/(outbox|plugins)/' },
      to: {
        path: '^src/modules/',
        pathNot: [
          '^src/modules/.+[.](schemas|service|machine|policy|view|messages)[.]ts$',
          '^src/modules/webhooks/event-data/',
        ],
      },
    },
    {
      name: 'manifests-listed-once',
      severity: 'error',
      comment: 'The list of manifests (src/modules/index.ts) is the only place a manifest is used.',
      from: { pathNot: '^src/modules/index[.]ts$' },
      to: { path: '^src/modules/[^/]+/index[.]ts$' },
    },
  ],
  options: {
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|packages|scripts|drizzle)/' },
  },
};
