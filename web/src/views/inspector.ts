// The inspector, on a phone: what is near (the device's position or a tapped point), a
// facility's card, and recording an inspection with the form of its kind.
import { get, getGeoJson } from '../api';
import { compass, formatDistance } from '../geo';
import { buildInspection, FORMS, kindFor, missing, type FormDef, type Values } from '../forms';
import { showAnswer } from '../map';
import { h, markDrawn, table, type Ctx } from '../ui';
import { sendOne, type QueuedPhoto } from '../queue';
import { authHeaders } from '../api';

let here: { lon: number; lat: number } | null = null;

export function render(el: HTMLElement, ctx: Ctx): void {
  const list = h('div', { id: 'nearby' });
  el.append(
    h('h2', { text: 'Near me' }),
    h('div', { class: 'row' },
      h('button', { type: 'button', id: 'near-me', onclick: () => locate(list, ctx) }, 'Near me'),
      h('button', { type: 'button', id: 'tap-point', onclick: () => {
        ctx.say('Tap the map where you are.');
        ctx.onMapClick((ll) => {
          ctx.onMapClick(null);
          nearby({ lon: ll.lng, lat: ll.lat }, list, ctx);
        });
      } }, 'Tap a point'),
    ),
    list,
  );
}

function locate(list: HTMLElement, ctx: Ctx): void {
  if (!navigator.geolocation) {
    ctx.say('This browser gives no location: tap a point on the map instead.', true);
    return;
  }
  navigator.geolocation.getCurrentPosition(
    (p) => nearby({ lon: p.coords.longitude, lat: p.coords.latitude }, list, ctx),
    (e) => ctx.say(`No location (${e.message}): tap a point on the map instead.`, true),
    { enableHighAccuracy: true, timeout: 10000 },
  );
}

async function nearby(at: { lon: number; lat: number }, list: HTMLElement, ctx: Ctx): Promise<void> {
  here = at;
  list.replaceChildren(h('p', { text: 'Looking…' }));
  try {
    const fc = await getGeoJson('/api/nearby', { query: { lon: at.lon, lat: at.lat, k: 20 } });
    const replyAt = performance.now();
    fc.features.forEach((f) => (f.properties.role = 'near'));
    fc.features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [at.lon, at.lat] }, properties: { role: 'footprint', id: 'you are here' } });
    const rows = fc.features.filter((f) => f.properties.role === 'near').map((f) => f.properties);
    list.replaceChildren(
      table('Facilities nearest first', rows, [
        ['Facility', (r: any) => h('button', { type: 'button', class: 'link', 'data-asset': r.id, onclick: () => card(r.layer, r.id, ctx, r) }, `${r.id}`)],
        ['Kind', (r: any) => r.layer.replace(/_/g, ' ').replace(/s$/, '')],
        ['Distance', (r: any) => formatDistance(r.distance, r.unit)],
        ['Direction', (r: any) => `${r.direction ?? compass(r.bearing_deg)} ${arrow(r.bearing_deg)}`],
        ['Status', (r: any) => r.status ?? '—'],
        ['Last inspection', (r: any) => lastText(r.last_inspection)],
        ['Overdue', (r: any) => (r.last_inspection?.overdue || r.overdue ? 'OVERDUE' : 'no')],
        ['Access', (r: any) => accessText(r.access)],
      ]),
    );
    await showAnswer(fc);
    markDrawn('nearby', replyAt);
  } catch (e) {
    list.replaceChildren(h('p', { class: 'error', role: 'alert', text: (e as Error).message }));
  }
}

function arrow(deg: number): string {
  return ['↑', '↗', '→', '↘', '↓', '↙', '←', '↖'][Math.round((((deg % 360) + 360) % 360) / 45) % 8];
}

function lastText(l: any): string {
  if (!l) return 'never';
  if (typeof l === 'string') return l;
  return [l.inspected_on ?? l.date, l.kind?.replace(/_/g, ' '), l.result].filter(Boolean).join(', ');
}

