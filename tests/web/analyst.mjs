// The analyst: a GeoJSON of new outfalls whose id field has another name; the dry run is
// refused naming the field (in the page's words, not the command line's), the mapping is
// chosen beside the source's fields, the quality report matches the API's, the features
// are drawn during the dry run, a commit that would leave one out asks first, and the
// commit shows on the map, highlighted and framed, with a new tile generation.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  // Every layer of the registry is offered, the drainage structures too.
  const collections = (await api('/collections')).body.collections.map((c) => c.id);
  await page.waitForFunction((n) => document.querySelectorAll('#import-layer option').length === n, collections.length);
  const offered = await page.$$eval('#import-layer option', (o) => o.map((x) => x.value));
  assert.deepEqual([...offered].sort(), [...collections].sort());
  assert.ok(offered.includes('structures'));
  await page.selectOption('#import-layer', 'outfalls');
  assert.equal(new URL(page.url()).searchParams.get('layer'), 'outfalls', 'the layer is in the URL');
  await page.setInputFiles('#import-file', upload);

  // Refused: no asset_id; the page lists the source's fields to map it from.
  await page.click('#dry-run');
  await page.waitForSelector('#import-error');
  const refusal = await page.textContent('#import-error');
  assert.match(refusal, /no field for outfalls\.asset_id; its fields are: FACILITYID, WATER_ID, STATUS, DIAM/);
  assert.match(refusal, /Choose the source field for asset_id in the table of fields below/);
  assert.ok(!(await page.textContent('#view')).includes('--'), `no command-line wording on the page: ${refusal}`);
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
  // Each rejected feature once, numbered as the source numbers it, with every reason.
  const rejected = await page.$$eval('#report table:has(caption:text("Rejected features")) tbody tr', (t) => t.map((x) => [x.cells[0].textContent, x.cells[1].textContent, [...x.cells[2].querySelectorAll('li')].map((l) => l.textContent)]));
  const byFeature = new Map();
  for (const x of r.rejections) {
    const e = byFeature.get(x.feature) ?? [String(x.feature), x.id ?? '—', []];
    e[2].push(x.field && !x.reason.includes(x.field) ? `${x.field}: ${x.reason}` : x.reason);
    byFeature.set(x.feature, e);
  }
  assert.deepEqual(rejected, [...byFeature.values()]);
  assert.deepEqual(rejected.map((x) => x[0]), ['2'], 'the third feature of the file, as the source numbers it');
  assert.equal((await api('/collections/outfalls/items/OF-NEW-1')).status, 404, 'a dry run writes nothing');
  // The dry run draws the file's features: two to load, one rejected.
  const preview = await page.evaluate(() => window.__ms4answer.features.map((f) => f.properties.role));
  assert.deepEqual(preview, ['loaded', 'loaded', 'rejected']);
  const legend = await page.$$eval('#legend-answer li', (l) => l.map((x) => x.textContent));
  assert.ok(legend.includes('features loaded') && legend.some((t) => t.startsWith('features rejected')), `the legend names them: ${legend}`);
  await page.locator('#map').screenshot({ path: `${SHOTS}/analyst-dry-run.png` });

  // Commit: one feature would be left out, so the page asks first; Cancel writes nothing.
  await page.click('#commit-import');
  await page.waitForSelector('#commit-confirm:not([hidden])');
  assert.equal(await page.textContent('#commit-question'), `${r.rejected} feature rejected — commit the other ${r.imported}?`);
  assert.equal(await page.textContent('#commit-question'), '1 feature rejected — commit the other 2?');
  await page.waitForFunction(() => document.activeElement?.id === 'confirm-commit');
  await page.screenshot({ path: `${SHOTS}/analyst-confirm.png` });
  await page.click('#cancel-commit');
  assert.equal(await page.locator('#commit-confirm').isVisible(), false);
  assert.equal((await api('/collections/outfalls/items/OF-NEW-1')).status, 404, 'a cancelled commit writes nothing');
  await page.click('#commit-import');
  await page.waitForSelector('#commit-confirm:not([hidden])');
  await page.click('#confirm-commit');

  // Committed: the features are in, the tile generation moved, and the map uses it.
  await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Committed'));
  assert.match(await page.textContent('#message'), /^Committed: 2 features loaded into outfalls, 1 left out; the map shows them highlighted\.$/);
  // The loaded features are highlighted and framed.
  const shown = await page.evaluate(() => ({
    roles: window.__ms4answer.features.map((f) => f.properties.role),
    inView: window.__ms4answer.features.every((f) => window.__ms4map.getBounds().contains(f.geometry.coordinates)),
  }));
  assert.deepEqual(shown, { roles: ['loaded', 'loaded'], inView: true });
  assert.deepEqual(await page.evaluate(() => window.__ms4answer.features.map((f) => f.properties.id).sort()), ['OF-NEW-1', 'OF-NEW-2'], 'the features read back by the report\'s ids');
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

  // A file the page cannot read itself (a GeoPackage in State Plane feet): the dry run
  // frames the box the report gives of what it would write, and the commit highlights the
  // features written, read back from the registry by the report's ids.
  const dir = mkdtempSync(join(tmpdir(), 'analyst-'));
  const more = { type: 'FeatureCollection', features: [
    { type: 'Feature', properties: { asset_id: 'OF-NEW-3', receiving_water_id: 'NY-1301-0001' }, geometry: { type: 'Point', coordinates: [-73.858, 41.216] } },
    { type: 'Feature', properties: { asset_id: 'OF-NEW-4', receiving_water_id: 'NY-1301-0001' }, geometry: { type: 'Point', coordinates: [-73.853, 41.219] } },
  ] };
  writeFileSync(join(dir, 'more.geojson'), JSON.stringify(more));
  execFileSync('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:2263', join(dir, 'more.gpkg'), join(dir, 'more.geojson')]);
  await page.setInputFiles('#import-file', { name: 'more.gpkg', mimeType: 'application/geopackage+sqlite3', buffer: readFileSync(join(dir, 'more.gpkg')) });
  await page.click('#dry-run');
  await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Dry run'));
  assert.match(await page.textContent('#message'), /2 features would be loaded \(2 new, 0 updated, 0 unchanged, 0 deleted\)/);
  const box = await page.evaluate(() => ({
    roles: window.__ms4answer.features.map((f) => f.properties.role),
    inView: window.__ms4answer.features[0].geometry.coordinates[0].every((p) => window.__ms4map.getBounds().contains(p)),
    holds: [[-73.858, 41.216], [-73.853, 41.219]].every(([x, y]) => {
      const r = window.__ms4answer.features[0].geometry.coordinates[0];
      const xs = r.map((p) => p[0]);
      const ys = r.map((p) => p[1]);
      return x >= Math.min(...xs) - 1e-6 && x <= Math.max(...xs) + 1e-6 && y >= Math.min(...ys) - 1e-6 && y <= Math.max(...ys) + 1e-6;
    }),
  }));
  assert.deepEqual(box, { roles: ['extent'], inView: true, holds: true }, 'the dry run frames where the features would go');
  await page.click('#commit-import');
  await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Committed'));
  const written = await page.evaluate(() => window.__ms4answer.features.map((f) => [f.properties.role, f.properties.id]).sort());
  assert.deepEqual(written, [['loaded', 'OF-NEW-3'], ['loaded', 'OF-NEW-4']], 'the features written, highlighted');
  assert.ok(await page.evaluate(() => window.__ms4answer.features.every((f) => window.__ms4map.getBounds().contains(f.geometry.coordinates))), 'and framed');
  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('analyst flow ok');
