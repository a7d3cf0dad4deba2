// The page: sign-in, the views per user, the map and the offline queue.
import './style.css';
import { ApiError, at, authHeaders, get, kept, setToken, token, type Session } from './api';
import { clearAnswer, createMap, firstDrawn, firstStyle, getMap, refreshLegend, tileUrlsAsked } from './map';
import { Queue } from './queue';
import { busy, h, setUrlState, urlState, type Ctx } from './ui';
import * as inspector from './views/inspector';
import * as planner from './views/planner';
import * as officer from './views/officer';
import * as analyst from './views/analyst';

const views: Record<string, { render: (el: HTMLElement, ctx: Ctx) => void }> = { inspector, planner, officer, analyst };
const $ = (id: string) => document.getElementById(id)!;

let clickHandler: Parameters<Ctx['onMapClick']>[0] = null;
const queue = new Queue();
let session: Session;

const ctx: Ctx = {
  get session() {
    return session;
  },
  queue,
  say(text, isError = false) {
    const m = $('message');
    m.textContent = text;
    m.className = isError ? 'error' : '';
  },
  onMapClick(f) {
    clickHandler = f;
    if (mapMade) getMap().getCanvas().style.cursor = f ? 'crosshair' : '';
  },
  flush: () => flush(),
};

async function flush(): Promise<void> {
  if (!session?.may.inspect) return showQueue();
  try {
    const r = await queue.flush({ fetch: fetch.bind(window), headers: () => authHeaders() });
    if (r.sent) ctx.say(`Sent ${r.sent} waiting inspection${r.sent > 1 ? 's' : ''}.`);
  } catch (e) {
    ctx.say(`Sending the queue failed: ${(e as Error).message}`, true);
  }
  await showQueue();
}

async function showQueue(): Promise<void> {
  const all = await queue.all();
  const waiting = all.filter((e) => e.state === 'waiting').length;
  const rejected = all.filter((e) => e.state === 'rejected');
  // Refused for the token, not for what they say: kept, and sent after the next sign-in.
  const signin = all.filter((e) => e.state === 'signin');
  const s = $('queue-status');
  s.dataset.waiting = String(waiting + signin.length);
  s.replaceChildren(
    `${navigator.onLine ? 'Online' : 'Offline'} · ${waiting} inspection${waiting === 1 ? '' : 's'} waiting to send`,
    signin.length ? ' · ' : '',
    signin.length ? h('span', { class: 'error', id: 'queue-signin' }, `${signin.length} kept until you sign in again (${signin[0].error})`) : '',
    ...rejected.map((e) => h('span', { class: 'error', 'data-refused': e.key }, ` · ${e.body.asset_id} refused: ${e.error} `,
      // Fix first: the form again with what was typed and the refusal beside its field.
      h('button', { type: 'button', class: 'fix', onclick: () => { show('inspector'); void inspector.fix(e, ctx); } }, 'Fix'),
      h('button', { type: 'button', onclick: async () => { await queue.remove(e.key); showQueue(); } }, 'Discard'))),
  );
}
// A failure to redraw the line must not fail the save it reports on.
queue.onChange = () => showQueue().catch((e) => console.error('queue line:', e));

async function loadSession(): Promise<void> {
  try {
    session = await get('/api/session');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      setToken(null);
      ctx.say(`Sign-in refused: ${e.message}`, true);
      session = await get('/api/session');
    } else throw e;
  }
  const signed = session.signed_in;
  $('signin').hidden = signed;
  $('whoami').hidden = !signed;
  $('role').textContent = signed ? `${session.subject} (${session.role})` : '';
  document.body.dataset.role = session.role ?? (session.may_read ? 'reader' : 'none');
  document.querySelectorAll<HTMLElement>('[data-needs]').forEach((b) => {
    b.hidden = !session.may[b.dataset.needs as keyof Session['may']];
  });
}

/** Shows a view. Its name goes into the page's query; the other views' selection is
 *  dropped from it, except when the view is opened from the URL (`keepQuery`), whose
 *  selection the view reads back. */
