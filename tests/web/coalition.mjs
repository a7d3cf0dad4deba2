// A coalition's member in the page: one server holds two registries, a (Carmel, no layers
// yet) under /r/a/ and b (the demo town) under /r/b/. The page under /r/b/ asks b for
// everything it shows: its town, its map, what is near, a facility's card, an inspection
// saved (through the queue) and its service worker's files. The page at the root of a
// single-registry server (MS4_ROOT_URL) still works as it always has.
import { launch, context, open, mapIdle, assertMapDrawn, assertNoSideScroll, done, api, BASE, SHOTS, assert } from './lib.mjs';

const ROOT = process.env.MS4_ROOT_URL;
assert.ok(ROOT, 'MS4_ROOT_URL names a single-registry server');
const TOKEN_B = process.env.MS4_TOKEN_B;
assert.ok(TOKEN_B, 'MS4_TOKEN_B is an inspector token of b');

const of = (await api('/r/b/collections/outfalls/items/OF-000002')).body;
const [lon, lat] = of.geometry.coordinates;
const nameA = (await api('/r/a/health')).body.name;
const nameB = (await api('/r/b/health')).body.name;
assert.ok(nameA && nameB && nameA !== nameB, `two towns: ${nameA}, ${nameB}`);
// a holds none of b's facilities: a page that asked a (or the server's root) would show
// none of what b's page must.
assert.equal((await api('/r/a/collections/outfalls/items/OF-000002')).status, 404);
assert.equal((await api('/r/a/api/assets/OF-000002/inspections')).status, 404);
assert.equal((await fetch(`${BASE}/api/session`)).status, 404, 'the coalition\'s root has no registry of its own');
// The coalition's own routes are in its API definition.
const doc = (await api('/api/openapi.json')).body;
assert.ok(doc.paths['/registries'] && doc.paths['/coalition/report'], Object.keys(doc.paths ?? {}).join(', '));

// The page asked for at a member's folder without its slash is sent to the folder.
const bare = await fetch(`${BASE}/r/b?view=inspector`, { headers: { Accept: 'text/html' }, redirect: 'manual' });
assert.equal(bare.status, 308);
assert.equal(bare.headers.get('location'), 'b/?view=inspector');

