// Photos: a picture taken with the inspection's form goes to the server after the
// inspection is accepted (POST /api/inspections/{id}/photos, the image as the body) and
// comes back by its SHA-256 (GET /api/photos/{sha256}).
import { createHash } from 'node:crypto';
import { launch, context, open, done, api, BASE, assert } from './lib.mjs';

// A 1x1 PNG.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const sha = createHash('sha256').update(png).digest('hex');
const of = (await api('/collections/outfalls/items/OF-000002')).body;
const [lon, lat] = of.geometry.coordinates;
const browser = await launch();
try {
  const ctx = await context(browser, { geo: { longitude: lon, latitude: lat } });
  await ctx.addInitScript((t) => sessionStorage.setItem('ms4.token', t), process.env.MS4_TOKEN_INSPECTOR);
  const page = await open(ctx);
  await page.click('#near-me');
  await page.waitForFunction(() => document.body.dataset.drawn === 'nearby');
  await page.click('#nearby button[data-asset="OF-000002"]');
  await page.click('#record');
  await page.selectOption('[name="result"]', 'pass');
  await page.setInputFiles('#f-photo', { name: 'outfall.png', mimeType: 'image/png', buffer: png });
  await page.click('#save-inspection');
  await page.waitForFunction(() => /^Saved/.test(document.getElementById('card-saved')?.textContent));
  assert.equal(await page.getAttribute('#queue-status', 'data-waiting'), '0');
  assert.doesNotMatch(await page.textContent('#card-saved'), /photo/, 'the photo was taken');
  const back = await fetch(`${BASE}/api/photos/${sha}`);
  assert.equal(back.status, 200);
  assert.equal(back.headers.get('content-type'), 'image/png');
  assert.ok(Buffer.from(await back.arrayBuffer()).equals(png), 'the same bytes');
  // The card shows the last inspection's photo.
  await page.waitForSelector('#card-photos img');
  assert.equal(await page.$eval('#card-photos img', (i) => i.complete && i.naturalWidth), 1);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('photo flow ok');
