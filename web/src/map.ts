// The map: MapLibre drawing the service's own style (/styles/ms4.json) and tiles, with an
// "answer" overlay for whatever the page was last told (nearby facilities, a
// determination's evidence, a trace) and a "draft" overlay for a footprint being drawn.
import * as maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import { authHeaders } from './api';

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
 *  the panel, so colour is never the only sign. */
const ROLE_COLOUR: any = [
  'match', ['get', 'role'],
  'footprint', '#000000',
  'watershed', '#3182bd',
  'tmdl', '#e6550d',
  'water', '#8856a7',
  'trace', '#d95f02',
  'illicit', '#d7191c',
  'needs_review', '#fdae61',
  'ok', '#1a9641',
  'parcel', '#636363',
  '#e7298a',
];

/** The map, opened on the registry's extent (the TileJSON's bounds). */
export function createMap(container: string, bounds?: [number, number, number, number]): maplibregl.Map {
  map = new maplibregl.Map({
    container,
    ...(bounds ? { bounds, fitBoundsOptions: { padding: 10 } } : {}),
    style: '/styles/ms4.json',
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
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: true }), 'top-right');
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
  map.addLayer({ id: 'answer-fill', type: 'fill', source: 'answer', filter: poly, paint: { 'fill-color': ROLE_COLOUR, 'fill-opacity': 0.25 } });
  map.addLayer({ id: 'answer-outline', type: 'line', source: 'answer', filter: poly, paint: { 'line-color': ROLE_COLOUR, 'line-width': 2.5 } });
  map.addLayer({ id: 'answer-line', type: 'line', source: 'answer', filter: line, paint: { 'line-color': ROLE_COLOUR, 'line-width': 4 } });
  map.addLayer({ id: 'answer-point', type: 'circle', source: 'answer', filter: point, paint: { 'circle-color': ROLE_COLOUR, 'circle-radius': 8, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 } });
  map.addLayer({ id: 'draft-fill', type: 'fill', source: 'draft', filter: poly, paint: { 'fill-color': '#000', 'fill-opacity': 0.15 } });
  map.addLayer({ id: 'draft-line', type: 'line', source: 'draft', paint: { 'line-color': '#000', 'line-width': 2, 'line-dasharray': [2, 1] } });
  map.addLayer({ id: 'draft-point', type: 'circle', source: 'draft', filter: point, paint: { 'circle-color': '#000', 'circle-radius': 5 } });
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
  (map.getSource('draft') as maplibregl.GeoJSONSource | undefined)?.setData(fc as any);
}

/** Resolves when the map is idle again (everything asked for is drawn). */
export function drawn(): Promise<void> {
  return new Promise((resolve) => {
    map.once('idle', () => resolve());
    map.triggerRepaint();
  });
}

export function fitTo(fc: FC): void {
  let b: maplibregl.LngLatBounds | null = null;
  const visit = (c: any) => {
    if (typeof c[0] === 'number') {
      b = b ? b.extend(c as [number, number]) : new maplibregl.LngLatBounds(c, c);
    } else c.forEach(visit);
  };
  for (const f of fc.features) if (f.geometry) visit(f.geometry.coordinates);
  if (b) map.fitBounds(b, { padding: 40, maxZoom: 18, duration: 0 });
}

/** Reloads the style: its TileJSON names the current tile generation, so new data shows
 *  at once after an import. */
export function reloadTiles(): Promise<void> {
  const center = map.getCenter();
  const zoom = map.getZoom();
  map.setStyle('/styles/ms4.json', { diff: false });
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
