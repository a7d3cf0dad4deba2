// The upstream trace as the officer reads it: the network's pipes and structures traced,
// and the candidate connections coloured by their own finding. A source and layers of
// its own (not the shared answer overlay), so a test or a later answer can find the
// trace's features by these layer ids; added again whenever the style is reloaded.
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import { EMPTY, fitTo, getMap, showAnswer, type FC } from './map';

const SOURCE = 'officer-trace';
/** The trace's layers: pipes, structures, and the candidates (lines and points). */
export const TRACE_LAYERS = ['officer-trace-pipes', 'officer-trace-structures', 'officer-trace-candidates', 'officer-trace-candidate-points'];

/** A candidate's colour by its finding; each finding is also written in the panel. */
const FINDING_COLOUR: any = ['match', ['get', 'finding'], 'illicit', '#d7191c', 'needs_review', '#fdae61', 'ok', '#1a9641', 'not_covered', '#636363', '#e7298a'];

let data: FC = EMPTY;
let watching: MlMap | null = null;

function addLayers(map: MlMap): void {
  if (map.getSource(SOURCE)) return;
  map.addSource(SOURCE, { type: 'geojson', data: data as any });
  const kind = (k: string) => ['==', ['get', 'kind'], k] as any;
  map.addLayer({ id: 'officer-trace-pipes', type: 'line', source: SOURCE, filter: kind('pipe'), paint: { 'line-color': '#d95f02', 'line-width': 5 } });
  map.addLayer({ id: 'officer-trace-structures', type: 'circle', source: SOURCE, filter: kind('structure'), paint: { 'circle-color': '#ffffff', 'circle-radius': 5, 'circle-stroke-color': '#d95f02', 'circle-stroke-width': 3 } });
  map.addLayer({ id: 'officer-trace-candidates', type: 'line', source: SOURCE, filter: ['all', kind('candidate'), ['!=', ['geometry-type'], 'Point']] as any, paint: { 'line-color': FINDING_COLOUR, 'line-width': 6 } });
  map.addLayer({ id: 'officer-trace-candidate-points', type: 'circle', source: SOURCE, filter: ['all', kind('candidate'), ['==', ['geometry-type'], 'Point']] as any, paint: { 'circle-color': FINDING_COLOUR, 'circle-radius': 8, 'circle-stroke-color': '#000', 'circle-stroke-width': 1 } });
}

/** The map with the trace's layers on it (added now, and again after a style reload). */
function ready(): Promise<MlMap> {
  const map = getMap();
  if (watching !== map) {
    watching = map;
    map.on('style.load', () => addLayers(map));
  }
  if (map.isStyleLoaded()) {
    addLayers(map);
    return Promise.resolve(map);
  }
  return new Promise((resolve) => map.once('idle', () => (addLayers(map), resolve(map))));
}

/** Draws the trace (the shared answer overlay cleared), frames the map on it, and
 *  resolves when the map is idle with it drawn. */
export async function showTrace(fc: FC): Promise<void> {
  const map = await ready();
  data = fc;
  await showAnswer(EMPTY, false);
  await (map.getSource(SOURCE) as GeoJSONSource).setData(fc as any);
  if (fc.features.length) fitTo(fc);
  await new Promise<void>((resolve) => {
    map.once('idle', () => resolve());
    map.triggerRepaint();
  });
}

/** Takes the trace off the map (another answer is being shown). */
export async function clearTrace(): Promise<void> {
  if (!data.features.length) return;
  data = EMPTY;
  const map = await ready();
  await (map.getSource(SOURCE) as GeoJSONSource).setData(EMPTY as any);
}
