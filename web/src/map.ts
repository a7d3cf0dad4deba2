// The map: MapLibre drawing the service's own style (/styles/ms4.json) and tiles, with an
// "answer" overlay for whatever the page was last told (nearby facilities, a
// determination's evidence, a trace) and a "draft" overlay for a footprint being drawn.
import * as maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import { at, authHeaders, get } from './api';

export type FC = { type: 'FeatureCollection'; features: any[] };
export const EMPTY: FC = { type: 'FeatureCollection', features: [] };

let map: maplibregl.Map;
let answer: FC = EMPTY;
/** The tile URLs the map has asked for (at most a few hundred), so the page can fetch
 *  them once more through the service worker the first visit did not yet have. */
const tilesAsked = new Set<string>();
const TILES_REMEMBERED = 400;
let firstIdle: Promise<void> = new Promise(() => {});
let draft: FC = EMPTY;

/** Answer features are coloured by `role` (a word the page sets: near, trace, water,
 *  watershed, tmdl, footprint, connection...), and every role also has a text label in
 *  the panel and in the legend, so colour is never the only sign. */
export const ROLES: Record<string, { colour: string; label: string }> = {
  footprint: { colour: '#000000', label: 'the project (parcel or footprint)' },
  parcel: { colour: '#636363', label: 'parcel' },
  watershed: { colour: '#3182bd', label: 'watershed overlapped' },
  tmdl: { colour: '#e6550d', label: 'TMDL area' },
  water: { colour: '#8856a7', label: 'receiving water' },
  trace: { colour: '#d95f02', label: 'traced path' },
  illicit: { colour: '#d7191c', label: 'illicit' },
  needs_review: { colour: '#fdae61', label: 'needs review' },
  ok: { colour: '#1a9641', label: 'ok' },
  near: { colour: '#e7298a', label: 'nearby asset' },
  loaded: { colour: '#e7298a', label: 'features loaded' },
  rejected: { colour: '#252525', label: 'features rejected (not loaded)' },
  extent: { colour: '#7570b3', label: 'where the import writes (the box of its features)' },
  selected: { colour: '#00bcd4', label: 'selected' },
};
/** Where a view gives a role other words (the inspector's "footprint" is the user). */
const VIEW_LABELS: Record<string, Record<string, string>> = { inspector: { footprint: 'where you are' } };
const OTHER_ROLE = '#e7298a';

const ROLE_COLOUR: any = ['match', ['get', 'role'], ...Object.entries(ROLES).flatMap(([r, { colour }]) => [r, colour]), OTHER_ROLE];

/** The registry's own layers as the style draws them (`/styles/ms4.json`): a swatch and
 *  words for each colour the style gives a meaning. */
const BASE_LEGEND: [kind: 'fill' | 'line' | 'dash' | 'point' | 'ring', colour: string, label: string][] = [
  ['line', '#444444', 'town boundary'],
  ['dash', '#3182bd', 'watershed'],
  ['fill', '#e6550d', 'TMDL area, stormwater a source'],
  ['fill', '#fdae6b', 'TMDL area'],
  ['fill', '#8856a7', 'receiving water, 303(d) listed'],
  ['fill', '#6baed6', 'receiving water'],
  ['fill', '#f0f0f0', 'parcel (commercial red, industrial violet)'],
  ['line', '#2171b5', 'pipe (culvert grey, ditch or swale green)'],
  ['dash', '#31a354', 'easement'],
  ['point', '#d7191c', 'SMP without an easement, illicit connection'],
  ['point', '#fdae61', 'needs review'],
  ['point', '#1a9641', 'SMP easement covered, connection ok, outfall screened'],
  ['point', '#2b83ba', 'catch basin, town-owned SMP'],
  ['ring', '#2b83ba', 'manhole (red ring: inspection overdue)'],
  ['ring', '#555555', 'other structure'],
  ['point', '#a50f15', 'outfall with sewage indicators'],
  ['ring', '#b2182b', 'monitoring location, high priority (thick ring: interconnection)'],
  ['ring', '#ef8a62', 'monitoring location, medium priority'],
  ['ring', '#4393c3', 'monitoring location, low priority'],
  ['dash', '#b2182b', 'sewershed (coloured as its location\'s priority)'],
];

