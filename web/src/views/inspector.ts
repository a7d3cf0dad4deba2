// The inspector, on a phone: what is near (the device's position or a tapped point), a
// facility's card opened in place (from the list or the map) with a way back, and
// recording an inspection with the form of its kind.
import * as maplibregl from 'maplibre-gl';
import { authHeaders, get, getGeoJson, urlOf } from '../api';
import { compass, formatDistance } from '../geo';
import { buildInspection, FORMS, invalid, kindFor, localDate, localTime, missing, valuesFrom, type Field, type FormDef, type Values } from '../forms';
import { fitTo, getMap, showAnswer } from '../map';
import { h, markDrawn, table, type Ctx } from '../ui';
import { sendOne, type Entry, type QueuedPhoto } from '../queue';
import '../inspector.css';

let here: { lon: number; lat: number } | null = null;
/** The numbered markers of the last nearby answer, one per row of the list. */
let markers: maplibregl.Marker[] = [];

/** The facility layers a card is for, as the map's tiles name them. */
const FACILITY_LAYERS = ['outfalls', 'catch_basins', 'manholes', 'smps', 'structures'];

export function render(el: HTMLElement, ctx: Ctx): void {
  markers.forEach((m) => m.remove());
  markers = [];
  const list = h('div', { id: 'nearby' });
  const tapHint = h('p', { class: 'hint', id: 'tap-hint', text: 'Tap a facility on the map or in the list to open its card.' });
  el.append(
    h('section', { id: 'near', 'aria-label': 'Near me' },
      h('h2', { text: 'Near me' }),
      h('div', { class: 'row' },
        h('button', { type: 'button', id: 'near-me', onclick: () => locate(list, ctx) }, 'Near me'),
        h('button', { type: 'button', id: 'tap-point', onclick: () => {
          ctx.say('Tap the map where you are.');
          ctx.onMapClick((ll) => {
            ctx.onMapClick(facilityTap(ctx));
            nearby({ lon: ll.lng, lat: ll.lat }, list, ctx);
          });
        } }, 'Tap a point'),
      ),
      tapHint,
      list,
    ),
  );
  ctx.onMapClick(facilityTap(ctx));
}

