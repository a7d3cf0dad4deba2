// The planner: a parcel picked on the map, a footprint drawn or uploaded; the project's
// facts; the determination with reasons, citations, assumptions and open facts (answered
// in place); its evidence drawn and the project framed; a print view for the file.
import { ApiError, get, post, postGeoJson, type Feature } from '../api';
import { AREA_UNITS, determinationRequest, FACTS, factsGiven, openFacts, resultWord, type FactValues, type OpenFact, type Place } from '../facts';
import { firstPolygon } from '../geo';
import { fitTo, getMap, showAnswer, showDraft, snapshot, type FC } from '../map';
import { busy, focusAnswer, h, markDrawn, setUrlState, table, urlState, type Ctx } from '../ui';

let place: Place | null = null;
/** How close the map comes to frame a project: a house lot fills a good part of it. */
const FRAME_ZOOM = 19.5;

/** The project's shape as drawn (the parcel's or the footprint's), to frame it. */
let placeShape: FC | null = null;
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
          : triSelect(id, f.name);
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
    h('p', { class: 'hint no-print', id: 'keyboard-hint', text: 'Without a mouse: type the parcel id below, or upload a footprint file. While drawing, Enter closes the footprint and Escape abandons it.' }),
    h('div', { class: 'row no-print' },
      h('label', { for: 'parcel-id', text: 'or the parcel id' }),
      h('input', { id: 'parcel-id', name: 'parcel_id', placeholder: 'P-000001', autocomplete: 'off' }),
      h('button', { type: 'button', id: 'use-parcel', onclick: () => {
        const v = (document.getElementById('parcel-id') as HTMLInputElement).value.trim();
        if (!v) return ctx.say('Type a parcel id first.', true);
        // Without a pointer: the parcel by its id (the server says if there is none).
        leave();
        void chooseParcel(v, where, ctx, true);
      } }, 'Use this parcel'),
    ),
    where,
    facts,
    out,
  );
  // A link's parcel (`?view=planner&parcel=P-12`) or footprint: chosen again and drawn;
  // the camera is the link's own when it carries one (the hash), else the place is framed.
  if (placeShape) showDraft(placeShape);
  const linked = urlState().get('parcel');
  const linkedFootprint = urlState().get('footprint');
  const poly = !linked && linkedFootprint ? footprintOfParam(linkedFootprint) : null;
  if (linked && !(place && 'parcel' in place && place.parcel === linked)) void chooseParcel(linked, where, ctx, !location.hash);
  else if (poly && !place) chooseFootprint(poly, `The footprint of the link (${poly.coordinates[0].length - 1} corners)`, where, !location.hash);
  else if (place && 'parcel' in place) setUrlState({ parcel: place.parcel });
  else if (place && 'footprint' in place) setUrlState({ footprint: footprintParam(place.footprint) });
}

function triSelect(id: string, name: string): HTMLSelectElement {
  return h('select', { id, name }, h('option', { value: '', text: 'not known' }), h('option', { value: 'yes', text: 'yes' }), h('option', { value: 'no', text: 'no' }));
}

function describe(p: Place): string {
  return 'parcel' in p ? `Parcel ${p.parcel}` : 'The footprint drawn';
}

/** Makes a parcel the project: it goes into the URL, and its shape is drawn (and framed
 *  when `frame`), read from the registry. */
async function chooseParcel(id: string, where: HTMLElement, ctx: Ctx, frame: boolean): Promise<void> {
  place = { parcel: id };
  placeShape = null;
  where.textContent = describe(place);
  setUrlState({ parcel: id, footprint: null });
  showDraft({ type: 'FeatureCollection', features: [] });
  try {
    const f = (await get('/collections/{layer}/items/{id}', { path: { layer: 'parcels', id } })) as Feature;
    // Another place may have been chosen while the parcel was on its way.
    if (!place || !('parcel' in place) || place.parcel !== id || !f?.geometry) return;
    placeShape = { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: f.geometry, properties: { role: 'footprint', id } }] };
    showDraft(placeShape);
    if (frame) fitTo(placeShape, FRAME_ZOOM);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) ctx.say(`No parcel ${id} in the registry.`, true);
  }
}

/** The most corners a footprint may have to ride in a link (a long URL breaks mail). */
const LINK_CORNERS = 40;

/** A footprint as a link carries it (`lng,lat;lng,lat;...`, six decimals: about 10 cm),
 *  or null when it is more than one ring or too many corners. */