let legendAnswer: HTMLElement | null = null;
/** The roles drawn now, each with the kind of swatch its geometry takes. */
let legendRoles: [string, string][] = [];

function swatch(kind: string, colour: string): HTMLElement {
  const s = document.createElement('span');
  s.className = `swatch swatch-${kind}`;
  s.style.setProperty('--c', colour);
  s.setAttribute('aria-hidden', 'true');
  return s;
}

function legendItem(kind: string, colour: string, label: string, role?: string): HTMLLIElement {
  const li = document.createElement('li');
  if (role) li.dataset.role = role;
  li.append(swatch(kind, colour), document.createTextNode(label));
  return li;
}

/** The legend: what this view's answer draws (filled in as answers come), then the
 *  registry's layers. Open on a wide screen, a tap away on a phone; always printed. */
function legendControl(): maplibregl.IControl {
  const box = document.createElement('details');
  box.id = 'legend';
  box.className = 'maplibregl-ctrl legend';
  box.open = matchMedia('(min-width: 900px)').matches;
  const summary = document.createElement('summary');
  summary.textContent = 'Legend';
  const answerList = document.createElement('ul');
  answerList.id = 'legend-answer';
  answerList.setAttribute('aria-label', 'This view\'s answer');
  const base = document.createElement('ul');
  base.id = 'legend-base';
  base.append(...BASE_LEGEND.map(([k, c, l]) => legendItem(k, c, l)));
  // The registry's layers a tap away, so the legend of the answer leaves the map in view.
  const layers = document.createElement('details');
  layers.className = 'legend-layers';
  const layersTitle = document.createElement('summary');
  layersTitle.textContent = 'The registry\'s layers';
  layers.append(layersTitle, base);
  box.append(summary, answerList, layers);
  legendAnswer = answerList;
  drawLegendAnswer();
  return { onAdd: () => box, onRemove: () => box.remove() };
}

function drawLegendAnswer(): void {
  if (!legendAnswer) return;
  const view = document.body.dataset.view ?? '';
  legendAnswer.replaceChildren(...legendRoles.map(([r, kind]) => legendItem(kind, ROLES[r]?.colour ?? OTHER_ROLE, VIEW_LABELS[view]?.[r] ?? ROLES[r]?.label ?? r.replace(/_/g, ' '), r)));
  legendAnswer.hidden = legendRoles.length === 0;
}

const SWATCH: Record<string, string> = { Polygon: 'fill', MultiPolygon: 'fill', LineString: 'line', MultiLineString: 'line' };

/** Sets the answer part of the legend to the roles drawn now (and the draft's). */
function legendFor(fc: FC, extra: [string, string][] = []): void {
  const roles = new Map<string, string>(extra);
  for (const f of fc.features) {
    const r = String(f.properties?.role ?? 'other');
    if (!roles.has(r)) roles.set(r, SWATCH[f.geometry?.type] ?? 'point');
  }
  legendRoles = [...roles];
  drawLegendAnswer();
}

/** The style and the TileJSON its tiles come from, as the first draw is given them (the
 *  mapping layers' own TileJSONs beside the registry's). */
export type FirstStyle = { style: maplibregl.StyleSpecification | null; tileJson: TileJson | null; own?: Record<string, TileJson | null> };
/** TileJSON 3.0 as the service writes it (the API's definition names no schema for it). */
type TileJson = { tiles: string[]; minzoom?: number; maxzoom?: number; bounds?: [number, number, number, number]; attribution?: string };

/** The layers with tiles of their own (derived after each write, so kept out of the
 *  registry's tile): each is a source of the style, named as the layer. */
const OWN_TILES = ['monitoring_locations', 'sewersheds'];

/** Asks for the style and its TileJSONs side by side (the map would ask for each
 *  TileJSON only once the style is read), each falling back to the map's own request. */
export function firstStyle(): Promise<FirstStyle> {
  const tileJson = (p: Promise<unknown>) => (p as Promise<TileJson | null>).catch(() => null);
  return Promise.all([
    (get('/styles/ms4.json') as Promise<maplibregl.StyleSpecification | null>).catch(() => null),
    tileJson(get('/tiles.json')),
    Promise.all(OWN_TILES.map((layer) => tileJson(get('/tiles/{layer}.json', { path: { layer } })))),
  ]).then(([style, tileJson, own]) => ({ style, tileJson, own: Object.fromEntries(OWN_TILES.map((l, i) => [l, own[i]])) }));
}

