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
  // Drawn, and no longer busy (the button pressed marks the page busy at once).
  await page.waitForFunction(() => document.body.dataset.drawn === 'determination' && !document.body.dataset.busy);
  const body = JSON.parse(await page.getAttribute('#determination', 'data-request'));
  const a = await post(body);
  const d = a.determination;
  const lda = await page.locator('#determination .finding').first().locator('h3 .badge').textContent();
  assert.equal(lda, word(d.land_development_activity.result), `${label}: land development activity`);
  const text = await page.textContent('#determination');
  for (const c of d.land_development_activity.citations) assert.ok(text.includes(c.citation), `${label}: citation ${c.citation}`);
  for (const r of d.land_development_activity.reasons) assert.ok(text.includes(r), `${label}: reason`);
  for (const x of d.land_development_activity.assumptions) assert.ok(text.includes(x.id), `${label}: assumption ${x.id}`);
  // The open facts: the answer's, in the form's words where they name a fact of the form,
  // then every yes/no fact the form left "not known"; each of the form's is answerable here.
  const openText = await page.textContent('#open-facts');
  const labels = Object.fromEntries(await page.$$eval('#facts .field', (fs) => fs.map((f) => [f.querySelector('[name]')?.name, f.querySelector('label')?.textContent])));
  const factName = (o) => {
    const n = o.replace(/^gp\./, 'gp_');
    if (labels[n]) return n;
    if (/single-family residence/.test(o)) return 'single_family';
    if (/agricultural property/.test(o)) return 'agricultural';
    return null;
  };
  for (const o of d.open_facts ?? []) {
    const n = factName(o);
    if (n) assert.equal(await page.locator(`#open-facts-answer li[data-fact="${n}"] select`).count(), 1, `${label}: open fact ${o} answerable as ${n}`);
    else assert.ok(openText.includes(o), `${label}: open fact ${o}`);
    assert.ok(!n || openText.includes(labels[n]), `${label}: ${o} in the form's words (${labels[n]})`);
  }
  const notKnown = await page.$$eval('#facts select', (ss) => ss.filter((x) => x.options[0]?.value === '' && x.value === '').map((x) => x.name));
  const listed = await page.$$eval('#open-facts li[data-fact]', (l) => l.map((x) => x.dataset.fact));
  for (const n of notKnown) assert.ok(listed.includes(n), `${label}: ${n}, left not known, is listed as open (${listed})`);
  assert.ok(!/[{}]"|"[:,]/.test(text) && !text.includes('{"'), `${label}: no raw JSON in the answer`);
  if (d.conditions_absent) {
    const c = await page.locator('#determination .finding', { hasText: 'Conditions One, Two and Three' }).locator('.badge').textContent();
    assert.equal(c, d.conditions_absent.result === true ? 'not in this law' : word(d.conditions_absent.result), `${label}: the absent conditions`);
  }
  // The answer comes into view: focus is on its heading, inside the answer, and it is framed.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'answer-heading', `${label}: the answer has the focus`);
  assert.equal(await page.getAttribute('#answer-summary', 'role'), 'status');
  const project = await page.evaluate(() => {
    const m = window.__ms4map;
    const b = m.getBounds();
    const pts = [];
    const visit = (c) => (typeof c[0] === 'number' ? pts.push(c) : c.forEach(visit));
    for (const f of window.__ms4answer.features.filter((f) => f.properties.role === 'footprint')) visit(f.geometry.coordinates);
    const px = pts.map((p) => m.project(p));
    const w = Math.max(...px.map((p) => p.x)) - Math.min(...px.map((p) => p.x));
    const h = Math.max(...px.map((p) => p.y)) - Math.min(...px.map((p) => p.y));
    const c = m.getCanvas();
    const cx = (Math.max(...px.map((p) => p.x)) + Math.min(...px.map((p) => p.x))) / 2 / c.clientWidth;
    const cy = (Math.max(...px.map((p) => p.y)) + Math.min(...px.map((p) => p.y))) / 2 / c.clientHeight;
    return { n: pts.length, inside: pts.every((p) => b.contains(p)), share: Math.max(w / c.clientWidth, h / c.clientHeight), centre: [cx, cy], zoom: m.getZoom() };
  });
  assert.ok(project.n > 0, `${label}: the project is drawn`);
  // Framed: in view, in the middle, and filling the map (or as close as the map comes).
  const framed = project.inside && Math.abs(project.centre[0] - 0.5) < 0.1 && Math.abs(project.centre[1] - 0.5) < 0.1 && (project.share > 0.3 || project.zoom > 19.4);
  assert.ok(framed, `${label}: the project is framed ${JSON.stringify(project)}`);
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
  // The pick is in the URL with the view, and the parcel is drawn.
  await page.waitForFunction(() => window.__ms4draft?.features?.length === 1);
  assert.equal(new URL(page.url()).searchParams.get('view'), 'planner');
  assert.equal(new URL(page.url()).searchParams.get('parcel'), 'P-000001');

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
  await page.selectOption('#fact-larger_common_plan', 'yes');
  await page.click('#determine');
  const a = await checkAgainstApi(page, 'parcel');
  assert.equal(a.parcel, 'P-000001');
  const sent = JSON.parse(await page.getAttribute('#determination', 'data-request'));
  assert.equal(sent.disturbed, '2acre');
  assert.equal(sent.single_family, false);
  assert.equal(sent.larger_common_plan, true);
  assert.ok(!('agricultural' in sent), 'a fact not known is left out');

  // An open fact answered in place: the form takes it and the answer is asked again.
  const inPlace = await page.$$eval('#open-facts li[data-fact] select', (ss) => ss.map((x) => x.name));
  assert.ok(inPlace.includes('agricultural'), `agricultural, not known, answerable in place (${inPlace})`);
  await page.evaluate(() => { document.body.dataset.drawn = ''; });
  await page.selectOption('#open-agricultural', 'no');
  // Busy while it is asked: the button is disabled (no second request).
  await page.waitForFunction(() => document.body.dataset.drawn === 'determination');
  assert.equal(await page.inputValue('#fact-agricultural'), 'no');
  assert.equal(JSON.parse(await page.getAttribute('#determination', 'data-request')).agricultural, false);
  await checkAgainstApi(page, 'answered-in-place');
  assert.equal(await page.locator('#open-facts li[data-fact="agricultural"]').count(), 0, 'an answered fact is no longer open');

  // A double press sends one request: the button is disabled while the answer comes.
  let asked = 0;
  const count = (r) => { if (r.url().endsWith('/api/determinations') && r.method() === 'POST') asked++; };
  page.on('request', count);
  await page.evaluate(() => { document.body.dataset.drawn = ''; });
  await page.evaluate(() => { const b = document.getElementById('determine'); b.click(); b.click(); b.click(); });
  assert.equal(await page.getAttribute('#determine', 'disabled'), '', 'the button is disabled while busy');
  await page.waitForFunction(() => document.body.dataset.drawn === 'determination');
  page.off('request', count);
  assert.equal(asked, 1, 'one press, one request');
  assert.equal(await page.getAttribute('#determine', 'disabled'), null);

  // A footprint drawn with four clicks around the parcel's centre.
  await page.click('#draw-footprint');
  const [cx, cy] = await at(centre);
  for (const [dx, dy] of [[-40, -40], [40, -40], [40, 40], [-40, 40]]) await page.mouse.click(cx + dx, cy + dy);
  await page.click('#finish-footprint');
  assert.match(await page.textContent('#place'), /footprint drawn \(4 corners\)/);
  // The footprint rides in the URL (its corners), the parcel no longer.
  const linkUrl = new URL(page.url());
  assert.equal(linkUrl.searchParams.get('parcel'), null);
  assert.equal(linkUrl.searchParams.get('footprint').split(';').length, 4);
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

  // The print view, for the file: the findings first, the facts entered, the map framed on
  // the project as a picture with its legend, scale and north arrow; no controls.
  await page.evaluate(() => { window.print = () => { window.__printed = true; }; });
  await page.click('#print');
  await page.waitForFunction(() => window.__printed === true);
  await page.emulateMedia({ media: 'print' });
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.equal(await page.locator('header').isVisible(), false);
  assert.equal(await page.locator('#facts').isVisible(), false);
  assert.equal(await page.locator('#determination').isVisible(), true);
  assert.equal(await page.locator('#determination h2.print-only').isVisible(), true);
  assert.equal(await page.locator('#determination table caption:text("Findings")').isVisible(), true);
  assert.equal(await page.locator('#facts-entered').isVisible(), true);
  const entered = await page.textContent('#facts-entered');
  assert.ok(entered.includes('Area disturbed'), `the facts entered are printed: ${entered}`);
  assert.equal(await page.locator('#print-map img').isVisible(), true);
  assert.match(await page.getAttribute('#print-map img', 'src'), /^data:image\/png;base64,/);
  assert.equal(await page.locator('#print-map .north-arrow').isVisible(), true);
  assert.match(await page.textContent('#print-map .scale-text'), /^[\d,]+ ft$/);
  assert.ok((await page.locator('#print-map .print-legend li').count()) > 5, 'a legend beside the printed map');
  // The findings come before the map, the facts entered before the map.
  const order = await page.evaluate(() => ['#determination table', '#facts-entered', '#print-map', '#determination .finding'].map((s) => document.querySelector(s).getBoundingClientRect().top));
  assert.deepEqual([...order].sort((a, b) => a - b), order, `printed in order: findings, facts, map, reasons (${order})`);
  await page.screenshot({ path: `${SHOTS}/planner-print.png`, fullPage: true });
  await page.emulateMedia({ media: 'screen' });

  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('planner flow ok');