export function footprintParam(poly: any): string | null {
  if (poly?.type !== 'Polygon' || poly.coordinates?.length !== 1) return null;
  const ring: [number, number][] = poly.coordinates[0];
  if (ring.length - 1 > LINK_CORNERS) return null;
  return ring.slice(0, -1).map(([x, y]) => `${x.toFixed(6)},${y.toFixed(6)}`).join(';');
}

/** The footprint of a link's `footprint` (a closed Polygon), or null when it is not one. */
export function footprintOfParam(s: string): { type: 'Polygon'; coordinates: [number, number][][] } | null {
  const ring = s.split(';').map((p) => p.split(',').map(Number) as [number, number]);
  if (ring.length < 3 || ring.some((p) => p.length !== 2 || !p.every(Number.isFinite) || Math.abs(p[0]) > 180 || Math.abs(p[1]) > 90)) return null;
  return { type: 'Polygon', coordinates: [[...ring, ring[0]]] };
}

function chooseFootprint(poly: unknown, text: string, where: HTMLElement, frame = true): void {
  place = { footprint: poly };
  placeShape = { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: poly, properties: { role: 'footprint', id: 'footprint' } }] };
  setUrlState({ parcel: null, footprint: footprintParam(poly) });
  showDraft(placeShape);
  if (frame) fitTo(placeShape, FRAME_ZOOM);
  where.textContent = text;
}

function pickParcel(where: HTMLElement, ctx: Ctx): void {
  leave();
  ctx.say('Tap a parcel on the map.');
  ctx.onMapClick((_ll, pt) => {
    const hit = getMap().queryRenderedFeatures([pt.x, pt.y] as any, { layers: ['parcels'] })[0];
    if (!hit) return ctx.say('No parcel there: tap inside one.', true);
    ctx.onMapClick(null);
    // Tapped, the parcel is on screen already: the camera stays (the answer frames it).
    void chooseParcel(String(hit.properties!.id), where, ctx, false);
    ctx.say('');
  });
}