/** A vector source with its tiles written out from its TileJSON; none when either is missing. */
function inlined(source: any, tj: TileJson | null | undefined): any {
  if (source?.type !== 'vector' || !tj?.tiles?.length) return null;
  const { tiles, minzoom, maxzoom, bounds, attribution } = tj;
  return { type: 'vector', tiles, minzoom, maxzoom, bounds, attribution };
}

/** The style with its tile sources written out from the TileJSONs, so the map starts
 *  asking for tiles as soon as it is made; the style's URL when the registry's is missing. */
function styleGiven(first: FirstStyle): maplibregl.StyleSpecification | string {
  const { style, tileJson } = first;
  const ms4 = inlined(style?.sources?.ms4, tileJson);
  if (!style || !ms4) return at('/styles/ms4.json');
  const sources: Record<string, any> = { ...style.sources, ms4 };
  for (const l of OWN_TILES) {
    const own = inlined(sources[l], first.own?.[l]);
    if (own) sources[l] = own;
  }
  return { ...style, sources };
}

/** The map, opened on the registry's extent (the TileJSON's bounds). */
export function createMap(container: string, first: FirstStyle): maplibregl.Map {
  const bounds = first.tileJson?.bounds;
  map = new maplibregl.Map({
    container,
    ...(bounds ? { bounds, fitBoundsOptions: { padding: 10 } } : {}),
    style: styleGiven(first),
    attributionControl: false,
    // The token rides on every request to the service (tiles and TileJSON too), so a
    // registry that is not public-read still draws.
    transformRequest: (url: string, kind?: string) => {
      if (!sameOrigin(url)) return { url };
      if (kind === 'Tile' && tilesAsked.size < TILES_REMEMBERED) tilesAsked.add(url);
      return { url, headers: authHeaders() };
    },
    maxTileCacheSize: 2000,
    // No symbol fades: the first draw (and the tests' "idle") need not wait 300 ms more.
    fadeDuration: 0,
    cooperativeGestures: false,
    // The camera in the URL (#zoom/lat/lng): a link reopens the map where it was.
    hash: true,
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: true }), 'top-right');
  map.addControl(new maplibregl.ScaleControl({ unit: 'imperial' }), 'bottom-right');
  map.addControl(legendControl(), 'bottom-left');
  map.on('click', (e: any) => locationPopup(e.point, e.lngLat));
  map.on('style.load', () => {
    // Counted for the tests: a first visit loads the style once, the service worker's
    // arrival must not make the map start over.
    (window as any).__ms4styleLoads = ((window as any).__ms4styleLoads ?? 0) + 1;
    addOverlays();
  });
  // The first complete draw (style, tiles in view, all rendered), from navigation start.
  firstIdle = new Promise((resolve) =>
    map.once('idle', () => {
      (window as any).__ms4firstDraw = performance.now();
      resolve();
    }),
  );
  (window as any).__ms4map = map;
  return map;
}

/** A click on a monitoring location: a popup naming its priority and the reasons the
 *  profile's rule gives (the tiles carry their short form), and the waters it reaches. */
function locationPopup(point: { x: number; y: number }, at: maplibregl.LngLat): void {
  if (!map.getLayer('monitoring-locations')) return;
  const r = 8;
  const box: [[number, number], [number, number]] = [[point.x - r, point.y - r], [point.x + r, point.y + r]];
  const f = map.queryRenderedFeatures(box, { layers: ['monitoring-locations'] })[0];
  if (!f) return;
  const p = f.properties ?? {};
  const words = (v: unknown) => String(v ?? '').replace(/_/g, ' ');
  const line = (text: string, cls: string) => {
    const el = document.createElement('p');
    el.className = cls;
    el.textContent = text;
    return el;
  };
  const card = document.createElement('div');
  card.id = 'location-popup';
  card.dataset.location = String(p.id ?? '');
  card.dataset.priority = String(p.priority ?? '');
  const title = document.createElement('strong');
  title.textContent = `Monitoring location ${p.id ?? ''} (${words(p.kind)})`;
  const facts = [p.class ? `class ${p.class}` : '', p.impaired ? 'impaired (303(d))' : '', p.tmdl ? 'TMDL' : ''].filter(Boolean).join('; ');
  card.append(
    title,
    line(`Priority: ${p.priority ?? 'unknown'}`, 'location-priority'),
    line(`Reasons: ${p.reasons ? words(p.reasons) : 'none of the rule\'s criteria met'}`, 'location-reasons'),
    line(`Discharges to: ${p.receiving_water ?? 'no water found'}${facts ? ` (${facts})` : ''}`, 'location-water'),
  );
  new maplibregl.Popup({ closeButton: true, maxWidth: '320px' }).setLngLat(at).setDOMContent(card).addTo(map);
}

function sameOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

function addOverlays(): void {
  if (map.getSource('answer')) return;
  map.addSource('answer', { type: 'geojson', data: answer as any });
  map.addSource('draft', { type: 'geojson', data: draft as any });
  const poly = ['==', ['geometry-type'], 'Polygon'] as any;
  const line = ['==', ['geometry-type'], 'LineString'] as any;
  const point = ['==', ['geometry-type'], 'Point'] as any;
  // Written as the service's style writes its layers (see `same`): an answer drawn needs
  // no shader the first draw did not compile.
  map.addLayer({ id: 'answer-fill', type: 'fill', source: 'answer', filter: poly, paint: { 'fill-color': ROLE_COLOUR, 'fill-opacity': 0.25 } });
  map.addLayer({ id: 'answer-outline', type: 'line', source: 'answer', filter: poly, paint: { 'line-color': ROLE_COLOUR, 'line-width': sameWidth(2.5) } });
  map.addLayer({ id: 'answer-line', type: 'line', source: 'answer', filter: line, paint: { 'line-color': ROLE_COLOUR, 'line-width': sameWidth(4) } });
  map.addLayer({ id: 'answer-point', type: 'circle', source: 'answer', filter: point, paint: { 'circle-color': ROLE_COLOUR, 'circle-radius': 8, 'circle-stroke-color': same('#ffffff'), 'circle-stroke-width': same(2) } });
  map.addLayer({ id: 'draft-fill', type: 'fill', source: 'draft', filter: poly, paint: { 'fill-color': same('#000000'), 'fill-opacity': 0.15 } });
  map.addLayer({ id: 'draft-line', type: 'line', source: 'draft', paint: { 'line-color': same('#000000'), 'line-width': 2, 'line-dasharray': [2, 1] } });
  map.addLayer({ id: 'draft-point', type: 'circle', source: 'draft', filter: point, paint: { 'circle-color': same('#000000'), 'circle-radius': 5, 'circle-stroke-color': same('#000000'), 'circle-stroke-width': same(0) } });
}

/** A value every feature gets, read per feature, as the service's style writes a
 *  constant (its `NO_PROPERTY`): MapLibre compiles a shader per way a layer binds its
 *  paint, and every layer of a kind then binds it the same way (a colour, a circle's
 *  stroke, a solid line's width per feature), so one shader draws them all. */
function same(v: string | number): any {
  return ['coalesce', ['get', 'ms4:none'], v];
}

/** A solid line's width, read per feature and zoom as the style's are. */
function sameWidth(w: number): any {
  return ['interpolate', ['linear'], ['zoom'], 0, same(w), 24, same(w)];
}

/** Draws an answer; resolves when the map has drawn it, then brings it into view.
 *
 *  The answer is drawn where the map is before the camera moves: the map has one worker,
 *  and a move first would queue the answer's tiles behind every vector tile of the new
 *  view (measured: 0.5-0.9 s on the demo). After the move the drawn answer tiles stand in,
 *  scaled, until the new ones come. */
export async function showAnswer(fc: FC, fit = true): Promise<void> {
  answer = fc;
  // What the map was last told to draw, for a script checking it against the API.
  (window as any).__ms4answer = fc;
  legendFor(fc, draft.features.length ? [['footprint', 'fill']] : []);
  // setData resolves once the worker holds the data and the source has asked for its
  // tiles again, so the next frame with the source loaded has the answer in it.
  await (map.getSource('answer') as maplibregl.GeoJSONSource | undefined)?.setData(fc as any);
  await answerDrawn();
  if (fit && fc.features.length && !inView(fc)) fitTo(fc);
}

