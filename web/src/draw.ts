// Drawing a footprint on the map with terra-draw (through its MapLibre adapter): the
// planner taps the corners; tapping the first corner again, pressing Enter or the page's
// Finish button closes the polygon. The closed polygon is handed back and the drawing
// cleared, so the page shows it like any other footprint (the draft layer).
import { TerraDraw, TerraDrawPolygonMode, TerraDrawRenderMode } from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import type { Map as MlMap } from 'maplibre-gl';

export type Ring = [number, number][];

let draw: TerraDraw | null = null;
let onClosed: ((ring: Ring) => void) | null = null;

function instance(map: MlMap): TerraDraw {
  if (draw) return draw;
  const d = new TerraDraw({
    adapter: new TerraDrawMapLibreGLAdapter({ map }),
    modes: [
      new TerraDrawPolygonMode({
        // Corners are taps, not drags: a finger on a phone moves a little while it taps.
        pointerDistance: 30,
        styles: { fillColor: '#d9480f', fillOpacity: 0.2, outlineColor: '#d9480f', outlineWidth: 2, closingPointColor: '#ffffff', closingPointOutlineColor: '#d9480f' },
      }),
      // Idle: nothing is drawn or listened for until the next footprint.
      new TerraDrawRenderMode({ modeName: 'idle', styles: {} }),
    ],
  });
  d.on('finish', (id) => {
    const f = d.getSnapshotFeature(id);
    const done = onClosed;
    stop();
    if (f?.geometry.type === 'Polygon' && done) done(f.geometry.coordinates[0] as Ring);
  });
  d.start();
  draw = d;
  return d;
}

/** Starts a new footprint; `closed` gets its ring (closed, first corner repeated). */
export function start(map: MlMap, closed: (ring: Ring) => void): void {
  const d = instance(map);
  d.clear();
  onClosed = closed;
  d.setMode('polygon');
}

/** Closes the footprint being drawn, as Enter does; false when none is being drawn. */
export function finish(map: MlMap): boolean {
  if (!draw || !onClosed || draw.getMode() !== 'polygon') return false;
  // terra-draw listens for its finish key on the map's canvas.
  map.getCanvas().dispatchEvent(new KeyboardEvent('keyup', { key: 'Enter', bubbles: true }));
  return true;
}

/** Whether a footprint is being drawn (started, not yet closed or stopped). */
export function drawingNow(): boolean {
  return onClosed !== null;
}

/** Stops drawing and clears what was drawn. */
export function stop(): void {
  onClosed = null;
  if (!draw) return;
  draw.clear();
  draw.setMode('idle');
}
