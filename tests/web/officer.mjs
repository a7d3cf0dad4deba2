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
