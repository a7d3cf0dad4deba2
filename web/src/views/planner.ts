// The planner: a parcel picked on the map, a footprint drawn or uploaded; the project's
// facts; the determination with reasons, citations, assumptions and open facts; its
// evidence drawn; a print view.
import { ApiError, post, postGeoJson, type Feature } from '../api';
import { AREA_UNITS, determinationRequest, FACTS, resultWord, type FactValues, type Place } from '../facts';
import { firstPolygon } from '../geo';
import { getMap, showAnswer, showDraft, type FC } from '../map';
import { h, markDrawn, type Ctx } from '../ui';

let place: Place | null = null;
// The drawing library is loaded the first time a footprint is drawn, so the page's first
// map draw does not wait for it.
let drawMod: typeof import('../draw') | null = null;
const drawing = async () => (drawMod ??= await import('../draw'));

/** Leaving the planner: a footprint half drawn stops taking the map's taps. */
export function leave(): void {
  drawMod?.stop();
}

export function render(el: HTMLElement, ctx: Ctx): void {
  // Fetched while the planner reads the form, so a footprint can be drawn at once, and
  // (cached by the service worker) offline later.
  setTimeout(() => void drawing().catch(() => {}), 0);
  const where = h('p', { id: 'place', role: 'status', text: place ? describe(place) : 'No place chosen yet.' });
  const out = h('div', { id: 'determination' });
  const facts = h('form', { id: 'facts', 'aria-label': 'Project facts', novalidate: true },
    h('h3', { text: 'Project facts' }),
    h('div', { class: 'field' },
      h('label', { for: 'fact-disturbed', text: 'Area disturbed' }),
      h('div', { class: 'row' },
        h('input', { id: 'fact-disturbed', name: 'disturbed', type: 'number', min: '0', step: 'any', inputmode: 'decimal' }),
        h('select', { id: 'fact-disturbed-unit', name: 'disturbed_unit', 'aria-label': 'Unit of the area' }, ...AREA_UNITS.map((u) => h('option', { value: u, text: u }))),
      ),
      h('p', { class: 'field-error', id: 'fact-disturbed-error', role: 'alert' }),
    ),
    ...FACTS.filter((f) => f.kind !== 'area').map((f) => {
      const id = `fact-${f.name}`;
      const input = f.kind === 'bool'
        ? h('input', { id, name: f.name, type: 'checkbox' })
        : f.kind === 'date'
          ? h('input', { id, name: f.name, type: 'date' })
          : h('select', { id, name: f.name }, h('option', { value: '', text: 'not known' }), h('option', { value: 'yes', text: 'yes' }), h('option', { value: 'no', text: 'no' }));
      return h('div', { class: `field ${f.kind === 'bool' ? 'checkbox' : ''}` }, h('label', { for: id, text: f.label }), input, h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' }));
    }),
    h('button', { type: 'submit', id: 'determine' }, 'Determine'),
    h('p', { class: 'form-error', role: 'alert' }),
  );
  facts.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void determine(facts, out, ctx);
  });
  el.append(
    h('h2', { text: 'Planner' }),
    h('div', { class: 'row no-print' },
      h('button', { type: 'button', id: 'pick-parcel', onclick: () => pickParcel(where, ctx) }, 'Pick a parcel'),
      h('button', { type: 'button', id: 'draw-footprint', onclick: () => void draw(where, ctx) }, 'Draw a footprint'),
      h('button', { type: 'button', id: 'finish-footprint', onclick: () => finish(where, ctx) }, 'Finish footprint'),
      h('label', { for: 'footprint-file', class: 'button' }, 'Upload GeoJSON or zipped shapefile'),
      h('input', { id: 'footprint-file', type: 'file', accept: '.geojson,.json,.zip,.gpkg,.kml,.fgb,application/geo+json,application/json,application/zip', onchange: (ev: Event) => upload(ev, where, ctx) }),
    ),
    h('div', { class: 'row no-print' },
      h('label', { for: 'parcel-id', text: 'or the parcel id' }),
      h('input', { id: 'parcel-id', name: 'parcel_id', placeholder: 'P-000001', autocomplete: 'off' }),
      h('button', { type: 'button', id: 'use-parcel', onclick: () => {
        const v = (document.getElementById('parcel-id') as HTMLInputElement).value.trim();
        if (!v) return ctx.say('Type a parcel id first.', true);
        // Without a pointer: the parcel by its id (the server says if there is none).
        leave();
        place = { parcel: v };
        where.textContent = describe(place);
        showDraft({ type: 'FeatureCollection', features: [] });
      } }, 'Use this parcel'),
    ),
    where,
    facts,
    out,
  );
}