/** A tap on the map: the card of the facility under the finger, if there is one. */
function facilityTap(ctx: Ctx) {
  return (_ll: { lng: number; lat: number }, point: { x: number; y: number }) => {
    const map = getMap();
    const r = 12;
    const box: [[number, number], [number, number]] = [[point.x - r, point.y - r], [point.x + r, point.y + r]];
    const hits = map.queryRenderedFeatures(box).filter((f) =>
      (f.layer.id === 'answer-point' && FACILITY_LAYERS.includes(String(f.properties?.layer))) ||
      (f.source === 'ms4' && FACILITY_LAYERS.includes(String(f.sourceLayer))));
    if (!hits.length) return;
    // The one nearest the finger (several may be under it when zoomed out).
    const off = (g: any) => {
      if (g.type !== 'Point') return 2 * r;
      const q = map.project(g.coordinates as [number, number]);
      return Math.hypot(q.x - point.x, q.y - point.y);
    };
    const f = hits.map((x) => ({ x, d: off(x.geometry) })).sort((a, b) => a.d - b.d)[0].x;
    const layer = f.layer.id === 'answer-point' ? String(f.properties!.layer) : String(f.sourceLayer);
    void card(layer, String(f.properties!.id), ctx);
  };
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
  closeCard();
  list.replaceChildren(h('p', { text: 'Looking…' }));
  try {
    const fc = await getGeoJson('/api/nearby', { query: { lon: at.lon, lat: at.lat, k: 20 } });
    const replyAt = performance.now();
    fc.features.forEach((f, i) => {
      f.properties.role = 'near';
      f.properties.rank = i + 1;
    });
    fc.features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [at.lon, at.lat] }, properties: { role: 'footprint', id: 'you are here' } });
    const rows = fc.features.filter((f) => f.properties.role === 'near').map((f) => f.properties);
    const bounds = await registryBounds();
    const away = bounds && !within(bounds, at);
    list.replaceChildren(
      away
        ? h('p', { class: 'error', role: 'alert', id: 'near-outside', text: `You are outside the registry’s area (${at.lat.toFixed(5)}, ${at.lon.toFixed(5)}; its facilities lie within ${bounds.map((v) => v.toFixed(4)).join(', ')}): the nearest is ${rows[0] ? formatDistance(Number(rows[0].distance), rows[0].unit as any) : 'none'} away.` })
        : '',
      table('Facilities nearest first', rows, [
        ['Facility', (r: any) => h('button', { type: 'button', class: 'link', 'data-asset': r.id, onclick: () => card(r.layer, r.id, ctx, r) }, h('span', { class: 'near-rank', 'aria-hidden': 'true', text: String(r.rank) }), ` ${r.id}`)],
        ['Kind', (r: any) => r.layer.replace(/_/g, ' ').replace(/s$/, '')],
        ['Distance', (r: any) => formatDistance(r.distance, r.unit)],
        ['Direction', (r: any) => `${r.direction ?? compass(r.bearing_deg)} ${arrow(r.bearing_deg)}`],
        ['Status', (r: any) => r.status ?? '—'],
        ['Last inspection', (r: any) => lastText(r.last_inspection)],
        // The server's answer (the map's rule), never worked out here.
        ['Overdue', (r: any) => (r.overdue ? 'OVERDUE' : 'no')],
        ['Access', (r: any) => accessText(r.access)],
      ]),
    );
    await showAnswer(fc, false);
    // To the inspector and what is round them, numbered as the list is.
    fitTo(fc, 19);
    label(fc, ctx);
    markDrawn('nearby', replyAt);
  } catch (e) {
    const err = e as Error & { status?: number; field?: string | null };
    // A position the registry does not cover is said as such, not as a failure.
    const outside = err.status === 400 && /outside|far from|area/i.test(err.message);
    list.replaceChildren(h('p', { class: 'error', role: 'alert', id: outside ? 'near-outside' : undefined,
      text: outside ? `You are outside the registry’s area (${at.lat.toFixed(5)}, ${at.lon.toFixed(5)}): ${err.message}` : err.message }));
  }
}

let boundsAsked: Promise<[number, number, number, number] | null> | null = null;

/** The registry's extent as the server publishes it for its tiles (west, south, east,
 *  north), asked once. */
function registryBounds(): Promise<[number, number, number, number] | null> {
  boundsAsked ??= (get('/tiles.json') as Promise<{ bounds?: [number, number, number, number] } | null>)
    .then((t) => t?.bounds ?? null)
    .catch(() => null);
  return boundsAsked;
}

function within(b: [number, number, number, number], at: { lon: number; lat: number }): boolean {
  return at.lon >= b[0] && at.lon <= b[2] && at.lat >= b[1] && at.lat <= b[3];
}

/** Numbered markers on the map, one per facility of the list (no glyphs needed). */
function label(fc: { features: any[] }, ctx: Ctx): void {
  markers.forEach((m) => m.remove());
  markers = fc.features.filter((f) => f.properties.role === 'near').map((f) => {
    const p = f.properties;
    const el = h('button', { type: 'button', class: 'near-marker', 'data-asset': p.id, 'aria-label': `${p.rank}: ${p.id}`, text: String(p.rank), onclick: (ev: Event) => {
      ev.stopPropagation();
      void card(p.layer, p.id, ctx, p);
    } });
    const c = f.geometry.type === 'Point' ? f.geometry.coordinates : firstPosition(f.geometry.coordinates);
    return new maplibregl.Marker({ element: el, anchor: 'bottom-left', offset: [4, -4] }).setLngLat(c).addTo(getMap());
  });
}

