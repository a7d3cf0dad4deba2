// The planner at the desk: a parcel picked on the map, a footprint drawn with the mouse, a
// GeoJSON file chosen; the facts; the determination against the API's, its evidence
// drawn, a bad fact refused next to its field, and the print view.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, context, open, mapIdle, assertMapDrawn, assertNoSideScroll, done, api, SHOTS, assert } from './lib.mjs';

const parcel = (await api('/collections/parcels/items/P-000001')).body;
const ring = parcel.geometry.type === 'Polygon' ? parcel.geometry.coordinates[0] : parcel.geometry.coordinates[0][0];
const centre = ring.slice(0, -1).reduce((a, c) => [a[0] + c[0] / (ring.length - 1), a[1] + c[1] / (ring.length - 1)], [0, 0]);

async function post(body) {
  const r = await fetch(process.env.MS4_URL + '/api/determinations', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return r.json();
}

const word = (r) => (r === true ? 'yes' : r === false ? 'no' : r == null ? 'undetermined' : String(r).replace(/_/g, ' '));

async function checkAgainstApi(page, label) {
  await page.waitForFunction(() => document.body.dataset.drawn === 'determination');
  const body = JSON.parse(await page.getAttribute('#determination', 'data-request'));
  const a = await post(body);
  const d = a.determination;
  const lda = await page.textContent('#determination .finding:first-of-type .badge');
  assert.equal(lda, word(d.land_development_activity.result), `${label}: land development activity`);
  const text = await page.textContent('#determination');
  for (const c of d.land_development_activity.citations) assert.ok(text.includes(c.citation), `${label}: citation ${c.citation}`);
  for (const r of d.land_development_activity.reasons) assert.ok(text.includes(r), `${label}: reason`);
  for (const x of d.land_development_activity.assumptions) assert.ok(text.includes(x.id), `${label}: assumption ${x.id}`);
  const open = await page.$$eval('#open-facts li', (l) => l.map((x) => x.textContent));
  assert.deepEqual(open, d.open_facts ?? [], `${label}: open facts`);
  for (const w of a.receiving_waters.by_watershed) assert.ok(text.includes(`${(w.share * 100).toFixed(1)}%`), `${label}: share of ${w.watershed_id}`);
  for (const w of a.receiving_waters.listed) for (const p of w.pollutants) assert.ok(text.includes(p), `${label}: pollutant ${p}`);
  for (const t of a.receiving_waters.tmdl_areas) assert.ok(text.includes(t.tmdl_id), `${label}: ${t.tmdl_id}`);
  // The evidence is on the map: the answer source holds the places the answer names.
  const drawnIds = await page.evaluate(() => window.__ms4answer.features.map((f) => f.properties.role));
  assert.ok(drawnIds.includes('watershed'), `${label}: the watershed drawn (${drawnIds})`);
  console.log(label, 'map', await assertMapDrawn(page, `${SHOTS}/planner-${label}.png`));
  return a;
}

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  const page = await open(ctx);
  await page.click('#tabs [data-view="planner"]');
  await page.evaluate((c) => window.__ms4map.jumpTo({ center: c, zoom: 18 }), centre);
  await mapIdle(page);
  const box = await page.locator('#map canvas').boundingBox();
  const at = async (lngLat) => {
    const p = await page.evaluate((ll) => window.__ms4map.project(ll), lngLat);
    return [box.x + p.x, box.y + p.y];
  };

  // A parcel picked on the map.
  await page.click('#pick-parcel');
  await page.mouse.click(...(await at(centre)));
  await page.waitForFunction(() => document.getElementById('place').textContent.startsWith('Parcel'));
  assert.equal(await page.textContent('#place'), 'Parcel P-000001');

  // Without a pointer: the parcel by its id, from the keyboard.
  await page.focus('#parcel-id');
  await page.keyboard.type('P-000002');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.equal(await page.textContent('#place'), 'Parcel P-000002');
  await page.click('#pick-parcel');
  await page.mouse.click(...(await at(centre)));
  await page.waitForFunction(() => document.getElementById('place').textContent === 'Parcel P-000001');

  // A bad fact: the server's message next to the field.
  await page.click('#determine');
  await page.waitForFunction(() => document.getElementById('fact-disturbed-error').textContent !== '');
  const err = await page.textContent('#fact-disturbed-error');
  const apiErr = await post({ parcel: 'P-000001', disturbed: '', larger_common_plan: false });
  assert.equal(err, apiErr.error);
  assert.match(err, /^disturbed: /);

  await page.fill('#fact-disturbed', '2');
  await page.selectOption('#fact-disturbed-unit', 'acre');
  await page.selectOption('#fact-single_family', 'no');
  await page.check('#fact-larger_common_plan');
  await page.click('#determine');
  const a = await checkAgainstApi(page, 'parcel');
  assert.equal(a.parcel, 'P-000001');
  const sent = JSON.parse(await page.getAttribute('#determination', 'data-request'));
  assert.equal(sent.disturbed, '2acre');
  assert.equal(sent.single_family, false);
  assert.equal(sent.larger_common_plan, true);
  assert.ok(!('agricultural' in sent), 'a fact not known is left out');

  // A footprint drawn with four clicks around the parcel's centre.
  await page.click('#draw-footprint');
  const [cx, cy] = await at(centre);
  for (const [dx, dy] of [[-40, -40], [40, -40], [40, 40], [-40, 40]]) await page.mouse.click(cx + dx, cy + dy);
  await page.click('#finish-footprint');
  assert.match(await page.textContent('#place'), /footprint drawn \(4 corners\)/);
  await page.click('#determine');
  const drawnAnswer = await checkAgainstApi(page, 'drawn');
  assert.equal(drawnAnswer.parcel, null);

  // Two corners are not a footprint: Finish says so and the drawing stays open; a third
  // corner, then a tap on the first one again, closes it (terra-draw's closing point).
  await page.click('#draw-footprint');
  await page.mouse.click(cx - 30, cy - 30);
  await page.mouse.click(cx + 30, cy - 30);
  await page.click('#finish-footprint');
  assert.match(await page.textContent('#message'), /at least three corners/);
  assert.equal(await page.textContent('#place'), 'Drawing a footprint');
  await page.mouse.click(cx + 30, cy + 30);
  await page.mouse.click(cx - 30, cy - 30);
  await page.waitForFunction(() => /footprint drawn \(3 corners\)/.test(document.getElementById('place').textContent));
  await page.click('#determine');
  const triangle = await checkAgainstApi(page, 'triangle');
  assert.equal(triangle.parcel, null);
  const tsent = JSON.parse(await page.getAttribute('#determination', 'data-request'));
  assert.equal(tsent.footprint.coordinates[0].length, 4, 'three corners and the closing one');

  // A GeoJSON file of the footprint.
  const fc = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: parcel.geometry }] };
  await page.setInputFiles('#footprint-file', { name: 'site.geojson', mimeType: 'application/geo+json', buffer: Buffer.from(JSON.stringify(fc)) });
  await page.waitForFunction(() => document.getElementById('place').textContent === 'Footprint from site.geojson');
  await page.click('#determine');
  await checkAgainstApi(page, 'uploaded');

  // The same footprint as a zipped shapefile in the state plane, as a surveyor sends it:
  // the server reads it (POST /api/footprint) and the page sends what it answered.
  const dir = mkdtempSync(join(tmpdir(), 'footprint-'));
  writeFileSync(join(dir, 'site.geojson'), JSON.stringify(fc));
  // GDAL writes a zipped shapefile under the .shz name; it is a plain zip.
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-t_srs', 'EPSG:2260', join(dir, 'site.shz'), join(dir, 'site.geojson')]);
  await page.setInputFiles('#footprint-file', { name: 'site.zip', mimeType: 'application/zip', buffer: readFileSync(join(dir, 'site.shz')) });
  await page.waitForFunction(() => document.getElementById('place').textContent === 'Footprint from site.zip');
  await page.click('#determine');
  await checkAgainstApi(page, 'zipped');
  const zsent = JSON.parse(await page.getAttribute('#determination', 'data-request'));
  const zring = zsent.footprint.type === 'Polygon' ? zsent.footprint.coordinates[0] : zsent.footprint.coordinates[0][0];
  for (const c of ring) {
    assert.ok(zring.some((z) => Math.abs(z[0] - c[0]) < 1e-7 && Math.abs(z[1] - c[1]) < 1e-7), `corner ${c} of the parcel in the zipped footprint ${JSON.stringify(zring)}`);
  }
  rmSync(dir, { recursive: true, force: true });
  // A file that is no footprint: the server's message, naming the file, on the page.
  await page.setInputFiles('#footprint-file', { name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip') });
  await page.waitForFunction(() => /notes\.zip: file/.test(document.getElementById('message').textContent));

  // The print view: the answer, the map and the citations; no controls.
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('header').isVisible(), false);
  assert.equal(await page.locator('#facts').isVisible(), false);
  assert.equal(await page.locator('#determination').isVisible(), true);
  assert.equal(await page.locator('#map').isVisible(), true);
  assert.equal(await page.locator('#determination h2.print-only').isVisible(), true);
  await page.screenshot({ path: `${SHOTS}/planner-print.png`, fullPage: true });
  await page.emulateMedia({ media: 'screen' });

  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('planner flow ok');