async function draw(where: HTMLElement, ctx: Ctx): Promise<void> {
  ctx.onMapClick(null);
  showDraft({ type: 'FeatureCollection', features: [] });
  ctx.say('Tap the corners of the footprint; tap the first corner again, press Enter or Finish footprint to close it.');
  where.textContent = 'Drawing a footprint';
  (await drawing()).start(getMap(), (ring) => {
    chooseFootprint({ type: 'Polygon', coordinates: [ring] }, `The footprint drawn (${ring.length - 1} corners)`, where);
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
  const input = ev.target as HTMLInputElement;
  const file = input.files?.[0];
  if (!file) return;
  await busy([input], null, async () => {
    try {
      // GeoJSON is read here; a zipped shapefile (and the other formats) by the server,
      // through the same opening its uploads use, which answers the footprint in CRS84.
      const poly = /\.(geo)?json$/i.test(file.name) ? firstPolygon(JSON.parse(await file.text())) : (await serverFootprint(file)).geometry;
      chooseFootprint(poly, `Footprint from ${file.name}`, where);
      ctx.say('');
    } catch (e) {
      ctx.say(`${file.name}: ${(e as Error).message}`, true);
    }
  });
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
  const button = f.querySelector<HTMLButtonElement>('#determine');
  await busy([button, ...out.querySelectorAll<HTMLSelectElement>('#open-facts select')], out, () => ask(f, out, ctx));
}

async function ask(f: HTMLFormElement, out: HTMLElement, ctx: Ctx): Promise<void> {
  f.querySelectorAll('.field-error, .form-error').forEach((p) => (p.textContent = ''));
  if (!place) {
    (f.querySelector('.form-error') as HTMLElement).textContent = 'Choose a place first: pick a parcel, draw or upload a footprint.';
    return;
  }
  const values = readFacts(f);
  const body = determinationRequest(place, values);
  // The request as sent, for whoever checks the page against the API (a script, a test).
  out.dataset.request = JSON.stringify(body);
  try {
    const [a, fc] = await Promise.all([
      post('/api/determinations', { json: body }),
      postGeoJson('/api/determinations', { json: body }),
    ]);
    const replyAt = performance.now();
    for (const g of fc.features) g.properties.role = roleOf(g.properties);
    if ('footprint' in place) fc.features.push({ type: 'Feature', geometry: place.footprint as Feature['geometry'], properties: { role: 'footprint', id: 'footprint' } });
    // The map's worker takes the answer first; the panel's first lines are written while
    // it cuts tiles, and the long rest (every finding's reasons, the evidence) once the map
    // has drawn, so that frame does not also lay out hundreds of lines.
    const onMap = showAnswer(fc, false);
    const parts = answerView(a, values, (name, value) => answerInPlace(f, out, ctx, name, value));
    const first = parts.findIndex((p) => p.id === 'open-facts') + 1;
    out.replaceChildren(...parts.slice(0, first));
    await onMap;
    markDrawn('determination', replyAt);
    out.append(...parts.slice(first));
    // The project framed (the evidence may reach far beyond it: a watershed, a water).
    const project = fc.features.filter((g) => g.properties.role === 'footprint');
    fitTo(project.length ? { type: 'FeatureCollection', features: project } : placeShape ?? fc, FRAME_ZOOM);
    focusAnswer(document.getElementById('answer-heading')!);
    // The printed map made ready once the framed map is drawn (Ctrl+P prints it too).
    void preparePrint(false).catch(() => {});
  } catch (e) {
    const msg = (e as Error).message;
    const field = e instanceof ApiError ? e.field : null;
    const slot = field ? document.getElementById(`fact-${field}-error`) : null;
    if (slot) slot.textContent = msg;
    else (f.querySelector('.form-error') as HTMLElement).textContent = msg;
  }
}

/** An open fact answered beside the answer: the form takes the value, and the
 *  determination is asked again. */
function answerInPlace(f: HTMLFormElement, out: HTMLElement, ctx: Ctx, name: string, value: string): void {
  const field = f.querySelector<HTMLSelectElement>(`#fact-${name}`);
  if (!field) return;
  field.value = value;
  void determine(f, out, ctx);
}

function roleOf(p: Record<string, unknown>): string {
  if (p.layer === 'watersheds' || p.watershed_id) return 'watershed';
  if (p.layer === 'tmdl_areas' || p.tmdl_id) return 'tmdl';
  if (p.layer === 'receiving_waters' || p.water_id) return 'water';
  // The parcel asked about is the project.
  if (p.layer === 'parcels') return 'footprint';
  return 'trace';
}

const LAYER_WORD: Record<string, string> = { receiving_waters: 'receiving water', tmdl_areas: 'TMDL area', watersheds: 'watershed', parcels: 'parcel', outfalls: 'outfall', pipes: 'pipe', catch_basins: 'catch basin', manholes: 'manhole', connections: 'connection', smps: 'SMP', easements: 'easement', structures: 'structure' };

const number = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 2 : 0 });