/** Whether every position of the answer is already on screen (then the camera stays). */
function inView(fc: FC): boolean {
  const b = map.getBounds();
  let all = true;
  const visit = (c: any) => {
    if (!all) return;
    if (typeof c[0] === 'number') all = b.contains(c as [number, number]);
    else c.forEach(visit);
  };
  for (const f of fc.features) if (f.geometry) visit(f.geometry.coordinates);
  return all;
}

/** Resolves at the first frame rendered with the answer's data in it (the tiles under it
 *  may still be coming after a camera move: the answer is what was asked for). */
function answerDrawn(): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (map.getSource('answer') && map.isSourceLoaded('answer')) {
        map.off('render', check);
        resolve();
      }
    };
    map.on('render', check);
    map.triggerRepaint();
  });
}

export function showDraft(fc: FC): void {
  draft = fc;
  // What the map was last told to draw as the place chosen, for a script checking it.
  (window as any).__ms4draft = fc;
  legendFor(answer, fc.features.length ? [['footprint', 'fill']] : []);
  (map?.getSource('draft') as maplibregl.GeoJSONSource | undefined)?.setData(fc as any);
}

/** Resolves when the map is idle again (everything asked for is drawn). */
export function drawn(): Promise<void> {
  return new Promise((resolve) => {
    map.once('idle', () => resolve());
    map.triggerRepaint();
  });
}

export function fitTo(fc: FC, maxZoom = 18): void {
  let b: maplibregl.LngLatBounds | null = null;
  const visit = (c: any) => {
    if (typeof c[0] === 'number') {
      b = b ? b.extend(c as [number, number]) : new maplibregl.LngLatBounds(c, c);
    } else c.forEach(visit);
  };
  for (const f of fc.features) if (f.geometry) visit(f.geometry.coordinates);
  if (b) map.fitBounds(b, { padding: 40, maxZoom, duration: 0 });
}

/** Reloads the style: its TileJSON names the current tile generation, so new data shows
 *  at once after an import. */
export function reloadTiles(): Promise<void> {
  const center = map.getCenter();
  const zoom = map.getZoom();
  map.setStyle(at('/styles/ms4.json'), { diff: false });
  map.once('style.load', () => {
    map.jumpTo({ center, zoom });
    addOverlays();
    showAnswer(answer, false);
    showDraft(draft);
  });
  return new Promise((r) => map.once('idle', () => r()));
}

/** Resolves after the map's first complete draw. */
export function firstDrawn(): Promise<void> {
  return firstIdle;
}

/** The tile URLs the map has asked for so far. */
export function tileUrlsAsked(): string[] {
  return [...tilesAsked];
}

export function getMap(): maplibregl.Map {
  return map;
}

/** Clears what the last view drew (its answer and its place chosen): the panel that
 *  explained it is gone, and the legend must only name what is on the map. */
export function clearAnswer(): void {
  answer = EMPTY;
  (window as any).__ms4answer = EMPTY;
  (map?.getSource('answer') as maplibregl.GeoJSONSource | undefined)?.setData(EMPTY as any);
  showDraft(EMPTY);
}

/** Redraws the legend's words for the view now shown (a role may read differently). */
export function refreshLegend(): void {
  drawLegendAnswer();
}

/** The map as drawn now, as a picture for print (a live WebGL canvas does not print),
 *  with what a printed map needs beside it: the ground distance of one CSS pixel at the
 *  centre, and the bearing of north. */
export async function snapshot(): Promise<{ url: string; width: number; height: number; metresPerPixel: number; bearing: number }> {
  await drawn();
  return new Promise((resolve) => {
    // Read inside the render event: the drawing buffer is only whole until the frame ends.
    map.once('render', () => {
      const c = map.getCanvas();
      const lat = map.getCenter().lat;
      resolve({
        url: c.toDataURL('image/png'),
        width: c.clientWidth,
        height: c.clientHeight,
        metresPerPixel: (40075016.686 * Math.cos((lat * Math.PI) / 180)) / (512 * 2 ** map.getZoom()),
        bearing: map.getBearing(),
      });
    });
    map.triggerRepaint();
  });
}