function show(name: string, keepQuery = false): void {
  document.querySelectorAll<HTMLButtonElement>('#tabs button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.view === name)));
  ctx.onMapClick(null);
  // A footprint half drawn in the planner must not keep taking the map's taps.
  planner.leave();
  const el = $('view');
  el.replaceChildren();
  document.body.dataset.view = name;
  setUrlState({ view: name }, !keepQuery);
  clearAnswer();
  refreshLegend();
  if (!session.may_read) {
    el.append(h('p', { class: 'hint', text: 'This registry needs a token to read: paste yours above.' }));
    return;
  }
  views[name].render(el, ctx);
}

/** After signing in or out, focus goes to the view's heading, so the keyboard and a
 *  screen reader carry on from what the new session may do. */
function focusView(): void {
  const target = document.querySelector<HTMLElement>('#view h2') ?? $('panel');
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus();
}

async function start(): Promise<void> {
  $('signin').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const t = ($('token') as HTMLInputElement).value.trim();
    if (!t) return;
    // The sign-in button stays disabled until the session is read: one submit only.
    await busy([document.querySelector<HTMLButtonElement>('#signin button[type=submit]')], null, async () => {
      setToken(t);
      ($('token') as HTMLInputElement).value = '';
      await restart();
    });
    if (session?.signed_in) focusView();
  });
  $('signout').addEventListener('click', async () => {
    setToken(null);
    ctx.say('Signed out.');
    await restart();
    ($('token') as HTMLInputElement).focus();
  });
  document.querySelectorAll<HTMLButtonElement>('#tabs button').forEach((b) => b.addEventListener('click', () => show(b.dataset.view!)));
  window.addEventListener('online', () => void flush());
  window.addEventListener('offline', () => void showQueue());
  await restart();
  if ('serviceWorker' in navigator) {
    const first = !navigator.serviceWorker.controller;
    // Installed after the first draw: its install fetches the whole shell, which would
    // otherwise compete with the map for the first second.
    if (mapMade) await firstDrawn();
    navigator.serviceWorker.register(at('/sw.js')).catch((e) => console.warn('no service worker', e));
    // The first visit loaded the session, style and tiles before the worker was there to
    // keep them: fetch them once more through it, so the page opens offline next time.
    // Without redrawing the map: a style reload here would throw away what is drawn and
    // draw it again (half a second on the demo).
    if (first) {
      navigator.serviceWorker.addEventListener('controllerchange', async () => {
        const urls = [...['/api/session', '/styles/ms4.json', '/tiles.json', '/health', ...SPRITE].map(at), ...(mapMade ? tileUrlsAsked() : [])];
        for (const u of urls) {
          await fetch(u, { headers: authHeaders() }).catch(() => {});
        }
        document.body.dataset.offlineReady = 'true';
      }, { once: true });
    } else document.body.dataset.offlineReady = 'true';
  }
}

/** The style's sprite (the pipes' flow arrows), at both pixel ratios. */
const SPRITE = ['/styles/sprite.json', '/styles/sprite.png', '/styles/sprite@2x.json', '/styles/sprite@2x.png'];

let mapMade = false;
async function restart(): Promise<void> {
  // The style and its TileJSON (the map's first view) are asked for beside the session,
  // not after it, and given to the map whole: it need not ask for either again.
  const first = mapMade ? null : firstStyle();
  try {
    await loadSession();
  } catch (e) {
    // Offline with no session answer: keep the last known one so queued work can go on.
    const last = localStorage.getItem(kept('ms4.session'));
    if (!last) {
      ctx.say(`The registry does not answer: ${(e as Error).message}`, true);
      return;
    }
    session = JSON.parse(last);
  }
  localStorage.setItem(kept('ms4.session'), JSON.stringify(session));
  if (session.may_read && !mapMade) {
    mapMade = true;
    const map = createMap('map', (await first) ?? { style: null, tileJson: null });
    map.on('click', (e: any) => clickHandler?.(e.lngLat, e.point));
    // The town by its profile's name (its id when an older server gives none).
    fetch(at('/health'), { headers: authHeaders() }).then((r) => r.json()).then((hh) => {
      $('jurisdiction').textContent = hh.name || hh.jurisdiction;
      $('jurisdiction').dataset.id = hh.jurisdiction;
    }).catch(() => {});
  } else if (mapMade) {
    // A new token: the map's requests carry it from now on.
    getMap().setStyle(at('/styles/ms4.json'));
  }
  // The view of a link (`?view=planner&parcel=P-12`) on the first start; the view shown
  // after a new sign-in.
  const fromUrl = document.body.dataset.view === undefined;
  const current = document.body.dataset.view ?? urlState().get('view') ?? 'inspector';
  const tab = document.querySelector<HTMLButtonElement>(`#tabs button[data-view="${current}"]`);
  const ok = !!tab && !tab.hidden && current in views;
  show(ok ? current : 'inspector', fromUrl && ok);
  await flush();
}

start();
(window as any).__ms4 = { queue, token };
