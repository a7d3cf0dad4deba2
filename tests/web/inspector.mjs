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
  // Each row numbered as its marker on the map is.
  assert.deepEqual(shown.map((r) => r[0]), answer.map((f, i) => `${i + 1} ${f.id}`), 'nearest first, as the API says');
  assert.equal(await page.locator('.near-marker').count(), answer.length, 'a marker per facility');
  assert.equal(await page.textContent(`.near-marker[data-asset="${answer[1].id}"]`), '2');
  assert.equal(shown[0][0], '1 OF-000002');
  assert.equal(shown[0][2], `${Math.round(answer[0].distance)} ft`);
  assert.ok(shown[0][3].startsWith(answer[0].direction), `direction ${shown[0][3]}`);
  assert.equal(shown[0][4], answer[0].status);
  assert.equal(shown[0][5], 'never');
  // "Overdue" is the server's answer, the same the map's tiles draw: never inspected is
  // overdue.
  assert.deepEqual(shown.map((r) => r[6]), answer.map((f) => (f.overdue ? 'OVERDUE' : 'no')));
  assert.equal(shown[0][6], 'OVERDUE');
  assert.equal(shown[0][7], answer[0].access.kind.replace(/_/g, ' '));
  // Zoomed to the inspector: the map is centred near where they stand.
  const centre = await page.evaluate(() => window.__ms4map.getCenter());
  assert.ok(Math.abs(centre.lng - lon) < 0.01 && Math.abs(centre.lat - lat) < 0.01, JSON.stringify(centre));
  assert.ok(await page.evaluate(() => window.__ms4map.getZoom()) >= 15);
  console.log('nearby map', await assertMapDrawn(page, `${SHOTS}/inspector-nearby.png`));
  await assertNoSideScroll(page);

  // A tap on the map opens the facility's card in place of the list; back returns to it.
  const px = await page.evaluate(([x, y]) => {
    const p = window.__ms4map.project([x, y]);
    const r = window.__ms4map.getCanvas().getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  }, [lon, lat]);
  await page.mouse.click(px.x, px.y);
  await page.waitForSelector('#card h2:text("OF-000002")');
  assert.equal(await page.isVisible('#nearby'), false, 'the card stands in place of the list');
  await page.click('#card-back');
  assert.equal(await page.isVisible('#nearby'), true);
  assert.equal(await page.locator('#card').count(), 0);

  // The card, from the list.
  await page.click('#nearby button[data-asset="OF-000002"]');
  await page.waitForSelector('#card h2:text("OF-000002")');
  const attrs = await page.$$eval('#card dl dt', (d) => d.map((x) => x.textContent));
  assert.ok(attrs.includes('receiving_water_id'), attrs.join(','));
  const waterId = of.properties.receiving_water_id;
  const waterName = (await api(`/collections/receiving_waters/items/${waterId}`)).body.properties.name;
  await page.waitForFunction((n) => document.getElementById('card-water')?.textContent.includes(n), waterName);
  const asset = (await api('/api/assets/OF-000002/inspections')).body;
  assert.equal(asset.overdue, true);
  assert.equal(await page.textContent('#card-due'), 'OVERDUE: never inspected');
  assert.equal(await page.textContent('#card-last'), 'Last inspection: never');
  const pipesIn = (await api('/collections/pipes/items?to_id=OF-000002')).body.numberMatched;
  const pipesOut = (await api('/collections/pipes/items?from_id=OF-000002')).body.numberMatched;
  const pipeRows = await page.locator('#card table:has(caption:text("Pipes it connects")) tbody tr').count();
  assert.equal(pipeRows, pipesIn + pipesOut);
  assert.ok(pipeRows > 0, 'an outfall has a pipe');
  await assertNoSideScroll(page);
  await page.screenshot({ path: `${SHOTS}/inspector-card.png` });

  // The form of its kind, built from the API's definition (the unit tests hold every
  // field to it; the fieldwork flow sends them all).
  await page.click('#record');
  for (const name of ['inspected_on', 'time', 'result', 'screening.hours_since_rain', 'screening.flow', 'screening.odour', 'screening.odour.severity', 'screening.characterisation', 'screening.field_tests.ph', 'screening.lab_sample.sample_id', 'notes']) {
    assert.equal(await page.locator(`#inspection-form [name="${name}"]`).count(), 1, name);
  }
  assert.equal(await page.locator('#inspection-form [name="screening.field_tests.potassium_mg_l"]').count(), 0, 'no field the API refuses');
  assert.equal(await page.inputValue('[name="result"]'), '', 'the result has no default');
  assert.match(await page.textContent('#filled-in'), /position 41\.21/i);
  // What the page can check from the definition is refused before anything is sent.
  await page.selectOption('[name="result"]', 'needs_follow_up');
  await page.fill('[name="screening.hours_since_rain"]', '72');
  await page.selectOption('[name="screening.flow"]', 'none');
  await page.fill('[name="screening.odour"]', 'sewage');
  await page.fill('[name="screening.field_tests.ph"]', '15');
  await page.fill('[name="screening.field_tests.ammonia_mg_l"]', '0.8');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('f-screening-field-tests-ph-error').textContent !== '');
  assert.equal(await page.textContent('#f-screening-field-tests-ph-error'), '15 is outside 0 to 14');
  assert.equal(await page.getAttribute('[name="screening.field_tests.ph"]', 'aria-invalid'), 'true');
  // What only the server can judge (an odour where nothing flows) is its refusal, shown
  // next to its field.
  await page.fill('[name="screening.field_tests.ph"]', '7.2');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('f-screening-odour-error').textContent !== '');
  assert.equal(await page.textContent('#f-screening-odour-error'), 'screening.odour: is observed only in flowing outfalls, and flow is none');
  assert.equal((await api('/api/assets/OF-000002/inspections')).body.inspections.length, 0, 'nothing written');
  await page.selectOption('[name="screening.flow"]', 'trickle');
  await page.click('#save-inspection');
  await page.waitForFunction(() => document.getElementById('card-saved')?.textContent.startsWith('Saved:'));
  // "Saved" at the top of the card, where the inspector is looking.
  assert.match(await page.textContent('#card #card-saved'), /^Saved: outfall dry-weather screening of OF-000002, \d{4}-\d\d-\d\d\.$/);
  assert.ok(await page.isVisible('#card-saved'), 'in view');
  const saved = (await api('/api/assets/OF-000002/inspections')).body.inspections;
  assert.equal(saved.length, 1);
  assert.equal(saved[0].result, 'needs_follow_up');
  assert.equal(saved[0].inspector, 'inspector-1');
  assert.equal(saved[0].findings.flow, 'trickle');
  assert.equal(saved[0].findings.odour, 'sewage');
  assert.equal(saved[0].hours_since_rain, 72);
  assert.equal(saved[0].findings.field_tests.ph, 7.2);
  assert.equal(saved[0].findings.field_tests.ammonia_mg_l, 0.8);
  assert.ok(Array.isArray(saved[0].position) && Math.abs(saved[0].position[1] - lat) < 1e-6, JSON.stringify(saved[0]));
  assert.ok(saved[0].idempotency_key, 'sent with its key');
  // Nothing left waiting (the header's count follows the queue as it changes).
  await page.waitForFunction(() => document.getElementById('queue-status').dataset.waiting === '0', null, { timeout: 5000 });
  // The card again, its history holding the new inspection.
  await page.waitForSelector('#card table:has(caption:text("Inspections")) tbody tr');
  assert.match(await page.textContent('#card table:has(caption:text("Inspections")) tbody tr'), /needs_follow_up/);
  // The card now says when the next one is due, as the server does.
  const now = (await api('/api/assets/OF-000002/inspections')).body;
  assert.equal(now.overdue, false);
  assert.equal(await page.textContent('#card-due'), `Next inspection due by ${now.due_by}`);
  assert.match(await page.textContent('#card-last'), /^Last inspection: \d{4}-\d\d-\d\d, dry weather screening, needs_follow_up, by inspector-1/);
  await assertNoSideScroll(page);
  await page.screenshot({ path: `${SHOTS}/inspector-saved.png` });

  // A position outside the registry is said to be, not listed as if near.
  await ctx.setGeolocation({ longitude: lon + 0.5, latitude: lat + 0.3 });
  await page.click('#card-back');
  await page.click('#near-me');
  await page.waitForSelector('#near-outside');
  assert.match(await page.textContent('#near-outside'), /^You are outside the registry’s area/);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('inspector flow ok');
