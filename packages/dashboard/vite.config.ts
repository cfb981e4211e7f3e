import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the service at /dashboard (src/modules/dashboard); the dev server proxies the API to it.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  // The SDK from its sources (its package exports point at a build only `npm pack` makes).
  resolve: { alias: { '@svc/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  build: {
    target: 'es2022',
    // No inline scripts or data-URL modules: the service's CSP allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: { proxy: { '/api': 'http://localhost:8000' } },
});