export function accessText(a: any): string {
  if (!a) return 'unknown';
  const k = String(a.kind ?? a).replace(/_/g, ' ');
  return a.easement_id ? `${k} (${a.easement_id})` : k;
}

/** A facility's card: its attributes, inspections and the pipes it connects. */
export async function card(layer: string, id: string, ctx: Ctx, near?: any): Promise<void> {
  const el = document.getElementById('card') ?? h('section', { id: 'card', 'aria-label': 'Facility card', tabindex: '-1' });
  document.getElementById('view')!.append(el);
  el.dataset.layer = layer;
  el.replaceChildren(h('p', { text: `Loading ${id}…` }));
  try {
    const [feat, insp, from, to] = await Promise.all([
      get('/collections/{layer}/items/{id}', { path: { layer, id } }),
      // The definition gives the inspections no schema yet: the fields read here.
      get('/api/assets/{id}/inspections', { path: { id } }) as Promise<{ inspections: Record<string, unknown>[] }>,
      get('/collections/{layer}/items', { path: { layer: 'pipes' }, query: { limit: 50 }, filter: { from_id: id } }),
      get('/collections/{layer}/items', { path: { layer: 'pipes' }, query: { limit: 50 }, filter: { to_id: id } }),
    ]);
    const attrs = Object.entries(feat.properties ?? {});
    const pipes = [...to.features.map((p) => ({ ...p.properties, way: 'in' })), ...from.features.map((p) => ({ ...p.properties, way: 'out' }))];
    const def = kindFor(layer);
    el.replaceChildren(
      h('h2', { text: `${id}` }),
      h('dl', { class: 'attrs' }, ...attrs.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v === null ? '—' : String(v) })])),
      table('Inspections, newest first', insp.inspections, [
        ['Date', (r: any) => r.inspected_on],
        ['Kind', (r: any) => String(r.kind).replace(/_/g, ' ')],
        ['Result', (r: any) => r.result],
        ['Inspector', (r: any) => r.inspector ?? ''],
      ]),
      table('Pipes it connects', pipes, [
        ['Pipe', (r: any) => r.asset_id ?? r.id],
        ['Way', (r: any) => (r.way === 'in' ? `in from ${r.from_id}` : `out to ${r.to_id}`)],
        ['Diameter (in)', (r: any) => String(r.diameter_in ?? '—')],
      ]),
      def && ctx.session.may.inspect
        ? h('button', { type: 'button', id: 'record', onclick: () => form(el, def, id, ctx) }, `Record ${def.title.toLowerCase()}`)
        : def
          ? h('p', { class: 'hint', text: 'Sign in with an inspector token to record an inspection.' })
          : h('span', {}),
    );
    el.focus();
  } catch (e) {
    // Offline and never seen: what the list said, and the form still works (it queues).
    const def = kindFor(layer);
    el.replaceChildren(
      h('h2', { text: id }),
      h('p', { class: 'error', role: 'alert', text: `Details not available: ${(e as Error).message}` }),
      near ? h('p', { text: `${layer.replace(/_/g, ' ')}, status ${near.status ?? '—'}, last inspection ${lastText(near.last_inspection)}` }) : h('span', {}),
      def && ctx.session.may.inspect
        ? h('button', { type: 'button', id: 'record', onclick: () => form(el, def, id, ctx) }, `Record ${def.title.toLowerCase()}`)
        : h('span', {}),
    );
  }
}