const browser = await launch();
try {
  const ctx = await context(browser, { geo: { longitude: lon, latitude: lat } });
  const page = await open(ctx, '/r/b/');
  assert.equal(await page.textContent('#jurisdiction'), nameB, 'b\'s town in the header');
  // The map's style and tiles are b's.
  const tiles = await page.evaluate(() => window.__ms4map.getSource('ms4').tiles[0]);
  assert.ok(new URL(tiles).pathname.startsWith('/r/b/tiles/'), tiles);
  console.log('b map', await assertMapDrawn(page, `${SHOTS}/coalition-b.png`));

  // Signed in with b's token, kept for b only: a's page would not send it.
  await page.fill('#token', TOKEN_B);
  await page.click('#signin button[type=submit]');
  await page.waitForFunction(() => !document.getElementById('whoami').hidden);
  assert.equal(await page.textContent('#role'), 'inspector-b (inspector)');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('ms4.token')), null, 'not kept as the root\'s token');
  await mapIdle(page);

  // Its service worker sits at b's folder and keeps b's files in b's caches.
  await page.waitForFunction(async () => {
    const r = await navigator.serviceWorker.getRegistration();
    if (!r?.active || !navigator.serviceWorker.controller) return false;
    if (!(await caches.keys()).includes('ms4-shell-v2/r/b')) return false;
    return (await (await caches.open('ms4-shell-v2/r/b')).keys()).length >= 5 && document.body.dataset.offlineReady === 'true';
  }, null, { timeout: 20000, polling: 250 });
  const worker = await page.evaluate(async () => {
    const r = await navigator.serviceWorker.getRegistration();
    const shell = await (await caches.open('ms4-shell-v2/r/b')).keys();
    return { scope: new URL(r.scope).pathname, script: new URL(r.active.scriptURL).pathname, shell: shell.map((q) => new URL(q.url).pathname) };
  });
  assert.equal(worker.scope, '/r/b/');
  assert.equal(worker.script, '/r/b/sw.js');
  assert.ok(worker.shell.includes('/r/b/') && worker.shell.includes('/r/b/page/maplibre-gl-worker.mjs'), JSON.stringify(worker.shell));
  assert.ok(worker.shell.every((p) => p.startsWith('/r/b/')), `only b's files: ${JSON.stringify(worker.shell)}`);

  // What is near, as b answers it.
  await page.click('#near-me');
  await page.waitForFunction(() => document.body.dataset.drawn === 'nearby');
  const shown = await page.$$eval('#nearby tbody tr', (rows) => rows.map((r) => r.cells[0].textContent));
  const answer = (await api(`/r/b/api/nearby?lon=${lon}&lat=${lat}&k=20`)).body.facilities;
  assert.ok(answer.length > 0, 'b has facilities near');
  assert.deepEqual(shown, answer.map((f, i) => `${i + 1} ${f.id}`), 'nearest first, as b says');
  assert.equal(shown[0], '1 OF-000002');
  await assertNoSideScroll(page);

  // A card, with b's water.
  await page.click('#nearby button[data-asset="OF-000002"]');
  await page.waitForSelector('#card h2:text("OF-000002")');
  const waterId = of.properties.receiving_water_id;
  const waterName = (await api(`/r/b/collections/receiving_waters/items/${waterId}`)).body.properties.name;
  await page.waitForFunction((n) => document.getElementById('card-water')?.textContent.includes(n), waterName);
  assert.equal(await page.textContent('#card-due'), 'OVERDUE: never inspected');

  // An inspection saved through the queue reaches b, and only b.
  await page.click('#record');
  await page.selectOption('[name="result"]', 'pass');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('card-saved')?.textContent.startsWith('Saved:'));
  const saved = (await api('/r/b/api/assets/OF-000002/inspections')).body.inspections;
  assert.equal(saved.length, 1);
  assert.equal(saved[0].inspector, 'inspector-b');
  assert.equal((await api('/r/a/collections/inspections/items?limit=1')).body.numberMatched, 0, 'nothing written to a');
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '0', null, { timeout: 5000 });
  await page.screenshot({ path: `${SHOTS}/coalition-b-saved.png` });
  done(ctx, page);

  // a's page shows a's town and is not signed in with b's token.
  const pa = await open(ctx, '/r/a/');
  assert.equal(await pa.textContent('#jurisdiction'), nameA);
  assert.equal(await pa.isHidden('#whoami'), true, 'b\'s token stays with b');
  done(ctx, pa);

  // The root of a single-registry server: the page, its map and its worker at /.
  const origin = new URL(ROOT).origin;
  const rctx = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const outside = [];
  rctx.on('request', (r) => {
    const u = r.url();
    if (!(u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:'))) outside.push(u);
  });
  const rp = await rctx.newPage();
  const errors = [];
  rp.on('pageerror', (e) => errors.push(e.message));
  await rp.goto(`${ROOT}/`);
  await mapIdle(rp);
  assert.equal(await rp.textContent('#jurisdiction'), (await (await fetch(`${ROOT}/health`)).json()).name);
  const rootTiles = await rp.evaluate(() => window.__ms4map.getSource('ms4').tiles[0]);
  assert.ok(new URL(rootTiles).pathname.startsWith('/tiles/'), rootTiles);
  console.log('root map', await assertMapDrawn(rp, `${SHOTS}/coalition-root.png`));
  await rp.waitForFunction(async () => {
    const r = await navigator.serviceWorker.getRegistration();
    return !!r?.active && (await caches.keys()).includes('ms4-shell-v2') && document.body.dataset.offlineReady === 'true';
  }, null, { timeout: 20000, polling: 250 });
  assert.equal(await rp.evaluate(async () => new URL((await navigator.serviceWorker.getRegistration()).scope).pathname), '/');
  assert.deepEqual(outside, [], 'requests left the server\'s origin');
  assert.deepEqual(errors, [], 'the page threw');
} finally {
  await browser.close();
}
console.log('coalition flow ok');
