// A registry that is not public-read: the page asks for a token and draws nothing until
// it has one; with a planner's token it reads (tiles carry the token) but shows no writes.
import { launch, context, mapIdle, assertMapDrawn, done, BASE, SHOTS, assert } from './lib.mjs';

const browser = await launch();
try {
  const ctx = await context(browser);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(BASE + '/');
  await page.waitForSelector('#view .hint');
  assert.match(await page.textContent('#view'), /needs a token to read/);
  assert.equal(await page.evaluate(() => !!window.__ms4map), false, 'no map before a token');
  const tiles = await fetch(BASE + '/tiles.json');
  assert.equal(tiles.status, 401, 'the tiles need a token here');

  await page.fill('#token', process.env.MS4_TOKEN_PLANNER);
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#whoami:not([hidden])');
  await mapIdle(page);
  console.log('planner map', await assertMapDrawn(page, `${SHOTS}/signin-planner.png`));
  assert.equal(await page.textContent('#role'), 'planner-1 (planner)');
  assert.equal(await page.locator('#tabs [data-view="analyst"]').isVisible(), false);
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('sign-in flow ok');
