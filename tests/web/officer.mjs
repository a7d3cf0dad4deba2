// The stormwater officer: connections by finding against /api/illicit, a connection's
// reasons and citations, the upstream trace from an outfall, a watershed's ranked list
// exported as CSV, and the SMPs without an easement.
import { readFile } from 'node:fs/promises';
import { launch, context, open, assertMapDrawn, assertNoSideScroll, done, api, SHOTS, assert } from './lib.mjs';

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  const page = await open(ctx);
  await page.click('#tabs [data-view="officer"]');

  // Connections with finding "illicit".
  await page.selectOption('#finding-status', 'illicit');
  await page.click('#list-connections');
  await page.waitForFunction(() => document.body.dataset.drawn === 'connections');
  const ill = (await api('/api/illicit?status=illicit')).body;
  const shownIds = await page.$$eval('#officer-out tbody tr td:first-child', (t) => t.map((x) => x.textContent));
  assert.deepEqual(shownIds, ill.connections.map((c) => c.connection_id));
  assert.equal(shownIds.length, ill.summary.illicit);
  const findings = await page.$$eval('#officer-out tbody tr td:nth-child(2)', (t) => [...new Set(t.map((x) => x.textContent))]);
  assert.deepEqual(findings, ['illicit'], 'the finding is written, not only coloured');
  console.log('connections map', await assertMapDrawn(page, `${SHOTS}/officer-connections.png`));
  // Each connection with its parcel, what it discharges and the parcel's address, as the
  // connections and parcels layers record them.
  const layer = async (name) => new Map((await api(`/collections/${name}/items?limit=10000`)).body.features.map((f) => [f.id, f.properties]));
  const conns = await layer('connections');
  const parcels = await layer('parcels');
  const rows = await page.$$eval('#officer-out tbody tr', (rs) => rs.map((r) => [...r.children].map((td) => td.textContent)));
  for (const [id, , parcel, kind, address] of rows) {
    const c = conns.get(id);
    assert.deepEqual([parcel, kind, address], [c.parcel_id ?? '—', (c.discharge_kind ?? '—').replace(/_/g, ' '), parcels.get(c.parcel_id)?.address ?? '—'], `the row of ${id}`);
  }
  const first = ill.connections[0];
  await page.click(`button[data-connection="${first.connection_id}"]`);
  await page.waitForFunction((id) => document.body.dataset.shown === id, first.connection_id);
  const detail = await page.textContent('#connection-detail');
  for (const r of first.finding.reasons) assert.ok(detail.includes(r), `reason: ${r}`);
  for (const c of first.finding.citations) assert.ok(detail.includes(c.citation), `citation: ${c.citation}`);
  // The click shows it on the map: drawn as the one selected, the map brought to it.
  const shownOnMap = await page.evaluate((id) => {
    const map = window.__ms4map;
    const f = window.__ms4answer.features.find((x) => x.properties.role === 'selected');
    const b = map.getBounds();
    const pts = f.geometry.type === 'Point' ? [f.geometry.coordinates] : f.geometry.coordinates.flat(f.geometry.type.startsWith('Multi') ? 1 : 0);
    return { id: f.properties.connection_id ?? f.id, inView: pts.every((p) => b.contains(p)), zoom: map.getZoom() };
  }, first.connection_id);
  assert.equal(shownOnMap.id, first.connection_id);
  assert.ok(shownOnMap.inView && shownOnMap.zoom >= 15, JSON.stringify(shownOnMap));

  // Filtered by status and jurisdiction: inside the registry's boundary, outside it, and
  // in one watershed; checked against the API's answer and the areas' own polygons.
  const status = 'illicit,needs_review';
  const both = (await api(`/api/illicit?status=${status}&f=geojson`)).body;
  const areasOf = async (layer) => (await api(`/collections/${layer}/items?limit=1000`)).body.features;
  const boundary = await areasOf('boundary');
  const sheds = await areasOf('watersheds');
  const crossings = (p, ring) => ring.reduce((n, a, i) => {
    const b = ring[(i + ring.length - 1) % ring.length];
    return n + ((a[1] > p[1]) !== (b[1] > p[1]) && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0] ? 1 : 0);
  }, 0);
  const within = (p, g) => (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).some((rs) => crossings(p, rs[0]) % 2 === 1 && !rs.slice(1).some((h) => crossings(p, h) % 2 === 1));
  const pts = (g) => (g.type === 'Point' ? [g.coordinates] : g.type === 'LineString' || g.type === 'MultiPoint' ? g.coordinates : g.coordinates.flat());
  const expected = (areas) => both.features.filter((f) => f.geometry && pts(f.geometry).some((p) => areas.some((a) => within(p, a.geometry)))).map((f) => f.properties.connection_id ?? f.id);
  const listWith = async (where) => {
    await page.evaluate(() => (document.body.dataset.drawn = ''));
    await page.selectOption('#finding-status', status);
    await page.waitForFunction((w) => [...document.querySelectorAll('#finding-where option')].some((o) => o.value === w), where);
    await page.selectOption('#finding-where', where);
    await page.click('#list-connections');
    await page.waitForFunction(() => document.body.dataset.drawn === 'connections');
    return page.$$eval('#officer-out tbody tr td:first-child', (t) => t.map((x) => x.textContent));
  };
  const inside = await listWith('inside');
  const outside = await listWith('outside');
  assert.deepEqual(inside, expected(boundary), 'inside the boundary');
  assert.equal(inside.length + outside.length, both.features.length, 'inside and outside make the whole list');
  assert.ok(inside.length > 0, 'some connections lie inside the boundary');
  const shed = sheds.find((w) => expected([w]).length > 0) ?? sheds[0];
  const inShed = await listWith(`ws:${shed.id}`);
  assert.deepEqual(inShed, expected([shed]), `in watershed ${shed.id}`);
  assert.match(await page.textContent('#connection-count'), new RegExp(`in watershed ${shed.id}`));

  // An error clears once the next action succeeds.
  await page.fill('#trace-outfall', 'OF-NONE');
  await page.click('#trace');
  await page.waitForFunction(() => document.getElementById('message').className === 'error');
  assert.match(await page.textContent('#message'), /OF-NONE/);

  // The upstream trace from an outfall typed in lower case, with its candidate connections.
  await page.fill('#trace-outfall', 'of-000002');
  await page.click('#trace');
  await page.waitForFunction(() => document.body.dataset.drawn === 'trace');
  assert.equal(await page.$eval('#message', (e) => e.className), '', 'the error is gone');
  const tr = (await api('/api/trace/OF-000002?direction=upstream')).body;
  assert.equal(await page.textContent('#trace-summary'), `Upstream of OF-000002: ${tr.trace.structures.length} structures, ${tr.trace.pipes.length} pipes, ${tr.connections.length} candidate connections`);
  // Drawn: the map's rendered features on the trace's layers hold every pipe and structure
  // of the trace, and the map is framed on it.
  const drawnTrace = await page.evaluate(() => {
    const map = window.__ms4map;
    const ids = (layers) => [...new Set(map.queryRenderedFeatures({ layers }).map((f) => f.properties.id))].sort();
    const cands = map.queryRenderedFeatures({ layers: ['officer-trace-candidates', 'officer-trace-candidate-points'] }).map((f) => [f.properties.id ?? f.properties.connection_id, f.properties.finding]);
    const b = map.getBounds();
    const src = map.getSource('officer-trace').serialize().data;
    const pts = src.features.flatMap((f) => (f.geometry.type === 'Point' ? [f.geometry.coordinates] : f.geometry.type === 'LineString' ? f.geometry.coordinates : f.geometry.coordinates.flat()));
    return { pipes: ids(['officer-trace-pipes']), structures: ids(['officer-trace-structures']), cands: Object.fromEntries(cands), framed: pts.every((p) => b.contains(p)) };
  });
  assert.deepEqual(drawnTrace.pipes, [...tr.trace.pipes].sort(), 'the trace\'s pipes are drawn');
  assert.deepEqual(drawnTrace.structures, [...tr.trace.structures].sort(), 'the trace\'s structures are drawn');
  assert.ok(drawnTrace.framed, 'the map is framed on the trace');
  // Candidates coloured by their own finding and ranked: illicit first, then needing review.
  const every = (await api('/api/illicit?status=illicit,needs_review,ok,not_covered')).body.connections;
  const findingOf = new Map(every.map((c) => [c.connection_id, c.finding]));
  const ranked = await page.$$eval('#officer-out tbody tr', (rs) => rs.map((r) => [...r.children].map((td) => td.textContent)));
  assert.deepEqual(ranked.map((r) => r[0]), ranked.map((_, i) => String(i + 1)));
  assert.deepEqual([...ranked.map((r) => r[1])].sort(), tr.connections.map((c) => c.connection_id).sort());
  const order = { illicit: 0, needs_review: 1, not_covered: 2, ok: 3 };
  const ranks = ranked.map((r) => order[findingOf.get(r[1]).result]);
  assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), 'ranked by finding');
  for (const r of ranked) {
    const f = findingOf.get(r[1]);
    assert.equal(r[2], f.result.replace(/_/g, ' '), `finding of ${r[1]}`);
    assert.equal(drawnTrace.cands[r[1]], f.result, `${r[1]} drawn in its finding's colour`);
    for (const reason of f.reasons) assert.ok(r[6].includes(reason), `reason of ${r[1]}`);
  }
  // Words are not broken letter by letter: every one-word cell is on one line.
  const broken = await page.$$eval('#officer-out td', (tds) => tds.filter((td) => td.children.length === 0 && td.textContent.trim() && !/\s/.test(td.textContent.trim())).filter((td) => {
    const r = document.createRange();
    r.selectNodeContents(td);
    return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1;
  }).map((td) => td.textContent));
  assert.deepEqual(broken, [], 'cells broken inside a word');
  console.log('trace map', await assertMapDrawn(page, `${SHOTS}/officer-trace.png`));
  await page.screenshot({ path: `${SHOTS}/officer-trace-page.png` });

  // An outfall picked on the map fills the trace's field.
  const at = await page.evaluate(async () => {
    const map = window.__ms4map;
    const of = (await (await fetch('/collections/outfalls/items/OF-000002')).json()).geometry.coordinates;
    // In the middle, away from the map's controls.
    map.jumpTo({ center: of });
    await new Promise((done) => (map.once('idle', done), map.triggerRepaint()));
    const p = map.project(of);
    const r = map.getCanvas().getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  });
  await page.fill('#trace-outfall', '');
  await page.mouse.click(at.x, at.y);
  await page.waitForFunction(() => document.getElementById('trace-outfall').value !== '');
  assert.equal(await page.inputValue('#trace-outfall'), 'OF-000002');
  // And a watershed, tapped where no outfall is.
  const spot = await page.evaluate(() => {
    const map = window.__ms4map;
    const c = map.getCanvas();
    const r = c.getBoundingClientRect();
    for (let y = 20; y < c.clientHeight - 20; y += 23) {
      for (let x = 20; x < c.clientWidth - 60; x += 23) {
        const ws = map.queryRenderedFeatures([x, y], { layers: ['watersheds-fill'] })[0];
        const near = map.queryRenderedFeatures([[x - 12, y - 12], [x + 12, y + 12]], { layers: ['outfalls'] });
        // Where the map itself takes the tap (not a control over it).
        if (ws && !near.length && document.elementFromPoint(r.left + x, r.top + y) === c) return { x: r.left + x, y: r.top + y, id: ws.properties.id };
      }
    }
    return null;
  });
  assert.ok(spot, 'a watershed is in view');
  await page.fill('#watershed-id', '');
  await page.mouse.click(spot.x, spot.y);
  await page.waitForFunction(() => document.getElementById('watershed-id').value !== '');
  assert.equal(await page.inputValue('#watershed-id'), spot.id);
  assert.match(await page.textContent('#message'), new RegExp(`Picked watershed ${spot.id}`));

  // A watershed's inspection list, ranked, as CSV.
  await page.fill('#watershed-id', 'ws-0001');
  await page.click('#watershed-list');
  await page.waitForSelector('#watershed-count');
  const ws = (await api('/api/watersheds/WS-0001/facilities')).body.list.facilities;
  assert.equal(await page.textContent('#watershed-count'), `${ws.length} facilities in WS-0001, ranked for inspection (hot spots first)`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
  const csv = (await readFile(await download.path(), 'utf8')).trim().split('\r\n');
  assert.equal(csv[0], 'rank,id,kind,score,due,last_inspection,reasons');
  assert.equal(csv.length, ws.length + 1);
  assert.ok(csv[1].startsWith(`1,${ws[0].id},${ws[0].layer},${ws[0].score},`), csv[1]);

  // SMPs without a recorded easement.
  await page.click('#smps-no-easement');
  await page.waitForSelector('#officer-out table caption:text("SMPs without a recorded easement")');
  const smps = (await api('/api/smps-without-easement')).body.smps;
  assert.deepEqual(await page.$$eval('#officer-out tbody tr td:first-child', (t) => t.map((x) => x.textContent)), smps.map((s) => s.smp_id));
  await page.setViewportSize({ width: 360, height: 740 });
  await assertNoSideScroll(page);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('officer flow ok');
