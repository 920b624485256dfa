import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Served by the gateway at /admin/ (ADR 0036); the SDK is compiled from its TypeScript sources
// (the `source` export condition) so the browser bundle gets ES modules.
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
  build: { outDir: 'dist', manifest: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
  test: { environment: 'jsdom', include: ['test/**/*.test.tsx'], setupFiles: ['test/setup.ts'], testTimeout: 30_000 },
});
