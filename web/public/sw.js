// The page's service worker: the shell (the page and its files) is cached when installed,
// so the page opens with no network; tiles and style already seen stay drawable; the
// registry's answers always go to the network (an answer is never served stale).
// Matches ignore `Vary`: the service's CORS layer varies every answer on Origin, which a
// module script sends and the install's requests do not.
//
// The worker sits beside the page, at its registry's base: `` at a server's root,
// `/r/carmel` for a coalition's member, whose worker controls that member's page only.
// The caches are the origin's, shared by every member: each member's carry its base in
// their names, and a worker clears only its own base's old ones.
const BASE = new URL('.', self.location.href).pathname.replace(/\/$/, '');
const SHELL = `ms4-shell-v2${BASE}`;
const TILES = `ms4-tiles-v1${BASE}`;

/** The base a cache's name is of (`` for the root's `ms4-shell-v2`). */
function baseOfCache(name) {
  const i = name.indexOf('/');
  return i < 0 ? '' : name.slice(i);
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    const res = await fetch(`${BASE}/?f=html`, { cache: 'no-store' });
    const html = await res.clone().text();
    await cache.put(`${BASE}/`, res);
    // The built files the page names (hashed names under page/, relative to the page).
    const files = [...html.matchAll(/(?:src|href)="((?:\.\/|\/)?page\/[^"]+)"/g)]
      .map((m) => new URL(m[1], self.location.href).pathname);
    // MapLibre's worker, which the page starts from beside its bundle.
    const beside = ['/page/maplibre-gl-worker.mjs', '/page/maplibre-gl-shared.mjs', '/manifest.webmanifest'].map((p) => BASE + p);
    await cache.addAll([...new Set(files), ...beside]);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const k of await caches.keys()) {
      if (baseOfCache(k) === BASE && k !== SHELL && k !== TILES) await caches.delete(k);
    }
    await self.clients.claim();
  })());
});

/** The path of `url` below the base (`/tiles.json`), or null for one outside it. */
function below(url) {
  if (url.origin !== self.location.origin || !url.pathname.startsWith(`${BASE}/`)) return null;
  return url.pathname.slice(BASE.length);
}

function isTile(path) {
  // The style and its sprite (the flow arrows) too.
  return path.startsWith('/tiles') || path.startsWith('/styles/');
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  const path = below(url);
  if (path === null) return;
  if (req.mode === 'navigate' && path === '/') {
    // The page: the network's copy when there is one (a new build), else the cached one.
    event.respondWith((async () => {
      try {
        const res = await fetch(`${BASE}/?f=html`, { cache: 'no-store' });
        if (res.ok) (await caches.open(SHELL)).put(`${BASE}/`, res.clone());
        return res;
      } catch {
        return (await (await caches.open(SHELL)).match(`${BASE}/`, { ignoreVary: true })) ?? Response.error();
      }
    })());
    return;
  }
  if (path.startsWith('/page/') || path === '/manifest.webmanifest') {
    event.respondWith((async () => {
      // The names are hashed or versioned (`?v=`): any copy of the path is the same file.
      const hit = await (await caches.open(SHELL)).match(req, { ignoreSearch: true, ignoreVary: true });
      if (hit) return hit;
      const res = await fetch(req);
      if (res.ok) (await caches.open(SHELL)).put(req, res.clone());
      return res;
    })());
    return;
  }
  if (path.startsWith('/collections/') || path.startsWith('/api/assets/') || path === '/api/session' || path === '/health') {
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
  if (isTile(path)) {
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
