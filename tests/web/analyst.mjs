// The analyst: a GeoJSON of new outfalls whose id field has another name; the dry run is
// refused naming the field, the mapping is chosen beside the source's fields, the quality
// report matches the API's, and the commit shows on the map with a new tile generation.
import { launch, context, open, mapIdle, assertMapDrawn, assertNoSideScroll, done, api, SHOTS, assert } from './lib.mjs';

const file = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { FACILITYID: 'OF-NEW-1', WATER_ID: 'NY-1301-0001', STATUS: 'active', DIAM: '18' }, geometry: { type: 'Point', coordinates: [-73.855, 41.218] } },
    { type: 'Feature', properties: { FACILITYID: 'OF-NEW-2', WATER_ID: 'NY-1301-0001', STATUS: 'active', DIAM: '24' }, geometry: { type: 'Point', coordinates: [-73.852, 41.22] } },
    { type: 'Feature', properties: { FACILITYID: '', WATER_ID: 'NY-1301-0001', STATUS: 'active', DIAM: 'x' }, geometry: { type: 'Point', coordinates: [-73.851, 41.221] } },
  ],
};
const upload = { name: 'new-outfalls.geojson', mimeType: 'application/geo+json', buffer: Buffer.from(JSON.stringify(file)) };
const genBefore = (await api('/tiles.json')).body.generation;

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  await ctx.addInitScript((t) => sessionStorage.setItem('ms4.token', t), process.env.MS4_TOKEN_ANALYST);
  const page = await open(ctx);
  await page.click('#tabs [data-view="analyst"]');
  await page.selectOption('#import-layer', 'outfalls');
  await page.setInputFiles('#import-file', upload);

  // Refused: no asset_id; the page lists the source's fields to map it from.
  await page.click('#dry-run');
  await page.waitForSelector('#import-error');
  assert.match(await page.textContent('#import-error'), /no field for outfalls\.asset_id; its fields are: FACILITYID, WATER_ID, STATUS, DIAM/);
  assert.equal(await page.getAttribute('#map-asset_id', 'aria-invalid'), 'true');
  const options = await page.$$eval('#map-asset_id option', (o) => o.map((x) => x.value).filter(Boolean));
  assert.deepEqual(options, ['FACILITYID', 'WATER_ID', 'STATUS', 'DIAM']);
  await page.selectOption('#map-asset_id', 'FACILITYID');
  await page.selectOption('#map-receiving_water_id', 'WATER_ID');

  // The dry run's report, as the API gives it.
  await page.click('#dry-run');
  await page.waitForSelector('#report table caption:text("Quality report")');
  const form = new FormData();
  form.append('file', new Blob([upload.buffer]), upload.name);
  form.append('dry_run', 'true');
  form.append('map', 'asset_id=FACILITYID');
  form.append('map', 'receiving_water_id=WATER_ID');
  const r = await (await fetch(process.env.MS4_URL + '/api/layers/outfalls/import', { method: 'POST', body: form, headers: { Authorization: `Bearer ${process.env.MS4_TOKEN_ANALYST}` } })).json();
  const rows = Object.fromEntries(await page.$$eval('#report table:first-of-type tbody tr', (t) => t.map((x) => [x.cells[0].textContent, x.cells[1].textContent])));
  assert.equal(rows.read, String(r.read));
  assert.equal(rows.imported, String(r.imported));
  assert.equal(rows.rejected, String(r.rejected));
  assert.equal(rows['fields kept as extra attributes'], r.extra_fields.join(', '));
  assert.equal(r.imported, 2);
  const rejected = await page.$$eval('#report table:has(caption:text("Rejected features")) tbody tr', (t) => t.map((x) => [...x.cells].map((c) => c.textContent)));
  assert.deepEqual(rejected, r.rejections.map((x) => [String(x.feature), x.id ?? '—', x.reason]));
  assert.equal((await api('/collections/outfalls/items/OF-NEW-1')).status, 404, 'a dry run writes nothing');

  // Commit: the features are in, the tile generation moved, and the map uses it.
  await page.click('#commit-import');
  await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Committed'));
  await mapIdle(page);
  assert.equal((await api('/collections/outfalls/items/OF-NEW-1')).status, 200);
  const genAfter = (await api('/tiles.json')).body.generation;
  assert.notEqual(genAfter, genBefore, 'the tile generation changed');
  const tilesUrl = await page.evaluate(() => window.__ms4map.getSource('ms4').tiles[0]);
  assert.ok(tilesUrl.includes(`g=${genAfter}`), `the map draws generation ${genAfter}: ${tilesUrl}`);
  // The new outfall is drawn: its tile feature is rendered where it lies.
  await page.evaluate(() => window.__ms4map.jumpTo({ center: [-73.855, 41.218], zoom: 17 }));
  await mapIdle(page);
  const hit = await page.evaluate(() => window.__ms4map.queryRenderedFeatures({ layers: ['outfalls'] }).map((f) => f.properties.id));
  assert.ok(hit.includes('OF-NEW-1'), `OF-NEW-1 drawn: ${hit}`);
  console.log('analyst map', await assertMapDrawn(page, `${SHOTS}/analyst-committed.png`));
  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('analyst flow ok');