function describe(p: Place): string {
  return 'parcel' in p ? `Parcel ${p.parcel}` : 'The footprint drawn';
}

function pickParcel(where: HTMLElement, ctx: Ctx): void {
  leave();
  ctx.say('Tap a parcel on the map.');
  ctx.onMapClick((_ll, pt) => {
    const hit = getMap().queryRenderedFeatures([pt.x, pt.y] as any, { layers: ['parcels'] })[0];
    if (!hit) return ctx.say('No parcel there: tap inside one.', true);
    ctx.onMapClick(null);
    place = { parcel: String(hit.properties!.id) };
    where.textContent = describe(place);
    showDraft({ type: 'FeatureCollection', features: [] });
    ctx.say('');
  });
}

async function draw(where: HTMLElement, ctx: Ctx): Promise<void> {
  ctx.onMapClick(null);
  showDraft({ type: 'FeatureCollection', features: [] });
  ctx.say('Tap the corners of the footprint; tap the first corner again, press Enter or Finish footprint to close it.');
  where.textContent = 'Drawing a footprint';
  (await drawing()).start(getMap(), (ring) => {
    const poly = { type: 'Polygon', coordinates: [ring] };
    place = { footprint: poly };
    showDraft({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: poly, properties: {} }] });
    where.textContent = `${describe(place)} (${ring.length - 1} corners)`;
    ctx.say('');
  });
}

function finish(_where: HTMLElement, ctx: Ctx): void {
  if (!drawMod?.finish(getMap())) return ctx.say('Draw a footprint first.', true);
  // terra-draw closes a polygon only when it has enough corners; still open, it has not.
  if (drawMod.drawingNow()) ctx.say('A footprint needs at least three corners.', true);
}

/** The footprint the server reads from a file (`POST /api/footprint`). */
async function serverFootprint(file: File): Promise<Feature> {
  const form = new FormData();
  form.append('file', file, file.name);
  return post('/api/footprint', { body: form });
}

async function upload(ev: Event, where: HTMLElement, ctx: Ctx): Promise<void> {
  const file = (ev.target as HTMLInputElement).files?.[0];
  if (!file) return;
  try {
    // GeoJSON is read here; a zipped shapefile (and the other formats) by the server,
    // through the same opening its uploads use, which answers the footprint in CRS84.
    const poly = /\.(geo)?json$/i.test(file.name) ? firstPolygon(JSON.parse(await file.text())) : (await serverFootprint(file)).geometry;
    place = { footprint: poly };
    showDraft({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: poly, properties: {} }] });
    where.textContent = `Footprint from ${file.name}`;
    ctx.say('');
  } catch (e) {
    ctx.say(`${file.name}: ${(e as Error).message}`, true);
  }
}

function readFacts(f: HTMLFormElement): FactValues {
  const v: FactValues = {};
  for (const el of Array.from(f.elements) as HTMLInputElement[]) {
    if (!el.name) continue;
    v[el.name] = el.type === 'checkbox' ? el.checked : el.value;
  }
  return v;
}

async function determine(f: HTMLFormElement, out: HTMLElement, ctx: Ctx): Promise<void> {
  f.querySelectorAll('.field-error, .form-error').forEach((p) => (p.textContent = ''));
  if (!place) {
    (f.querySelector('.form-error') as HTMLElement).textContent = 'Choose a place first: pick a parcel, draw or upload a footprint.';
    return;
  }
  const body = determinationRequest(place, readFacts(f));
  // The request as sent, for whoever checks the page against the API (a script, a test).
  out.dataset.request = JSON.stringify(body);
  try {
    const [a, fc] = await Promise.all([
      post('/api/determinations', { json: body }),
      postGeoJson('/api/determinations', { json: body }),
    ]);
    const replyAt = performance.now();
    out.replaceChildren(...answerView(a));
    for (const g of fc.features) g.properties.role = roleOf(g.properties);
    if ('footprint' in place) fc.features.push({ type: 'Feature', geometry: place.footprint as Feature['geometry'], properties: { role: 'footprint', id: 'footprint' } });
    await showAnswer(fc);
    markDrawn('determination', replyAt);
  } catch (e) {
    const msg = (e as Error).message;
    const field = e instanceof ApiError ? e.field : null;
    const slot = field ? document.getElementById(`fact-${field}-error`) : null;
    if (slot) slot.textContent = msg;
    else (f.querySelector('.form-error') as HTMLElement).textContent = msg;
  }
}

