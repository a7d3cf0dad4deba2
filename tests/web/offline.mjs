// Offline: the shell opens with no network, three inspections recorded offline wait on the
// device, and when the network returns exactly three reach the server, even though the
// answer to the first one is lost on the way and it is sent again.
import { launch, context, open, mapIdle, assertMapDrawn, done, api, SHOTS, assert } from './lib.mjs';

const of = (await api('/collections/outfalls/items/OF-000002')).body;
const [lon, lat] = of.geometry.coordinates;
const before = (await api('/collections/inspections/items?limit=1')).body.numberMatched;
const browser = await launch();
try {
  const ctx = await context(browser, { geo: { longitude: lon, latitude: lat } });
  await ctx.addInitScript((t) => sessionStorage.setItem('ms4.token', t), process.env.MS4_TOKEN_INSPECTOR);
  const page = await open(ctx);
  // The service worker has cached the shell.
  await page.waitForFunction(async () => {
    const r = await navigator.serviceWorker.getRegistration();
    if (!r?.active || !navigator.serviceWorker.controller) return false;
    const keys = await caches.keys();
    const shell = keys.find((k) => k.startsWith('ms4-shell'));
    return !!shell && (await (await caches.open(shell)).keys()).length >= 5 && document.body.dataset.offlineReady === 'true';
  }, null, { timeout: 20000, polling: 250 });
  // The worker arrived during the first visit and fetched what the map had drawn through
  // itself, without making the map load its style and tiles again.
  assert.equal(await page.evaluate(() => window.__ms4styleLoads), 1, 'the style was loaded again when the service worker took over');
  await page.click('#near-me');
  await page.waitForFunction(() => document.body.dataset.drawn === 'nearby');
  const rows = await page.$$eval('#nearby tbody tr', (rs) => rs.map((r) => [r.cells[0].querySelector('button').dataset.asset, r.cells[1].textContent]));
  const picked = rows.filter(([, kind]) => kind === 'outfall' || kind === 'catch basin' || kind === 'smp').slice(0, 3).map(([id]) => id);
  assert.equal(picked.length, 3, `three facilities with a form near by: ${JSON.stringify(rows)}`);

  console.log('picked', picked);
  await ctx.setOffline(true);
  for (const id of picked) {
    await page.click(`#nearby button[data-asset="${id}"]`);
    await page.waitForSelector(`#card h2:text("${id}")`);
    await page.click('#record');
    await page.selectOption('[name="result"]', 'pass');
    await page.click('#save-inspection');
    await page.waitForFunction(() => document.getElementById('card-saved')?.textContent.startsWith('Saved on this device'));
    // Back to the list the card stood in place of.
    await page.click('#card-back');
  }
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '3');
  assert.match(await page.textContent('#queue-status'), /Offline · 3 inspections waiting to send/);

  // With no network the page opens again from its cache, the queue still there, and the
  // tiles it has seen still draw.
  await page.reload();
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '3');
  await mapIdle(page);
  console.log('offline map', await assertMapDrawn(page, `${SHOTS}/offline-reloaded.png`));
  assert.equal((await api('/collections/inspections/items?limit=1')).body.numberMatched, before, 'nothing sent while offline');

  // The network returns, but the server's answer to the first inspection is lost: the
  // page must send it again (same key) and the server must not write it twice.
  let lost = 0;
  await page.route('**/api/inspections', async (route) => {
    if (lost === 0) {
      lost++;
      await route.fetch();
      return route.abort('connectionreset');
    }
    return route.continue();
  });
  await ctx.setOffline(false);
  // The lost answer leaves that inspection waiting; the page tries again on the next
  // 'online' event (here sent until the queue is empty).
  for (let i = 0; i < 60; i++) {
    if ((await page.getAttribute('#queue-status', 'data-waiting')) === '0') break;
    await page.waitForTimeout(250);
    if (lost === 1) await page.evaluate(() => window.dispatchEvent(new Event('online')));
  }
  assert.equal(await page.getAttribute('#queue-status', 'data-waiting'), '0', 'the queue is empty');
  assert.equal(lost, 1, 'the first answer was lost on the way');
  const after = (await api('/collections/inspections/items?limit=100')).body;
  assert.equal(after.numberMatched, before + 3, 'exactly three on the server');
  const assets = after.features.map((f) => f.properties.asset_id).sort();
  assert.deepEqual(assets, [...picked].sort());
  assert.equal(new Set(after.features.map((f) => f.properties.idempotency_key)).size, 3);
  await page.screenshot({ path: `${SHOTS}/offline-sent.png` });
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('offline flow ok');
