// The page at /: negotiation, the map drawn from /styles/ms4.json and the tiles, sign-in
// and sign-out, the role-aware tabs, phone and desktop widths.
import { launch, context, open, assertMapDrawn, assertNoSideScroll, done, BASE, SHOTS, assert } from './lib.mjs';

// Content negotiation at /.
{
  const html = await fetch(BASE + '/', { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  assert.equal(html.status, 200);
  assert.match(html.headers.get('content-type'), /^text\/html/);
  assert.match(await html.text(), /id="map"/);
  const json = await fetch(BASE + '/', { headers: { Accept: 'application/json' } });
  assert.match(json.headers.get('content-type'), /json/);
  assert.ok((await json.json()).links.some((l) => l.rel === 'service-desc'));
  const forced = await fetch(BASE + '/?f=json', { headers: { Accept: 'text/html' } });
  assert.ok(Array.isArray((await forced.json()).links), '?f=json forces the landing page');
}

const browser = await launch();
try {
  const ctx = await context(browser);
  const page = await open(ctx);
  // The heading names the town as its profile does, not by the profile's id.
  const health = await (await fetch(BASE + '/health')).json();
  assert.ok(health.name && health.name !== health.jurisdiction, `the profile's name: ${JSON.stringify(health)}`);
  await page.waitForFunction((n) => document.getElementById('jurisdiction')?.textContent === n, health.name);
  const drawn = await assertMapDrawn(page, `${SHOTS}/page-phone.png`);
  console.log('phone map', drawn);
  await assertNoSideScroll(page);
  // Anonymous on a public-read registry: reads, no writes.
  assert.equal(await page.locator('#signin').isVisible(), true);
  assert.equal(await page.locator('#tabs [data-view="analyst"]').isVisible(), false, 'no analyst tab without the role');
  assert.equal(await page.evaluate(() => document.body.dataset.role), 'reader');

  // A wrong token is refused with the server's message.
  await page.fill('#token', 'not-a-token');
  await page.click('#signin button[type=submit]');
  await page.waitForFunction(() => document.getElementById('message').textContent.includes('Sign-in refused'));
  assert.match(await page.textContent('#message'), /unknown token/);
  // The refusal is said while the anonymous session is read again, and the button stays
  // disabled until then; Enter in the field submits nothing while its button is disabled.
  await page.waitForSelector('#signin button[type=submit]:not([disabled])');

  // The analyst's token: the analyst tab appears; sign-out hides it again.
  await page.fill('#token', process.env.MS4_TOKEN_ANALYST);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#whoami:not([hidden])');
  assert.equal(await page.textContent('#role'), 'analyst-1 (analyst)');
  assert.equal(await page.locator('#tabs [data-view="analyst"]').isVisible(), true);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('ms4.token')), process.env.MS4_TOKEN_ANALYST, 'kept for the session');
  await page.click('#signout');
  await page.waitForSelector('#signin:not([hidden])');
  assert.equal(await page.locator('#tabs [data-view="analyst"]').isVisible(), false);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('ms4.token')), null);

  // Keyboard: the views are buttons reached with Tab and pressed with Enter.
  await page.focus('#tabs [data-view="planner"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#facts');
  assert.equal(await page.getAttribute('#tabs [data-view="planner"]', 'aria-pressed'), 'true');
  // Every input of the view has a label.
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('#view input, #view select, #view textarea')]
    .filter((i) => !(i.labels && i.labels.length) && !i.getAttribute('aria-label')).map((i) => i.id || i.name));
  assert.deepEqual(unlabelled, []);
  await assertNoSideScroll(page);
  done(ctx, page);
  await ctx.close();

  // Desktop.
  const wide = await context(browser, { width: 1280, height: 800 });
  const p2 = await open(wide);
  console.log('desktop map', await assertMapDrawn(p2, `${SHOTS}/page-desktop.png`));
  await assertNoSideScroll(p2);
  done(wide, p2);
} finally {
  await browser.close();
}
console.log('page flow ok');
