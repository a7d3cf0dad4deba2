// Small plane-and-sphere helpers the views share.

/** The eight compass points, for a bearing in degrees clockwise from north. */
export function compass(bearingDeg: number): string {
  const pts = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
  const i = Math.round((((bearingDeg % 360) + 360) % 360) / 45) % 8;
  return pts[i];
}

/** A distance in the registry's unit, shown with a sensible precision. */
export function formatDistance(d: number, unit: string): string {
  const u = unit === 'ftUS' || unit === 'ft' ? 'ft' : unit;
  if (u === 'ft' && d >= 5280) return `${(d / 5280).toFixed(2)} mi`;
  if (u === 'm' && d >= 1000) return `${(d / 1000).toFixed(2)} km`;
  return `${Math.round(d)} ${u}`;
}

/** The first Polygon or MultiPolygon in a GeoJSON object (a geometry, a Feature or a
 *  FeatureCollection), or an error naming what was found instead. */
export function firstPolygon(gj: any): { type: 'Polygon' | 'MultiPolygon'; coordinates: any } {
  const walk = (g: any): any => {
    if (!g || typeof g !== 'object') return null;
    if (g.type === 'Polygon' || g.type === 'MultiPolygon') return { type: g.type, coordinates: g.coordinates };
    if (g.type === 'Feature') return walk(g.geometry);
    if (g.type === 'FeatureCollection') {
      for (const f of g.features ?? []) {
        const p = walk(f);
        if (p) return p;
      }
    }
    return null;
  };
  const p = walk(gj);
  if (!p) throw new Error('the file holds no Polygon or MultiPolygon');
  return p;
}

/** A closed ring from clicked points (at least three). */
export function ringOf(points: [number, number][]): [number, number][] {
  if (points.length < 3) throw new Error('a footprint needs at least three points');
  return [...points, points[0]];
}
