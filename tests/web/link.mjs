// A link reproduces what a colleague sees: the view and its selection in the query, the
// map's camera in the hash. Also what every view shares: a legend on the map, a skip link
// past the map, focus after sign-in, and the keyboard's way to choose a place said on screen.
import { launch, context, open, mapIdle, assertMapDrawn, done, api, SHOTS, assert } from './lib.mjs';

const parcel = (await api('/collections/parcels/items/P-000002')).body;
const ring = parcel.geometry.type === 'Polygon' ? parcel.geometry.coordinates[0] : parcel.geometry.coordinates[0][0];

/** The view, the place chosen and the camera the page shows. */
async function seen(page) {
  return page.evaluate(() => {
    const m = window.__ms4map;
    const c = m.getCenter();
    return {
      view: document.querySelector('#tabs button[aria-pressed="true"]')?.dataset.view,
      place: document.getElementById('place')?.textContent ?? null,
      centre: [c.lng, c.lat],
      zoom: m.getZoom(),
      bearing: m.getBearing(),
      drawnPlace: (window.__ms4draft?.features ?? []).map((f) => f.properties.id),
    };
  });
}

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  const page = await open(ctx);

  // Keyboard: the first Tab reaches the skip link, which jumps past the map to the view.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip');
  assert.equal(await page.locator('.skip').isVisible(), true, 'the skip link shows when focused');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'panel', 'focus past the map');

  // The planner's parcel, chosen from the keyboard, and the map moved: all in the URL.
  await page.click('#tabs [data-view="planner"]');
  assert.match(await page.textContent('#keyboard-hint'), /Without a mouse: type the parcel id/);
  await page.fill('#parcel-id', 'P-000002');
  await page.click('#use-parcel');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('parcel') === 'P-000002');
  await page.waitForFunction(() => (window.__ms4draft?.features ?? []).length === 1);
  await mapIdle(page);
  // The parcel is framed: its corners are on screen.
  const onScreen = await page.evaluate((r) => r.every((p) => window.__ms4map.getBounds().contains(p)), ring);
  assert.ok(onScreen, 'the parcel chosen is framed');
  await page.evaluate(() => window.__ms4map.jumpTo({ center: [-73.8605, 41.2142], zoom: 17.25, bearing: 0 }));
  await page.waitForFunction(() => /#17\.25\/41\.214/.test(location.hash), null, { timeout: 5000 });
  const link = page.url();
  const url = new URL(link);
  assert.equal(url.searchParams.get('view'), 'planner');
  assert.equal(url.searchParams.get('parcel'), 'P-000002');
  const before = await seen(page);
  console.log('link', link, before);

  // A colleague opens the link in another browser: the same view, place and camera.
  const other = await context(browser, { width: 1280, height: 900 });
  const p2 = await open(other, link.slice(link.indexOf('/', 8)));
  await p2.waitForFunction(() => document.getElementById('place')?.textContent === 'Parcel P-000002');
  await p2.waitForFunction(() => (window.__ms4draft?.features ?? []).length === 1);
  await mapIdle(p2);
  const after = await seen(p2);
  assert.equal(after.view, 'planner');
  assert.equal(after.place, 'Parcel P-000002');
  assert.deepEqual(after.drawnPlace, ['P-000002'], 'the parcel is drawn');
  assert.ok(Math.abs(after.zoom - before.zoom) < 0.01, `the same zoom: ${after.zoom} ${before.zoom}`);
  assert.ok(Math.abs(after.centre[0] - before.centre[0]) < 1e-5 && Math.abs(after.centre[1] - before.centre[1]) < 1e-5, `the same centre: ${after.centre} ${before.centre}`);
  assert.equal(new URL(p2.url()).search, url.search, 'the link is kept as it came');
  console.log('link map', await assertMapDrawn(p2, `${SHOTS}/link-reopened.png`));
  // Another view drops the planner's selection from the URL; back to the planner, none.
  await p2.click('#tabs [data-view="officer"]');
  assert.equal(new URL(p2.url()).searchParams.get('view'), 'officer');
  assert.equal(new URL(p2.url()).searchParams.get('parcel'), null);
  // A footprint rides in the link as its corners: reopened, drawn and framed.
  const corners = ring.slice(0, -1).map(([x, y]) => `${x.toFixed(6)},${y.toFixed(6)}`).join(';');
  await p2.goto(`${process.env.MS4_URL}/?view=planner&footprint=${encodeURIComponent(corners)}`);
  await p2.waitForFunction(() => /^The footprint of the link \(\d+ corners\)$/.test(document.getElementById('place')?.textContent ?? ''));
  await mapIdle(p2);
  const fp = await p2.evaluate(() => ({ n: window.__ms4draft.features[0].geometry.coordinates[0].length, inView: window.__ms4draft.features[0].geometry.coordinates[0].every((p) => window.__ms4map.getBounds().contains(p)) }));
  assert.deepEqual(fp, { n: ring.length, inView: true });
  done(other, p2);
  await other.close();

  // A legend in every view: the registry's layers, and what the view's answer draws.
  await page.fill('#fact-disturbed', '2');
  await page.selectOption('#fact-disturbed-unit', 'acre');
  await page.click('#determine');
  await page.waitForFunction(() => document.body.dataset.drawn === 'determination' && !document.body.dataset.busy);
  const roles = await page.$$eval('#legend-answer li', (l) => l.map((x) => [x.dataset.role, x.textContent]));
  const drawn = await page.evaluate(() => [...new Set(window.__ms4answer.features.map((f) => f.properties.role))]);
  for (const r of drawn) assert.ok(roles.some(([x, t]) => x === r && t.length > 2), `the legend names ${r}: ${JSON.stringify(roles)}`);
  await page.locator('#map').screenshot({ path: `${SHOTS}/legend-planner.png` });
  await page.fill('#token', process.env.MS4_TOKEN_ANALYST);
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#whoami:not([hidden])');
  // Focus after sign-in: the view's heading, so the keyboard goes on from there.
  await page.waitForFunction(() => document.activeElement?.tagName === 'H2');
  assert.equal(await page.evaluate(() => document.activeElement.closest('#view') !== null), true, 'focus in the view after sign-in');
  for (const view of ['inspector', 'planner', 'officer', 'analyst']) {
    await page.click(`#tabs [data-view="${view}"]`);
    assert.equal(await page.locator('#legend').isVisible(), true, `a legend in the ${view} view`);
    assert.equal(await page.textContent('#legend summary'), 'Legend');
    await page.click('#legend .legend-layers summary');
    const base = await page.$$eval('#legend-base li', (l) => l.map((x) => x.textContent));
    assert.ok(base.length >= 10 && base.includes('town boundary') && base.some((t) => t.startsWith('outfall')), `${view}: the registry's layers in the legend (${base})`);
    await page.locator('#map').screenshot({ path: `${SHOTS}/legend-${view}.png` });
    await page.click('#legend .legend-layers summary');
  }
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('link flow ok');
