// Hostile "photos": an inspector's upload must never run script on the service's origin,
// where a signed-in admin's page keeps its token in sessionStorage. An SVG, an HTML page
// labelled image/png and a GIF/JS polyglot are refused at upload; a PNG with a script
// appended and a JPEG/HTML polyglot are taken (their signatures are real) and served inert;
// an SVG and an HTML page an older version stored under the client's type (MS4_LEGACY)
// are served as downloads. Each is opened in the admin's own tab, as an <img> and as an
// <iframe>: no script may run, nor may the token be read.
import { launch, context, done, BASE, assert } from './lib.mjs';

const INSPECTOR = process.env.MS4_TOKEN_INSPECTOR;
const ADMIN = process.env.MS4_TOKEN_ADMIN;
assert.ok(ADMIN, 'MS4_TOKEN_ADMIN names an admin token');

// What a payload does when it runs: marks the document and the window it can reach, and
// sends the token it can read to a URL the test watches.
const SCRIPT = "document.title='pwned';try{top.__pwned=1}catch(e){};"
  + "fetch('/__pwned?t='+encodeURIComponent(sessionStorage.getItem('ms4.token')))";
const HTML = Buffer.from(`<!doctype html><html><body><script>${SCRIPT}</script></body></html>`);
const SVG = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="${SCRIPT.replaceAll('"', '&quot;')}"><script>${SCRIPT}</script></svg>`);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PNG_WITH_SCRIPT = Buffer.concat([PNG, HTML]);
// A JPEG whose comment segment holds an HTML page: a JPEG by its first bytes, a page to a
// browser that sniffs.
const JPEG_HTML = Buffer.concat([
  Buffer.from([0xFF, 0xD8, 0xFF, 0xFE, (HTML.length + 2) >> 8, (HTML.length + 2) & 0xFF]),
  HTML,
  Buffer.from([0xFF, 0xD9]),
]);
// GIF89a then a JavaScript comment: a valid GIF header and a valid script.
const GIF_JS = Buffer.concat([Buffer.from('GIF89a/*\x01\x00\x01\x00\x80\x00\x00*/=1;', 'latin1'), Buffer.from(SCRIPT)]);

async function post(path, body, type) {
  const res = await fetch(BASE + path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${INSPECTOR}`, 'Content-Type': type },
    body,
  });
  return { status: res.status, body: await res.json() };
}

const made = await post('/api/inspections', JSON.stringify({
  asset_id: 'OF-000002', inspected_on: '2026-11-30', kind: 'dry_weather_screening', result: 'pass',
}), 'application/json');
assert.equal(made.status, 201, JSON.stringify(made.body));
const photos = `/api/inspections/${encodeURIComponent(made.body.inspection.inspection_id)}/photos`;

for (const [name, bytes, type] of [
  ['svg', SVG, 'image/svg+xml'],
  ['html labelled png', HTML, 'image/png'],
  ['html under a list of types', HTML, 'image/png, text/html'],
  ['gif/js polyglot', GIF_JS, 'image/gif'],
]) {
  const r = await post(photos, bytes, type);
  assert.equal(r.status, 415, `${name}: ${JSON.stringify(r.body)}`);
  assert.match(r.body.error, /^body: /, name);
}

const served = [];
for (const [name, bytes, type, want] of [
  ['png with a script appended', PNG_WITH_SCRIPT, 'image/png', 'image/png'],
  ['jpeg/html polyglot', JPEG_HTML, 'image/jpeg', 'image/jpeg'],
  ['the same png said to be a jpeg', PNG_WITH_SCRIPT, 'image/jpeg', 'image/png'],
]) {
  const r = await post(photos, bytes, type);
  assert.ok([200, 201].includes(r.status), `${name}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.content_type, want, name);
  served.push({ name, sha: r.body.sha256, type: want });
}
for (const sha of (process.env.MS4_LEGACY ?? '').split(',').filter(Boolean)) {
  served.push({ name: `stored by an older version (${sha.slice(0, 8)})`, sha, type: 'application/octet-stream' });
}
assert.ok(served.length >= 4, 'the legacy rows were given');