function firstPosition(c: any): [number, number] {
  return typeof c[0] === 'number' ? c : firstPosition(c[0]);
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

/** Back from a card to the list, where the inspector was. */
function closeCard(): void {
  document.getElementById('card')?.remove();
  const near = document.getElementById('near');
  if (near) near.hidden = false;
}

/** The card's place: in the view, instead of the list (which it hides, not drops). */
function cardSlot(layer: string): HTMLElement {
  const el = document.getElementById('card') ?? h('section', { id: 'card', 'aria-label': 'Facility card', tabindex: '-1' });
  document.getElementById('view')!.append(el);
  const near = document.getElementById('near');
  if (near) near.hidden = true;
  el.dataset.layer = layer;
  return el;
}

function backButton(): HTMLElement {
  return h('button', { type: 'button', id: 'card-back', class: 'back', onclick: () => {
    const from = document.getElementById('card')?.dataset.asset;
    closeCard();
    (document.querySelector(`#nearby button[data-asset="${from}"]`) as HTMLElement | null ?? document.getElementById('near-me'))?.focus();
  } }, '← Back to the list');
}

/** A facility's card: what is due, its receiving water, the last inspection and its
 *  photos, its attributes, inspections and the pipes it connects. */
export async function card(layer: string, id: string, ctx: Ctx, near?: any): Promise<void> {
  const el = cardSlot(layer);
  el.dataset.asset = id;
  el.replaceChildren(backButton(), h('p', { text: `Loading ${id}…` }));
  const def = kindFor(layer);
  const record = () => def && ctx.session.may.inspect
    ? h('button', { type: 'button', id: 'record', onclick: () => form(el, def, id, ctx) }, `Record ${def.title.toLowerCase()}`)
    : def
      ? h('p', { class: 'hint', text: 'Sign in with an inspector token to record an inspection.' })
      : null;
  try {
    const [feat, insp, from, to] = await Promise.all([
      get('/collections/{layer}/items/{id}', { path: { layer, id } }),
      // The definition gives the inspections no schema yet: the fields read here.
      get('/api/assets/{id}/inspections', { path: { id } }) as Promise<{ inspections: Record<string, unknown>[]; last_inspection: string | null; overdue: boolean; due_by: string | null }>,
      get('/collections/{layer}/items', { path: { layer: 'pipes' }, query: { limit: 50 }, filter: { from_id: id } }),
      get('/collections/{layer}/items', { path: { layer: 'pipes' }, query: { limit: 50 }, filter: { to_id: id } }),
    ]);
    const props = (feat.properties ?? {}) as Record<string, unknown>;
    const attrs = Object.entries(props);
    const pipes = [...to.features.map((p) => ({ ...p.properties, way: 'in' })), ...from.features.map((p) => ({ ...p.properties, way: 'out' }))];
    const last = insp.inspections[0] as any | undefined;
    const photos = h('div', { id: 'card-photos' });
    el.replaceChildren(
      backButton(),
      h('h2', { text: `${id}` }),
      h('p', { class: 'card-kind', text: `${layer.replace(/_/g, ' ').replace(/s$/, '')}, ${props.status ?? 'status not recorded'}` }),
      due(insp),
      props.receiving_water_id ? water(String(props.receiving_water_id)) : '',
      h('p', { id: 'card-last', text: last ? `Last inspection: ${lastLine(last)}` : 'Last inspection: never' }),
      photos,
      record() ?? '',
      table('Inspections, newest first', insp.inspections, [
        ['Date', (r: any) => r.inspected_on],
        ['Kind', (r: any) => String(r.kind).replace(/_/g, ' ')],
        ['Result', (r: any) => r.result],
        ['Inspector', (r: any) => r.inspector ?? ''],
      ]),
      h('details', {}, h('summary', { text: 'Everything recorded' }),
        h('dl', { class: 'attrs' }, ...attrs.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v === null ? '—' : String(v) })]))),
      table('Pipes it connects', pipes, [
        ['Pipe', (r: any) => r.asset_id ?? r.id],
        ['Way', (r: any) => (r.way === 'in' ? `in from ${r.from_id}` : `out to ${r.to_id}`)],
        ['Diameter (in)', (r: any) => String(r.diameter_in ?? '—')],
      ]),
    );
    if (last) void showPhotos(photos, String(last.inspection_id));
    (el.querySelector('h2') as HTMLElement).setAttribute('tabindex', '-1');
    (el.querySelector('h2') as HTMLElement).focus();
  } catch (e) {
    // Offline and never seen: what the list said, and the form still works (it queues).
    el.replaceChildren(
      backButton(),
      h('h2', { text: id }),
      h('p', { class: 'error', role: 'alert', text: `Details not available: ${(e as Error).message}` }),
      near ? h('p', { text: `${layer.replace(/_/g, ' ')}, status ${near.status ?? '—'}, last inspection ${lastText(near.last_inspection)}${near.overdue ? ', OVERDUE' : ''}` }) : '',
      record() ?? '',
    );
  }
}