function fieldInput(f: FormDef['fields'][number]): HTMLElement {
  const id = `f-${f.name.replace(/[^a-z0-9]+/gi, '-')}`;
  let input: HTMLElement;
  if (f.type === 'select') {
    input = h('select', { id, name: f.name, required: f.required }, ...f.options!.map((o) => h('option', { value: o, text: o ? o.replace(/_/g, ' ') : '—' })));
  } else if (f.type === 'textarea') {
    input = h('textarea', { id, name: f.name, rows: '3' });
  } else if (f.type === 'checkbox') {
    input = h('input', { id, name: f.name, type: 'checkbox' });
  } else {
    input = h('input', { id, name: f.name, type: f.type, step: f.step, inputmode: f.type === 'number' ? 'decimal' : undefined });
  }
  return h('div', { class: `field ${f.type}` }, h('label', { for: id, text: f.label }), input, h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' }));
}

function form(card: HTMLElement, def: FormDef, assetId: string, ctx: Ctx): void {
  const reopen = () => card.dataset.layer ? cardOf(card.dataset.layer, assetId, ctx) : Promise.resolve();
  const photos: QueuedPhoto[] = [];
  const when = new Date();
  const photoList = h('ul', { class: 'photos' });
  const f = h('form', { id: 'inspection-form', 'aria-label': def.title, novalidate: true },
    h('h3', { text: def.title }),
    h('p', { class: 'hint', id: 'filled-in', text: `At ${when.toLocaleString()}${here ? `, position ${here.lat.toFixed(6)}, ${here.lon.toFixed(6)}` : ''}` }),
    ...def.fields.map(fieldInput),
    h('div', { class: 'field' },
      h('label', { for: 'f-photo', text: 'Photos' }),
      h('input', { id: 'f-photo', type: 'file', accept: 'image/*', capture: 'environment', multiple: true, onchange: (ev: Event) => {
        for (const file of Array.from((ev.target as HTMLInputElement).files ?? [])) {
          photos.push({ type: file.type || 'image/jpeg', data: file });
          photoList.append(h('li', { text: file.name }));
        }
      } }),
      photoList,
    ),
    h('button', { type: 'submit', id: 'save-inspection' }, 'Save inspection'),
    h('p', { class: 'form-error', role: 'alert' }),
  );
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    f.querySelectorAll('.field-error, .form-error').forEach((p) => (p.textContent = ''));
    const values: Values = {};
    for (const fd of def.fields) {
      const input = f.elements.namedItem(fd.name) as HTMLInputElement;
      values[fd.name] = fd.type === 'checkbox' ? input.checked : input.value;
    }
    const miss = missing(def, values);
    if (miss.length) {
      miss.forEach((m) => showFieldError(f, m, `${m}: required`));
      return;
    }
    const body = buildInspection(def, assetId, values, when, here);
    const entry = await ctx.queue.add(body, photos);
    // Online: send now, so a refusal shows next to its field; offline it waits.
    if (navigator.onLine) {
      try {
        const r = await sendOne(entry, { fetch: fetch.bind(window), headers: () => authHeaders() });
        if (r === 'sent') {
          await ctx.queue.remove(entry.key);
          ctx.say(`Saved: ${entry.inspectionId ?? assetId}.`);
          card.querySelector('#inspection-form')?.remove();
          // The card again, with the new inspection in its history.
          void reopen();
          return;
        }
        if (entry.inspectionId) {
          // The inspection is in; a photo was refused: it stays listed with the reason.
          ctx.say(`Saved: ${entry.inspectionId}; ${entry.error}`, true);
          card.querySelector('#inspection-form')?.remove();
          return;
        }
        await ctx.queue.remove(entry.key);
        showFieldError(f, entry.field ?? '', entry.error ?? 'refused');
        return;
      } catch {
        // The network dropped: it stays queued and goes when the network returns.
      }
    }
    ctx.say('Saved on this device; it will be sent when the network returns.');
    card.querySelector('#inspection-form')?.remove();
  });
  card.querySelector('#inspection-form')?.remove();
  card.append(f);
  (f.querySelector('select, input') as HTMLElement)?.focus();
}

function showFieldError(f: HTMLFormElement, field: string, msg: string): void {
  const input = field ? (f.elements.namedItem(field) as HTMLElement | null) : null;
  const slot = input ? document.getElementById(`${input.id}-error`) : null;
  if (slot && input) {
    slot.textContent = msg;
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', slot.id);
    input.focus();
  } else {
    (f.querySelector('.form-error') as HTMLElement).textContent = msg;
  }
}

export { FORMS };

const cardOf = (layer: string, id: string, ctx: Ctx) => card(layer, id, ctx);
