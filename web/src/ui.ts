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