/** What is due, as the server answers it. */
function due(insp: { overdue?: boolean; due_by?: string | null; last_inspection?: string | null }): HTMLElement {
  const text = insp.overdue
    ? insp.last_inspection ? `OVERDUE: an inspection was due by ${insp.due_by}` : 'OVERDUE: never inspected'
    : `Next inspection due by ${insp.due_by}`;
  return h('p', { id: 'card-due', class: insp.overdue ? 'due overdue' : 'due', text });
}

/** The receiving water by its name (its id while the name is on its way). */
function water(waterId: string): HTMLElement {
  const p = h('p', { id: 'card-water', text: `Receiving water: ${waterId}` });
  get('/collections/{layer}/items/{id}', { path: { layer: 'receiving_waters', id: waterId } })
    .then((w) => {
      const wp = (w.properties ?? {}) as Record<string, unknown>;
      const cls = typeof wp.classification === 'string' && wp.classification.trim() ? `, class ${wp.classification.trim()}` : '';
      p.textContent = `Receiving water: ${wp.name ?? waterId}${cls}${wp.listed_303d ? ' (impaired, 303(d) listed)' : ''}`;
      p.dataset.name = String(wp.name ?? '');
    })
    .catch(() => {});
  return p;
}

function lastLine(i: any): string {
  const bits = [i.inspected_on, String(i.kind).replace(/_/g, ' '), i.result, i.inspector ? `by ${i.inspector}` : ''];
  if (i.characterisation) bits.push(String(i.characterisation));
  return bits.filter(Boolean).join(', ');
}

/** The last inspection's photos, fetched with the token (a registry may not be public). */
async function showPhotos(slot: HTMLElement, inspectionId: string): Promise<void> {
  try {
    const r = await fetch(urlOf('/api/inspections/{id}/photos', { id: inspectionId }), { headers: authHeaders() });
    if (!r.ok) return;
    const list = ((await r.json()).photos ?? []) as { sha256: string }[];
    if (!list.length) return;
    slot.append(h('p', { class: 'hint', text: `Photos of the last inspection (${list.length})` }));
    for (const p of list) {
      const img = await fetch(urlOf('/api/photos/{sha256}', { sha256: p.sha256 }), { headers: authHeaders() });
      if (!img.ok) continue;
      slot.append(h('img', { src: URL.createObjectURL(await img.blob()), alt: `Photo ${p.sha256.slice(0, 8)} of the last inspection`, class: 'card-photo' }));
    }
  } catch {
    // No photos offline: the card stands without them.
  }
}

function fieldId(name: string): string {
  return `f-${name.replace(/[^a-z0-9]+/gi, '-')}`;
}

