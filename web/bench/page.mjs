// The page's speed in headless Chromium (run by `cargo bench --bench page`, which starts
// the servers): the first complete map draw from navigation start, and how long an
// answer (nearby, a determination) takes from the server's reply to being drawn.
// Prints one JSON line per server.
import { chromium } from 'playwright-core';
import { FLAGS } from './flags.mjs';

const [, , name, base, runsArg] = process.argv;
const runs = Number(runsArg || 5);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
const first = [];
const nearby = [];
const determination = [];
try {
  const parcel = (await (await fetch(`${base}/collections/parcels/items?limit=1`)).json()).features[0].id;
  const of = (await (await fetch(`${base}/collections/outfalls/items?limit=1`)).json()).features[0].geometry.coordinates;
  for (let i = 0; i < runs; i++) {
    // A new context each time: no HTTP cache, no service worker, as a first visit.
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, geolocation: { longitude: of[0], latitude: of[1] }, permissions: ['geolocation'] });
    const page = await ctx.newPage();
    await page.goto(base + '/');
    await page.waitForFunction(() => window.__ms4firstDraw !== undefined, null, { timeout: 60000 });
    first.push(await page.evaluate(() => window.__ms4firstDraw));
    await page.click('#near-me');
    await page.waitForFunction(() => document.body.dataset.drawn === 'nearby', null, { timeout: 60000 });
    await page.click('#tabs [data-view="planner"]');
    await page.evaluate((p) => {
      // Pick the parcel as the page does after a tap (the tap's hit test is not timed).
      document.getElementById('fact-disturbed').value = '2';
      document.getElementById('fact-disturbed-unit').value = 'acre';
      return p;
    }, parcel);
    await page.click('#pick-parcel');
    const c = await page.evaluate(async (p) => {
      const f = await (await fetch(`/collections/parcels/items/${p}`)).json();
      const ring = f.geometry.type === 'Polygon' ? f.geometry.coordinates[0] : f.geometry.coordinates[0][0];
      const ll = ring.slice(0, -1).reduce((a, c, _i, r) => [a[0] + c[0] / r.length, a[1] + c[1] / r.length], [0, 0]);
      window.__ms4map.jumpTo({ center: ll, zoom: 18 });
      await new Promise((r) => window.__ms4map.once('idle', r));
      const pt = window.__ms4map.project(ll);
      const box = window.__ms4map.getCanvas().getBoundingClientRect();
      return [box.x + pt.x, box.y + pt.y];
    }, parcel);
    await page.mouse.click(c[0], c[1]);
    await page.click('#determine');
    await page.waitForFunction(() => document.body.dataset.drawn === 'determination', null, { timeout: 60000 });
    const t = await page.evaluate(() => window.__ms4timings);
    nearby.push(t.find((x) => x.name === 'nearby').ms);
    determination.push(t.find((x) => x.name === 'determination').ms);
    await ctx.close();
  }
} finally {
  await browser.close();
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const max = (v) => Math.max(...v);
console.log(JSON.stringify({ name, runs, first_draw_ms: { median: median(first), max: max(first), all: first.map(Math.round) }, nearby_drawn_ms: { median: median(nearby), max: max(nearby) }, determination_drawn_ms: { median: median(determination), max: max(determination) } }));
