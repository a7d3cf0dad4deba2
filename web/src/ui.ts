// Small DOM helpers: elements built with text (never innerHTML of server text), and the
// page context each view gets.
import type { Session } from './api';
import type { Queue } from './queue';

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, any> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** What a view can use. */
export interface Ctx {
  session: Session;
  queue: Queue;
  /** Shows a message for the whole page (errors the view cannot put next to a field). */
  say: (text: string, isError?: boolean) => void;
  /** Registers the view's handler for taps on the map (one at a time). */
  onMapClick: (f: ((lngLat: { lng: number; lat: number }, point: { x: number; y: number }) => void) | null) => void;
  /** Sends the queue now. */
  flush: () => Promise<void>;
}

/** Marks that an answer was drawn (the time from the reply to the draw is measured). */
export function markDrawn(name: string, replyAt: number): void {
  const ms = performance.now() - replyAt;
  (window as any).__ms4timings = (window as any).__ms4timings ?? [];
  (window as any).__ms4timings.push({ name, ms });
  document.body.dataset.drawn = name;
}

/** A table of rows; columns given as [header, cell text function]. */
export function table<T>(caption: string, rows: T[], cols: [string, (r: T) => string | Node | null][]): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, ...cols.map(([c]) => h('th', { scope: 'col', text: c })))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...cols.map(([c, f]) => h('td', { 'data-label': c }, f(r)))))),
  );
}

/** Runs a slow request with its controls busy: the buttons disabled (a second press
 *  sends nothing), `aria-busy` on the region the answer goes to, and a spinner beside
 *  the first button, from the moment it is pressed until the answer is shown. A call
 *  while the same controls are already busy is dropped. */
export async function busy<T>(controls: (HTMLButtonElement | HTMLInputElement | HTMLSelectElement | null | undefined)[], region: HTMLElement | null, work: () => Promise<T>): Promise<T | undefined> {
  const els = controls.filter((c): c is HTMLButtonElement | HTMLInputElement | HTMLSelectElement => !!c);
  if (els.some((c) => c.dataset.busy === 'true')) return undefined;
  const spinner = h('span', { class: 'spinner', role: 'status', 'aria-label': 'Working…' });
  for (const c of els) {
    c.dataset.busy = 'true';
    c.disabled = true;
  }
  els[0]?.after(spinner);
  region?.setAttribute('aria-busy', 'true');
  document.body.dataset.busy = String(Number(document.body.dataset.busy ?? 0) + 1);
  try {
    return await work();
  } finally {
    for (const c of els) {
      delete c.dataset.busy;
      c.disabled = false;
    }
    spinner.remove();
    region?.removeAttribute('aria-busy');
    const n = Number(document.body.dataset.busy ?? 1) - 1;
    if (n > 0) document.body.dataset.busy = String(n);
    else delete document.body.dataset.busy;
  }
}

/** The page's query (`?view=planner&parcel=P-12`): what a link must carry to reopen the
 *  same view with the same selection. The map's camera rides in the hash (MapLibre's). */
export function urlState(): URLSearchParams {
  return new URLSearchParams(location.search);
}

/** Sets (or, with null, removes) entries of the page's query without a reload or a new
 *  history entry; the hash (the map's camera) is kept. */
export function setUrlState(entries: Record<string, string | null>, replaceAll = false): void {
  const q = replaceAll ? new URLSearchParams() : urlState();
  for (const [k, v] of Object.entries(entries)) {
    if (v === null || v === '') q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  history.replaceState(history.state, '', `${location.pathname}${s ? `?${s}` : ''}${location.hash}`);
}

/** Moves focus to an answer and has it read out: the element is made focusable (not in
 *  the tab order) and scrolled into view. */
export function focusAnswer(el: HTMLElement): void {
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus({ preventScroll: false });
  el.scrollIntoView?.({ block: 'start' });
}