const browser = await launch();
try {
  const pwned = [];
  const watch = (c) => c.on('request', (r) => { if (r.url().includes('__pwned')) pwned.push(r.url()); });

  // A context whose pages this test makes up (routed, so no service worker).
  const bare = await browser.newContext({ serviceWorkers: 'block' });
  watch(bare);
  const host = await bare.newPage();
  // The check can see a script run: the same payload as a plain page of this origin runs.
  await host.route(`${BASE}/__control`, (r) => r.fulfill({ contentType: 'text/html', body: HTML }));
  await host.goto(`${BASE}/__control`);
  await host.waitForFunction(() => document.title === 'pwned');
  await host.waitForTimeout(300);
  assert.equal(pwned.length, 1, 'the control payload ran');
  pwned.length = 0;

  const ctx = await context(browser);
  watch(ctx);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  // The admin signs in; the token is kept in this tab's sessionStorage.
  await page.goto(`${BASE}/`);
  await page.fill('#token', ADMIN);
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#whoami:not([hidden])');
  assert.match(await page.textContent('#role'), /\(admin\)/);
  const title = await page.title();

  for (const p of served) {
    const url = `${BASE}/api/photos/${p.sha}`;
    // Opened in the admin's own tab, as a link to it would be.
    let res = null;
    try {
      res = await page.goto(url);
    } catch (e) {
      // A download is no document: nothing was rendered.
      assert.equal(p.type, 'application/octet-stream', `${p.name}: ${e.message}`);
      assert.match(e.message, /Download is starting|ERR_ABORTED/, p.name);
    }
    if (res) {
      const h = res.headers();
      assert.equal(h['content-type'], p.type, p.name);
      assert.equal(h['x-content-type-options'], 'nosniff', p.name);
      assert.match(h['content-security-policy'], /sandbox/, p.name);
      await page.waitForTimeout(300);
      const doc = await page.evaluate(() => ({ type: document.contentType, title: document.title }));
      assert.match(doc.type, /^image\//, `${p.name}: rendered as ${doc.type}`);
      assert.notEqual(doc.title, 'pwned', p.name);
    }
    // Back on the page: embedded as an image and as a frame, on the page's origin.
    await page.goto(`${BASE}/`);
    await page.waitForSelector('#whoami:not([hidden])');
    await page.evaluate((u) => new Promise((resolve) => {
      const img = document.createElement('img');
      const frame = document.createElement('iframe');
      let left = 2;
      const one = () => { if (--left === 0) resolve(); };
      img.onload = img.onerror = one;
      frame.onload = frame.onerror = one;
      setTimeout(resolve, 3000);
      img.src = u;
      frame.src = u;
      document.body.append(img, frame);
    }), url);
    await page.waitForTimeout(300);
    assert.equal(await page.title(), title, `${p.name}: the page's title changed`);
    assert.equal(await page.evaluate(() => window.__pwned), undefined, p.name);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('ms4.token')), ADMIN, 'still signed in');
  }

  // The same, framed by a page of this origin that has no policy of its own: the photo's
  // own headers (frame-ancestors, X-Frame-Options, the sandbox) keep it inert.
  await host.route(`${BASE}/__host`, (r) => r.fulfill({
    contentType: 'text/html',
    body: '<!doctype html><title>host</title>'
      + served.map((p) => `<img src="/api/photos/${p.sha}"><iframe src="/api/photos/${p.sha}"></iframe>`).join(''),
  }));
  await host.goto(`${BASE}/__host`);
  await host.waitForLoadState('load');
  await host.waitForTimeout(500);
  assert.equal(await host.title(), 'host');
  assert.equal(await host.evaluate(() => window.__pwned), undefined);

  assert.deepEqual(pwned, [], 'a payload ran and sent the token');
  // The page's own policy kept the photos out of its frames, and refused nothing else.
  const framed = ctx.cspRefused.filter((r) => /^frame-src .*\/api\/photos\//.test(r));
  assert.equal(framed.length, served.length, ctx.cspRefused.join('\n'));
  ctx.cspRefused.splice(0, Infinity, ...ctx.cspRefused.filter((r) => !framed.includes(r)));
  done(ctx, page);
} finally {
  await browser.close();
}
console.log('hostile photo flow ok');
