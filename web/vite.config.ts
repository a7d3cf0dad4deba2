import { defineConfig, type Plugin } from 'vite';
import { readFileSync } from 'node:fs';

// MapLibre 6 starts its worker from `./maplibre-gl-worker.mjs` beside the bundle (with
// its shared chunk): emit both under /page/ as they are.
function maplibreWorker(): Plugin {
  return {
    name: 'maplibre-worker',
    apply: 'build',
    generateBundle() {
      for (const f of ['maplibre-gl-worker.mjs', 'maplibre-gl-shared.mjs']) {
        const source = readFileSync(new URL(`./node_modules/maplibre-gl/dist/${f}`, import.meta.url));
        this.emitFile({ type: 'asset', fileName: `page/${f}`, source });
      }
    },
  };
}

// Built into the ms4 binary (build.rs embeds dist/): the files the page loads live under
// page/ with hashed names, so they can be cached for ever; sw.js and the manifest sit
// beside the page, where a service worker must be to control the whole page. Every name
// is relative (`./page/…`): the same build serves at a server's root and under a
// coalition member's `/r/{name}/`.
export default defineConfig({
  base: './',
  plugins: [maplibreWorker()],
  build: {
    assetsDir: 'page',
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    target: 'es2022',
  },
  test: {
    include: ['test/**/*.test.ts'],
  },
} as never);
