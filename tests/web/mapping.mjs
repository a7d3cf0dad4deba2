// The mapping phase on the map: the legend names the monitoring locations by priority and
// their sewersheds, and a click on a monitoring location names its priority and reasons as
// `/api/monitoring-locations` gives them.
import { launch, context, open, mapIdle, assertMapDrawn, done, api, SHOTS, assert } from './lib.mjs';

const answer = (await api('/api/monitoring-locations')).body;
const places = (await api('/api/monitoring-locations?f=geojson')).body;
// A high-priority location with reasons, the only one of its id (an outfall where the flow
// also changes hands is two locations at one point).
const once = (l) => answer.locations.filter((o) => o.id === l.id).length === 1;
const loc = answer.locations.find((l) => l.priority === 'high' && l.reasons.length > 0 && once(l));
assert.ok(loc, 'the demo has a high-priority location');
const place = places.features.find((f) => f.properties.id === loc.id && f.geometry?.type === 'Point');
assert.ok(place, `${loc.id} has a point`);

const browser = await launch();
try {
  const ctx = await context(browser, { width: 1280, height: 900 });
  const page = await open(ctx);

  // The legend names what the map draws of the mapping phase.
  const legend = await page.textContent('#legend-base');
  for (const words of [
    'monitoring location, high priority',
    'monitoring location, medium priority',
    'monitoring location, low priority',
    'sewershed',
  ]) assert.ok(legend.includes(words), `the legend names "${words}": ${legend}`);

  // Close to the location, a click on it opens its card: its priority and the reasons.
  await page.evaluate((c) => window.__ms4map.jumpTo({ center: c, zoom: 18 }), place.geometry.coordinates);
  await mapIdle(page);
  const at = await page.evaluate((c) => {
    const p = window.__ms4map.project(c);
    const r = window.__ms4map.getCanvas().getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  }, place.geometry.coordinates);
  await page.mouse.click(at.x, at.y);
  await page.waitForSelector('#location-popup', { timeout: 10000 });
  const card = await page.locator('#location-popup');
  assert.equal(await card.getAttribute('data-location'), loc.id);
  const text = await card.textContent();
  assert.match(text, new RegExp(`Monitoring location ${loc.id}`));
  assert.match(text, new RegExp(`Priority: ${loc.priority}`));
  for (const r of loc.reasons) {
    const words = r.criterion.replace(/_/g, ' ');
    assert.ok(text.includes(words), `the card names the reason "${words}": ${text}`);
  }
  console.log('clicked', loc.id, text);
  await assertMapDrawn(page, `${SHOTS}/mapping.png`);
  done(ctx, page);
} finally {
  await browser.close();
}
