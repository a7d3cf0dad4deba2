// The inspector on a 360x740 phone: near me from the browser's location, the list against
// the API's answer, a card, a screening whose bad value the server refuses next to its
// field, then the same screening saved.
import { launch, context, open, assertMapDrawn, assertNoSideScroll, done, api, BASE, SHOTS, assert } from './lib.mjs';

const of = (await api('/collections/outfalls/items/OF-000002')).body;
const [lon, lat] = of.geometry.coordinates;
const browser = await launch();
try {
  const ctx = await context(browser, { geo: { longitude: lon, latitude: lat } });
  await ctx.addInitScript((t) => sessionStorage.setItem('ms4.token', t), process.env.MS4_TOKEN_INSPECTOR);
  const page = await open(ctx);
  assert.equal(await page.textContent('#role'), 'inspector-1 (inspector)');

  await page.click('#near-me');
  await page.waitForFunction(() => document.body.dataset.drawn === 'nearby');
  const shown = await page.$$eval('#nearby tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  const answer = (await api(`/api/nearby?lon=${lon}&lat=${lat}&k=20`)).body.facilities;
  assert.deepEqual(shown.map((r) => r[0]), answer.map((f) => f.id), 'nearest first, as the API says');
  assert.equal(shown[0][0], 'OF-000002');
  assert.equal(shown[0][2], `${Math.round(answer[0].distance)} ft`);
  assert.ok(shown[0][3].startsWith(answer[0].direction), `direction ${shown[0][3]}`);
  assert.equal(shown[0][4], answer[0].status);
  assert.equal(shown[0][5], 'never');
  assert.equal(shown[0][7], answer[0].access.kind.replace(/_/g, ' '));
  console.log('nearby map', await assertMapDrawn(page, `${SHOTS}/inspector-nearby.png`));
  await assertNoSideScroll(page);

  // The card.
  await page.click('#nearby button[data-asset="OF-000002"]');
  await page.waitForSelector('#card h2:text("OF-000002")');
  const attrs = await page.$$eval('#card dl dt', (d) => d.map((x) => x.textContent));
  assert.ok(attrs.includes('receiving_water_id'), attrs.join(','));
  const pipesIn = (await api('/collections/pipes/items?to_id=OF-000002')).body.numberMatched;
  const pipesOut = (await api('/collections/pipes/items?from_id=OF-000002')).body.numberMatched;
  const pipeRows = await page.locator('#card table:has(caption:text("Pipes it connects")) tbody tr').count();
  assert.equal(pipeRows, pipesIn + pipesOut);
  assert.ok(pipeRows > 0, 'an outfall has a pipe');

  // The form of its kind, every screening field the API takes.
  await page.click('#record');
  for (const name of ['result', 'screening.flow', 'screening.odour', 'screening.colour', 'screening.turbidity', 'screening.floatables', 'screening.deposits', 'screening.field_tests.ph', 'notes']) {
    assert.equal(await page.locator(`#inspection-form [name="${name}"]`).count(), 1, name);
  }
  assert.match(await page.textContent('#filled-in'), /position 41\.21/);
  await page.selectOption('[name="result"]', 'needs_follow_up');
  await page.selectOption('[name="screening.flow"]', 'trickle');
  await page.selectOption('[name="screening.odour"]', 'sewage');
  await page.fill('[name="screening.field_tests.ph"]', '15');
  await page.fill('[name="screening.field_tests.ammonia_mg_l"]', '0.8');
  await page.click('#save-inspection');
  const err = page.locator('#f-screening-field-tests-ph-error');
  await err.waitFor();
  await page.waitForFunction(() => document.getElementById('f-screening-field-tests-ph-error').textContent !== '');
  assert.equal(await err.textContent(), 'screening.field_tests.ph: 15 is outside 0 to 14 pH units');
  assert.equal(await page.getAttribute('[name="screening.field_tests.ph"]', 'aria-invalid'), 'true');
  assert.equal((await api('/api/assets/OF-000002/inspections')).body.inspections.length, 0, 'nothing written');

  await page.fill('[name="screening.field_tests.ph"]', '7.2');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Saved:'));
  const saved = (await api('/api/assets/OF-000002/inspections')).body.inspections;
  assert.equal(saved.length, 1);
  assert.equal(saved[0].result, 'needs_follow_up');
  assert.equal(saved[0].inspector, 'inspector-1');
  assert.equal(saved[0].findings.flow, 'trickle');
  assert.equal(saved[0].findings.field_tests.ph, 7.2);
  assert.equal(saved[0].findings.field_tests.ammonia_mg_l, 0.8);
  assert.ok(Array.isArray(saved[0].position) && Math.abs(saved[0].position[1] - lat) < 1e-6, JSON.stringify(saved[0]));
  assert.ok(saved[0].idempotency_key, 'sent with its key');
  // Nothing left waiting (the header's count follows the queue as it changes).
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '0', null, { timeout: 5000 });
  // The card again, its history holding the new inspection.
  await page.waitForSelector('#card table:has(caption:text("Inspections")) tbody tr');
  assert.match(await page.textContent('#card table:has(caption:text("Inspections")) tbody tr'), /needs_follow_up/);
  await assertNoSideScroll(page);
  await page.screenshot({ path: `${SHOTS}/inspector-saved.png` });
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('inspector flow ok');
