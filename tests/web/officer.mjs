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
  const first = ill.connections[0];
  await page.click(`button[data-connection="${first.connection_id}"]`);
  const detail = await page.textContent('#connection-detail');
  for (const r of first.finding.reasons) assert.ok(detail.includes(r), `reason: ${r}`);
  for (const c of first.finding.citations) assert.ok(detail.includes(c.citation), `citation: ${c.citation}`);

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

  // The upstream trace from an outfall, with its candidate connections.
  await page.fill('#trace-outfall', 'OF-000002');
  await page.click('#trace');
  await page.waitForFunction(() => document.body.dataset.drawn === 'trace');
  const tr = (await api('/api/trace/OF-000002?direction=upstream')).body;
  assert.equal(await page.textContent('#trace-summary'), `Upstream of OF-000002: ${tr.trace.structures.length} structures, ${tr.trace.pipes.length} pipes, ${tr.connections.length} candidate connections`);
  console.log('trace map', await assertMapDrawn(page, `${SHOTS}/officer-trace.png`));

  // A watershed's inspection list, ranked, as CSV.
  await page.fill('#watershed-id', 'WS-0001');
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