function fieldInput(f: Field, when: Date): HTMLElement {
  const id = fieldId(f.name);
  const hintId = f.hint ? `${id}-hint` : undefined;
  let input: HTMLElement;
  if (f.type === 'select') {
    input = h('select', { id, name: f.name, required: f.required, 'aria-describedby': hintId }, ...f.options!.map((o) => h('option', { value: o, text: o ? o.replace(/_/g, ' ') : '—' })));
  } else if (f.type === 'textarea') {
    input = h('textarea', { id, name: f.name, rows: '3' });
  } else if (f.type === 'checkbox') {
    input = h('input', { id, name: f.name, type: 'checkbox', 'aria-describedby': hintId });
  } else {
    const value = f.type === 'date' ? localDate(when) : f.type === 'time' ? localTime(when) : undefined;
    input = h('input', {
      id, name: f.name, type: f.type, step: f.step, min: f.min, max: f.type === 'date' ? localDate(when) : f.max, value,
      required: f.required, list: f.suggest ? `${id}-words` : undefined, 'aria-describedby': hintId,
      inputmode: f.type === 'number' ? (f.integer ? 'numeric' : 'decimal') : undefined,
    });
  }
  return h('div', { class: `field ${f.type}` },
    h('label', { for: id, text: f.required ? `${f.label} (required)` : f.label }),
    input,
    f.suggest ? h('datalist', { id: `${id}-words` }, ...f.suggest.map((w) => h('option', { value: w }))) : null,
    f.hint ? h('p', { class: 'hint', id: hintId, text: f.hint }) : null,
    h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' }),
  );
}

/** The form's fields, in the groups the definition gives them. */
function fieldGroups(def: FormDef, when: Date): HTMLElement[] {
  const out: HTMLElement[] = [];
  let group: string | undefined;
  let set: HTMLElement | null = null;
  for (const f of def.fields) {
    if (f.group && f.group !== group) {
      set = h('fieldset', {}, h('legend', { text: f.group }));
      out.push(set);
    }
    group = f.group;
    if (f.group && set) set.append(fieldInput(f, when));
    else out.push(fieldInput(f, when));
  }
  return out;
}

function readValues(f: HTMLFormElement, def: FormDef): Values {
  const values: Values = {};
  for (const fd of def.fields) {
    const input = f.elements.namedItem(fd.name) as HTMLInputElement;
    values[fd.name] = fd.type === 'checkbox' ? input.checked : input.value;
  }
  return values;
}

/** An entry the server refused, reopened in its form with the refusal beside its field:
 *  saved again, it replaces that entry (same key), so nothing is dropped or doubled. */
export async function fix(entry: Entry, ctx: Ctx): Promise<void> {
  const def = FORMS[String(entry.body.kind)];
  const assetId = String(entry.body.asset_id);
  if (!def) return;
  await card(def.layer, assetId, ctx);
  const el = document.getElementById('card')!;
  form(el, def, assetId, ctx, entry);
}

