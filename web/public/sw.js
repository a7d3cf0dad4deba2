// The page's service worker: the shell (the page and its files) is cached when installed,
// so the page opens with no network; tiles and style already seen stay drawable; the
// registry's answers always go to the network (an answer is never served stale).
// Matches ignore `Vary`: the service's CORS layer varies every answer on Origin, which a
// module script sends and the install's requests do not.
const SHELL = 'ms4-shell-v2';
const TILES = 'ms4-tiles-v1';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    const res = await fetch('/?f=html', { cache: 'no-store' });
    const html = await res.clone().text();
    await cache.put('/', res);
    // The built files the page names (hashed names under /page/).
    const files = [...html.matchAll(/(?:src|href)="(\/page\/[^"]+)"/g)].map((m) => m[1]);
    // MapLibre's worker, which the page starts from beside its bundle.
    await cache.addAll([...new Set(files), '/page/maplibre-gl-worker.mjs', '/page/maplibre-gl-shared.mjs', '/manifest.webmanifest']);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const k of await caches.keys()) if (k !== SHELL && k !== TILES) await caches.delete(k);
    await self.clients.claim();
  })());
});

function isTile(url) {
  // The style and its sprite (the flow arrows) too.
  return url.pathname.startsWith('/tiles') || url.pathname.startsWith('/styles/');
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === 'navigate' && url.pathname === '/') {
    // The page: the network's copy when there is one (a new build), else the cached one.
    event.respondWith((async () => {
      try {
        const res = await fetch('/?f=html', { cache: 'no-store' });
        if (res.ok) (await caches.open(SHELL)).put('/', res.clone());
        return res;
      } catch {
        return (await caches.match('/', { ignoreVary: true })) ?? Response.error();
      }
    })());
    return;
  }
  if (url.pathname.startsWith('/page/') || url.pathname === '/manifest.webmanifest') {
    event.respondWith((async () => {
      // The names are hashed or versioned (`?v=`): any copy of the path is the same file.
      const hit = await caches.match(req, { ignoreSearch: true, ignoreVary: true });
      if (hit) return hit;
      const res = await fetch(req);
      if (res.ok) (await caches.open(SHELL)).put(req, res.clone());
      return res;
    })());
    return;
  }
  if (url.pathname.startsWith('/collections/') || url.pathname.startsWith('/api/assets/') || url.pathname === '/api/session' || url.pathname === '/health') {
    // Reads an inspector may need in the field: always the network's answer, and the last
    // one seen only when there is no network (the card says it may be old).
    event.respondWith((async () => {
      try {
        const res = await fetch(req);
        if (res.ok) (await caches.open(TILES)).put(req, res.clone());
        return res;
      } catch {
        const hit = await (await caches.open(TILES)).match(req, { ignoreVary: true });
        if (!hit) return Response.error();
        const h = new Headers(hit.headers);
        h.set('X-Ms4-Offline-Copy', 'true');
        return new Response(hit.body, { status: hit.status, headers: h });
      }
    })());
    return;
  }
  if (isTile(url)) {
    // The network first (a tile's URL names its generation, so a fresh one is fetched
    // after a change), the cached copy when offline. TileJSON and tiles are cached by path
    // without the generation, so what was seen draws offline.
    const key = url.pathname;
    event.respondWith((async () => {
      try {
        const res = await fetch(req);
        if (res.ok) (await caches.open(TILES)).put(key, res.clone());
        return res;
      } catch {
        const hit = await (await caches.open(TILES)).match(key, { ignoreVary: true });
        return hit ?? Response.error();
      }
    })());
  }
});