/** A piece of a finding's evidence as a sentence. */
export function evidenceText(e: any): string {
  switch (e?.kind) {
    case 'feature':
      return `${LAYER_WORD[e.layer] ?? String(e.layer).replace(/_/g, ' ')} ${e.id}${e.note ? `: ${e.note}` : ''}`;
    case 'measure':
      return `${String(e.what).replace(/_/g, ' ')}${e.of ? ` of ${e.of}` : ''}: ${number(Number(e.value))} ${e.unit}`;
    case 'trace':
      return `traced: ${(e.path ?? []).join(' → ')}`;
    case 'fact':
      return String(e.text);
    default:
      return Object.entries(e ?? {}).map(([k, v]) => `${k.replace(/_/g, ' ')}: ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('; ');
  }
}

function finding(title: string, f: any, word = resultWord(f?.result?.status ?? f?.result)): HTMLElement {
  return h('section', { class: 'finding', 'data-result': word },
    h('h3', {}, `${title}: `, h('span', { class: 'badge', text: word })),
    f?.result?.summary ? h('p', { text: f.result.summary }) : null,
    list('Reasons', f?.reasons ?? [], (r: string) => r),
    list('Citations', f?.citations ?? [], (c: any) => `${c.citation} — ${c.title}`),
    list('Assumptions', f?.assumptions ?? [], (a: any) => `${a.id}: ${a.text}`),
    list('Evidence', f?.evidence ?? [], evidenceText),
  );
}

function list<T>(title: string, items: T[], text: (t: T) => string): HTMLElement | null {
  if (!items.length) return null;
  return h('div', {}, h('h4', { text: title }), h('ul', {}, ...items.map((i) => h('li', { text: text(i) }))));
}

/** The findings in the order the page shows them, each with its title and result word. */
function findings(d: any): [title: string, f: any, word: string][] {
  const out: [string, any, string][] = [];
  const add = (t: string, f: any, w = resultWord(f?.result?.status ?? f?.result)) => out.push([t, f, w]);
  add('Land development activity', d.land_development_activity);
  add('Exempt', d.exempt);
  if (d.conditions && typeof d.conditions === 'object') {
    for (const [k, v] of Object.entries(d.conditions)) add(`Condition ${k.replace(/^condition_/, '').replace(/_/g, ' ')}`, v);
  }
  // The law has no Conditions: the finding says so, it does not answer "yes".
  if (d.conditions_absent) add('Conditions One, Two and Three', d.conditions_absent, d.conditions_absent.result === true ? 'not in this law' : resultWord(d.conditions_absent.result));
  for (const r of d.requirements ?? []) add(`Requirement: ${String(r.result?.kind ?? '').replace(/_/g, ' ')}`, r);
  return out;
}

/** The open facts: each the form's fact is answerable here (yes, no), which asks again. */
function openFactsView(open: OpenFact[], answer: ((name: string, value: string) => void) | null): HTMLElement {
  const item = (o: OpenFact) => {
    if (!o.fact) return h('li', { text: o.text });
    const id = `open-${o.fact.name}`;
    const sel = triSelect(id, o.fact.name);
    if (answer) sel.addEventListener('change', () => sel.value && answer(o.fact!.name, sel.value));
    else sel.disabled = true;
    return h('li', { 'data-fact': o.fact.name }, h('label', { for: id, text: o.text }), ' ', sel);
  };
  const turned = open.filter((o) => o.fromAnswer);
  const rest = open.filter((o) => !o.fromAnswer);
  return h('section', { id: 'open-facts' },
    h('h3', { text: 'Facts left open' }),
    turned.length ? h('div', {}, h('h4', { text: 'The answer turns on' }), h('ul', { id: 'open-facts-answer' }, ...turned.map(item))) : h('p', { text: 'The answer turns on no open fact.' }),
    rest.length ? h('div', {}, h('h4', { text: 'Also not given' }), h('ul', { id: 'open-facts-form' }, ...rest.map(item))) : null,
  );
}

/** The evidence of the places: watersheds, waters, TMDL areas and traces, in tables. */
function evidenceView(rw: any): HTMLElement {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const t = <T>(caption: string, rows: T[] | undefined, cols: [string, (r: T) => string][]) => (rows?.length ? table(caption, rows, cols) : null);
  return h('section', { id: 'evidence' },
    h('h3', { text: 'Evidence' }),
    t('Watersheds overlapped', rw.by_watershed, [['Watershed', (w: any) => `${w.name ?? w.watershed_id} (${w.watershed_id})`], ['Share of the project', (w: any) => pct(w.share)], ['Drains to', (w: any) => w.drains_to ?? 'not recorded'], ['Counted', (w: any) => (w.counted === false ? 'no: a sliver, for review' : 'yes')]]),
    t('303(d) waters and their pollutants', rw.listed, [['Water', (w: any) => `${w.name ?? w.water_id} (${w.water_id})`], ['Class', (w: any) => w.classification ?? 'not recorded'], ['Pollutants', (w: any) => (w.pollutants ?? []).join(', ')], ['Reached', (w: any) => (w.reached_by ?? []).join('; ')]]),
    t('TMDL areas', rw.tmdl_areas, [['TMDL', (x: any) => x.tmdl_id], ['Pollutant', (x: any) => x.pollutant ?? 'not recorded'], ['Stormwater a source', (x: any) => (x.stormwater_source === true ? 'yes' : x.stormwater_source === false ? 'no' : 'not recorded')], ['Reached', (x: any) => x.reached_by ?? 'overlaps the project']]),
    t('Through the drainage network', rw.by_network, [['From', (n: any) => n.from], ['Path', (n: any) => (n.path ?? []).join(' → ')], ['Outfall', (n: any) => n.outfall], ['Water', (n: any) => (n.water_id ? `${n.water_id} (${String(n.water_found_by ?? '').replace(/_/g, ' ')})` : 'none found')]]),
    list('Traces that reached no outfall', rw.unresolved ?? [], (x: string) => x),
    list('For a reviewer', rw.review ?? [], (x: string) => x),
    list('How the evidence was read', [...(rw.notes ?? []), ...(rw.list_cycle ? [`303(d) list cycle ${rw.list_cycle}`] : [])], (x: string) => x),
  );
}

/** The determination as the page shows it (and prints it): a line per finding first,
 *  the open facts, the facts entered and the framed map (printed), then each finding's
 *  reasons and the evidence. */
export function answerView(a: any, values: FactValues = {}, answer: ((name: string, value: string) => void) | null = null): HTMLElement[] {
  const d = a.determination;
  const rw = a.receiving_waters ?? {};
  const where = a.parcel ? `parcel ${a.parcel}` : 'the footprint';
  const all = findings(d);
  const summary = all.slice(0, 3).map(([t, , w]) => `${t}: ${w}`).join('. ');
  const parts: HTMLElement[] = [
    h('h2', { class: 'print-only', text: `Determination — ${d.jurisdiction}, ${where}, ${new Date().toLocaleDateString()}` }),
    h('h3', { id: 'answer-heading', tabindex: '-1', text: `Determination for ${where}` }),
    h('p', { id: 'answer-summary', role: 'status', text: `${summary}.` }),
    table('Findings', all, [['Finding', ([t]) => t], ['Result', ([, , w]) => h('span', { class: 'badge', text: w })], ['In short', ([, f]) => f?.result?.summary ?? (f?.reasons ?? [])[0] ?? '']]),
    openFactsView(openFacts(d.open_facts ?? [], values), answer),
    h('section', { id: 'facts-entered', class: 'print-only' },
      table('Facts entered', [['Place', a.parcel ? `Parcel ${a.parcel}` : 'a footprint (drawn or uploaded)'] as [string, string], ...factsGiven(values)], [['Fact', (x) => x[0]], ['Given', (x) => x[1]]]),
    ),
    h('figure', { id: 'print-map', class: 'print-only' }),
    ...all.map(([t, f, w]) => finding(t, f, w)),
    evidenceView(rw),
    h('button', { type: 'button', id: 'print', class: 'no-print', onclick: (ev: Event) => void printForFile(ev.currentTarget as HTMLButtonElement) }, 'Print for the file'),
  ];
  return parts;
}

/** A round length for a scale bar of at most `max` feet: 1, 2 or 5 times a power of ten. */
export function niceFeet(max: number): number {
  const p = 10 ** Math.floor(Math.log10(max));
  return [5, 2, 1].map((m) => m * p).find((x) => x <= max) ?? p;
}

/** The printed map: the project framed, as a picture, with the legend, a scale bar and a
 *  north arrow (the live map is a WebGL canvas, which does not print). */
async function preparePrint(frame: boolean): Promise<void> {
  const fig = document.getElementById('print-map');
  if (!fig) return;
  if (frame && placeShape) fitTo(placeShape, FRAME_ZOOM);
  const shot = await snapshot();
  const ftPerPx = shot.metresPerPixel / 0.3048;
  const feet = niceFeet(ftPerPx * shot.width * 0.25);
  const bar = h('span', { class: 'scale-bar' });
  bar.style.width = `${(feet / ftPerPx / shot.width) * 100}%`;
  const arrow = h('span', { class: 'north-arrow', 'aria-label': 'North', text: '↑ N' });
  arrow.style.transform = `rotate(${-shot.bearing}deg)`;
  const legend = document.getElementById('legend')?.cloneNode(true) as HTMLElement | undefined;
  if (legend) {
    legend.removeAttribute('id');
    legend.querySelectorAll('[id]').forEach((x) => x.removeAttribute('id'));
    legend.setAttribute('open', '');
    legend.querySelectorAll('details').forEach((x) => x.setAttribute('open', ''));
    legend.className = 'legend print-legend';
  }
  fig.replaceChildren(
    // The scale bar inside the picture's frame: its width is a share of the picture's.
    h('div', { class: 'print-frame' },
      h('img', { src: shot.url, alt: 'The map framed on the project' }),
      arrow,
      h('div', { class: 'scale' }, bar, h('span', { class: 'scale-text', text: `${feet.toLocaleString('en-US')} ft` })),
    ),
    legend ?? '',
    h('figcaption', { text: 'The project (black outline) and the places the determination names; the legend says what each colour is.' }),
  );
  fig.dataset.ready = 'true';
}

async function printForFile(button: HTMLButtonElement): Promise<void> {
  await busy([button], null, () => preparePrint(true));
  window.print();
}