function form(card: HTMLElement, def: FormDef, assetId: string, ctx: Ctx, refused?: Entry): void {
  const reopen = () => card.dataset.layer ? cardOf(card.dataset.layer, assetId, ctx) : Promise.resolve();
  const photos: QueuedPhoto[] = refused ? [...refused.photos] : [];
  const when = refused?.body.observed_at ? new Date(String(refused.body.observed_at)) : new Date();
  // The queue entry this form made (or reopened): saving again (after a sign-in, or a
  // fix) rewrites that entry, never a second inspection.
  let key: string | null = refused?.key ?? null;
  const photoList = h('ul', { class: 'photos' });
  const f = h('form', { id: 'inspection-form', 'aria-label': def.title, novalidate: true },
    h('h3', { text: def.title }),
    h('p', { class: 'hint', id: 'filled-in', text: here ? `Position ${here.lat.toFixed(6)}, ${here.lon.toFixed(6)}` : 'No position: the facility’s own place stands for it.' }),
    ...fieldGroups(def, when),
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
  // The card again (with the new inspection in its history when `again`), then the
  // word at its top.
  const done = async (text: string, isError = false, again = false) => {
    card.querySelector('#inspection-form')?.remove();
    if (again) await reopen();
    // Said once, at the top of the card where the inspector is looking (announced there).
    saved(card, text, isError);
  };
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    f.querySelectorAll('.field-error, .form-error').forEach((p) => (p.textContent = ''));
    f.querySelectorAll('[aria-invalid]').forEach((p) => p.removeAttribute('aria-invalid'));
    if (key && !(await ctx.queue.all()).some((e) => e.key === key)) {
      // Sent from the queue after a sign-in while the form stayed open.
      await done('Saved: this inspection was sent.', false, true);
      return;
    }
    const values = readValues(f, def);
    const miss = missing(def, values);
    const wrong = invalid(def, values);
    if (miss.length || wrong.length) {
      wrong.reverse().forEach((w) => showFieldError(f, w.field, `${w.message}`));
      miss.reverse().forEach((m) => showFieldError(f, m, `${def.fields.find((x) => x.name === m)?.label ?? m}: required`));
      return;
    }
    const body = buildInspection(def, assetId, values, when, here);
    const entry = await ctx.queue.add(body, photos, key ?? undefined);
    key = entry.key;
    // Online: send now, so a refusal shows next to its field; offline it waits.
    if (navigator.onLine) {
      try {
        const r = await sendOne(entry, { fetch: fetch.bind(window), headers: () => authHeaders() });
        if (r === 'sent') {
          await ctx.queue.remove(entry.key);
          await done(`Saved: ${def.title.toLowerCase()} of ${assetId}, ${body.inspected_on}.`, false, true);
          return;
        }
        if (r === 'signin') {
          // The form stays as typed; the entry waits, marked, and goes after sign-in.
          await ctx.queue.put(entry);
          showFieldError(f, '', `Not sent: ${entry.error}. Sign in again: this inspection is kept on this device and is sent then.`);
          return;
        }
        if (entry.inspectionId) {
          // The inspection is in; a photo was refused: it stays listed with the reason.
          await done(`Saved: ${entry.inspectionId}; ${entry.error}`, true);
          return;
        }
        if (refused) {
          // Reopened from the queue: it stays there, refused, until fixed or discarded.
          await ctx.queue.put(entry);
        } else {
          await ctx.queue.remove(entry.key);
          key = null;
        }
        showFieldError(f, entry.field ?? '', entry.error ?? 'refused');
        return;
      } catch {
        // The network dropped: it stays queued and goes when the network returns.
      }
    }
    await done('Saved on this device; it will be sent when the network returns.');
  });
  card.querySelector('#inspection-form')?.remove();
  card.append(f);
  (f.querySelector('select, input') as HTMLElement)?.focus();
  if (refused) {
    const values = valuesFrom(def, refused.body);
    for (const fd of def.fields) {
      const input = f.elements.namedItem(fd.name) as HTMLInputElement | null;
      if (!input) continue;
      if (fd.type === 'checkbox') input.checked = values[fd.name] === true;
      else input.value = String(values[fd.name] ?? '');
    }
    refused.photos.forEach((_, i) => photoList.append(h('li', { text: `photo ${i + 1} (kept)` })));
    showFieldError(f, refused.field ?? '', refused.error ?? 'refused');
  }
}

/** "Saved" where the inspector is looking: at the top of the card, announced. */
function saved(card: HTMLElement, text: string, isError: boolean): void {
  const p = card.querySelector('#card-saved') ?? h('p', { id: 'card-saved', role: 'status', 'aria-live': 'polite' });
  p.className = isError ? 'error' : 'saved';
  p.textContent = text;
  card.prepend(p);
  (p as HTMLElement).scrollIntoView?.({ block: 'nearest' });
}

function showFieldError(f: HTMLFormElement, field: string, msg: string): void {
  const input = field ? (f.elements.namedItem(field) as HTMLElement | null) ?? (f.elements.namedItem(field.replace(/\.(kind|value)$/, '')) as HTMLElement | null) : null;
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