function roleOf(p: Record<string, unknown>): string {
  if (p.layer === 'watersheds' || p.watershed_id) return 'watershed';
  if (p.layer === 'tmdl_areas' || p.tmdl_id) return 'tmdl';
  if (p.layer === 'receiving_waters' || p.water_id) return 'water';
  if (p.layer === 'parcels') return 'parcel';
  return 'trace';
}

function finding(title: string, f: any): HTMLElement {
  const word = resultWord(f?.result?.status ?? f?.result);
  return h('section', { class: 'finding', 'data-result': word },
    h('h3', {}, `${title}: `, h('span', { class: 'badge', text: word })),
    f?.result?.summary ? h('p', { text: f.result.summary }) : null,
    list('Reasons', f?.reasons ?? [], (r: string) => r),
    list('Citations', f?.citations ?? [], (c: any) => `${c.citation} — ${c.title}`),
    list('Assumptions', f?.assumptions ?? [], (a: any) => `${a.id}: ${a.text}`),
  );
}

function list<T>(title: string, items: T[], text: (t: T) => string): HTMLElement | null {
  if (!items.length) return null;
  return h('div', {}, h('h4', { text: title }), h('ul', {}, ...items.map((i) => h('li', { text: text(i) }))));
}

/** The determination as the page shows it (and prints it). */
export function answerView(a: any): HTMLElement[] {
  const d = a.determination;
  const rw = a.receiving_waters;
  const parts: HTMLElement[] = [h('h2', { class: 'print-only', text: `Determination — ${d.jurisdiction}, ${a.parcel ? `parcel ${a.parcel}` : 'footprint'}, ${new Date().toLocaleDateString()}` })];
  parts.push(finding('Land development activity', d.land_development_activity));
  parts.push(finding('Exempt', d.exempt));
  if (d.conditions && typeof d.conditions === 'object') {
    for (const [k, v] of Object.entries(d.conditions)) parts.push(finding(`Condition ${k.replace(/_/g, ' ')}`, v));
  }
  if (d.conditions_absent) parts.push(finding('Conditions One, Two and Three (none in this law)', d.conditions_absent));
  for (const r of d.requirements ?? []) parts.push(finding(`Requirement: ${String(r.result?.kind ?? '').replace(/_/g, ' ')}`, r));
  parts.push(h('section', { id: 'open-facts' }, h('h3', { text: 'Facts left open' }), (d.open_facts ?? []).length ? h('ul', {}, ...d.open_facts.map((f: string) => h('li', { text: f }))) : h('p', { text: 'none' })));
  parts.push(h('section', { id: 'evidence' },
    h('h3', { text: 'Evidence' }),
    list('Watersheds overlapped (share of the footprint)', rw.by_watershed ?? [], (w: any) => `${w.name ?? w.watershed_id}: ${(w.share * 100).toFixed(1)}% → ${w.drains_to}`),
    list('303(d) waters and their pollutants', rw.listed ?? [], (w: any) => `${w.name} (${w.water_id}): ${(w.pollutants ?? []).join(', ')} — ${(w.reached_by ?? []).join('; ')}`),
    list('TMDL areas', rw.tmdl_areas ?? [], (t: any) => `${t.tmdl_id}: ${t.pollutant}${t.stormwater_source ? ' (stormwater source)' : ''}`),
    list('Through the network', rw.by_network ?? [], (n: any) => JSON.stringify(n)),
  ));
  parts.push(h('button', { type: 'button', id: 'print', class: 'no-print', onclick: () => window.print() }, 'Print for the file'));
  return parts;
}
